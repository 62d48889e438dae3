import Foundation
import Testing

/// The SQL screen in a real terminal, on the demo library: a query edited through, a join
/// read-only, a write confirmed, a bad query, a cancel, and `:schema` from a result.
@Suite("SQL screen in tmux", .serialized, .timeLimit(.minutes(10)))
struct SQLTmuxTests {
    @Test func queryEditJoinWriteErrorCancelAndSchema() throws {
        let socket = "cardfile-sql-\(UUID().uuidString.prefix(8))"
        let folder = TmuxSession.folderFor(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "library-\(UUID().uuidString).sqlite"
        let database = folder.appendingPathComponent(name).path
        _ = try EditorTmuxTests.run(try TmuxSession.programPath("cardfile"), ["demo", database, "--rows", "40"])
        let session = try TmuxSession(terminal: "xterm-256color", width: 100, height: 30, program: "cardfile",
                                      arguments: [database, "--table", "books", "--autosave", "off"], socket: socket, tag: name)
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of") }

        // A query of one table with its key: its rows in its order, and Enter edits the record.
        try session.send(keys: ["Q"])
        try session.waitFor { $0.contains("F5 or Ctrl-E runs") }
        try session.send(literal: "SELECT title, id FROM books WHERE id <= 3 ORDER BY id DESC")
        try session.send(keys: ["F5"])
        let third = try EditorTmuxTests.sqlite(database, "SELECT title FROM books WHERE id = 3")
        try session.waitFor { $0.contains("3 rows · editable: Enter opens a record of books") && $0.contains("1 \(third)") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("books › 3") }
        try session.send(keys: ["End"])                                          // the title
        try session.send(literal: " (edited)")
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("saved") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT title FROM books WHERE id = 3") == third + " (edited)")
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("\(third) (edited)") }

        // Back to the statement; a join is read-only and says why.
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("SELECT title, id FROM books") }
        try session.send(keys: ["C-a", "C-k"])
        try session.send(literal: "SELECT b.title, a.name FROM books b JOIN authors a ON a.id = b.author_id")
        try session.send(keys: ["C-e"])
        try session.waitFor { $0.contains("read-only (the result joins 2 tables)") }
        try session.send(keys: ["d"])
        try session.waitFor { $0.contains("Read-only: the result joins 2 tables.") }

        // A write: counted, asked, done. (Each Esc is waited out: a key right after it would
        // read as Alt and that key.)
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("F5 or Ctrl-E runs") }
        try session.send(keys: ["C-a", "C-k"])
        let count = try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE year < 1990")
        try session.send(literal: "UPDATE books SET notes = 'old' WHERE year < 1990")
        try session.send(keys: ["F5"])
        try session.waitFor { $0.contains("Update \(count) rows? (y/n)") }
        try session.send(keys: ["y"])
        try session.waitFor { $0.contains("Updated \(count) rows.") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE notes = 'old'") == count)

        // A bad query: SQLite's message, the text kept.
        try session.send(keys: ["C-a", "C-k"])
        try session.send(literal: "SELECT titel FROM books")
        try session.send(keys: ["F5"])
        try session.waitFor { $0.contains("no such column: titel") && $0.contains("SELECT titel FROM books") }

        // An endless query: the screen answers, and Esc cancels it.
        try session.send(keys: ["C-a", "C-k"])
        try session.send(literal: "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000000000) SELECT x FROM n")
        try session.send(keys: ["F5"])
        try session.waitFor { $0.contains("running… Esc cancels") }
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Cancelled: nothing was changed.") }

        // :schema from an editable result describes its table.
        try session.send(keys: ["C-a", "C-k"])
        try session.send(literal: "SELECT id, title FROM books")
        try session.send(keys: ["F5"])
        try session.waitFor { $0.contains("editable: Enter opens a record of books") }
        try session.send(literal: ":schema")
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("The table books") }

        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }
}
