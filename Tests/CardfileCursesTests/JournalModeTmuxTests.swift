import Foundation
import Testing

/// A rollback-journal database opened, browsed and closed in the editor at the sizes people use
/// is byte for byte the file it was, still in its journal mode; `--wal` switches it on purpose.
@Suite("Journal mode in tmux", .serialized, .timeLimit(.minutes(10)))
struct JournalModeTmuxTests {
    /// The demo library, made by `cardfile demo` and then put in a rollback journal by `sqlite3`
    /// (as another program would have left it), and the editor started on it.
    private func editor(width: Int, height: Int, arguments: [String] = []) throws -> (TmuxSession, String) {
        let socket = "cardfile-journal-\(UUID().uuidString.prefix(8))"
        let folder = TmuxSession.folderFor(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "library-\(UUID().uuidString).sqlite"
        let database = folder.appendingPathComponent(name).path
        _ = try EditorTmuxTests.run(try TmuxSession.programPath("cardfile"), ["demo", database, "--rows", "40"])
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA journal_mode = DELETE") == "delete")
        let session = try TmuxSession(terminal: "xterm-256color", width: width, height: height, program: "cardfile",
                                      arguments: [database, "--autosave", "off"] + arguments, socket: socket, tag: name)
        return (session, database)
    }

    @Test(arguments: zip([120, 80, 40], [30, 24, 12]))
    func openingBrowsingAndQuittingLeaveTheFileAsFound(width: Int, height: Int) throws {
        let (session, database) = try editor(width: width, height: height)
        defer { session.close() }
        let before = try #require(FileManager.default.contents(atPath: database))
        // The tables screen, a table, moves, a sort, a form and the help, then back out.
        try session.waitFor { $0.contains("books") }
        try session.send(keys: ["Down", "Enter"])
        try session.waitFor { $0.contains("Enter open · a add") }
        try session.send(keys: ["Down", "Down", "End", "Home", "["])
        try session.send(keys: ["Down", "Enter"])
        try session.waitFor { $0.contains("books › 2") }
        try session.send(keys: ["Tab", "Tab", "Escape"])
        try session.waitFor { $0.contains("Enter open") }
        try session.send(keys: ["F1"])
        try session.waitFor { $0.contains("Help") && $0.contains("Previous record") && $0.contains("PgUp PgDn scroll") }
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Enter open") }
        try session.send(keys: ["q"])
        try session.waitFor { $0.contains("authors") && $0.contains("members") && !$0.contains("a add") }
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"), "no log appears while it is open")
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
        #expect(FileManager.default.contents(atPath: database) == before, "the file is byte for byte as found")
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: database + suffix), "no \(suffix) file is left")
        }
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA journal_mode") == "delete")
    }

    /// An edit saved in a rollback journal reaches the file, which stays in its mode; `--wal`
    /// switches it.
    @Test func aSaveKeepsTheModeAndWALSwitchesIt() throws {
        let (session, database) = try editor(width: 80, height: 24, arguments: ["--table", "authors"])
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("authors › 1") }
        try session.send(keys: ["End"])   // in the name, where the form starts
        try session.send(literal: " (saved)")
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("Saved.") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT name FROM authors WHERE id = 1").hasSuffix(" (saved)"))
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA journal_mode") == "delete")

        let switched = try TmuxSession(terminal: "xterm-256color", width: 80, height: 24, program: "cardfile",
                                       arguments: [database, "--table", "authors", "--wal"], tag: URL(fileURLWithPath: database).lastPathComponent)
        defer { switched.close() }
        try switched.waitFor { $0.contains("row 1 of") }
        try switched.send(keys: ["C-q"])
        #expect(try switched.waitForExit() == 0)
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA journal_mode") == "wal")
    }

    /// `--wal` with `--read-only` is one line on stderr and status 2; `--help` offers `--wal`.
    @Test func walGoesWithWritingAndIsInTheHelp() throws {
        let cardfile = try TmuxSession.programPath("cardfile")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-wal-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("lib.sqlite").path
        _ = try EditorTmuxTests.sqlite(database, "CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        let said = try EditorTmuxTests.run(cardfile, [database, "--wal", "--read-only"], expectStatus: 2)
        #expect(said == "cardfile: --wal changes the file, so it cannot go with --read-only\n")
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA journal_mode") == "delete")
        let help = try EditorTmuxTests.run(cardfile, ["open", "--help"])
        #expect(help.contains("--wal") && help.contains("Switch a rollback-journal database to WAL mode"), "\(help)")
    }
}
