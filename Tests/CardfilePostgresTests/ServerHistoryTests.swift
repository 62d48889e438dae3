@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// The history journal on a PostgreSQL server (`pg-setup`'s tables, filled by its triggers in
/// Cardfile's own transactions): versions, undo and redo through the contexts, against the
/// table as `psql` reads it, with `psql` and other roles as the other writers.
@Suite("History on PostgreSQL", .timeLimit(.minutes(10)))
struct ServerHistoryTests {
    static let schema = """
        CREATE TABLE people (id int PRIMARY KEY, name text NOT NULL, age int, city text, score numeric(12, 3),
                             seen timestamptz, active boolean, tags jsonb, born date);
        INSERT INTO people VALUES
            (1, 'Ada', 36, 'London', 1.500, '2024-01-02 03:04:05+00', true, '{"a": [1, 2]}', '1815-12-10'),
            (2, 'Grace', 45, 'Arlington', NULL, NULL, false, NULL, NULL),
            (3, 'Linus', 28, 'Helsinki', 99.125, '2023-06-01 12:00:00+02', NULL, '[]', '1969-12-28');
        """

    /// A database of its own with `pg-setup` run, and a container keeping history.
    final class Place {
        let server: PostgresTestServer
        let database: String
        let engine: PostgresEngine
        let container: Container

        init(_ sql: String = ServerHistoryTests.schema, setUp: Bool = true, capacity: Int = HistorySettings.defaultCapacity) throws {
            server = try PostgresTestServer.current()
            database = try server.makeDatabase()
            _ = try server.psql(database, sql)
            if setUp { try Self.install(try server.location(database)) }
            engine = try PostgresEngine(try server.location(database))
            container = try Container(engine: engine, options: StoreOptions(history: HistorySettings(folder: "/nonexistent", capacity: capacity)))
        }

        static func install(_ location: PostgresLocation) throws {
            let session = try PostgresSession.open(location)
            defer { session.close() }
            let catalog = PostgresCatalog(session: session)
            let outcomes = try NotifySetup(session: session).install(try catalog.relations().map { try catalog.describe($0) })
            for (relation, outcome) in outcomes where outcome != .installed { Issue.record("\(relation.displayName): \(outcome)") }
        }

        deinit {
            engine.close()
            server.drop(database)
        }

        func psql(_ sql: String) throws -> String { try server.psql(database, sql) }

        var history: any HistoryKeeping {
            get throws { try #require(container.history, "no history: \(container.historyProblem ?? "")") }
        }

        /// Saves `values` on a person through an editor and the view context, as a form does.
        func save(_ id: Int64, _ values: [String: Value]) throws {
            let editor = container.editorContext(parent: container.viewContext)
            try editor.update(person(id), values: values)
            try editor.save()
            try container.viewContext.save()
        }

        func person(_ id: Int64) -> ObjectID { ObjectID(table: "people", primaryKey: [.integer(id)]) }
    }

    @Test func aFormSaveIsJournaledWithTypedOldAndNewValuesAndItsAuthor() throws {
        let place = try Place()
        try place.save(1, ["city": "Paris", "score": .decimal("2.250"), "active": .boolean(false)])
        try place.save(1, ["seen": "2025-05-06 07:08:09+00", "tags": "{\"b\": null}", "born": "1816-01-01"])
        // psql's write is not Cardfile's: not journaled.
        try place.psql("UPDATE people SET age = 99 WHERE id = 1")
        let versions = try place.history.versions(of: place.person(1))
        #expect(versions.count == 2)
        #expect(versions.allSatisfy { $0.entry.source == .form && $0.entry.author == "cardfile" })
        let older = try #require(versions.last).change.fields.sorted { $0.name < $1.name }
        #expect(older == [
            .init(name: "active", old: .boolean(true), new: .boolean(false)),
            .init(name: "city", old: .text("London"), new: .text("Paris")),
            .init(name: "score", old: .decimal("1.500"), new: .decimal("2.250")),
        ])
        let newer = try #require(versions.first).change.fields.map(\.name).sorted()
        #expect(newer == ["born", "seen", "tags"])
        // Each value reads back exactly as the record reads now (what a restore compares).
        let record = try #require(try place.container.viewContext.record(for: place.person(1)))
        for field in try #require(versions.first).change.fields { #expect(record[field.name] == field.new, "\(field.name)") }
    }

    @Test func undoAndRedoWalkTheSavesBackAndForthAndEndWithANewSave() throws {
        let place = try Place()
        try place.save(1, ["city": "Paris"])
        try place.save(1, ["city": "Rome"])
        let history = try place.history
        let undo = try #require(try history.nextUndo(table: "people"))
        #expect(undo.changes == [RecordedChange(id: place.person(1), kind: .update, fields: [.init(name: "city", old: .text("Rome"), new: .text("Paris"))])])
        #expect(try place.container.write(undo).written == 1)
        #expect(try place.psql("SELECT city FROM people WHERE id = 1") == "Paris")
        #expect(try place.container.write(try #require(try history.nextUndo(table: "people"))).written == 1)
        #expect(try place.psql("SELECT city FROM people WHERE id = 1") == "London")
        #expect(try history.nextUndo(table: "people") == nil, "both saves are undone")
        #expect(try place.container.write(try #require(try history.nextRedo(table: "people"))).written == 1)
        #expect(try place.psql("SELECT city FROM people WHERE id = 1") == "Paris")
        try place.save(2, ["city": "Oslo"])
        #expect(try history.nextRedo(table: "people") == nil, "a new save ends what can be redone")
        #expect(try history.versions(of: place.person(1)).map(\.entry.source) == [.redo, .undo, .undo, .form, .form])
    }

    @Test func aFieldChangedSinceByPsqlIsAConflictAndNothingIsWritten() throws {
        let place = try Place()
        try place.save(1, ["city": "Paris", "age": 40])
        try place.psql("UPDATE people SET city = 'Berlin', name = 'Theirs' WHERE id = 1")
        let step = try #require(try place.history.nextUndo(table: "people"))
        let outcome = try place.container.write(step)
        let city = try #require(outcome.conflicts.first?.fields.first { $0.name == "city" })
        #expect(outcome.written == 0 && city.original == .text("Paris") && city.mine == .text("London") && city.theirs == .text("Berlin"))
        #expect(try place.psql("SELECT city || '/' || age FROM people WHERE id = 1") == "Berlin/40", "nothing was written")
        _ = try place.container.write(step, changedSince: .overwrite)
        #expect(try place.psql("SELECT city || '/' || age || '/' || name FROM people WHERE id = 1") == "London/36/Theirs")
    }

    @Test func deletesInsertsBulkEditsSQLAndImportsAreJournaledAndUndoneWhole() throws {
        let place = try Place()
        let view = place.container.viewContext
        try view.delete(place.person(2))
        try view.save()
        _ = try view.insert(into: "people", values: ["id": 9, "name": "Nine", "score": .decimal("3.000")])
        try view.save()
        _ = try place.container.bulkSet(table: "people", column: "city", to: .text("X"), where: .compare("id", .greater, .integer(0)))
        #expect(try place.container.run(try place.container.compile("UPDATE people SET age = age + 1 WHERE age > 30"), cancellation: Cancellation()) == 1)
        let folder = TemporaryDirectory()
        let csv = folder.file("more.csv")
        try (["id,name"] + (10..<30).map { "\($0),n\($0)" }).joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        let summary = try Importer(container: place.container, file: csv, options: ImportOptions(table: "people", batchSize: 7)).run()
        #expect(summary.inserted == 20)
        let history = try place.history
        #expect(try history.entries().map(\.source) == [.import, .import, .import, .sql, .bulk, .form, .form])
        let undoImport = try #require(try history.nextUndo(table: "people"))
        #expect(undoImport.entries.count == 3 && undoImport.recordCount == 20)
        #expect(try place.container.write(undoImport).written == 20)
        #expect(try place.psql("SELECT count(*) FROM people") == "3")
        let undoSQL = try #require(try history.nextUndo(table: "people"))
        #expect(undoSQL.source == .sql)
        _ = try place.container.write(undoSQL)
        let undoBulk = try #require(try history.nextUndo(table: "people"))
        #expect(undoBulk.source == .bulk && undoBulk.recordCount == 3)
        _ = try place.container.write(undoBulk, inContextAtMost: 0)
        #expect(try place.psql("SELECT string_agg(coalesce(city, '-') || age::text, ',' ORDER BY id) FROM people WHERE id <> 9") == "London36,Helsinki28")
        _ = try place.container.write(try #require(try history.nextUndo(table: "people")))
        #expect(try place.psql("SELECT count(*) FROM people WHERE id = 9") == "0", "the insert undone")
        _ = try place.container.write(try #require(try history.nextUndo(table: "people")))
        #expect(try place.psql("SELECT name || '/' || city || '/' || active::text FROM people WHERE id = 2") == "Grace/Arlington/false", "the delete undone")
    }

    @Test func anotherRolesSavesAreListedWithItsNameButNotUndoneByAltU() throws {
        let place = try Place()
        let role = "teammate_\(place.database.suffix(8))"
        defer { _ = try? place.server.psql("postgres", "DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role)") }
        try place.psql("CREATE ROLE \(role) LOGIN PASSWORD 'matepw'; GRANT SELECT, INSERT, UPDATE, DELETE ON people TO \(role)")
        let home = TemporaryDirectory()
        let url = "postgres://\(role):matepw@127.0.0.1:\(place.server.port)/\(place.database)"
        let theirs = try PostgresEngine(try PostgresLocation.resolve(url, environment: [:], homeFolder: home.path, loginName: "x").location)
        defer { theirs.close() }
        let teammate = try Container(engine: theirs, options: StoreOptions(history: HistorySettings(folder: "/nonexistent")))
        #expect(teammate.historyProblem == nil)
        try place.save(1, ["city": "Mine"])
        let editor = teammate.editorContext(parent: teammate.viewContext)
        try editor.update(place.person(2), values: ["city": "Theirs"])
        try editor.save()
        try teammate.viewContext.save()
        let versions = try place.history.versions(of: place.person(2))
        #expect(versions.map(\.entry.author) == [role])
        let step = try #require(try place.history.nextUndo(table: "people"))
        #expect(step.changes.map(\.id) == [place.person(1)], "Alt-U undoes this user's own save")
        #expect(try teammate.history?.nextUndo(table: "people")?.changes.map(\.id) == [place.person(2)])
    }

    @Test func aRoleThatMayNotReadATableSeesNoneOfItsHistory() throws {
        let place = try Place(ServerHistoryTests.schema + "; CREATE TABLE secrets (id int PRIMARY KEY, salary int); INSERT INTO secrets VALUES (1, 100)")
        let role = "outsider_\(place.database.suffix(8))"
        defer { _ = try? place.server.psql("postgres", "DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role)") }
        try place.psql("CREATE ROLE \(role) LOGIN PASSWORD 'outpw'; GRANT SELECT ON people TO \(role)")
        let editor = place.container.editorContext(parent: place.container.viewContext)
        try editor.update(ObjectID(table: "secrets", primaryKey: [.integer(1)]), values: ["salary": 200])
        try editor.save()
        try place.container.viewContext.save()
        try place.save(1, ["city": "Paris"])
        #expect(try place.psql("SET ROLE \(role); SELECT count(*) FROM cardfile.history_change") == "1", "only the change of people")
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_change") == "2")
    }

    @Test func aChangeOverTheLimitIsListedButNotKeptAndAnImportOverItIsNotUndoneInPart() throws {
        // 640 bytes of capacity a record: a limit of 5 records.
        let place = try Place(capacity: 5 * 640)
        _ = try place.container.bulkSet(table: "people", column: "age", to: .integer(1), where: .compare("id", .greater, .integer(0)))
        let history = try place.history
        let bulk = try #require(try history.nextUndo(table: "people"))
        #expect(bulk.isComplete && bulk.recordCount == 3)
        _ = try place.container.write(bulk)
        let folder = TemporaryDirectory()
        let csv = folder.file("more.csv")
        try (["id,name"] + (10..<22).map { "\($0),n\($0)" }).joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try Importer(container: place.container, file: csv, options: ImportOptions(table: "people", batchSize: 4)).run()
        let step = try #require(try history.nextUndo(table: "people"))
        #expect(step.source == .import && step.entries.count == 3 && step.recordCount == 12)
        #expect(!step.isComplete, "the third batch passed the limit: the import is listed, not undone in part")
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_change c JOIN cardfile.history_entry e ON e.id = c.entry WHERE e.grp IS NOT NULL") == "0")
        #expect(throws: StoreError.self) { try place.container.write(step) }
        // A file larger than the limit can hold (160 bytes a record) records nothing at all.
        let large = folder.file("large.csv")
        try (["id,name"] + (30..<42).map { "\($0),\(String(repeating: "n", count: 100))" }).joined(separator: "\n").write(toFile: large, atomically: true, encoding: .utf8)
        let recordedBefore = try place.psql("SELECT last_value FROM cardfile.history_change_id_seq")
        _ = try Importer(container: place.container, file: large, options: ImportOptions(table: "people", batchSize: 4)).run()
        #expect(try place.psql("SELECT last_value FROM cardfile.history_change_id_seq") == recordedBefore, "no record was written to be dropped")
        let largeStep = try #require(try history.nextUndo(table: "people"))
        #expect(largeStep.source == .import && largeStep.recordCount == 12 && !largeStep.isComplete)
        try place.psql("DELETE FROM people WHERE id >= 30")
        // One statement over the limit.
        #expect(try place.container.run(try place.container.compile("UPDATE people SET age = 2"), cancellation: Cancellation()) == 15)
        let sql = try #require(try history.entries().first)
        #expect(sql.source == .sql && sql.recordCount == 15 && !sql.isComplete)
    }

    @Test func openingPrunesTheOldestEntriesToTheCapacity() throws {
        let place = try Place()
        for round in 0..<12 { try place.save(1, ["city": .text(String(repeating: "\(round % 10)", count: 400))]) }
        let newest = try place.psql("SELECT max(id) FROM cardfile.history_entry")
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_entry") == "12")
        // The journal's owner sets a capacity of about three of those changes (each keeps the
        // row before and after: some 900 bytes as stored); another editor opens.
        try place.psql("UPDATE cardfile.history_settings SET capacity = 3000")
        let engine = try PostgresEngine(try place.server.location(place.database))
        defer { engine.close() }
        let other = try Container(engine: engine, options: StoreOptions(history: HistorySettings(folder: "/nonexistent")))
        #expect(other.history != nil)
        let deadline = Date().addingTimeInterval(10)
        var left = try place.psql("SELECT count(*) FROM cardfile.history_entry")
        while left == "12", Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            left = try place.psql("SELECT count(*) FROM cardfile.history_entry")
        }
        let kept = Int(left) ?? 0
        #expect(kept >= 1 && kept <= 4, "\(left) entries left")
        #expect(try place.psql("SELECT max(id) FROM cardfile.history_entry") == newest, "the newest stays")
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_change WHERE entry NOT IN (SELECT id FROM cardfile.history_entry)") == "0",
                "no change is left without its entry")
        #expect(try place.psql("SELECT sum(pg_column_size(old) + pg_column_size(new)) <= 3000 FROM cardfile.history_change") == "t")
    }

    @Test func withoutPgSetupTheProblemSaysHowAndATableWithoutTriggersSaysWhy() throws {
        let bare = try Place(setUp: false)
        #expect(bare.container.history == nil)
        #expect(bare.container.historyProblem?.contains("pg-setup") == true)
        let place = try Place(ServerHistoryTests.schema)
        try place.psql("CREATE TABLE later (id int PRIMARY KEY, x int)")
        _ = try place.container.core.reloadSchema()
        let later = try #require(place.container.schema.table(named: "later"))
        #expect(try place.history.whyNotKept(later)?.contains("pg-setup") == true)
        #expect(try place.history.whyNotKept(try #require(place.container.schema.table(named: "people"))) == nil)
    }

    @Test func aPartitionedTablesChangesAreItsOwnAndAKeyChangeIsADeleteAndAnInsert() throws {
        let place = try Place("""
            CREATE TABLE events (id int, region text, note text, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
            CREATE TABLE events_eu PARTITION OF events FOR VALUES IN ('eu');
            CREATE TABLE events_us PARTITION OF events FOR VALUES IN ('us');
            INSERT INTO events VALUES (1, 'eu', 'a'), (2, 'us', 'b');
            """)
        let id = ObjectID(table: "events", primaryKey: [.integer(1), .text("eu")])
        let editor = place.container.editorContext(parent: place.container.viewContext)
        try editor.update(id, values: ["note": "changed"])
        try editor.save()
        try place.container.viewContext.save()
        #expect(try place.history.versions(of: id).first?.change.fields == [.init(name: "note", old: .text("a"), new: .text("changed"))])
        // A key moved by SQL: the old record deleted, the new one added (and undone so).
        _ = try place.container.run(try place.container.compile("UPDATE events SET region = 'us' WHERE id = 1"), cancellation: Cancellation())
        let step = try #require(try place.history.nextUndo(table: "events"))
        #expect(Set(step.changes.map(\.kind)) == [.insert, .delete])
        _ = try place.container.write(step)
        #expect(try place.psql("SELECT string_agg(id || region || note, ',' ORDER BY id) FROM events") == "1euchanged,2usb")
    }

    /// Random saves (updates, inserts, deletes) through the contexts and the odd no-op update
    /// by psql, then every one undone in turn and redone in turn: after each step the table
    /// must be as it was after the matching save, as psql reads it.
    @Test func undoingAndRedoingEverySaveWalksTheTableBackAndForth() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try Place()
        let dump = "SELECT string_agg(id || ':' || name || ':' || coalesce(age::text, '-') || ':' || coalesce(city, '-') || ':' || coalesce(score::text, '-'), '|' ORDER BY id) FROM people"
        var states = [try place.psql(dump)]
        var nextID: Int64 = 10
        for _ in 0..<Fuzz.scaled(10) {
            let view = place.container.viewContext
            let ids = try view.fetch(FetchRequest(table: "people")).map(\.id)
            switch random.next(below: 4) {
            case 0 where ids.count > 1:
                try view.delete(ids[random.next(below: ids.count)])
            case 1:
                _ = try view.insert(into: "people", values: ["id": .integer(nextID), "name": .text("n\(nextID)"), "age": .integer(Int64(random.next(below: 90)))])
                nextID += 1
            default:
                let id = ids[random.next(below: ids.count)]
                let cities: [Value] = [.null, .text("A"), .text("B")]
                try view.update(id, values: ["city": cities[random.next(below: cities.count)], "score": .decimal("\(random.next(below: 3)).5")])
            }
            guard view.hasChanges else { continue }
            try view.save()
            // (psql's no-op update moves the rows' versions, never their values.)
            if random.next(below: 3) == 0 { try place.psql("UPDATE people SET name = name") }
            let state = try place.psql(dump)
            if state != states.last { states.append(state) }
        }
        let history = try place.history
        var position = states.count - 1
        while position > 0 {
            let step = try #require(try history.nextUndo(table: "people"), "seed \(seed): an undo at \(position)")
            let outcome = try place.container.write(step, inContextAtMost: random.next(below: 2) == 0 ? 0 : 200)
            position -= 1
            let now = try place.psql(dump)
            #expect(now == states[position], "seed \(seed): after undoing to \(position): \(step.changes) \(outcome)")
            if now != states[position] { break }
        }
        #expect(try history.nextUndo(table: "people") == nil, "seed \(seed)")
        while position < states.count - 1 {
            let step = try #require(try history.nextRedo(table: "people"), "seed \(seed): a redo at \(position)")
            _ = try place.container.write(step, inContextAtMost: random.next(below: 2) == 0 ? 0 : 200)
            position += 1
            #expect(try place.psql(dump) == states[position], "seed \(seed): after redoing to \(position)")
        }
    }
}
