@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// Random keys, pastes, resizes (down to 1×1) and clock jumps against the demo database: the
/// editor never crashes, the file stays sound, and a model of what was saved holds: whenever
/// the status bar says "saved", the form's record is on disk as the form holds it, and no row
/// changes on disk unless a save of the editor named it.
@Suite("Monkey", .timeLimit(.minutes(Fuzz.scaled(10))))
struct MonkeyTests {
    static let keys: [KeyEvent] = {
        var keys = KeyMaps.all.flatMap { $0.map.bindings.flatMap(\.keys) }
        keys += "abcxyz019 .-'é漢👍".map { KeyEvent(.character($0)) }
        keys += [KeyEvent(.escape), KeyEvent(.enter), KeyEvent(.tab), KeyEvent(.backspace), .char("s"), .char("d"), .char("c"),
                 .char("y"), .char("n"), .control("x"), .alt("x"), KeyEvent(.function(5))]
        // Quitting ends a round; keep it rare so the rounds are long.
        return keys.filter { $0 != .control("q") && $0 != .char("q") }
    }()

    @Test func tenThousandRandomKeysNeverCrash() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        // Ctrl-O runs a real "editor" that changes the text (never one that waits for input).
        let options = CardfileApp.Options(autosave: .seconds(1), editor: "sed -i s/a/A/")
        let harness = try AppHarness(options: options, demoRows: 300)
        var app = harness.app
        let total = Fuzz.scaled(10_000)
        var restarts = 0
        var model = try DiskModel(path: harness.path)
        let events = Locked<[ContextDidSave]>([])
        let delivery = DispatchQueue(label: "monkey.saves")
        let observation = harness.container.observeSaves(on: delivery) { event in events.withLock { $0.append(event) } }
        defer { observation.cancel() }
        var savedChecks = 0
        for step in 0..<total {
            switch random.next(below: 100) {
            case 0..<3:
                let sizes = [Size(width: 1, height: 1), Size(width: 10, height: 4), Size(width: 40, height: 12), Size(width: 80, height: 24),
                             Size(width: 200, height: 60), Size(width: 0, height: 0), Size(width: 3, height: 30)]
                harness.backend.resize(to: sizes[random.next(below: sizes.count)])
            case 3..<5:
                harness.clock.advance(.milliseconds(Int64(random.next(below: 3000))))
            case 5:
                harness.backend.enqueue([.paste(["pasted", "two\nlines", "\u{1B}[31mred", "   "][random.next(below: 4)])])
            case 7, 8:
                // Clicks, double clicks, drags and the wheel anywhere, also off the screen.
                let kinds: [MouseEvent.Kind] = [.press(button: 1), .press(button: 1), .release, .press(button: 3), .drag(button: 1), .wheelUp, .wheelDown]
                let point = Point(x: random.next(below: 220) - 10, y: random.next(below: 70) - 5)
                let event = Event.mouse(MouseEvent(kind: kinds[random.next(below: kinds.count)], position: point))
                harness.backend.enqueue(random.next(below: 4) == 0 ? [event, event] : [event])
            case 6 where random.next(below: 20) == 0:
                harness.backend.enqueue([.key(.control("q"))])
            default:
                harness.backend.enqueue([.key(Self.keys[random.next(below: Self.keys.count)])])
            }
            try AppLoop.run(app, backend: harness.backend, inbox: harness.inbox, clock: harness.clock, untilIdle: true)
            if !app.isRunning {
                restarts += 1
                var again = options
                again.workingFolder = harness.directory.path
                app = try CardfileApp(container: harness.container, options: again,
                                      size: harness.backend.size, clock: harness.clock, inbox: harness.inbox)
            }
            let replay = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), step \(step)"
            for form in app.screens.forms {
                // The status bar's "modified" is noted, not asked of the store each frame: it
                // must never disagree with the store.
                #expect(form.session.isModified == form.session.hasPersistentChanges, "\(replay): \(form.title) noted as modified \(form.session.isModified)")
            }
            if let form = app.form, let id = form.session.id, !id.isTemporary, app.saveState().hasPrefix("saved ") {
                // The status bar says saved: the record is on disk exactly as the form holds it.
                savedChecks += 1
                let held = try #require(try form.session.editor.record(for: id), "\(replay)")
                let table = try #require(harness.container.schema.table(named: id.table))
                let onDisk = try model.row(id, columns: table.columns.map(\.name))
                #expect(onDisk == Array(held.values.prefix(table.columns.count)), "\(replay): \(id) saved as \(held.values), on disk \(String(describing: onDisk))")
            }
            if step % 50 == 49 || step == total - 1 {
                delivery.sync {}
                let named = events.withLock { taken in
                    defer { taken.removeAll() }
                    return taken
                }
                for change in try model.changesSinceLastLook() {
                    #expect(named.contains { $0.names(change) }, "\(replay): \(change) changed on disk without a save naming it")
                }
            }
            if step % 1000 == 999 {
                #expect(try harness.diskText("PRAGMA integrity_check") == "ok", "\(replay)")
            }
        }
        #expect(try harness.diskText("PRAGMA integrity_check") == "ok", "seed \(seed)")
        #expect(try harness.disk("PRAGMA foreign_key_check") == .null, "seed \(seed)")
        print("monkey: \(total) steps, \(restarts) restarts, \(savedChecks) saved states checked, \(model.changesSeen) rows changed, seed \(seed)")
    }
}

/// Every row of every table on disk, read with a connection of its own, and what changed
/// between two looks.
private struct DiskModel {
    let queue: DatabaseQueue
    private var rows: [ObjectID: [DatabaseValue]] = [:]
    private(set) var changesSeen = 0

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
        rows = try read()
    }

    private func read() throws -> [ObjectID: [DatabaseValue]] {
        try queue.read { db in
            var rows: [ObjectID: [DatabaseValue]] = [:]
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%'")
            for table in tables {
                for row in try Row.fetchAll(db, sql: "SELECT rowid AS cf_rowid, * FROM \"\(table)\"") {
                    let id = ObjectID(table: table, rowid: row["cf_rowid"])
                    rows[id] = Array(row.databaseValues.dropFirst())
                }
            }
            return rows
        }
    }

    /// The rows added, changed or removed since the last call.
    mutating func changesSinceLastLook() throws -> [ObjectID] {
        let now = try read()
        let changed = Set(now.keys).union(rows.keys).filter { now[$0] != rows[$0] }
        rows = now
        changesSeen += changed.count
        return changed.sorted { $0.description < $1.description }
    }

    /// One row's values as stored now; nil when it is gone.
    func row(_ id: ObjectID, columns: [String]) throws -> [Value]? {
        try queue.read { db in
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            return try Row.fetchOne(db, sql: "SELECT \(list) FROM \"\(id.table)\" WHERE rowid = ?", arguments: [id.primaryKeyValues?.first?.databaseValue])
                .map { $0.databaseValues.map(Value.init) }
        }
    }
}

private extension ContextDidSave {
    /// True when this save names the row: inserted, updated or deleted, or its whole table.
    func names(_ id: ObjectID) -> Bool {
        inserted.contains(id) || updated.contains(id) || deleted.contains(id) || invalidatedTables.contains(id.table)
            || permanentIDs.values.contains(id)
    }
}
