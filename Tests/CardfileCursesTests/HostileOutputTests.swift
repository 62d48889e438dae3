import Foundation
import Testing

/// Every command's output, error paths included, with hostile table names, values and paths:
/// no byte of data reaches the terminal raw, and every argument error is one line and status 2.
@Suite("Hostile bytes on the command line", .timeLimit(.minutes(10)))
struct HostileOutputTests {
    /// Sets the terminal's title, writes the clipboard (OSC 52), rings the bell, and a C1 CSI.
    static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}]52;c;ZXZpbA==\u{07}\u{9B}31m\u{85}"

    /// Runs `cardfile` and returns its output with the status; fails the test when a control
    /// byte (ESC, BEL, any C0 but newline, tab and carriage return, or a C1 code) is in it.
    private func run(_ cardfile: String, _ arguments: [String], folder: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> (String, Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cardfile)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let bad = text.unicodeScalars.filter { scalar in
            (scalar.value < 0x20 && ![0x0A, 0x09, 0x0D].contains(scalar.value)) || (0x7F...0x9F).contains(scalar.value)
        }
        // (The import's progress bar is off without a terminal, so even its own codes are absent.)
        #expect(bad.isEmpty, "cardfile \(arguments.map(\.debugDescription)) wrote \(bad.map { String(format: "U+%04X", $0.value) }): \(text.debugDescription)",
                sourceLocation: sourceLocation)
        return (text, process.terminationStatus)
    }

    @Test func noSubcommandWritesDataRaw() throws {
        let place = try CommandTests.Workspace(demoRows: 10)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder, place.database, place.cardfile)
        let table = "evil" + Self.hostile
        _ = try EditorTmuxTests.sqlite(database, """
            CREATE TABLE "\(table)" (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER);
            INSERT INTO "\(table)" (name, n) VALUES ('\(Self.hostile)', 1);
            UPDATE authors SET name = name || '\(Self.hostile)';
            """)
        let csv = folder.appendingPathComponent("rows.csv").path
        try "id,name,born\n1,\"dup \(Self.hostile)\",1900\n900,\"\(Self.hostile)\",notanumber\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let hostilePath = folder.appendingPathComponent("file" + Self.hostile + "\nsecond line.sqlite").path
        let existing = folder.appendingPathComponent("out" + Self.hostile + ".csv").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: existing))

        let cases: [[String]] = [
            [database, "--table", table + "x"],
            [database, "--theme", Self.hostile],
            [hostilePath],
            [database, "--autosave", Self.hostile],
            ["demo", existing],
            ["collaborate", database, "--table", table + "x"],
            ["collaborate", database, "--table", table, "--key", "1", "--set", "name=\(Self.hostile)"],
            ["collaborate", database, "--table", "authors", "--times", "2", "--every", "0.01"],
            ["collaborate", database, "--table", "authors", "--key", "1", "--set", "\(Self.hostile)=1"],
            ["import", database, csv, "--table", "authors"],
            ["import", database, csv, "--table", table],
            ["import", database, hostilePath, "--table", "authors"],
            ["import", hostilePath, csv, "--table", "authors"],
            ["export", database, "--table", table + "x"],
            ["export", database, "--table", table, "--where", Self.hostile],
            ["export", database, "--table", "authors", "--where", "name = '\(Self.hostile)'"],
            ["export", database, "--table", "authors", "--output", existing],
            ["export", database, "--table", "authors", "--sort=" + Self.hostile],
            ["export", database, "--table", table, "--format", Self.hostile],
            ["--" + Self.hostile],
            ["import", database, csv, "--table", "authors", "--mode", Self.hostile],
        ]
        for arguments in cases {
            let (text, status) = try run(cardfile, arguments, folder: folder)
            #expect(status != 0 || !text.isEmpty || arguments.contains("--set"), "\(arguments): \(text)")
        }
        // Data written to a file or a pipe stays exact: the export is the data, not a display.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cardfile)
        process.arguments = ["export", database, "--table", table, "--format", "jsonl"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let exported = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(exported.contains("\\u001b]0;pwned\\u0007"), "\(exported)")
    }

    @Test func everyArgumentErrorIsOneLineAndStatusTwo() throws {
        let place = try CommandTests.Workspace(demoRows: 10)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder, place.database, place.cardfile)
        let cases: [([String], String)] = [
            ([database, "--autosave", "-1"], "--autosave takes seconds"),
            ([database, "--autosave"], "--autosave"),
            ([database, "--bogus"], "--bogus"),
            (["export", database], "--table"),
            (["export", database, "--table", "books", "--format", "xml"], "'csv', 'tsv', 'jsonl' or 'json'"),
            (["import", database, "x.csv", "--table", "books", "--mode", "merge"], "'insert', 'upsert', 'ignore' or 'replace'"),
            (["demo", database, "--rows", "3"], "--rows must be between 10 and 10000000"),
            (["collaborate", database, "--every", "0"], "--every"),
            (["nosuchcommand", "a", "b"], "cardfile"),
        ]
        for (arguments, words) in cases {
            let (text, status) = try run(cardfile, arguments, folder: folder)
            #expect(status == 2, "\(arguments): \(text)")
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            #expect(lines.count == 1, "\(arguments): \(text)")
            #expect(text.hasPrefix("cardfile: ") && text.contains(words), "\(arguments): \(text)")
        }
        let (help, status) = try run(cardfile, ["--help"], folder: folder)
        #expect(status == 0)
        #expect(help.contains("OVERVIEW"))
    }
}
