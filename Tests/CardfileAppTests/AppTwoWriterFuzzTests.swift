@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// Seeded random rounds of the editor and another connection editing overlapping fields of
/// random records. After every round: a field changed on both sides went through the dialog
/// (never silently overwritten), a field changed on one side holds that side's value, and the
/// file is sound.
@Suite("Editor and another writer, randomized", .timeLimit(.minutes(Fuzz.scaled(10))))
struct AppTwoWriterFuzzTests {
    static let fields = ["name", "age", "notes"]
    /// Tabs from the first field (id) to each field.
    static let tabs = ["name": 1, "age": 3, "notes": 4]
    static let schema = """
        CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT NOT NULL, phone TEXT UNIQUE, age INTEGER, notes TEXT);
        INSERT INTO cards (name, phone, age, notes) VALUES ('Ada', '1', 36, 'a'), ('Grace', '2', 45, NULL), ('Linus', '3', NULL, ''), ('Margaret', '4', 33, 'm');
        """

    /// In both journal modes (a rollback-journal file stays one), half the rounds each.
    @Test(arguments: [true, false]) func randomRoundsNeverOverwriteSilently(wal: Bool) throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let harness = try AppHarness(schema: Self.schema, size: Size(width: 60, height: 16), wal: wal)
        #expect(harness.container.journalMode == (FixtureJournal.wal(wal) ? .wal : .rollback))
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)   // in a rollback journal, the editor's reads hold the file for a moment
        let other = try DatabaseQueue(path: harness.path, configuration: configuration)
        defer { try? other.close() }
        var counter = 0
        /// A value nobody has used yet, and how it is typed.
        func fresh(_ field: String) -> (value: DatabaseValue, typed: String) {
            counter += 1
            return field == "age" ? ((1000 + counter).databaseValue, String(1000 + counter)) : ("\(field)\(counter)".databaseValue, "\(field)\(counter)")
        }
        func row(_ id: Int) throws -> [String: DatabaseValue] {
            try other.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT name, age, notes FROM cards WHERE id = ?", arguments: [id])!
                return ["name": row["name"], "age": row["age"], "notes": row["notes"]]
            }
        }

        for round in 0..<Fuzz.scaled(500) {
            let id = 1 + random.next(below: 4)
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), \(wal ? "WAL" : "rollback journal"), round \(round), card \(id)"
            let before = try row(id)

            // Open the record's form from the list.
            try harness.feed([KeyEvent(.home)] + Array(repeating: KeyEvent(.down), count: id - 1) + [KeyEvent(.enter)])
            guard harness.lines[0].contains("cards › \(id)") else {
                Issue.record("\(context): the form did not open: \(harness.lines[0])")
                return
            }

            // Their change, sometimes noticed before I type (the form then shows it).
            var theirs: [String: DatabaseValue] = [:]
            for field in Self.fields where random.next(below: 3) == 0 { theirs[field] = fresh(field).value }
            let theirsFirst = random.next(below: 2) == 0
            func writeTheirs() throws {
                guard !theirs.isEmpty else { return }
                try other.write { db in
                    for (field, value) in theirs { try db.execute(sql: "UPDATE cards SET \(field) = ? WHERE id = ?", arguments: [value, id]) }
                }
            }
            // Noticed before I type: my edits then start from their values.
            let polledBeforeTyping = theirsFirst && random.next(below: 2) == 0
            if theirsFirst {
                try writeTheirs()
                if polledBeforeTyping { try harness.advance(.milliseconds(150)) }
            }
            let seen = polledBeforeTyping ? before.merging(theirs) { $1 } : before

            // My change: retype some fields.
            var mine: [String: DatabaseValue] = [:]
            var keys: [KeyEvent] = []
            for field in Self.fields where random.next(below: 2) == 0 {
                let (value, typed) = fresh(field)
                mine[field] = value
                keys += Array(repeating: KeyEvent(.backTab), count: 5)
                keys += Array(repeating: KeyEvent(.tab), count: Self.tabs[field]!)
                keys += [.control("a"), .control("k")] + typed.map { KeyEvent(.character($0)) }
            }
            try harness.feed(keys)
            if !theirsFirst {
                try writeTheirs()
                if random.next(below: 2) == 0 { try harness.advance(.milliseconds(150)) }
            }

            // The status bar's "modified", noted rather than asked each frame, agrees with the
            // store after their change was merged into the form.
            if let form = harness.app.form {
                #expect(form.session.isModified == form.session.hasPersistentChanges, "\(context): noted as modified \(form.session.isModified)")
            }

            // Save. A field changed on both sides must bring up the dialog; a polled one with
            // my edit made after I saw theirs is no conflict.
            try harness.feed([.control("s")])
            let contested = Set(mine.keys.filter { theirs[$0] != nil && seen[$0] != theirs[$0] })
            let dialog = harness.screen.contains("Changed elsewhere: cards")
            #expect(dialog == !contested.isEmpty, "\(context): dialog \(dialog), contested \(contested.sorted())")
            var expected = before.merging(theirs) { $1 }.merging(mine) { $1 }
            if dialog {
                if random.next(below: 2) == 0 {
                    try harness.feed([.char("m")])                              // mine for every contested field
                } else {
                    // Per field: keep the default (mine) or step to theirs (→) or original (→→).
                    var steps: [KeyEvent] = []
                    for field in Self.fields where contested.contains(field) {
                        switch random.next(below: 3) {
                        case 1:
                            steps += [KeyEvent(.right)]
                            expected[field] = theirs[field]
                        case 2:
                            steps += [KeyEvent(.right), KeyEvent(.right)]
                            expected[field] = seen[field]          // the value my edit started from
                        default:
                            break
                        }
                        steps.append(KeyEvent(.down))
                    }
                    try harness.feed(steps + [KeyEvent(.enter)])
                }
            }
            if let form = harness.app.form {
                #expect(form.session.isModified == form.session.hasPersistentChanges, "\(context): after the save, noted as modified \(form.session.isModified)")
            }
            let after = try row(id)
            for field in Self.fields {
                #expect(after[field] == expected[field], "\(context): \(field) is \(String(describing: after[field])), expected \(String(describing: expected[field])) (mine \(String(describing: mine[field])), theirs \(String(describing: theirs[field])))")
            }
            #expect(!harness.screen.contains("Changed elsewhere: cards"), "\(context): the dialog closed")

            // Back to the list with nothing pending, and the view in step with the file.
            try harness.feed([KeyEvent(.escape)])
            if harness.screen.contains("Unsaved changes") {
                Issue.record("\(context): changes were left unsaved")
                try harness.feed([.char("d")])
            }
            try harness.advance(.milliseconds(150))
            #expect(try harness.diskText("PRAGMA integrity_check") == "ok", "\(context)")
        }
    }
}
