import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// Foreign keys in forms: the label beside the value, following it (stacked form, Esc back),
/// the picker, the records that reference this one, and a missing referent.
@Suite("Foreign keys", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ForeignKeyTests {
    static let schema = """
        PRAGMA foreign_keys = OFF;
        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
        CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author_id INTEGER REFERENCES authors(id), year INTEGER);
        CREATE TABLE prizes (id INTEGER PRIMARY KEY, author INTEGER REFERENCES authors, prize TEXT);
        INSERT INTO authors VALUES (1, 'Le Guin', 'US'), (2, 'Murakami', 'JP'), (3, 'Adichie', 'NG');
        INSERT INTO books VALUES (1, 'Earthsea', 1, 1968), (2, 'Norwegian Wood', 2, 1987), (3, 'Lost', 42, 2000), (4, 'Dispossessed', 1, 1974);
        INSERT INTO prizes VALUES (1, 1, 'Hugo'), (2, 3, 'Orange');
        """

    static func books(autosave: Duration? = nil) throws -> AppHarness {
        try AppHarness(schema: schema, options: CardfileApp.Options(table: "books", autosave: autosave))
    }

    /// The form's line for `field`.
    static func line(_ field: String, _ harness: AppHarness) -> String {
        harness.lines.first { $0.hasPrefix(field + " ") } ?? ""
    }

    @Test func theLabelNamesTheReferencedRecordAndFollowsEdits() throws {
        let harness = try Self.books()
        try harness.press(KeyEvent(.enter))
        #expect(Self.line("author_id", harness).contains("→ Le Guin"), "\(harness.screen)")
        try harness.press(KeyEvent(.tab), KeyEvent(.backspace))
        try harness.type("2")
        #expect(Self.line("author_id", harness).contains("→ Murakami"))
        try harness.type("2")
        #expect(Self.line("author_id", harness).contains("no authors row with id 22"))
        // NULL references nothing: no label.
        try harness.press(.control("n"))
        #expect(!Self.line("author_id", harness).contains("→") && !Self.line("author_id", harness).contains("no authors"))
    }

    @Test func aMissingReferentIsShownAndCannotBeFollowed() throws {
        let harness = try Self.books()
        try harness.command("3")
        try harness.press(KeyEvent(.enter), KeyEvent(.tab))
        #expect(Self.line("author_id", harness).contains("no authors row with id 42"))
        try harness.press(.control("g"))
        #expect(harness.messageLine.contains("Nothing to go to"))
        #expect(harness.lines[0].contains("books › 3"))
    }

    @Test func theLabelFollowsAChangeMadeByAnotherProcess() throws {
        let harness = try Self.books()
        try harness.press(KeyEvent(.enter))
        let other = try DatabaseQueue(path: harness.path)
        try other.write { try $0.execute(sql: "UPDATE authors SET name = 'Ursula K. Le Guin' WHERE id = 1") }
        try other.close()
        try harness.advance(.milliseconds(100))
        #expect(Self.line("author_id", harness).contains("→ Ursula K. Le Guin"), "\(Self.line("author_id", harness))")
    }

    @Test func followingOpensAStackedFormAndEscComesBack() throws {
        let harness = try Self.books()
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), .control("g"))
        #expect(harness.lines[0].contains("authors › 1"), "\(harness.lines[0])")
        // Edit the author; leaving asks as everywhere, then comes back to the book.
        try harness.type(" (ed.)")
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("Unsaved changes"))
        try harness.press(.char("s"))
        #expect(harness.lines[0].contains("books › 1"), "\(harness.lines[0])")
        #expect(Self.line("author_id", harness).contains("→ Le Guin (ed.)"))
        #expect(try harness.diskText("SELECT name FROM authors WHERE id = 1") == "Le Guin (ed.)")
        // Esc from the book goes to the books list (counted again in the background after the
        // author's save).
        try harness.press(KeyEvent(.escape))
        #expect(harness.statusLine.contains("books"))
        #expect(try harness.waitFor { _ in harness.statusLine.contains("row 1 of 4") }, "\(harness.statusLine)")
    }

    @Test func followingFromAnEditedFormAsksFirstSoNothingWaitsUnsaved() throws {
        let harness = try Self.books()
        try harness.press(KeyEvent(.enter))
        try harness.type("!")
        try harness.press(KeyEvent(.tab), .control("g"))
        #expect(harness.screen.contains("Unsaved changes"))
        try harness.press(.char("c"))
        #expect(harness.lines[0].contains("books › 1"))
        try harness.press(.control("g"), .char("s"))
        #expect(harness.lines[0].contains("authors › 1"))
        #expect(try harness.diskText("SELECT title FROM books WHERE id = 1") == "Earthsea!")
    }

    @Test func thePickerPutsTheChosenKeyIntoTheFieldAsOneUndoableEdit() throws {
        let harness = try Self.books()
        try harness.press(KeyEvent(.enter))
        try harness.type("?")                                   // an edit the picker must not lose
        try harness.press(KeyEvent(.tab), .control("p"))
        #expect(harness.statusLine.contains("authors"), "\(harness.statusLine)")
        #expect(harness.statusLine.contains("row 1 of 3"), "the current referent is selected")
        // Filter to find, then Enter chooses.
        try harness.press(.char("/"))
        try harness.type("Adichie")
        #expect(try harness.waitFor { _ in harness.statusLine.contains("of 1") })
        try harness.press(KeyEvent(.enter), KeyEvent(.enter))
        #expect(harness.lines[0].contains("books › 1"))
        #expect(Self.line("author_id", harness).contains("→ Adichie"), "\(harness.screen)")
        #expect(Self.line("title", harness).contains("Earthsea?"))
        try harness.press(.alt("u"))
        #expect(Self.line("author_id", harness).contains("→ Le Guin"))
        try harness.press(.alt("r"), .control("s"))
        #expect(try harness.disk("SELECT author_id FROM books WHERE id = 1") == 3.databaseValue)
        // Esc in the picker changes nothing; a/d do nothing there.
        try harness.press(.control("p"), .char("d"))
        #expect(harness.messageLine.contains("Picking"))
        try harness.press(KeyEvent(.escape))
        #expect(Self.line("author_id", harness).contains("→ Adichie"))
        #expect(harness.statusLine.contains("saved "), "the save before the picker, nothing since: \(harness.statusLine)")
    }

    @Test func quittingFromAPickerAsksAboutTheFormBehindIt() throws {
        let harness = try Self.books()
        try harness.press(KeyEvent(.enter))
        try harness.type("?")
        try harness.press(KeyEvent(.tab), .control("p"), .control("q"))
        #expect(harness.screen.contains("Unsaved changes"))
        try harness.press(.char("s"))
        #expect(!harness.app.isRunning)
        #expect(try harness.diskText("SELECT title FROM books WHERE id = 1") == "Earthsea?")
    }

    @Test func theRecordsThatReferenceThisOne() throws {
        let harness = try Self.books()
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), .control("g"))
        try harness.press(.control("r"))
        #expect(harness.screen.contains("Which relation"))
        try harness.press(.char("1"))                      // books.author_id
        #expect(harness.statusLine.contains("filter: author_id = 1"), "\(harness.statusLine)")
        #expect(try harness.waitFor { _ in harness.statusLine.contains("of 2") })
        #expect(harness.screen.contains("Earthsea") && harness.screen.contains("Dispossessed") && !harness.screen.contains("Norwegian"))
        try harness.press(.char("q"))
        #expect(harness.lines[0].contains("authors › 1"))
        try harness.press(.control("r"), .char("2"))       // prizes.author
        #expect(try harness.waitFor { _ in harness.statusLine.contains("of 1") })
        #expect(harness.screen.contains("Hugo"))
        #expect(harness.messageLine.contains("q or Esc goes back"))
        // Esc leaves it too, as the message says.
        try harness.press(KeyEvent(.escape))
        #expect(harness.lines[0].contains("authors › 1"), "\(harness.lines[0])")
        try harness.press(KeyEvent(.escape))
        #expect(harness.lines[0].contains("books › 1"))
        // A table nothing references says so.
        try harness.press(.control("r"))
        #expect(harness.messageLine.contains("No table references books"))
    }

    /// Seeded: random books pointing at random (sometimes missing) authors; every form's label
    /// is what SQL's join says.
    @Test func labelsAgreeWithSQL() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(3) {
            var sql = "PRAGMA foreign_keys = OFF; CREATE TABLE a (id INTEGER PRIMARY KEY, n TEXT); CREATE TABLE b (id INTEGER PRIMARY KEY, r INTEGER REFERENCES a(id));"
            let authors = 1 + random.next(below: 8)
            sql += "INSERT INTO a (id, n) VALUES " + (1...authors).map { "(\($0), \(random.next(below: 4) == 0 ? "NULL" : "'n\($0)'"))" }.joined(separator: ", ") + ";"
            sql += "INSERT INTO b (r) VALUES " + (0..<20).map { _ in random.next(below: 6) == 0 ? "(NULL)" : "(\(1 + random.next(below: authors + 3)))" }.joined(separator: ", ") + ";"
            let harness = try AppHarness(schema: sql, options: CardfileApp.Options(table: "b", autosave: nil))
            try harness.press(KeyEvent(.enter))
            let queue = try DatabaseQueue(path: harness.path)
            for id in 1...20 {
                let (r, name, exists) = try queue.read { db -> (Int?, String?, Bool) in
                    let row = try Row.fetchOne(db, sql: "SELECT b.r, a.n, a.id IS NOT NULL AS e FROM b LEFT JOIN a ON a.id = b.r WHERE b.id = ?", arguments: [id])!
                    return (row["r"], row["n"], row["e"])
                }
                let line = Self.line("r", harness)
                let context = "seed \(seed), round \(round), b \(id): \(line)"
                #expect(harness.lines[0].contains("b › \(id)"), "\(context)")
                if let r {
                    if exists {
                        #expect(line.contains("→ " + (name ?? String(r))), "\(context)")
                    } else {
                        #expect(line.contains("no a row with id \(r)"), "\(context)")
                    }
                } else {
                    #expect(!line.contains("→") && !line.contains("no a row"), "\(context)")
                }
                try harness.press(KeyEvent(.pageDown))
            }
            try queue.close()
        }
    }
}
