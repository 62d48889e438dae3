import Foundation
import Testing

/// The database file moved over, then deleted, under the running editor with edits pending:
/// another program (`sqlite3`) finds the newcomer whole and unchanged, and the edits are
/// saved elsewhere with `:saveas`.
@Suite("File gone under the editor in tmux", .serialized, .timeLimit(.minutes(10)))
struct FileGoneTmuxTests {
    /// The editor on authors with autosave at 1 s, record 1's form open and one edit saved
    /// (in the log, not yet in the file).
    private func editorWithASavedEdit() throws -> (TmuxSession, String) {
        let (session, database) = try EditorTmuxTests.editor(rows: 50, table: "authors", width: 120, arguments: ["--autosave", "1"])
        do {
            try session.waitFor { $0.contains("row 1 of") }
            try session.send(keys: ["Enter"])
            try session.waitFor { $0.contains("authors › 1") }
            try session.send(literal: " saved")
            try session.waitFor { $0.contains("saved ") && !$0.contains("modified") }
        } catch {
            session.close()
            throw error
        }
        return (session, database)
    }

    @Test func movedOverThenSavedElsewhere() throws {
        let (session, database) = try editorWithASavedEdit()
        defer { session.close() }
        try session.send(keys: ["Escape"])
        try session.send(keys: ["Down", "Enter"])
        try session.waitFor { $0.contains("authors › 2") }

        let folder = (database as NSString).deletingLastPathComponent
        let newcomer = folder + "/newcomer.sqlite"
        _ = try EditorTmuxTests.sqlite(newcomer, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('theirs'); PRAGMA journal_mode = WAL;")
        #expect(rename(newcomer, database) == 0)
        try session.waitFor { $0.contains("File replaced: :saveas FILE keeps your edits") && $0.contains("file replaced: not saved") }
        // An edit after the swap: the autosave is refused, the edit stays on screen.
        try session.send(literal: " pending")
        // The one fixed wait left in the suite: the autosave (1 s) falls due and is refused,
        // which shows nothing new on screen (the status bar already says why nothing is
        // saved). FileGoneTests checks that refusal on the app's own clock; here the file
        // must simply be untouched once it has had its chance.
        Thread.sleep(forTimeInterval: 1.5)
        try session.waitFor { $0.contains("pending") && $0.contains("file replaced: not saved") }
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA integrity_check") == "ok")
        #expect(try EditorTmuxTests.sqlite(database, "SELECT group_concat(name) FROM sqlite_master") == "notes")

        try session.send(keys: ["F2"])
        try session.send(literal: "saveas \(folder)/rescued.sqlite")
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("Saved a copy with your edits") }
        let rescued = folder + "/rescued.sqlite"
        #expect(try EditorTmuxTests.sqlite(rescued, "SELECT name FROM authors WHERE id = 1") == "Ursula K. Le Guin saved")
        #expect(try EditorTmuxTests.sqlite(rescued, "SELECT name FROM authors WHERE id = 2") == "村上春樹 (Haruki Murakami) pending")

        // Now deleted as well: the editor says so; quitting (a copy holds everything) asks nothing.
        #expect(unlink(database) == 0)
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
        // Nothing of ours reached the path: no log a later file of the same name would read.
        _ = try EditorTmuxTests.sqlite(database, "CREATE TABLE later (x); INSERT INTO later VALUES (1);")
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA integrity_check") == "ok")
        #expect(try EditorTmuxTests.sqlite(database, "SELECT group_concat(name) FROM sqlite_master") == "later")
        #expect(try EditorTmuxTests.sqlite(rescued, "PRAGMA integrity_check") == "ok")
    }

    @Test func replacedNewcomerIsByteForByteUnchangedAfterTheEditorQuits() throws {
        let (session, database) = try editorWithASavedEdit()
        defer { session.close() }
        let folder = (database as NSString).deletingLastPathComponent
        let newcomer = folder + "/newcomer.sqlite"
        _ = try EditorTmuxTests.sqlite(newcomer, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('theirs');")
        let newcomerBytes = try #require(FileManager.default.contents(atPath: newcomer))
        #expect(rename(newcomer, database) == 0)
        try session.send(literal: " pending")
        try session.waitFor { $0.contains("File replaced: :saveas") }
        try session.send(keys: ["C-q"])
        try session.waitFor { $0.contains("File replaced") && $0.contains("Quit without a copy?") }
        try session.send(literal: "q")
        #expect(try session.waitForExit() == 0)
        #expect(FileManager.default.contents(atPath: database) == newcomerBytes)
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA integrity_check") == "ok")
        #expect(try EditorTmuxTests.sqlite(database, "SELECT body FROM notes") == "theirs")
    }
}
