@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// The SQL screen as a person meets it: a statement typed and run, its result as a list
/// (editable through the table's forms, or read-only with the reason), a write asked about
/// with the engine's count, an error's place marked, a cancel, the history and Tab.
@Suite("SQL screen", .timeLimit(.minutes(10)))
struct SQLScreenTests {
    /// Opens the SQL screen (Q in the list), types `sql` over what is there, and runs it.
    static func run(_ harness: AppHarness, _ sql: String) throws {
        if harness.app.screens.sql == nil { try harness.press(.char("Q")) }
        try harness.press(.control("a"))
        for _ in 0..<20 { try harness.press(.control("k")) }
        try harness.type(sql)
        try harness.press(KeyEvent(.function(5)))
        _ = try harness.waitFor { _ in harness.app.screens.sql?.running == nil }
    }

    @Test func aResultOfOneTableWithItsKeyIsEditedThroughTheTablesForm() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        try Self.run(harness, "SELECT name, id FROM cards WHERE age > 30 ORDER BY name DESC")
        let list = try #require(harness.app.list)
        #expect(list.query?.records?.table == "cards")
        #expect(try harness.waitFor { $0.contains("Grace") && $0.contains("Ada") })
        let names = list.live.window.rows.map { $0.values[1] }
        #expect(names == [.text("Grace"), .text("Ada")], "the statement's own order")
        #expect(harness.messageLine.contains("2 rows · editable: Enter opens a record of cards"), "\(harness.messageLine)")
        // Enter: the record's form, in the table's own terms; a save reaches the file and the result.
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("cards › 2"), "\(harness.screen)")
        try harness.press(.control("e"))
        try harness.type(" Hopper")
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 2") == "Grace Hopper")
        try harness.press(KeyEvent(.escape))
        #expect(try harness.waitFor { $0.contains("Grace Hopper") }, "\(harness.screen)")
        // Esc: back to the statement, kept as typed.
        try harness.press(KeyEvent(.escape))
        #expect(harness.app.screens.sql?.editor.text == "SELECT name, id FROM cards WHERE age > 30 ORDER BY name DESC")
        try harness.press(KeyEvent(.escape))
        #expect(harness.app.list?.table.name == "cards", "Esc leaves the SQL screen for where Q was pressed")
    }

    @Test func aResultFollowsAnotherProgramsWritesKeepingTheCursor() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        try Self.run(harness, "SELECT upper(name) AS shout, age FROM cards ORDER BY age")
        #expect(try harness.waitFor { $0.contains("GRACE") })
        try harness.press(.char("j"), .char("j"))                                   // the third row
        let selected = harness.app.list?.selection
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Marge' WHERE id = 4")
        #expect(try harness.waitFor { $0.contains("MARGE") }, "\(harness.screen)")
        #expect(harness.app.list?.selection == selected)
    }

    @Test func aJoinIsReadOnlyAndSaysWhy() throws {
        let harness = try AppHarness(schema: AppHarness.cards + "CREATE TABLE calls (card INTEGER REFERENCES cards(id), at TEXT); INSERT INTO calls VALUES (1, 'monday'), (1, 'friday');",
                                     options: CardfileApp.Options(table: "cards", autosave: nil))
        try Self.run(harness, "SELECT c.name, k.at FROM cards c JOIN calls k ON k.card = c.id")
        #expect(try harness.waitFor { $0.contains("monday") })
        #expect(harness.statusLine.contains("read-only (the result joins 2 tables)"), "\(harness.statusLine)")
        try harness.press(.char("d"))
        #expect(harness.messageLine.contains("Read-only: the result joins 2 tables."), "\(harness.messageLine)")
        // Copy and export work on a result as on a table.
        try harness.press(.char("Y"))
        #expect(try FindAndCopyTests.copied(harness) == "1\tAda\tmonday", "\(harness.messageLine)")
        try harness.command("export calls.csv")
        #expect(try harness.waitFor { $0.contains("Exported 2 rows") })
        #expect(try String(contentsOfFile: harness.directory.file("calls.csv"), encoding: .utf8) == "\"#\",\"name\",\"at\"\n1,\"Ada\",\"monday\"\n2,\"Ada\",\"friday\"\n")
        try harness.command("set at = 'x'")
        #expect(harness.messageLine.contains("Read-only"), "\(harness.messageLine)")
        // Enter shows the row, read-only.
        try harness.press(KeyEvent(.enter))
        try harness.press(.char("z"))
        #expect(harness.statusLine.contains("read-only"), "\(harness.statusLine)")
        #expect(try harness.diskText("SELECT group_concat(at) FROM calls") == "monday,friday")
    }

    @Test func aWriteIsCountedAskedAndRunThroughTheStore() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        // A form with an unsaved edit of the field the statement will change.
        try harness.press(KeyEvent(.enter))                                        // Ada's form
        try harness.press(.control("e"))
        try harness.type("!")
        try harness.press(.alt(":"))
        try harness.type("sql")
        try harness.press(KeyEvent(.enter))
        try Self.run(harness, "UPDATE cards SET name = upper(name) WHERE age IS NOT NULL")
        let asked = try #require(BulkEditAppTests.question(harness), "\(harness.screen)")
        #expect(asked == "Update 3 rows? (y/n)")
        try harness.press(.char("n"))
        #expect(try harness.diskText("SELECT group_concat(name) FROM cards") == "Ada,Grace,Linus,Margaret")
        try harness.press(KeyEvent(.function(5)))
        _ = try harness.waitFor { _ in BulkEditAppTests.question(harness) != nil }
        try harness.press(.char("y"))
        _ = try harness.waitFor { _ in harness.app.screens.sql?.running == nil }
        #expect(try harness.diskText("SELECT group_concat(name) FROM cards") == "ADA,GRACE,LINUS,Margaret")
        #expect(harness.messageLine.contains("Updated 3 rows."), "\(harness.messageLine)")
        // The form under it met the write as a change made elsewhere, its edit kept.
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("Ada!"), "\(harness.screen)")
        #expect(harness.screen.contains("ADA"), "\(harness.screen)")
    }

    @Test func qOnTheTablesScreenOpensTheSQLScreenAndEscComesBack() throws {
        let harness = try AppHarness(schema: AppHarness.cards + "CREATE TABLE other (x);")
        #expect(harness.app.tables != nil)
        try harness.press(.char("Q"))
        #expect(harness.screen.contains("F5 or Ctrl-E runs"), "\(harness.screen)")
        try harness.type("SELECT count(*) AS n FROM cards")
        try harness.press(KeyEvent(.function(5)))
        #expect(try harness.waitFor { $0.contains("1 row · read-only: the result is computed over many rows (count)") }, "\(harness.screen)")
        try harness.press(KeyEvent(.escape), KeyEvent(.escape))
        #expect(harness.app.tables != nil && harness.app.screens.isAtBottom, "\(harness.screen)")
    }

    @Test func aTableCreatedBySQLIsListedAndOpensAtOnce() throws {
        let harness = try AppHarness(schema: AppHarness.cards + "CREATE TABLE other (x);")
        try Self.run(harness, "CREATE TABLE shelves (id INTEGER PRIMARY KEY, label TEXT)")
        #expect(BulkEditAppTests.question(harness) == "Run this CREATE statement? It changes the database's schema. (y/n)")
        try harness.press(.char("y"))
        _ = try harness.waitFor { _ in harness.app.screens.sql?.running == nil }
        #expect(harness.messageLine.contains("CREATE done."), "\(harness.messageLine)")
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("shelves"), "\(harness.screen)")
        try harness.press(.char("G"), KeyEvent(.enter))                            // the last table: shelves
        #expect(harness.app.list?.table.name == "shelves", "\(harness.screen)")
        try harness.press(.char("a"))
        try harness.type("top")
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT label FROM shelves") == "top")
    }

    @Test func aTableAnotherProgramMakesIsListed() throws {
        let harness = try AppHarness(schema: AppHarness.cards + "CREATE TABLE other (x);")
        try LiveRefreshTests.outside(harness, "CREATE TABLE made_elsewhere (id INTEGER PRIMARY KEY)")
        #expect(try harness.waitFor { $0.contains("made_elsewhere") }, "\(harness.screen)")
    }

    @Test func anErrorIsMarkedWhereSQLiteStoppedAndNothingIsLost() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        try Self.run(harness, "SELECT nmae FROM cards")
        #expect(harness.messageLine.contains("SQLite refused the statement at character 8: no such column: nmae"), "\(harness.messageLine)")
        #expect(harness.app.screens.sql?.errorOffset == 7)
        #expect(harness.app.screens.sql?.editor.text == "SELECT nmae FROM cards")
        // Typing clears the mark.
        try harness.press(KeyEvent(.left))
        try harness.type(" ")
        #expect(harness.app.screens.sql?.errorOffset == nil)
        for (sql, words) in [("BEGIN", "transaction of its own"), ("SELECT 1; SELECT 2", "One statement at a time")] {
            try Self.run(harness, sql)
            #expect(harness.messageLine.contains(words), "\(sql): \(harness.messageLine)")
        }
    }

    @Test func escCancelsAnEndlessQueryAndTheScreenAnswersMeanwhile() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        try harness.press(.char("Q"))
        try harness.type("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000000000) SELECT x FROM n")
        try harness.press(.control("e"))
        #expect(harness.app.screens.sql?.running != nil)
        #expect(harness.screen.contains("running… Esc cancels"), "\(harness.screen)")
        // The screen answers: the help opens and closes while it runs.
        try harness.press(KeyEvent(.function(1)))
        #expect(harness.screen.contains("Help: SQL"))
        try harness.press(KeyEvent(.escape))
        try harness.press(KeyEvent(.escape))
        #expect(try harness.waitFor { _ in harness.app.screens.sql?.running == nil })
        #expect(harness.messageLine.contains("Cancelled: nothing was changed."), "\(harness.messageLine)")
        #expect(harness.app.screens.sql != nil, "the cancel keeps the SQL screen")
    }

    @Test func earlierStatementsComeBackWithUpAcrossRuns() throws {
        let state = TemporaryDirectory()
        let options = CardfileApp.Options(table: "cards", autosave: nil, stateFolder: state.path)
        let harness = try AppHarness(options: options)
        try Self.run(harness, "SELECT 1")
        try harness.press(KeyEvent(.escape))
        try Self.run(harness, "SELECT 2\n, 3")
        try harness.press(KeyEvent(.escape), KeyEvent(.escape))
        _ = harness.app.waitForErrands()
        // In this app, the SQL screen opens again on the last statement, the earlier one under ↑.
        try harness.press(.char("Q"))
        #expect(harness.app.screens.sql?.editor.text == "SELECT 2\n, 3")
        try harness.press(.control("a"), KeyEvent(.up), KeyEvent(.up))
        #expect(harness.app.screens.sql?.editor.text == "SELECT 1")
        let reopened = try AppHarness(schema: AppHarness.cards, options: options)
        // (A new harness makes a new file: its history is its own.) The file keeps each
        // database's statements, for the next start.
        try reopened.press(.char("Q"))
        try reopened.press(KeyEvent(.up))
        #expect(reopened.app.screens.sql?.editor.text == "", "another file's statements are not offered")
        let history = QueryHistory(folder: state.path)
        #expect(history.queries(database: harness.path) == ["SELECT 1", "SELECT 2\n, 3"])
        let sql = SQLScreen(history: history.queries(database: harness.path), text: "typed")
        func press(_ key: KeyEvent) { _ = sql.handle(key, names: { [] }, pageHeight: 5) }
        press(KeyEvent(.up))
        #expect(sql.editor.text == "SELECT 2\n, 3")
        press(KeyEvent(.up))                                                      // on its first line
        #expect(sql.editor.text == "SELECT 1")
        press(KeyEvent(.down))
        #expect(sql.editor.text == "SELECT 2\n, 3")                               // the cursor on its last line
        press(KeyEvent(.down))
        #expect(sql.editor.text == "typed", "past the newest, what was being typed")
    }

    @Test func ctrlOEditsTheStatementInTheEditorAsAnSQLFile() throws {
        let (harness, log, scripts) = try ExternalEditorTests.harness(editor: "grep -q 'FROM cards' \"$1\" && printf 'SELECT name\\nFROM cards\\nWHERE age > 40\\n' > \"$1\"")
        defer { withExtendedLifetime(scripts) {} }
        try harness.press(.char("Q"))
        try harness.type("SELECT * FROM cards")
        try harness.press(.control("o"))
        #expect(harness.backend.handOvers == 1)
        #expect(ExternalEditorTests.files(in: log).first?.hasSuffix(".sql") == true)
        #expect(harness.app.screens.sql?.editor.text == "SELECT name\nFROM cards\nWHERE age > 40")
        #expect(harness.messageLine.contains("F5 runs it"), "\(harness.messageLine)")
        try harness.press(KeyEvent(.function(5)))
        #expect(try harness.waitFor { $0.contains("Grace") && !$0.contains("Ada") })
    }

    /// Random typing, runs, ↑ and ↓ on the SQL screen: the history keeps each statement once,
    /// newest last, at most its limit; ↑ shows only statements run before; and as many ↓ as
    /// ↑ (with no typing between) give back what was being typed.
    @Test func randomHistoryWalksAlwaysComeBackToWhatWasTyped() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let words = ["SELECT 1", "SELECT 2", "VALUES (3)", "SELECT name FROM cards", "x"]
        let sql = SQLScreen(history: [])
        func press(_ key: KeyEvent) { _ = sql.handle(key, names: { [] }, pageHeight: 5) }
        var trace: [String] = []
        for step in 0..<Fuzz.scaled(2_000) {
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), step \(step): \(trace.suffix(12).joined(separator: "; "))"
            switch random.next(below: 6) {
            case 0:
                let word = words[random.next(below: words.count)]
                trace.append("type \(word)")
                sql.replaceText(with: word)
            case 1:
                trace.append("run")
                sql.remember(sql.editor.text)
                #expect(sql.history.last == sql.editor.text, "\(context)")
                #expect(Set(sql.history).count == sql.history.count, "\(context): \(sql.history)")
                #expect(sql.history.count <= QueryHistory.limit)
            case 2, 3:
                trace.append("up")
                press(KeyEvent(.up))
                if !sql.history.isEmpty { #expect(sql.history.contains(sql.editor.text), "\(context): \(sql.editor.text)") }
            default:
                trace.append("down")
                press(KeyEvent(.down))
            }
            // Up some way, then down past the newest: what was being typed comes back.
            if random.next(below: 40) == 0, !sql.history.isEmpty {
                let typed = "typed \(step)"
                sql.replaceText(with: typed)
                let count = 1 + random.next(below: sql.history.count + 2)
                for _ in 0..<count { press(KeyEvent(.up)) }
                #expect(sql.history.contains(sql.editor.text), "\(context)")
                for _ in 0...count { press(KeyEvent(.down)) }
                #expect(sql.editor.text == typed, "\(context): walked up \(count)")
                trace.append("walk \(count)")
            }
        }
    }

    /// Found in review: a combining mark typed on its own made Tab read past the text.
    @Test func tabAfterACombiningMarkDoesNotCrash() {
        let sql = SQLScreen(history: [])
        sql.paste("SELECT e")
        sql.paste("\u{301}")
        #expect(sql.handle(KeyEvent(.tab), names: { ["eé"] }, pageHeight: 5) != .ignored)
        // Several names that need quotes complete whole or not at all.
        let spaced = SQLScreen(history: [], text: "SELECT my")
        #expect(spaced.handle(KeyEvent(.tab), names: { ["my table", "my tables"] }, pageHeight: 5) == .candidates(["my table", "my tables"]))
        #expect(spaced.editor.text == "SELECT my")
    }

    /// Found in review: quitting from the SQL screen dropped the edits of a form under it, and
    /// a second SQL screen would replace the first one's result.
    @Test func quittingOverAFormAsksAboutItsEditsAndASecondSQLScreenIsRefused() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        try Self.run(harness, "SELECT name, id FROM cards")
        #expect(try harness.waitFor { $0.contains("editable") })
        try harness.press(KeyEvent(.enter))                                        // Ada's form
        try harness.press(.control("e"))
        try harness.type("!")
        try harness.press(.alt(":"))
        try harness.type("sql")
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.contains("The SQL screen is open already"), "\(harness.messageLine)")
        // From the SQL screen itself (a table's list over the form, then Q).
        let second = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        try second.press(KeyEvent(.enter), .control("e"))
        try second.type("!")
        try second.press(.alt(":"))
        try second.type("sql")
        try second.press(KeyEvent(.enter))
        #expect(second.app.screens.sql != nil)
        try second.press(.control("q"))
        #expect(second.app.isRunning)
        #expect(BulkEditAppTests.question(second) != nil, "\(second.screen)")
        #expect(second.app.form != nil, "the question is asked over the form")
    }

    @Test func tabCompletesTableAndColumnNames() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "cards", autosave: nil))
        try harness.press(.char("Q"))
        try harness.type("SELECT na")
        try harness.press(KeyEvent(.tab))
        #expect(harness.app.screens.sql?.editor.text == "SELECT name")
        try harness.type(" FROM ca")
        try harness.press(KeyEvent(.tab))
        #expect(harness.app.screens.sql?.editor.text == "SELECT name FROM cards")
        try harness.type(" WHERE zz")
        try harness.press(KeyEvent(.tab))
        #expect(harness.messageLine.contains("No table or column name starts"), "\(harness.messageLine)")
    }
}
