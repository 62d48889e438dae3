import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// `:schema`: a table described in a panel, from its list or the tables screen.
@Suite("Schema view", .timeLimit(.minutes(10)))
struct SchemaViewTests {
    static let schema = """
        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL COLLATE NOCASE);
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            author INTEGER REFERENCES authors(id) ON DELETE CASCADE,
            isbn TEXT UNIQUE,
            pages INTEGER DEFAULT 100 CHECK (pages > 0),
            half AS (pages / 2)
        );
        CREATE INDEX books_by_pages ON books (pages DESC) WHERE pages > 10;
        CREATE TRIGGER books_touched AFTER UPDATE ON books BEGIN SELECT 1; END;
        INSERT INTO authors (name) VALUES ('Le Guin');
        INSERT INTO books (author, isbn, pages) VALUES (1, 'x', 300), (1, 'y', 200);
        """

    @Test func theListsTableIsDescribed() throws {
        let harness = try AppHarness(schema: Self.schema, size: Size(width: 120, height: 50), options: CardfileApp.Options(table: "books", autosave: nil))
        try harness.command("schema")
        let screen = harness.screen
        for expected in [
            "The table books",
            "author  INTEGER, affinity integer",
            "pages   INTEGER, affinity integer, default 100",
            "half    (no type), affinity blob, generated as (pages / 2), virtual",
            "id (the rowid)",
            "isbn",
            "pages > 0",
            "author → authors(id) (on delete cascade)",
            "books_by_pages (pages desc), partial",
            "books_touched: CREATE TRIGGER books_touched AFTER UPDATE ON books BEGIN SELECT 1; END",
            "Rows     2",
            "On disk ",
        ] {
            #expect(screen.contains(expected), "“\(expected)” in:\n\(screen)")
        }
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("The table books"))
        // Enter on the foreign key opens the table it points at; q comes back.
        try harness.command("schema")
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.contains("↓ chooses a line naming a table"), "nothing chosen yet: \(harness.messageLine)")
        try harness.press(KeyEvent(.down), KeyEvent(.enter))
        #expect(harness.statusLine.contains("authors") && harness.screen.contains("Le Guin"), "\(harness.screen)")
        try harness.press(.char("q"))
        #expect(harness.statusLine.contains("books"), "\(harness.statusLine)")
    }

    @Test func fromTheTablesScreenTheSelectedTableAndWhoPointsAtIt() throws {
        let harness = try AppHarness(schema: Self.schema, size: Size(width: 120, height: 50))
        try harness.command("schema")
        let screen = harness.screen
        #expect(screen.contains("The table authors"), "\(screen)")
        #expect(screen.contains("name  TEXT, affinity text, NOT NULL, COLLATE NOCASE"), "\(screen)")
        #expect(screen.contains("books.author (on delete cascade)"), "\(screen)")
        #expect(screen.contains("Rows     1"), "\(screen)")
        // ↓ chooses the one line naming another table; Enter opens it.
        #expect(!screen.contains("›"), "\(screen)")
        try harness.press(KeyEvent(.down))
        #expect(harness.screen.contains("› books.author"), "\(harness.screen)")
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("books") && harness.screen.contains("300"), "\(harness.screen)")
    }
}
