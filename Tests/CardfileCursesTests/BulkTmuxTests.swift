import Foundation
import Testing

/// Marks, `:set`, Alt-U, `{`, `F` and Enter on a million books, in a real terminal.
@Suite("Bulk edits in tmux", .serialized, .timeLimit(.minutes(10)))
struct BulkTmuxTests {
    @Test func aMillionRows() throws {
        let socket = "cardfile-bulk-\(UUID().uuidString.prefix(8))"
        let folder = TmuxSession.folderFor(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "million-\(UUID().uuidString).sqlite"
        let database = folder.appendingPathComponent(name).path
        _ = try EditorTmuxTests.run(try TmuxSession.programPath("cardfile"), ["demo", database, "--rows", "10"])
        // (sqlite3 adds the rest in a few seconds; the demo would take a minute in a debug build.
        // Without syncing to the disk: the other suites running meanwhile wait on the disk too.)
        _ = try EditorTmuxTests.sqlite(database, """
            PRAGMA synchronous = OFF;
            WITH RECURSIVE c(i) AS (SELECT 11 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000)
            INSERT INTO books (id, title, isbn, year, pages, rating, notes)
            SELECT i, 'Book ' || i, '979' || printf('%010d', i), 1900 + i % 125, 100 + i % 500, (i % 11) / 2.0, 'note ' || (i % 7) FROM c;
            """)
        let session = try TmuxSession(terminal: "xterm-256color", width: 120, height: 30, program: "cardfile",
                                      arguments: [database, "--table", "books", "--autosave", "off"], socket: socket, tag: name)
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of 1,000,000") }

        // Marks: every book from 2020 on.
        let recent = try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE year >= 2020")
        let shown = Int(recent)!.formatted()
        try session.send(literal: ":select year >= 2020")
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("\(shown) marked") }

        // :set asks with the count, writes, and Alt-U puts every value back.
        try session.send(literal: ":set notes = 'bulk'")
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("Set notes to “bulk” on \(shown) records? (y/n)") }
        try session.send(keys: ["y"])
        try session.waitFor { $0.contains("Set notes to “bulk” on \(shown) records. Alt-U undoes it.") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE notes = 'bulk'") == recent)
        // (Alt-U undoes from the history of saves, which the journal keeps.)
        try session.send(keys: ["M-u"])
        try session.waitFor { $0.contains("Undone: the bulk edit of") && $0.contains("\(shown) records written") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE notes = 'bulk'") == "0")
        #expect(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE notes = 'note ' || (id % 7) AND id > 10") == "999990")

        // Two sort keys: year descending, then title.
        try session.send(keys: ["l", "l", "l", "l", "]"])
        try session.waitFor { $0.split(separator: "\n")[0].contains("year↓") }
        try session.send(keys: ["h", "h", "h", "{"])
        try session.waitFor { $0.split(separator: "\n")[0].contains("year↓1") && $0.split(separator: "\n")[0].contains("title↑2") }

        // F on year over the marks, then Enter filters the list to the most frequent year.
        try session.send(keys: ["l", "l", "l", "F"])
        let top = try EditorTmuxTests.sqlite(database, "SELECT year || ' ' || count(*) FROM books WHERE year >= 2020 GROUP BY year ORDER BY count(*) DESC, year LIMIT 1")
        let (year, count) = (top.split(separator: " ")[0], Int(top.split(separator: " ")[1])!)
        try session.waitFor { $0.contains("year in books: the marked records, 5 values") && $0.contains("› \(year)") && $0.contains(count.formatted()) }
        try session.send(keys: ["Enter"])
        let all = Int(try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM books WHERE year = \(year)"))!
        try session.waitFor { $0.contains("filter: year = \(year)") && $0.contains("of \(all.formatted())") }

        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }
}
