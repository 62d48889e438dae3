import Foundation
import Testing

/// What the README promises of the commands, run as a person runs them, with standard output
/// and standard error read apart.
@Suite("Command promises", .timeLimit(.minutes(10)))
struct CommandPromiseTests {
    /// How a run ended: its status and what it wrote to each stream.
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String

        var errorLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// Runs `cardfile arguments` with no terminal and the given input, each output stream to
    /// a file of its own (two pipes could fill while the other is read).
    static func run(_ place: CommandTests.Workspace, _ arguments: [String], input: String? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: place.cardfile)
        process.arguments = arguments
        let id = UUID().uuidString
        let (out, err) = (place.folder.appendingPathComponent("out-\(id)"), place.folder.appendingPathComponent("err-\(id)"))
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let input {
            let file = place.folder.appendingPathComponent("in-\(id)")
            try Data(input.utf8).write(to: file)
            process.standardInput = try FileHandle(forReadingFrom: file)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8))
    }

    /// A value from the database, read by the sqlite3 program (waiting out a writer's lock).
    static func sqlite(_ database: String, _ sql: String) throws -> String {
        try EditorTmuxTests.run("/usr/bin/env", ["sqlite3", "-cmd", ".timeout 5000", database, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The row count of `table`, or nil while it cannot be read (not made yet, locked): a
    /// poll that records no failure.
    static func count(_ database: String, _ table: String) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-cmd", ".timeout 5000", database, "SELECT count(*) FROM \(table)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
    }

    @Test func everyOpeningErrorIsOneLineOnStandardErrorAndStatusTwo() throws {
        let place = try CommandTests.Workspace(demoRows: 10)
        defer { place.remove() }
        let folder = place.folder.path
        let notADatabase = folder + "/notes.txt", empty = folder + "/empty.sqlite"
        try "not a database\n".write(toFile: notADatabase, atomically: true, encoding: .utf8)
        FileManager.default.createFile(atPath: empty, contents: Data())
        let cases: [(arguments: [String], says: String)] = [
            ([folder + "/missing.sqlite"], "There is no database file at \(folder)/missing.sqlite. Nothing was created; --create makes a new, empty database there."),
            ([folder + "/no/such/folder/x.sqlite"], "no/such/folder"),
            ([notADatabase], "is not an SQLite database"),
            ([empty], "is empty, not an SQLite database"),
            ([place.database, "--table", "nope"], "nope"),
            ([place.database, "--theme", "nope"], "nope"),
            ([place.database, "--autosave", "soon"], "--autosave"),
        ]
        for (arguments, says) in cases {
            let outcome = try Self.run(place, arguments)
            #expect(outcome.status == 2, "\(arguments): status \(outcome.status)")
            #expect(outcome.stdout.isEmpty, "\(arguments): nothing on standard output, got \(outcome.stdout)")
            #expect(outcome.errorLines.count == 1 && outcome.stderr.hasPrefix("cardfile: ") && outcome.stderr.contains(says),
                    "\(arguments): one line on standard error saying “\(says)”, got \(outcome.stderr)")
            #expect(!outcome.stderr.contains("\u{1B}"), "\(arguments): the terminal was never touched")
        }
        // Nothing was made or changed by any of them.
        #expect(!FileManager.default.fileExists(atPath: folder + "/missing.sqlite"))
        #expect(try String(contentsOfFile: notADatabase, encoding: .utf8) == "not a database\n")
        #expect(try FileManager.default.attributesOfItem(atPath: empty)[.size] as? Int == 0)
    }

    /// `cardfile diff`: status 0, 1 or 2 as diff's; the SQL it writes makes A into B.
    @Test func diffSaysWhatDiffersWithDiffsStatusAndItsSQLMakesAIntoB() throws {
        let place = try CommandTests.Workspace(demoRows: 10)
        defer { place.remove() }
        let copy = place.folder.path + "/copy.sqlite"
        _ = try Self.sqlite(place.database, "VACUUM INTO '\(copy)'")
        let same = try Self.run(place, ["diff", place.database, copy])
        #expect(same.status == 0 && same.stdout == "The databases hold the same records.\n", "\(same)")
        _ = try Self.sqlite(copy, "UPDATE books SET title = 'Changed' WHERE id = 1; DELETE FROM loans WHERE id = 1; CREATE TABLE extra (x)")
        let differ = try Self.run(place, ["diff", place.database, copy])
        #expect(differ.status == 1, "\(differ)")
        let lines = differ.stdout.split(separator: "\n")
        #expect(lines.first == "schema: table extra is only in B", "\(differ.stdout)")
        #expect(lines.contains { $0.hasPrefix("~ books 1: title “") && $0.hasSuffix("” → “Changed”") }, "\(differ.stdout)")
        #expect(lines.contains { $0.hasPrefix("- loans 1: ") }, "\(differ.stdout)")
        #expect(differ.stderr.isEmpty)
        let json = try Self.run(place, ["diff", place.database, copy, "--table", "books", "--format", "json"])
        #expect(json.status == 1 && json.stdout.contains("\"op\": \"change\"") && !json.stdout.contains("loans"), "\(json)")
        let sql = try Self.run(place, ["diff", place.database, copy, "--format", "sql"])
        #expect(sql.status == 1)
        let script = place.folder.path + "/diff.sql"
        try sql.stdout.write(toFile: script, atomically: true, encoding: .utf8)
        _ = try Self.sqlite(place.database, ".read \(script)")
        #expect(try Self.run(place, ["diff", place.database, copy]).status == 0)
        // Trouble: a file missing, a table unknown, a format unknown; one line, status 2.
        for arguments in [["diff", place.database, place.folder.path + "/missing.sqlite"], ["diff", place.database, copy, "--table", "nope"],
                          ["diff", place.database, copy, "--format", "xml"]] {
            let trouble = try Self.run(place, arguments)
            #expect(trouble.status == 2 && trouble.stdout.isEmpty && trouble.errorLines.count == 1, "\(arguments): \(trouble)")
        }
    }

    /// `cardfile merge` as git's merge driver: two branches change different records of a
    /// database and `git merge` merges them; a field changed on both branches is a conflict,
    /// and the file is left as it was.
    @Test func gitMergesDatabaseBranchesThroughTheDriver() throws {
        let place = try CommandTests.Workspace(demoRows: 10)
        defer { place.remove() }
        let repo = place.folder.appendingPathComponent("repo").path
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        func git(_ arguments: [String], status: Int32 = 0) throws -> String {
            try EditorTmuxTests.run("/usr/bin/env", ["git", "-C", repo, "-c", "user.name=T", "-c", "user.email=t@example.com"] + arguments, expectStatus: status)
        }
        _ = try git(["init", "-q", "-b", "main"])
        _ = try git(["config", "merge.cardfile.driver", "\(place.cardfile) merge --no-interactive %O %A %B"])
        try "*.sqlite merge=cardfile\n".write(toFile: repo + "/.gitattributes", atomically: true, encoding: .utf8)
        let database = repo + "/library.sqlite"
        _ = try Self.sqlite(place.database, "VACUUM INTO '\(database)'")
        _ = try git(["add", "."])
        _ = try git(["commit", "-q", "-m", "base"])
        _ = try git(["checkout", "-q", "-b", "theirs"])
        _ = try Self.sqlite(database, "UPDATE books SET title = 'Theirs' WHERE id = 1")
        _ = try git(["commit", "-q", "-am", "theirs"])
        _ = try git(["checkout", "-q", "main"])
        _ = try Self.sqlite(database, "UPDATE books SET title = 'Ours' WHERE id = 2")
        _ = try git(["commit", "-q", "-am", "ours"])
        _ = try git(["merge", "-q", "--no-edit", "theirs"])
        #expect(try Self.sqlite(database, "SELECT group_concat(title, '|') FROM (SELECT title FROM books WHERE id <= 2 ORDER BY id)") == "Theirs|Ours")
        // git diff reads the files through `cardfile dump`: a record a line.
        _ = try git(["config", "diff.cardfile.textconv", "\(place.cardfile) dump"])
        try "*.sqlite merge=cardfile diff=cardfile\n".write(toFile: repo + "/.gitattributes", atomically: true, encoding: .utf8)
        let shown = try git(["diff", "HEAD~1", "HEAD", "--", "library.sqlite"])
        #expect(shown.split(separator: "\n").contains { $0.hasPrefix("+books 1: id 1, title “Theirs”") }, "\(shown)")
        // Both branches change one field: a conflict, and our file as it was.
        _ = try git(["checkout", "-q", "-b", "other"])
        _ = try Self.sqlite(database, "UPDATE books SET title = 'Other' WHERE id = 3")
        _ = try git(["commit", "-q", "-am", "other"])
        _ = try git(["checkout", "-q", "main"])
        _ = try Self.sqlite(database, "UPDATE books SET title = 'Mine' WHERE id = 3")
        _ = try git(["commit", "-q", "-am", "mine"])
        let output = try git(["merge", "--no-edit", "other"], status: 1)
        #expect(output.contains("CONFLICT") && output.contains("books 3: title changed on both sides"), "\(output)")
        #expect(try Self.sqlite(database, "SELECT title FROM books WHERE id = 3") == "Mine")
        // Different schemas: refused, status 2.
        let base = place.folder.path + "/base.sqlite", changed = place.folder.path + "/changed.sqlite"
        _ = try Self.sqlite(place.database, "VACUUM INTO '\(base)'")
        _ = try Self.sqlite(place.database, "VACUUM INTO '\(changed)'")
        _ = try Self.sqlite(changed, "CREATE TABLE extra (x)")
        let refused = try Self.run(place, ["merge", base, place.database, changed])
        #expect(refused.status == 2 && refused.stderr.contains("table extra is added in theirs"), "\(refused)")
    }

    @Test func helpAndVersionGoToStandardOutput() throws {
        let place = try CommandTests.Workspace(demoRows: nil)
        defer { place.remove() }
        let version = try Self.run(place, ["--version"])
        #expect(version.status == 0 && version.stderr.isEmpty)
        #expect(version.stdout.firstMatch(of: /^\d+\.\d+\.\d+\n$/) != nil, "\(version.stdout)")
        let help = try Self.run(place, ["--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        for word in ["USAGE:", "--table", "--read-only", "--create", "demo", "collaborate", "import", "export", "keys"] {
            #expect(help.stdout.contains(word), "--help mentions \(word)")
        }
    }

    @Test func collaborateWithoutAKeyChangesRandomRecordsAndSaysEachChange() throws {
        let place = try CommandTests.Workspace(demoRows: 30)
        defer { place.remove() }
        let outcome = try Self.run(place, ["collaborate", place.database, "--table", "books", "--times", "5", "--every", "0.01"])
        #expect(outcome.status == 0 && outcome.stderr.isEmpty, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 5, "one line a change: \(outcome.stdout)")
        // Each line names a record, a field, the old value and the new; the last change of
        // each field is what the file holds.
        // A change the table's rules refuse (a rating past 5) is said as such and changes nothing.
        var last: [String: String] = [:]
        for line in lines {
            if line.firstMatch(of: /^\d\d:\d\d:\d\d books\(\d+\): \w+ not changed \(.+\)$/) != nil { continue }
            let match = try #require(line.firstMatch(of: /^\d\d:\d\d:\d\d books\((\d+)\): (\w+) (.*) → (.*)$/), "\(line)")
            last["\(match.1)|\(match.2)"] = String(match.4)
        }
        for (field, said) in last {
            let parts = field.split(separator: "|")
            // (Control characters in the data are printed visible: a line break as ␊, a bell as ␇.)
            let raw = try Self.sqlite(place.database, "SELECT \(parts[1]) FROM books WHERE id = \(parts[0])")
            let stored = String(String.UnicodeScalarView(raw.unicodeScalars.map { scalar in
                switch scalar.value {
                case 0x00...0x1F: return UnicodeScalar(0x2400 + scalar.value)!
                case 0x7F: return UnicodeScalar(0x2421)!
                default: return scalar
                }
            }))
            // Numbers compare as numbers (a REAL may be written 5 or 5.0).
            let same = stored == said || (Double(stored) != nil && Double(stored) == Double(said))
            #expect(same, "\(field): said \(said), stored \(stored)")
        }

    }

    @Test func importTakesAGivenDelimiterAndEmptyAsText() throws {
        let place = try CommandTests.Workspace(demoRows: nil)
        defer { place.remove() }
        let file = place.folder.appendingPathComponent("people.txt").path
        // Semicolons, with commas inside the values: detection alone would not know.
        try "name;city\nAda;London, UK\nGrace;\n".write(toFile: file, atomically: true, encoding: .utf8)
        let created = try Self.run(place, ["import", place.database, file, "--table", "people", "--create", "--delimiter", ";"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "imported 2 rows: 2 inserted\n", "the summary on standard output: \(created.stdout)")
        #expect(try Self.sqlite(place.database, "SELECT group_concat(name || '=' || quote(city), ' ') FROM people") == "Ada='London, UK' Grace=NULL")

        let tabs = place.folder.appendingPathComponent("more.txt").path
        try "name\tcity\nLinus\t\n".write(toFile: tabs, atomically: true, encoding: .utf8)
        let asText = try Self.run(place, ["import", place.database, tabs, "--table", "people", "--delimiter", "tab", "--empty-as-text"])
        #expect(asText.status == 0 && asText.stdout == "imported 1 row: 1 inserted\n", "\(asText.stdout)\(asText.stderr)")
        #expect(try Self.sqlite(place.database, "SELECT quote(city) FROM people WHERE name = 'Linus'") == "''", "an empty field is the empty string")

        let bad = try Self.run(place, ["import", place.database, tabs, "--table", "people", "--delimiter", "ab"])
        #expect(bad.status == 2 && bad.errorLines.count == 1 && bad.stderr.contains("--delimiter"), "\(bad.stderr)")
    }

    @Test func ctrlCStopsAnImportAfterItsBatchAndTheSummarySaysWhere() throws {
        let place = try CommandTests.Workspace(demoRows: nil)
        defer { place.remove() }
        let file = place.folder.appendingPathComponent("many.csv").path
        // Enough rows that the import is still writing when Ctrl-C comes.
        var text = "n,word\n"
        text.reserveCapacity(40_000_000)
        for index in 0..<2_000_000 { text += "\(index),w\(index)\n" }
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: place.cardfile)
        // Small batches: each ends well within the second Ctrl-C allows it.
        process.arguments = ["import", place.database, file, "--table", "numbers", "--create", "--batch-size", "200"]
        let (out, err) = (place.folder.appendingPathComponent("out"), place.folder.appendingPathComponent("err"))
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Interrupted once batches are on disk (and so the import is writing, not waiting).
        let deadline = Date().addingTimeInterval(30)
        var written = 0
        while Date() < deadline, process.isRunning, written == 0 {
            written = Self.count(place.database, "numbers") ?? 0
        }
        #expect(process.isRunning && written > 0, "the import was seen writing")
        process.interrupt()
        process.waitUntilExit()
        let stdout = try String(contentsOf: out, encoding: .utf8), stderr = try String(contentsOf: err, encoding: .utf8)
        #expect(process.terminationStatus == 130, "\(stdout)\(stderr)")
        let match = try #require(stdout.firstMatch(of: /^imported ([0-9,]+) rows: [0-9,]+ inserted; cancelled before line ([0-9,]+)\n$/), "the summary on standard output: \(stdout) / \(stderr)")
        let imported = Int(match.1.replacingOccurrences(of: ",", with: "")) ?? -1
        #expect(imported % 200 == 0 && imported > 0 && imported < 2_000_000, "whole batches: \(imported)")
        #expect(Int(match.2.replacingOccurrences(of: ",", with: "")) == imported + 2, "the line after the last row imported")
        #expect(!stderr.contains("imported"), "the summary is not on standard error: \(stderr)")
        // Exactly the rows the summary counts, the file's first ones.
        #expect(try Self.sqlite(place.database, "SELECT count(*) || '/' || max(n) FROM numbers") == "\(imported)/\(imported - 1)")
        #expect(try Self.sqlite(place.database, "PRAGMA integrity_check") == "ok")
    }
}
