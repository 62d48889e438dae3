@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// Imports into what is not a plain table, rows that only a deferred constraint refuses, and
/// a server that stops answering in the middle: each ends with the rows accounted for and a
/// clear word, never a crash and never a wait without end.
@Suite("PostgreSQL: imports at the edges", .timeLimit(.minutes(5)))
struct ImportEdgeTests {

    @Test func aViewTakesRowsByInsertAndAMaterializedViewSaysWhyNot() throws {
        let place = try DatabasePlace("""
            CREATE TABLE books (id int PRIMARY KEY, title text NOT NULL);
            CREATE VIEW titles AS SELECT id, title FROM books;
            CREATE MATERIALIZED VIEW frozen AS SELECT id, title FROM books;
            """)
        // (`COPY` into a view ends postgres-nio's connection with a fatal error: never sent.)
        let summary = try place.run("id,title\n1,One\n2,\n3,Three\n", ImportOptions(table: "titles"))
        #expect((summary.inserted, summary.rejected) == (2, 1), "\(summary.errors)")
        #expect(try place.psql("SELECT string_agg(title, ',' ORDER BY id) FROM books") == "One,Three")
        do {
            _ = try place.run("id,title\n4,Four\n", ImportOptions(table: "frozen"))
            Issue.record("a materialized view took rows")
        } catch {
            #expect(error.description.contains("materialized view"), "\(error.description)")
        }
    }

    /// Deferred constraints stay deferred: a file may refer to rows it holds further on. A
    /// batch that breaks one fails at its commit, which names the key; earlier batches stay.
    /// `--batch-size` bounds a batch; it is no size to make room for (400,000,000 rows made a
    /// 2-row import ask for 25 GB and abort; a larger number overflowed).
    @Test func aHugeBatchSizeIsABoundNotAnAllocation() throws {
        let place = try DatabasePlace("CREATE TABLE sm (id int PRIMARY KEY, a text)")
        for size in [400_000_000, Int.max / 2] {
            _ = try place.psql("TRUNCATE sm")
            let summary = try place.run("id,a\n1,x\n2,y\n", ImportOptions(table: "sm", batchSize: size))
            #expect(summary.inserted == 2, "\(size): \(summary.errors)")
        }
    }

    @Test func deferredConstraintsAreCheckedAtEachBatchsCommit() throws {
        let place = try DatabasePlace("""
            CREATE TABLE staff (id int PRIMARY KEY, boss int REFERENCES staff (id) DEFERRABLE INITIALLY DEFERRED, name text);
            """)
        for options in [ImportOptions(table: "staff"), ImportOptions(table: "staff", atomic: true, batchSize: 1)] {
            _ = try place.psql("DELETE FROM staff")
            let summary = try place.run("id,boss,name\n1,3,Ann\n2,3,Bo\n3,,Cy\n", options)
            #expect(summary.inserted == 3 && summary.rejected == 0, "\(summary.errors)")
        }
        _ = try place.psql("DELETE FROM staff")
        do {
            _ = try place.run("id,boss,name\n1,,Ann\n2,1,Bo\n3,99,Cy\n", ImportOptions(table: "staff", batchSize: 2))
            Issue.record("a row referring to no one went in")
        } catch {
            #expect(error.description.contains("(boss)=(99)"), "\(error.description)")
            #expect(error.description.contains("the 2 rows imported before stay"), "\(error.description)")
        }
        #expect(try place.psql("SELECT string_agg(id::text, ',' ORDER BY id) FROM staff") == "1,2")
    }

    /// A trigger's refusal carries the trigger's own place ahead of the copy's line: the row
    /// refused is the one the copy names, checked alone, and every other row goes in.
    @Test func aTriggersRefusalNamesTheRightRow() throws {
        let place = try DatabasePlace("""
            CREATE TABLE lucky (id int PRIMARY KEY, v int);
            CREATE FUNCTION refuse_13() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.v = 13 THEN RAISE EXCEPTION 'unlucky %', NEW.id; END IF; RETURN NEW; END $$;
            CREATE TRIGGER no_13 BEFORE INSERT ON lucky FOR EACH ROW EXECUTE FUNCTION refuse_13();
            CREATE TABLE "line 3" (id int PRIMARY KEY, v int CHECK (v <> 13));
            """)
        var text = "id,v\n"
        for id in 1...100 { text += "\(id),\([20, 57, 58, 90].contains(id) ? 13 : 1_000 + id)\n" }
        for table in ["lucky", "line 3"] {
            let summary = try place.run(text, ImportOptions(table: table))
            #expect((summary.inserted, summary.rejected) == (96, 4), "\(table): \(summary.errors)")
            #expect(summary.errors.map(\.line) == [21, 58, 59, 91], "\(table)")
        }
        #expect(try place.psql("SELECT count(*) FROM lucky WHERE v <> 13") == "96")
    }

    /// A file without the key finds its rows by a unique column (the catalog's unique
    /// indexes); a partial unique index is not one to find rows by.
    @Test func anUpsertFindsRowsByAUniqueColumnWhenTheFileHasNoKey() throws {
        let place = try DatabasePlace("""
            CREATE TABLE tags (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, code text NOT NULL UNIQUE, label text, alias text);
            CREATE UNIQUE INDEX tags_alias ON tags (alias) WHERE alias IS NOT NULL;
            INSERT INTO tags (code, label, alias) VALUES ('A', 'old', 'x');
            """)
        let summary = try place.run("code,label\nA,first\nA,first\nB,new\n", ImportOptions(table: "tags", mode: .upsert))
        let counts: [Int] = [summary.inserted, summary.updated, summary.unchanged, summary.rejected]
        #expect(counts == [1, 1, 1, 0], "\(summary.errors)")
        #expect(try place.psql("SELECT string_agg(code || '=' || label, ',' ORDER BY code) FROM tags") == "A=first,B=new")
        do {
            _ = try place.run("alias,label\nx,again\n", ImportOptions(table: "tags", mode: .upsert))
            Issue.record("an upsert by a partial unique index ran")
        } catch {
            #expect(error.description.contains("needs its primary key or a unique column"), "\(error.description)")
        }
    }

    @Test func anUpsertIntoAViewSaysToUseItsTable() throws {
        let place = try DatabasePlace("CREATE TABLE books (id int PRIMARY KEY, title text); CREATE VIEW titles AS SELECT id, title FROM books")
        do {
            _ = try place.run("id,title\n1,One\n", ImportOptions(table: "titles", mode: .upsert))
            Issue.record("an upsert into a view ran")
        } catch {
            #expect(error.description.contains("upsert into its table"), "\(error.description)")
        }
    }

    @Test func aServerThatStopsAnsweringEndsTheImportInsteadOfHoldingIt() throws {
        let owned = try PrivatePostgresServer(settings: ["autovacuum=off"])
        defer { owned.stop() }
        try owned.server.psql("postgres", "CREATE TABLE rows (id int PRIMARY KEY, note text)")
        let location = try PostgresLocation.resolve(owned.server.url, environment: [:], homeFolder: TemporaryDirectory().path, loginName: "x").location
        let engine = try PostgresEngine(location)
        defer { engine.close() }
        let container = try Container(engine: engine)
        let folder = TemporaryDirectory()
        let path = folder.file("many.csv")
        var text = "id,note\n"
        for id in 1...200_000 { text += "\(id),note \(id)\n" }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<ImportSummary, ImportError>?>(nil)
        let batches = Locked(0)
        Thread.detachNewThread {
            let result = Result { () throws(ImportError) in
                try Importer(container: container, file: path, options: ImportOptions(table: "rows", batchSize: 2_000))
                    .run(progress: { _ in
                        batches.withLock { $0 += 1 }
                        Thread.sleep(forTimeInterval: 0.01)
                    })
            }
            outcome.withLock { $0 = result }
            ended.signal()
        }
        while batches.value < 3 { Thread.sleep(forTimeInterval: 0.01) }
        try owned.pause()
        defer { try? owned.resume() }
        // The engine's heartbeat finds the silence within seconds and ends the import's connection.
        #expect(ended.wait(timeout: .now() + 30) == .success, "the import still waits on a silent server")
        guard case .failure(let error)? = outcome.value else {
            Issue.record("the import did not fail: \(String(describing: outcome.value))")
            return
        }
        #expect(error.description.contains("unreachable") || error.description.contains("connection"), "\(error.description)")
        try owned.resume()
        // What it said was imported is there; at most the batch whose COMMIT the server had
        // taken in as it stopped (its answer never came) is there too.
        let stored = Int(try owned.server.psql("postgres", "SELECT count(*) FROM rows")) ?? -1
        if case .stopped(_, let imported, _) = error {
            #expect(stored == imported || stored == imported + 2_000, "said \(imported), stored \(stored)")
        } else {
            Issue.record("not a stop: \(error)")
        }
    }
}

extension DatabasePlace {
    /// Imports `text` (written to a file of its own) as `options` say.
    func run(_ text: String, _ options: ImportOptions) throws(ImportError) -> ImportSummary {
        let path = folder.file("rows-\(UUID().uuidString).csv")
        try? text.write(toFile: path, atomically: true, encoding: .utf8)
        return try Importer(container: container, file: path, options: options).run()
    }
}
