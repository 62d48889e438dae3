import Foundation
import Testing

/// The demo's books at the sizes people use: keys, codes and dates whole, headers apart, and at
/// 40 columns the rest reached by scrolling sideways.
@Suite("Columns in tmux", .serialized, .timeLimit(.minutes(10)))
struct ColumnsTmuxTests {
    @Test(arguments: zip([120, 80, 40], [30, 24, 12]))
    func shortColumnsAreWholeAtEverySize(width: Int, height: Int) throws {
        let (session, _) = try EditorTmuxTests.editor(rows: 40, table: "books", width: width, height: height)
        defer { session.close() }
        let screen = try session.waitFor { $0.contains("Enter open") }
        let header = screen.split(separator: "\n")[0]
        if width >= 80 {
            for name in ["id", "title", "author_id", "isbn", "year", "published", "pages", "rating", "notes"] {
                #expect(header.contains(" \(name)"), "\(name) whole at \(width): \(header)")
            }
            #expect(screen.contains("9781000000009") && screen.contains("1974-01-01"), "\(screen)")
        } else {
            #expect(header.contains(" id") && header.contains(" title"), "\(header)")
            // Sideways, whole columns: the ISBN, then the date.
            try session.send(keys: ["l", "l", "l"])
            try session.waitFor { $0.split(separator: "\n")[0].contains(" isbn") && $0.contains("9781000000009") }
            try session.send(keys: ["l", "l"])
            try session.waitFor { $0.split(separator: "\n")[0].contains("published") && $0.contains("1974-01-01") }
        }
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }

    /// `{` adds a second sort key in a real terminal: the header ranks both, the rows follow
    /// SQL's order.
    @Test func aSecondSortKeyInTheTerminal() throws {
        let (session, database) = try EditorTmuxTests.editor(rows: 40, table: "books", width: 120, height: 30)
        defer { session.close() }
        try session.waitFor { $0.contains("Enter open") }
        try session.send(keys: ["l", "l", "["])                      // author_id ↑
        try session.waitFor { $0.split(separator: "\n")[0].contains("author_id↑") }
        try session.send(keys: ["l", "l", "}"])                      // then year ↓
        let expected = try EditorTmuxTests.sqlite(database, "SELECT group_concat(id, ' ') FROM (SELECT id FROM books ORDER BY author_id, year DESC, id DESC LIMIT 5)")
        /// The ids of the first five rows shown.
        func shown(_ screen: String) -> String {
            screen.split(separator: "\n").dropFirst().prefix(5).compactMap { $0.split(separator: " ").first.flatMap { Int($0) } }.map(String.init).joined(separator: " ")
        }
        // The header ranks both keys, the status bar names them, the rows come in SQL's order.
        try session.waitFor { screen in
            let header = screen.split(separator: "\n")[0]
            return header.contains("author_id↑1") && header.contains("year↓2") && screen.contains("sort: author_id ↑, year ↓") && shown(screen) == expected
        }
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }
}
