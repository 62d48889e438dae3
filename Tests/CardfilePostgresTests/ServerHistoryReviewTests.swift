@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// What an independent review of the server's history journal found, each case as it was
/// met: forged entries, row security, pruning by a role of fewer rights, columns renamed,
/// `json` text, identity keys, TRUNCATE, and the journal taken away under an open editor.
@Suite("History on PostgreSQL: reviewed cases", .timeLimit(.minutes(10)))
struct ServerHistoryReviewTests {
    typealias Place = ServerHistoryTests.Place

    /// A role of its own on the place's server, dropped with everything it owns at the end.
    final class Role {
        let name: String
        let place: Place
        init(_ place: Place, _ prefix: String, grants: String) throws {
            self.place = place
            name = "\(prefix)_\(place.database.suffix(8))"
            _ = try place.psql("CREATE ROLE \(name) LOGIN PASSWORD 'rolepw'; \(grants.replacingOccurrences(of: "ROLE", with: name))")
        }
        deinit { _ = try? place.server.psql("postgres", "DROP OWNED BY \(name) CASCADE; DROP ROLE IF EXISTS \(name)") }

        /// psql logged in as this role.
        @discardableResult
        func psql(_ sql: String) throws -> String { try place.server.psql(place.database, as: name, password: "rolepw", sql) }

        func engine() throws -> PostgresEngine {
            let home = TemporaryDirectory()
            let url = "postgres://\(name):rolepw@127.0.0.1:\(place.server.port)/\(place.database)"
            return try PostgresEngine(try PostgresLocation.resolve(url, environment: [:], homeFolder: home.path, loginName: "x").location)
        }
    }

    @Test func noRoleCanWriteTheJournalButThroughItsTriggers() throws {
        let place = try Place()
        let mallory = try Role(place, "mallory", grants: "GRANT SELECT ON people TO ROLE")
        try place.save(1, ["city": "Paris"])
        for statement in [
            "INSERT INTO cardfile.history_entry(author, source, records) VALUES ('cardfile', 'form', 1)",
            "INSERT INTO cardfile.history_change(entry, relid, op, rkey, old, new) VALUES (1, 'people'::regclass, 'update', '[1]', '{}', '{}')",
            "UPDATE cardfile.history_entry SET undone = true",
            "DELETE FROM cardfile.history_change",
        ] {
            #expect(throws: (any Error).self, "\(statement)") { try mallory.psql(statement) }
        }
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_change") == "1")
        // A setting naming another's entry starts an entry of its own, in its author's name.
        let writer = try Role(place, "writer", grants: "GRANT SELECT, UPDATE ON people TO ROLE")
        let entry = try place.psql("SELECT max(id) FROM cardfile.history_entry")
        _ = try writer.psql("BEGIN; SELECT set_config('cardfile.entry', '\(entry)', true); UPDATE people SET age = 1 WHERE id = 2; COMMIT")
        #expect(try place.psql("SELECT records FROM cardfile.history_entry WHERE id = \(entry)") == "1", "the other's entry is as it was")
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_entry") == "2", "an entry of its own")
    }

    @Test func aTableWithRowSecurityKeepsItsValuesOutOfTheJournal() throws {
        let place = try Place(ServerHistoryTests.schema + """
            ; CREATE TABLE sec (id int PRIMARY KEY, owner text, secret text);
            INSERT INTO sec VALUES (1, 'cardfile', 'mine');
            ALTER TABLE sec ENABLE ROW LEVEL SECURITY;
            CREATE POLICY own ON sec USING (owner = current_user);
            """)
        let mallory = try Role(place, "mallory", grants: "GRANT SELECT ON sec TO ROLE")
        let editor = place.container.editorContext(parent: place.container.viewContext)
        try editor.update(ObjectID(table: "sec", primaryKey: [.integer(1)]), values: ["secret": "still mine"])
        try editor.save()
        try place.container.viewContext.save()
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_change") == "0")
        #expect(try mallory.psql("SELECT count(*) FROM cardfile.history_change WHERE old::text LIKE '%mine%' OR new::text LIKE '%mine%'") == "0")
        let step = try #require(try place.history.nextUndo(table: "sec"))
        #expect(!step.isComplete, "listed, not undoable")
        #expect(StoreError.historyNotKept(count: 0).message.contains("row security"))
    }

    @Test func aRoleThatReadsLessStillPrunesTheWholeJournalAndLeavesNoLoneChanges() throws {
        let place = try Place(ServerHistoryTests.schema + "; CREATE TABLE other (id int PRIMARY KEY, pad text); INSERT INTO other VALUES (1, '')")
        let bob = try Role(place, "bob", grants: "GRANT SELECT ON people TO ROLE")
        for round in 0..<8 {
            let editor = place.container.editorContext(parent: place.container.viewContext)
            try editor.update(ObjectID(table: "other", primaryKey: [.integer(1)]), values: ["pad": .text(String(repeating: "\(round)", count: 500))])
            try editor.save()
            try place.container.viewContext.save()
        }
        try place.save(1, ["city": "Newest"])
        let engine = try bob.engine()
        defer { engine.close() }
        // (The capacity is the journal owner's to set; bob's own asks nothing of it.)
        try place.psql("UPDATE cardfile.history_settings SET capacity = 2500")
        _ = try Container(engine: engine, options: StoreOptions(history: HistorySettings(folder: "/nonexistent", capacity: 1)))
        let deadline = Date().addingTimeInterval(10)
        while try place.psql("SELECT count(*) FROM cardfile.history_entry") == "9", Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_entry") != "9", "bob's opening pruned")
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_change c WHERE NOT EXISTS (SELECT 1 FROM cardfile.history_entry e WHERE e.id = c.entry)") == "0")
        #expect(try place.psql("SELECT sum(pg_column_size(old) + pg_column_size(new)) <= 2500 FROM cardfile.history_change") == "t")
        #expect(try place.history.versions(of: place.person(1)).first?.change.fields.first?.new == .text("Newest"), "the newest stays")
    }

    @Test func aColumnRenamedSinceIsSaidAndNothingIsWritten() throws {
        let place = try Place()
        try place.save(1, ["city": "Paris"])
        try place.psql("ALTER TABLE people RENAME COLUMN city TO town")
        _ = try place.container.core.reloadSchema()
        let history = try place.history
        let outcome = Result { () throws(StoreError) in try history.nextUndo(table: "people") }
        guard case .failure(.historyOutdated(let table)) = outcome else {
            Issue.record("gave \(outcome)")
            return
        }
        #expect(table == "people")
        #expect(try place.psql("SELECT town FROM people WHERE id = 1") == "Paris", "nothing written")
    }

    @Test func aDeleteJournaledBeforeAColumnWasAddedComesBackWithItsDefault() throws {
        let place = try Place()
        let view = place.container.viewContext
        try view.delete(place.person(3))
        try view.save()
        try place.psql("ALTER TABLE people ADD COLUMN rank int NOT NULL DEFAULT 7")
        // (Another run of the editor, which reads the table as it is now.)
        let engine = try PostgresEngine(try place.server.location(place.database))
        defer { engine.close() }
        let later = try Container(engine: engine, options: StoreOptions(history: HistorySettings(folder: "/nonexistent")))
        let undo = try #require(try later.history?.nextUndo(table: "people"))
        #expect(undo.changes.first?.kind == .insert && undo.changes.first?.fields.contains { $0.name == "rank" } == false)
        _ = try later.write(undo)
        #expect(try place.psql("SELECT name || '/' || rank FROM people WHERE id = 3") == "Linus/7")
    }

    @Test func aJsonColumnComesBackAsItsTextAndItsUndoMeetsNoFalseConflict() throws {
        let place = try Place("CREATE TABLE docs (id int PRIMARY KEY, doc json); INSERT INTO docs VALUES (1, '{\"b\": 1,   \"a\": 2, \"a\": 3}')")
        let id = ObjectID(table: "docs", primaryKey: [.integer(1)])
        let view = place.container.viewContext
        try view.update(id, values: ["doc": "{\"z\":1, \"y\":3}"])
        try view.save()
        let undoUpdate = try #require(try place.history.nextUndo(table: "docs"))
        let written = try place.container.write(undoUpdate)
        #expect(written.conflicts.isEmpty && written.written == 1, "\(written)")
        #expect(try place.psql("SELECT doc::text FROM docs") == "{\"b\": 1,   \"a\": 2, \"a\": 3}")
        try view.refresh(id, mergeChanges: false)
        try view.delete(id)
        try view.save()
        _ = try place.container.write(try #require(try place.history.nextUndo(table: "docs")))
        #expect(try place.psql("SELECT doc::text FROM docs") == "{\"b\": 1,   \"a\": 2, \"a\": 3}", "the text exactly, duplicate key and spaces")
    }

    @Test func aRecordWhoseKeyIsAlwaysNumberedComesBackUnderItsNumber() throws {
        let place = try Place("CREATE TABLE ident (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text); INSERT INTO ident (name) VALUES ('a'), ('b')")
        let view = place.container.viewContext
        try view.delete(ObjectID(table: "ident", primaryKey: [.integer(2)]))
        try view.save()
        let step = try #require(try place.history.nextUndo(table: "ident"))
        #expect(try place.container.write(step).written == 1)
        #expect(try place.psql("SELECT string_agg(id || name, ',' ORDER BY id) FROM ident") == "1a,2b")
    }

    @Test func aTruncateIsListedAndNotUndoneAndOlderChangesWait() throws {
        let place = try Place()
        let view = place.container.viewContext
        try view.delete(place.person(3))
        try view.save()
        _ = try place.container.run(try place.container.compile("TRUNCATE people"), cancellation: Cancellation())
        let step = try #require(try place.history.nextUndo(table: "people"))
        #expect(step.source == .sql && !step.isComplete, "the truncate, not the delete before it")
        #expect(try place.psql("SELECT count(*) FROM people") == "0")
    }

    @Test func aJournalTakenAwayUnderAnOpenEditorFailsTheHistoryNotTheWrites() throws {
        let place = try Place()
        let session = try PostgresSession.open(try place.server.location(place.database))
        defer { session.close() }
        _ = try NotifySetup(session: session).remove([], everything: true)
        let set = try place.container.bulkSet(table: "people", column: "city", to: .text("Z"), where: .compare("id", .greater, .integer(0)))
        #expect(set.count == 3)
        #expect(try place.container.run(try place.container.compile("UPDATE people SET age = 1"), cancellation: Cancellation()) == 3)
        #expect(try place.psql("SELECT string_agg(city || age, ',' ORDER BY id) FROM people") == "Z1,Z1,Z1")
        #expect(try place.history.takeProblem()?.contains("does not exist") == true, "the server's reason")
        #expect(try place.history.takeProblem() == nil, "said once")
    }

    // MARK: - The second review

    /// The trigger function runs as the writer: a table's owner's cast runs with the owner's
    /// rights, never the journal owner's.
    @Test func aCastOnAnOwnersTypeRunsWithTheOwnersRightsNotTheJournals() throws {
        let place = try Place()
        let mallory = try Role(place, "mallory", grants: "GRANT CREATE ON SCHEMA public TO ROLE")
        _ = try mallory.psql("""
            CREATE TYPE k AS ENUM ('a');
            CREATE FUNCTION k_text(k) RETURNS text LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'ALTER ROLE \(mallory.name) SUPERUSER'; RETURN 'a'; END $$;
            CREATE CAST (k AS text) WITH FUNCTION k_text(k);
            CREATE TABLE mtab (id k PRIMARY KEY);
            CREATE TRIGGER t AFTER INSERT ON mtab REFERENCING NEW TABLE AS cardfile_new FOR EACH STATEMENT EXECUTE FUNCTION cardfile.notify_change('id');
            """)
        // (The cast is refused its ALTER ROLE, as mallory: whether the insert then fails is the
        // cast's affair.)
        _ = try? mallory.psql("BEGIN; SELECT set_config('cardfile.capture', '100', true); INSERT INTO mtab VALUES ('a'); COMMIT")
        #expect(try place.psql("SELECT rolsuper FROM pg_roles WHERE rolname = '\(mallory.name)'") == "f")
    }

    @Test func noRolePrunesBeyondTheOwnersCapacityNorTouchesAnothersImport() throws {
        let place = try Place()
        let mallory = try Role(place, "mallory", grants: "GRANT SELECT, UPDATE ON people TO ROLE")
        try place.save(1, ["city": "Paris"])
        _ = try mallory.psql("SELECT cardfile.history_prune()")
        #expect(try place.psql("SELECT count(*) FROM cardfile.history_entry") == "1", "within the capacity: nothing pruned")
        let folder = TemporaryDirectory()
        let csv = folder.file("more.csv")
        try "id,name\n10,Ten\n11,Eleven\n".write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try Importer(container: place.container, file: csv, options: ImportOptions(table: "people")).run()
        let group = try place.psql("SELECT grp FROM cardfile.history_entry WHERE grp IS NOT NULL LIMIT 1")
        _ = try mallory.psql("SELECT cardfile.history_begin('import', '\(group)', NULL, false, 0)")
        _ = try mallory.psql("BEGIN; SELECT cardfile.history_begin('import', '\(group)', NULL, false, 1000); UPDATE people SET name = 'MALLORY' WHERE id = 1; COMMIT")
        let step = try #require(try place.history.nextUndo(table: "people"))
        #expect(step.source == .import && step.isComplete && step.recordCount == 2, "\(step.entries)")
        _ = try place.container.write(step)
        #expect(try place.psql("SELECT string_agg(id || name, ',' ORDER BY id) FROM people") == "1MALLORY,2Grace,3Linus", "the import undone, nothing of mallory's written back")
    }
}
