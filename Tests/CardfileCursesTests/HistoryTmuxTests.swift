import Foundation
import Testing

/// History and the interactive merge in a real terminal: `:history` after a restart, End and
/// Enter on the oldest version, Ctrl-S; Alt-U after a restart; `cardfile merge` choosing `K`
/// in the conflict dialog.
@Suite("History and merge in tmux", .serialized, .timeLimit(.minutes(10)))
struct HistoryTmuxTests {
    @Test func historyAfterARestartRestoresTheOldestVersion() throws {
        let socket = "cardfile-history-\(UUID().uuidString.prefix(8))"
        // (Not the session's folder, which goes when the first run's session closes.)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-history-data-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = "library-\(UUID().uuidString).sqlite"
        let database = folder.appendingPathComponent(name).path
        _ = try EditorTmuxTests.run(try TmuxSession.programPath("cardfile"), ["demo", database, "--rows", "20"])
        let title = try EditorTmuxTests.sqlite(database, "SELECT title FROM books WHERE id = 1")
        // Both runs keep their history in the same state folder, as one person's would.
        let state = "XDG_STATE_HOME='\(folder.appendingPathComponent("state").path)'"

        // A first run: the title edited twice, each saved.
        do {
            let session = try TmuxSession(terminal: "xterm-256color", width: 100, height: 30, program: "cardfile",
                                          arguments: [database, "--table", "books", "--autosave", "off"], environment: state, socket: socket, tag: name)
            defer { session.close() }
            try session.waitFor { $0.contains("row 1 of") }
            for suffix in [" (2nd ed.)", " revised"] {
                try session.send(keys: ["Enter"])
                try session.waitFor { $0.contains("books › 1") }
                try session.send(keys: ["End"])
                try session.send(literal: suffix)
                try session.send(keys: ["C-s"])
                try session.waitFor { $0.contains("Saved.") }
                try session.send(keys: ["Escape"])
                try session.waitFor { $0.contains("row 1 of") && !$0.contains("books › 1") }
            }
            try session.send(keys: ["q"])
            #expect(try session.waitForExit() == 0)
        }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT title FROM books WHERE id = 1") == title + " (2nd ed.) revised")

        // Another run: :history lists both saves, newest first; End, Enter, Ctrl-S.
        let session = try TmuxSession(terminal: "xterm-256color", width: 100, height: 30, program: "cardfile",
                                      arguments: [database, "--table", "books", "--autosave", "off"], environment: state, socket: "\(socket)b", tag: name)
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of") }
        try session.send(literal: ":history")
        try session.send(keys: ["Enter"])
        let screen = try session.waitFor { $0.contains("History of books 1: 2 versions kept") }
        // (The newest line is cut at the box's edge: its start tells it.)
        let newest = try #require(screen.range(of: "title: \(title) (2nd ed.) → \(title) (2nd ed"), "\(screen)")
        let older = try #require(screen.range(of: "title: \(title) → \(title) (2nd ed.)"), "\(screen)")
        #expect(newest.lowerBound < older.lowerBound)
        try session.send(keys: ["End"])
        try session.waitFor { $0.contains("› ") && $0.contains("as first seen") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("books › 1") && $0.contains("are in the form as edits") }
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("Saved.") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT title FROM books WHERE id = 1") == title)

        // Alt-U in the list undoes that restore, then the save before it.
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("row 1 of") && !$0.contains("books › 1") }
        try session.send(keys: ["M-u"])
        try session.waitFor { $0.contains("Undone: the form save of") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT title FROM books WHERE id = 1") == title + " (2nd ed.) revised")
    }

    @Test func anInteractiveMergeKeepsMineWithK() throws {
        let socket = "cardfile-merge-\(UUID().uuidString.prefix(8))"
        let folder = TmuxSession.folderFor(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = folder.appendingPathComponent("base.sqlite").path
        _ = try EditorTmuxTests.sqlite(base, """
            CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT, city TEXT, notes TEXT);
            INSERT INTO cards VALUES (1, 'Ada', 'London', 'n1'), (2, 'Grace', 'Arlington', 'n2');
            """)
        let ours = folder.appendingPathComponent("ours.sqlite").path
        let theirs = folder.appendingPathComponent("theirs.sqlite").path
        try FileManager.default.copyItem(atPath: base, toPath: ours)
        try FileManager.default.copyItem(atPath: base, toPath: theirs)
        _ = try EditorTmuxTests.sqlite(ours, "UPDATE cards SET city = 'Paris' WHERE id = 1")
        _ = try EditorTmuxTests.sqlite(theirs, "UPDATE cards SET city = 'Rome', notes = 'theirs' WHERE id = 1; UPDATE cards SET name = 'Grace H.' WHERE id = 2")
        let session = try TmuxSession(terminal: "xterm-256color", width: 100, height: 30, program: "cardfile",
                                      arguments: ["merge", base, ours, theirs], socket: socket, tag: "merge")
        defer { session.close() }
        let screen = try session.waitFor { $0.contains("Changed on both sides: cards 1") }
        #expect(screen.contains("Original") && screen.contains("Mine") && screen.contains("Theirs"))
        #expect(screen.contains("London") && screen.contains("Paris") && screen.contains("Rome"))
        try session.send(keys: ["K"])
        #expect(try session.waitForExit() == 0)
        // Mine kept whole for the contested record; theirs taken where only theirs changed.
        #expect(try EditorTmuxTests.sqlite(ours, "SELECT group_concat(name || ':' || city || ':' || notes, '|') FROM (SELECT * FROM cards ORDER BY id)")
                == "Ada:Paris:n1|Grace H.:Arlington:n2")
    }
}
