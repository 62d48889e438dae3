import CardfilePostgres
import Foundation
import GRDB
import Testing
import CardfileTestSupport
@testable import CardfileStore

/// Seeded random rounds of two writers on one record: this side (the view context, or an
/// editor over it) and a second connection to the same database (now and then the command-line
/// tool: `sqlite3` or `psql`), or a sibling editor that saves into the same view context. After
/// every round the database and the context are checked against what the merge rules promise,
/// so no overwrite can stay silent. The same rounds run on SQLite (both journal modes) and on
/// PostgreSQL (the other writer a connection of its own; commits announced by `pg-setup`'s
/// triggers).
@Suite("Two writers, randomized", .timeLimit(.minutes(Fuzz.scaled(10))))
struct TwoWriterFuzzTests {
    static let fields = ["a", "b", "c", "d"]

    /// One database and the other writer's ways to it.
    struct Writers {
        let container: Container
        let name: String
        /// The record's fields as stored.
        let stored: (Int64) throws -> [String: Value]
        /// One transaction of the other connection: `sets` on record `id`, and `b` of `elsewhere`
        /// (when it is another record).
        let write: (_ id: Int64, _ sets: [String: Value], _ elsewhere: Int64, _ b: Value) throws -> Void
        /// The same through the command-line tool.
        let tool: (_ id: Int64, _ sets: [String: Value], _ elsewhere: Int64, _ b: Value) throws -> Void
        /// Numbers of column d as the engine keeps them.
        let realsOnly: Bool
        let integrity: () throws -> Bool
        let close: () -> Void
    }

    static func updates(_ id: Int64, _ sets: [String: Value], _ elsewhere: Int64, _ b: Value) -> String {
        let assignments = sets.map { "\($0.key) = \(Self.literal($0.value))" }.joined(separator: ", ")
        return (assignments.isEmpty ? "" : "UPDATE cards SET \(assignments) WHERE id = \(id);")
            + "UPDATE cards SET b = \(Self.literal(b)) WHERE id = \(elsewhere) AND id != \(id);"
    }

    static func sqlite(wal: Bool, directory: TemporaryDirectory) throws -> Writers {
        let path = directory.file("cards.sqlite")
        try makeDatabase(at: path, """
            CREATE TABLE cards (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c INTEGER, d);
            INSERT INTO cards (a, b, c, d) VALUES ('a1', 'b1', 1, 1), ('a2', 'b2', 2, 2.5), ('a3', 'b3', 3, 'x'), ('a4', 'b4', 4, NULL);
            """, wal: wal)
        let container = try Container(path: path)
        #expect(container.journalMode == (FixtureJournal.wal(wal) ? .wal : .rollback))
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)   // in a rollback journal, the store's reads hold the file for a moment
        let other = try DatabaseQueue(path: path, configuration: configuration)
        return Writers(
            container: container, name: wal ? "WAL" : "rollback journal",
            stored: { id in
                try other.read { db in
                    let row = try Row.fetchOne(db, sql: "SELECT a, b, c, d FROM cards WHERE id = ?", arguments: [id])!
                    return Dictionary(uniqueKeysWithValues: Self.fields.enumerated().map { ($1, Value(row[$0] as DatabaseValue)) })
                }
            },
            write: { id, sets, elsewhere, b in
                try other.write { db in
                    for (field, value) in sets {
                        try db.execute(sql: "UPDATE cards SET \(field) = ? WHERE id = ?", arguments: [value.databaseValue, id])
                    }
                    try db.execute(sql: "UPDATE cards SET b = ? WHERE id = ? AND id != ?", arguments: [b.databaseValue, elsewhere, id])
                }
            },
            tool: { id, sets, elsewhere, b in _ = try sqlite3(path, Self.updates(id, sets, elsewhere, b)) },
            realsOnly: false,
            integrity: { try readDisk(path, "PRAGMA integrity_check") == "ok" },
            close: { try? other.close() })
    }

    static func postgres() throws -> Writers {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        _ = try server.psql(database, """
            CREATE TABLE cards (id int PRIMARY KEY, a text, b text, c bigint, d float8);
            INSERT INTO cards VALUES (1, 'a1', 'b1', 1, 1), (2, 'a2', 'b2', 2, 2.5), (3, 'a3', 'b3', 3, -0.25), (4, 'a4', 'b4', 4, NULL);
            """)
        let home = TemporaryDirectory()
        let place = try PostgresLocation.resolve(server.url(database: database), environment: [:], homeFolder: home.path, loginName: "x").location
        let other = try PostgresSession.open(place)
        _ = try NotifySetup(session: other).install([try PostgresCatalog(session: other).describe(try #require(try PostgresCatalog(session: other).relation(named: "cards")))])
        let engine = try PostgresEngine(place)
        let session = PostgresEngineSession(other)
        return Writers(
            container: try Container(engine: engine), name: "PostgreSQL",
            stored: { id in
                let row = try #require(try session.rows("SELECT a, b, c, d FROM cards WHERE id = ?", [.integer(id)]).first)
                return Dictionary(uniqueKeysWithValues: Self.fields.enumerated().map { ($1, row[$0]) })
            },
            write: { id, sets, elsewhere, b in
                try other.run("BEGIN")
                do {
                    for (field, value) in sets {
                        _ = try session.execute("UPDATE cards SET \(field) = ? WHERE id = ?", [value, .integer(id)])
                    }
                    _ = try session.execute("UPDATE cards SET b = ? WHERE id = ? AND id != ?", [b, .integer(elsewhere), .integer(id)])
                    try other.run("COMMIT")
                } catch {
                    try? other.run("ROLLBACK")
                    throw error
                }
            },
            tool: { id, sets, elsewhere, b in _ = try server.psql(database, Self.updates(id, sets, elsewhere, b)) },
            realsOnly: true,
            integrity: { true },
            close: {
                engine.close()
                other.close()
                server.drop(database)
            })
    }

    /// On SQLite in both journal modes (a rollback-journal file stays one), and on PostgreSQL.
    @Test(arguments: ["WAL", "rollback", "PostgreSQL"]) func randomRoundsKeepEveryChangeOrReportIt(engine: String) throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let rounds = Fuzz.scaled(500)
        let directory = TemporaryDirectory()
        let writers = engine == "PostgreSQL" ? try Self.postgres() : try Self.sqlite(wal: engine == "WAL", directory: directory)
        defer { writers.close() }
        let container = writers.container
        let view = container.viewContext
        var counter = 0
        func fresh(_ field: String) -> Value {
            counter += 1
            switch field {
            case "c": return .integer(Int64(1000 + counter))
            case "d": return counter % 2 == 0 || writers.realsOnly ? .real(Double(counter) + 0.5) : .integer(Int64(counter))
            default: return .text("\(field)-\(counter)")
            }
        }
        let diskRow = writers.stored

        for round in 0..<rounds {
            let policy = [MergePolicy.error, .overwrite, .objectTrump][random.next(below: 3)]
            view.mergePolicy = policy
            let id = Int64(1 + random.next(below: 4))
            let card = ObjectID(table: "cards", rowid: id)
            let useEditor = random.next(below: 2) == 0
            let theirsFirst = random.next(below: 2) == 0
            let sibling = useEditor && random.next(below: 3) == 0
            // A sibling's save reaches this editor through the view at once: it is always "polled".
            let polledBeforeEditing = theirsFirst && (sibling || random.next(below: 2) == 0)
            let polledBeforeSaving = sibling || random.next(below: 2) == 0
            let viaTool = !sibling && random.next(below: 60) == 0
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), \(writers.name), round \(round): \(policy), \(useEditor ? "editor" : "view"), theirs \(sibling ? "from a sibling editor" : viaTool ? "from sqlite3" : "from a connection"), \(theirsFirst ? "first" : "second")\(polledBeforeEditing ? ", polled before editing" : "")\(polledBeforeSaving ? ", polled before saving" : "")"

            let before = try diskRow(id)
            #expect(try view.record(for: card)?.dictionary.filter { Self.fields.contains($0.key) } == before, "\(context): the view starts in step with the disk")

            // Their change: one or two fields of this record, sometimes of another one too.
            var theirs: [String: Value] = [:]
            for field in Self.fields where random.next(below: 3) == 0 { theirs[field] = fresh(field) }
            let elsewhere = Int64(1 + random.next(below: 4))
            let elsewhereValue = fresh("b")
            func writeTheirs() throws {
                if sibling {
                    // Saved into the view only: the view writes it to disk with this side's save.
                    let b = container.editorContext(parent: view, name: "sibling")
                    for (field, value) in theirs { try b.update(card, values: [field: value]) }
                    if elsewhere != id { try b.update(ObjectID(table: "cards", rowid: elsewhere), values: ["b": elsewhereValue]) }
                    try b.save()
                } else if viaTool {
                    try writers.tool(id, theirs, elsewhere, elsewhereValue)
                } else {
                    try writers.write(id, theirs, elsewhere, elsewhereValue)
                }
            }

            // My change: real edits, no-op edits and edits typed back, mixed.
            let editor = useEditor ? container.editorContext(parent: view) : nil
            let mineContext = editor ?? view
            editor?.mergePolicy = policy
            if theirsFirst {
                try writeTheirs()
                if polledBeforeEditing { _ = try container.checkForExternalChanges() }
            }
            let shown = try #require(try mineContext.record(for: card))
            var mine: [String: Value] = [:]
            var bases: [String: Value] = [:]
            for field in Self.fields {
                let current = shown[field]!
                switch random.next(below: 5) {
                case 0, 1:
                    let value = fresh(field)
                    try mineContext.update(card, values: [field: value])
                    mine[field] = value
                    bases[field] = current
                case 2:
                    try mineContext.update(card, values: [field: current])
                case 3:
                    try mineContext.update(card, values: [field: fresh(field)])
                    try mineContext.update(card, values: [field: current])
                default:
                    break
                }
            }
            if mine.isEmpty {
                #expect(!mineContext.hasChanges, "\(context): no-op and typed-back edits leave nothing pending")
            }
            if !theirsFirst { try writeTheirs() }
            let afterTheirs = before.merging(theirs) { $1 }
            if polledBeforeSaving { _ = try container.checkForExternalChanges() }

            // Save, as the editor would: the editor into the view, the view to disk.
            // (The view saves even when the editor's save failed: a sibling's saved edits wait there.)
            let editorFailure = storeError { try editor?.save() }
            let viewFailure = storeError { try view.save() }
            for failure in [editorFailure, viewFailure].compactMap({ $0 }) where failure.conflicts == nil {
                Issue.record("\(context): \(failure)")
            }
            let conflict = editorFailure?.conflicts ?? viewFailure?.conflicts
            let after = try diskRow(id)

            // What the rules promise, field by field.
            let contested = Set(mine.keys.filter { field in theirs[field] != nil && bases[field] != theirs[field] })
            if policy == .error, !contested.isEmpty {
                let reported = try #require(conflict, "\(context): a field changed on both sides must be reported")
                let names = Set(reported.flatMap { $0.fields.filter(\.isContested).map(\.name) })
                #expect(names == contested, "\(context): the contested fields")
                #expect(after == afterTheirs, "\(context): nothing written under .error")
            } else {
                #expect(conflict == nil, "\(context): no conflict expected")
                for field in Self.fields {
                    let expected: Value
                    if let value = mine[field] {
                        expected = value
                    } else if let value = theirs[field] {
                        // Only they changed it. A whole-object overwrite may write back the value
                        // this side last merged, never an older one.
                        if policy == .overwrite, !contested.isEmpty, !(polledBeforeEditing || polledBeforeSaving) {
                            #expect(after[field] == value || after[field] == before[field], "\(context): \(field)")
                            continue
                        }
                        expected = value
                    } else {
                        expected = before[field]!
                    }
                    #expect(after[field] == expected, "\(context): \(field) on disk")
                }
            }

            // Settle: drop what is left (a reported conflict), notice every commit, and check
            // that the view shows exactly what is stored.
            editor?.rollback()
            view.rollback()
            _ = try container.checkForExternalChanges()
            try view.processPendingChanges()
            for rowid in Int64(1)...4 {
                let record = try #require(try view.record(for: ObjectID(table: "cards", rowid: rowid)))
                #expect(record.dictionary.filter { Self.fields.contains($0.key) } == (try diskRow(rowid)), "\(context): the view shows card \(rowid) as stored")
            }
            #expect(!view.hasChanges, "\(context): nothing pending")
            #expect(try writers.integrity(), "\(context): integrity")
        }
    }

    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let int): return String(int)
        case .real(let double): return "\(double)"
        case .text(let text): return "'\(text.replacingOccurrences(of: "'", with: "''"))'"
        case .blob: return "NULL"
        case .decimal(let text): return text
        case .boolean(let flag): return flag ? "1" : "0"
        }
    }
}
