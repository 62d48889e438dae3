import Foundation
import Testing

/// The headless commands, run as a person runs them: output and exit status.
@Suite("Headless commands", .timeLimit(.minutes(10)))
struct CommandTests {
    /// A folder of its own (``remove()`` it when done), the database path in it (a demo
    /// library of `demoRows` books, or no file yet when nil), and the program.
    struct Workspace {
        let folder: URL
        let database: String
        let cardfile: String

        init(demoRows: Int?) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-command-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            database = folder.appendingPathComponent("library.sqlite").path
            cardfile = try TmuxSession.programPath("cardfile")
            if let demoRows { _ = try EditorTmuxTests.run(cardfile, ["demo", database, "--rows", String(demoRows)]) }
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs `cardfile arguments` and kills it with SIGKILL as soon as `ready()` holds (or 30 s
    /// have passed); true when it was still running then.
    static func kill(_ cardfile: String, _ arguments: [String], when ready: () throws -> Bool) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cardfile)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning, try !ready() { Thread.sleep(forTimeInterval: 0.005) }
        let wasRunning = process.isRunning
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return wasRunning
    }

    @Test func importReportsRowsAndExitsByHowItWent() throws {
        let place = try Workspace(demoRows: 50)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder, place.database, place.cardfile)
        let csv = folder.appendingPathComponent("authors.csv").path
        try "id,name,country,born\n100,New Author,Nowhere,1950\n101,,X,1960\n102,Third,Y,2500\n".write(toFile: csv, atomically: true, encoding: .utf8)

        let skipped = try EditorTmuxTests.run(cardfile, ["import", database, csv, "--table", "authors"])
        #expect(skipped.contains("imported 1 row: 1 inserted, 2 rejected"))
        #expect(skipped.contains("authors.csv line 3, column name: needs a value"))
        #expect(skipped.contains("authors.csv line 4: breaks the table's rule"))
        #expect(try EditorTmuxTests.sqlite(database, "SELECT name FROM authors WHERE id = 100") == "New Author")

        let aborted = try EditorTmuxTests.run(cardfile, ["import", database, csv, "--table", "authors", "--mode", "ignore", "--on-error", "abort"], expectStatus: 1)
        #expect(aborted.contains("stopped at the first error"))

        let atomic = try EditorTmuxTests.run(cardfile, ["import", database, csv, "--table", "authors", "--mode", "upsert", "--atomic"], expectStatus: 1)
        #expect(atomic.contains("nothing imported"))

        // Every row refused: nothing imported, and the status says so.
        let bad = folder.appendingPathComponent("bad.csv").path
        try "id,name,country,born\n200,,X,1960\n201,Fourth,Y,2500\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let allRejected = try EditorTmuxTests.run(cardfile, ["import", database, bad, "--table", "authors"], expectStatus: 1)
        #expect(allRejected.contains("imported 0 rows: 0 inserted, 2 rejected"), "\(allRejected)")
        #expect(allRejected.contains("every row was rejected, so nothing was imported"), "\(allRejected)")
        #expect(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM authors WHERE id >= 200") == "0")
        let noDatabase = try EditorTmuxTests.run(cardfile, ["import", folder.appendingPathComponent("none.db").path, csv, "--table", "authors"], expectStatus: 2)
        #expect(noDatabase.contains("--create makes a new, empty database there"), "\(noDatabase)")

        let missing = try EditorTmuxTests.run(cardfile, ["import", database, folder.appendingPathComponent("none.csv").path, "--table", "authors"], expectStatus: 2)
        #expect(missing.contains("no such file"))
        let badTable = try EditorTmuxTests.run(cardfile, ["import", database, csv, "--table", "nope"], expectStatus: 2)
        #expect(badTable.contains("nope"))
    }

    @Test func collaborateWritesOnlyToADemoWithoutAYes() throws {
        let place = try Workspace(demoRows: nil)
        defer { place.remove() }
        let (folder, cardfile) = (place.folder, place.cardfile)
        let other = folder.appendingPathComponent("mine.sqlite").path
        _ = try EditorTmuxTests.sqlite(other, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'kept')")
        // No terminal to ask on: refused, with the way through, and the file untouched.
        let refused = try EditorTmuxTests.run(cardfile, ["collaborate", other, "--times", "1", "--every", "0.01"], expectStatus: 2)
        #expect(refused.contains("is not a Cardfile demo database; collaborate would change its records. --yes lets it."), "\(refused)")
        #expect(try EditorTmuxTests.sqlite(other, "SELECT body FROM notes") == "kept")
        // With --yes it writes.
        _ = try EditorTmuxTests.run(cardfile, ["collaborate", other, "--key", "1", "--set", "body=changed", "--yes"])
        #expect(try EditorTmuxTests.sqlite(other, "SELECT body FROM notes") == "changed")
        // A demo needs no yes.
        let demo = folder.appendingPathComponent("demo.sqlite").path
        _ = try EditorTmuxTests.run(cardfile, ["demo", demo, "--rows", "10"])
        _ = try EditorTmuxTests.run(cardfile, ["collaborate", demo, "--table", "authors", "--key", "1", "--set", "name=Theirs"])
        #expect(try EditorTmuxTests.sqlite(demo, "SELECT name FROM authors WHERE id = 1") == "Theirs")
    }

    @Test func createMakesTheDatabaseAndTheTable() throws {
        let place = try Workspace(demoRows: nil)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder, place.database, place.cardfile)
        let csv = folder.appendingPathComponent("airports.csv").path
        try "code,name,elevation,lat\nAMS,Schiphol,-11,52.31\nZRH,Zürich,1416,47.46\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let said = try EditorTmuxTests.run(cardfile, ["import", database, csv, "--table", "airports", "--create"])
        #expect(said.contains("Created table airports (code TEXT, name TEXT, elevation INTEGER, lat REAL)."))
        #expect(said.contains("imported 2 rows: 2 inserted"))
        #expect(try EditorTmuxTests.sqlite(database, "SELECT name || elevation FROM airports WHERE code = 'ZRH'") == "Zürich1416")
        // Without --create, a missing table is an error, as before.
        _ = try EditorTmuxTests.run(cardfile, ["import", database, csv, "--table", "other"], expectStatus: 2)
    }

    @Test func killedMidImportLeavesWholeBatchesAndASoundFile() throws {
        let place = try Workspace(demoRows: 10)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder, place.database, place.cardfile)
        let csv = folder.appendingPathComponent("members.csv").path
        var text = "name,email,joined\n"
        for index in 0..<400_000 { text += "Member \(index),m\(index)@example.org,2024-01-01\n" }
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        let before = try #require(Int(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM members")))

        // Kill it once some batches are in, well before the end.
        let wasRunning = try Self.kill(cardfile, ["import", database, csv, "--table", "members", "--batch-size", "1000"]) {
            (Int(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM members")) ?? before) != before
        }
        #expect(wasRunning, "the import ended before it could be killed")

        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA integrity_check") == "ok")
        let after = try #require(Int(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM members")))
        #expect(after > before && after < before + 400_000)
        #expect((after - before) % 1000 == 0, "\(after - before) rows: not whole batches")
        // The rows that are there are the file's first ones, complete.
        let last = after - before - 1
        #expect(try EditorTmuxTests.sqlite(database, "SELECT email FROM members WHERE name = 'Member \(last)'") == "m\(last)@example.org")
    }

    /// `--create --atomic` makes the table in the import's own transaction: killed mid-way,
    /// it leaves no table (it used to leave an empty one).
    @Test func killedAtomicCreatingImportLeavesNoTable() throws {
        let place = try Workspace(demoRows: 10)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder, place.database, place.cardfile)
        let csv = folder.appendingPathComponent("visits.csv").path
        var text = "name,email,day\n"
        for index in 0..<400_000 { text += "Visitor \(index),v\(index)@example.org,\(index % 28 + 1)\n" }
        try text.write(toFile: csv, atomically: true, encoding: .utf8)

        // Kill it once its transaction is writing (the log grows), well before the end.
        func logSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: database + "-wal"))?[.size] as? Int) ?? 0 }
        let start = logSize()
        let wasRunning = try Self.kill(cardfile, ["import", database, csv, "--table", "visits", "--create", "--atomic", "--batch-size", "1000"]) {
            logSize() > start + 256 * 1024
        }
        #expect(wasRunning, "the import ended before it could be killed")
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA integrity_check") == "ok")
        #expect(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM sqlite_master WHERE name = 'visits'") == "0")

        // Run to the end, the same import makes the table and fills it.
        let said = try EditorTmuxTests.run(cardfile, ["import", database, csv, "--table", "visits", "--create", "--atomic"])
        #expect(said.contains("Created table visits (name TEXT, email TEXT, day INTEGER)."), "\(said)")
        #expect(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM visits") == "400000")
    }

    @Test func shellCompletionsOfferTheTablesOfTheDatabaseOnTheLine() throws {
        let place = try Workspace(demoRows: 10)
        defer { place.remove() }
        let (database, cardfile) = (place.database, place.cardfile)
        for shell in ["bash", "zsh", "fish"] {
            let script = try EditorTmuxTests.run(cardfile, ["--generate-completion-script", shell])
            #expect(script.contains("---completion") && script.contains("--table"), "\(shell)")
        }
        // What the bash script asks when Tab is pressed after `--table b` (word 5, cursor 1).
        let offered = try EditorTmuxTests.run(cardfile, ["---completion", "import", "--", "--table", "5", "1", "cardfile", "import", database, "x.csv", "--table", "b"])
        #expect(offered.split(separator: "\n") == ["books"])
        let all = try EditorTmuxTests.run(cardfile, ["---completion", "open", "--", "--table", "3", "0", "cardfile", database, "--table", ""])
        #expect(all.split(separator: "\n") == ["authors", "books", "loans", "members"])
    }

    @Test func exportWritesWhatImportReadsBack() throws {
        let place = try Workspace(demoRows: 50)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder, place.database, place.cardfile)
        let out = folder.appendingPathComponent("recent.csv").path
        let said = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "books", "--where", "year >= 1990", "--sort=-year", "--output", out])
        let expected = try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE year >= 1990")
        #expect(said.contains("Exported \(expected) rows to \(out)"))
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.hasPrefix("\"id\",\"title\""))
        // In the order asked for: newest first, ties by id in the same direction. (Read from
        // JSON Lines, where a line break inside a value cannot look like a new row.)
        let lines = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "books", "--where", "year >= 1990", "--sort=-year", "--format", "jsonl"])
        let ids = try lines.split(separator: "\n").filter { $0.hasPrefix("{") }.map { line -> String in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return (object?["id"] as? NSNumber)?.stringValue ?? "?"
        }
        let order = try EditorTmuxTests.sqlite(database, "SELECT group_concat(id, ' ') FROM (SELECT id FROM books WHERE year >= 1990 ORDER BY year DESC, id DESC)")
        #expect(ids.joined(separator: " ") == order)
        // Read back into an empty copy, every value is what it was (storage class and bytes).
        let copy = folder.appendingPathComponent("copy.sqlite").path
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        _ = try EditorTmuxTests.sqlite(copy, "DELETE FROM loans; DELETE FROM books;")
        let imported = try EditorTmuxTests.run(cardfile, ["import", copy, out, "--table", "books"])
        #expect(imported.contains("imported \(expected) rows: \(expected) inserted"), "\(imported)")
        let digest = "SELECT group_concat(quote(id) || quote(title) || quote(author_id) || quote(isbn) || quote(year) || quote(published) || quote(pages) || quote(rating) || quote(notes), '|') FROM (SELECT * FROM books %@ ORDER BY id)"
        let original = try EditorTmuxTests.sqlite(database, digest.replacingOccurrences(of: "%@", with: "WHERE year >= 1990"))
        #expect(!original.isEmpty)
        #expect(try EditorTmuxTests.sqlite(copy, digest.replacingOccurrences(of: "%@", with: "")) == original)
        let json = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "authors", "--format", "json"])
        #expect(json.contains("\"name\": \"Ursula K. Le Guin\""))
        _ = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "nope"], expectStatus: 2)
    }
}
