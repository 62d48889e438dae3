@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// The README's smaller promises, each checked as a person meets it.
@Suite("README promises", .timeLimit(.minutes(10)))
struct ReadmePromiseTests {
    static let withDefaults = """
        CREATE TABLE tasks (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'open',
            priority INTEGER DEFAULT 3,
            added TEXT DEFAULT CURRENT_TIMESTAMP,
            notes TEXT
        );
        INSERT INTO tasks (title) VALUES ('first');
        """

    /// The line of the screen that starts with a field's label.
    static func field(_ name: String, _ harness: AppHarness) throws -> (line: String, y: Int) {
        let y = try #require(harness.lines.firstIndex { $0.hasPrefix(name + " ") }, "no field \(name) in\n\(harness.screen)")
        return (harness.lines[y], y)
    }

    @Test func aNewRecordShowsItsColumnsDefaultsInGrey() throws {
        let harness = try AppHarness(schema: Self.withDefaults)
        try harness.press(.char("a"))
        #expect(try Self.field("status", harness).line.contains("default: 'open'"))
        #expect(try Self.field("priority", harness).line.contains("default: 3"))
        #expect(try Self.field("added", harness).line.contains("default: CURRENT_TIMESTAMP"))
        #expect(try Self.field("id", harness).line.contains("numbered when saved"))
        #expect(try Self.field("notes", harness).line.contains("∅ NULL"), "no default: NULL it is")
        // In grey: the theme's muted colour.
        let (line, y) = try Self.field("status", harness)
        let x = line.distance(from: line.startIndex, to: try #require(line.range(of: "default")).lowerBound)
        #expect(harness.backend.screen[x, y].style.foreground == .muted)
        // What is shown is what the save writes: a typed value, and the defaults elsewhere.
        try harness.type("second")
        try harness.press(KeyEvent(.tab), KeyEvent(.tab))                   // priority
        try harness.type("5")
        #expect(try Self.field("priority", harness).line.contains("5") && !(try Self.field("priority", harness).line.contains("default")))
        try harness.press(.control("s"))
        #expect(harness.messageLine.contains("Saved"), "\(harness.messageLine)")
        #expect(try harness.diskText("SELECT status || '/' || quote(priority) || '/' || (added IS NOT NULL) || '/' || id FROM tasks WHERE title = 'second'") == "open/5/1/2")
        // A stored record shows what is stored, default or not.
        #expect(try Self.field("status", harness).line.contains("open") && !harness.screen.contains("default:"))
    }

    @Test func aBlobShowsItsSizeAndFirstBytes() throws {
        let harness = try AppHarness(schema: """
            CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT, data BLOB);
            INSERT INTO files VALUES (1, 'logo', x'89504E470D0A1A0A0000000D49484452'), (2, 'tiny', x'FF'), (3, 'none', x'');
            """)
        try harness.press(KeyEvent(.enter))
        #expect(try Self.field("data", harness).line.contains("<16 bytes: 89 50 4e 47 0d 0a 1a 0a …>"))
        try harness.press(KeyEvent(.pageDown))
        #expect(try Self.field("data", harness).line.contains("<1 byte: ff>"))
        try harness.press(KeyEvent(.pageDown))
        #expect(try Self.field("data", harness).line.contains("<0 bytes>"))
    }

    @Test func anEditorGivenWithArgumentsGetsThemBeforeTheFile() throws {
        let scripts = TemporaryDirectory()
        let script = scripts.file("fake-code")
        let log = scripts.file("arguments")
        // Like `code --wait`: the words after the program are its arguments, the file comes last.
        try Data("#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(log)'\nfor last; do :; done\nprintf 'from the editor' > \"$last\"\n".utf8)
            .write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let harness = try AppHarness(options: CardfileApp.Options(autosave: nil, editor: "\(script) --wait --new-window"))
        try harness.press(KeyEvent(.enter))
        try harness.press(.control("o"))
        let arguments = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(arguments.count == 3 && arguments.prefix(2) == ["--wait", "--new-window"], "\(arguments)")
        #expect(harness.screen.contains("from the editor"))
    }

    @Test func aForeignKeyOverSeveralColumnsIsAPlainField() throws {
        let harness = try AppHarness(schema: """
            CREATE TABLE shelves (room TEXT, number INTEGER, label TEXT, PRIMARY KEY (room, number));
            CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, room TEXT, shelf INTEGER, author INTEGER REFERENCES people,
                                FOREIGN KEY (room, shelf) REFERENCES shelves (room, number));
            INSERT INTO shelves VALUES ('hall', 1, 'Poetry');
            INSERT INTO people VALUES (7, 'Wisława Szymborska');
            INSERT INTO books VALUES (1, 'View with a Grain of Sand', 'hall', 1, 7);
            """, options: CardfileApp.Options(table: "books", autosave: nil))
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("books › 1"), "\(harness.screen)")
        // The single-column key shows what it references; the two-column one is plain.
        #expect(try Self.field("author", harness).line.contains("→ Wisława Szymborska"))
        let room = try Self.field("room", harness).line, shelf = try Self.field("shelf", harness).line
        #expect(!room.contains("→") && !room.contains("✗") && !shelf.contains("→") && !shelf.contains("✗"), "\(room)\n\(shelf)")
        #expect(!harness.screen.contains("Poetry"))
        // Ctrl-G there follows nothing, and says so.
        try harness.press(KeyEvent(.tab), KeyEvent(.tab))                   // shelf (after title, room)
        try harness.press(.control("g"))
        #expect(!harness.screen.contains("shelves ›"))
        #expect(harness.messageLine.contains("This field references no other table."))
    }

    /// An import of `rows` rows whose ages are all wrong: a report of `rows` lines.
    static func importWithAReport(_ harness: AppHarness, rows: Int) throws {
        let file = harness.directory.file("bad.csv")
        try ("name,age\n" + (1...rows).map { "Person \($0),age \($0)\n" }.joined()).write(toFile: file, atomically: true, encoding: .utf8)
        try harness.command("import \(file)")
        #expect(try harness.waitFor { $0.contains("\(rows) rejected") })
    }

    @Test func theWheelScrollsTheHelpAndTheReports() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.function(1)))
        let first = try #require(harness.screen.firstMatch(of: /(\d+)–(\d+) of (\d+)/), "\(harness.screen)")
        #expect(first.1 == "1")
        try MouseTests.wheel(harness, down: true)
        let scrolled = try #require(harness.screen.firstMatch(of: /(\d+)–(\d+) of (\d+)/))
        #expect(scrolled.1 == "4" && scrolled.3 == first.3, "three lines down: \(scrolled.0)")
        try MouseTests.wheel(harness, down: false)
        #expect(harness.screen.firstMatch(of: /(\d+)–(\d+) of (\d+)/)?.1 == "1")
        try harness.press(KeyEvent(.escape))

        try Self.importWithAReport(harness, rows: 40)
        try harness.press(.char("R"))
        #expect(harness.screen.contains("Imported 0 rows") && !harness.screen.contains("line 21, column age"))
        try MouseTests.wheel(harness, down: true)
        #expect(!harness.screen.contains("Imported 0 rows") && harness.screen.contains("line 21, column age"), "three lines down:\n\(harness.screen)")
        try MouseTests.wheel(harness, down: false)
        #expect(harness.screen.contains("Imported 0 rows") && !harness.screen.contains("line 21, column age"))
    }

    @Test func reportFromAFormShowsTheLastReport() throws {
        let harness = try AppHarness()
        try Self.importWithAReport(harness, rows: 3)
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("cards › 1"))
        try harness.press(KeyEvent(.function(2)))
        try harness.type("report")
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("Import of bad.csv into cards"))
        #expect(harness.screen.contains("bad.csv line 4, column age"))
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("cards › 1") && !harness.screen.contains("Import of bad.csv"))
    }

    @Test func columnsAllShowsEveryColumnAgain() throws {
        let harness = try AppHarness()
        try harness.command("columns notes name")
        #expect(harness.lines[0].split(separator: " ") == ["notes", "name"], "\(harness.lines[0])")
        try harness.command("columns all")
        #expect(harness.lines[0].split(separator: " ") == ["id", "name", "phone", "age", "notes"], "\(harness.lines[0])")
    }

    @Test func theStateFolderFollowsTheXDGRules() {
        #expect(ColumnMemory.defaultFolder(environment: ["XDG_STATE_HOME": "/state", "HOME": "/home/ada"]) == "/state/cardfile")
        #expect(ColumnMemory.defaultFolder(environment: ["HOME": "/home/ada"]) == "/home/ada/.local/state/cardfile")
        // A relative XDG_STATE_HOME is ignored, as the rules say.
        #expect(ColumnMemory.defaultFolder(environment: ["XDG_STATE_HOME": "state", "HOME": "/home/ada"]) == "/home/ada/.local/state/cardfile")
        #expect(ColumnMemory.defaultFolder(environment: [:]) == nil)
        #expect(ColumnMemory(folder: "/state/cardfile").file == "/state/cardfile/columns.json")
    }

    @Test func copyCommandCopiesTheRecordAsTSVOrJSON() throws {
        let harness = try AppHarness()
        try harness.command("copy tsv")
        #expect(try FindAndCopyTests.copied(harness) == "1\tAda\t111\t36\tfirst")
        try harness.command("copy json")
        let json = try JSONSerialization.jsonObject(with: Data(try FindAndCopyTests.copied(harness).utf8)) as? [String: Any]
        #expect(json?["name"] as? String == "Ada" && json?["age"] as? Int == 36 && json?["phone"] as? String == "111")
        #expect(harness.backend.controlWrites.count == 2)
        try harness.command("copy xml")
        #expect(harness.backend.controlWrites.count == 2, "nothing copied")
        #expect(harness.messageLine.contains("tsv") && harness.messageLine.contains("json"), "\(harness.messageLine)")
    }

    @Test func contestedFieldsAreBoldInTheConflictDialog() throws {
        let harness = try ConflictDialogTests.conflicted()
        /// The cell of the first letter of a field's name in the dialog's table.
        func label(_ name: String) throws -> Cell {
            for (y, line) in harness.lines.enumerated() {
                for row in ["│▸ \(name) ", "│  \(name) "] {
                    if let range = line.range(of: row) {
                        return harness.backend.screen[line.distance(from: line.startIndex, to: range.lowerBound) + 3, y]
                    }
                }
            }
            Issue.record("no row \(name) in\n\(harness.screen)")
            return Cell()
        }
        #expect(try label("name").style.attributes.contains(.bold), "name was changed here and elsewhere")
        #expect(!(try label("notes").style.attributes.contains(.bold)), "notes was changed here only")
    }

    @Test func anUnwritableFileOpensReadOnlyAndSaysWhy() throws {
        let harness = try AppHarness(unwritableFile: true)
        #expect(harness.statusLine.contains("read-only (the file cannot be written)"), "\(harness.statusLine)")
        try harness.press(KeyEvent(.enter))
        try harness.type("x")
        #expect(harness.messageLine.hasPrefix("Read-only: the file cannot be written."), "\(harness.messageLine)")
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
    }

    @Test func anOutsideChangeDoesNotTakeAResultsPlace() throws {
        let harness = try AppHarness()
        try harness.press(.char("d"), .char("y"))                          // Ada deleted
        let result = harness.messageLine
        #expect(result.hasPrefix("Deleted"), "\(result)")
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Grace H.' WHERE id = 2")
        try harness.advance(.milliseconds(150))
        #expect(harness.screen.contains("Grace H."), "the list shows the change")
        #expect(harness.messageLine == result, "the result keeps its time: \(harness.messageLine)")
        // Once it has had its time, the next outside change is said.
        try harness.advance(.seconds(6))
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Grace Hopper' WHERE id = 2")
        try harness.advance(.milliseconds(150))
        #expect(harness.messageLine.contains("Outside changes arrived: 1 record on screen changed."), "\(harness.messageLine)")
    }

    @Test func aSmallerTerminalKeepsTheSelectedRecord() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "books", autosave: nil), demoRows: 200)
        for _ in 0..<19 { try harness.press(.char("j")) }
        #expect(harness.statusLine.contains("row 20 of 200"), "\(harness.statusLine)")
        try harness.resize(Size(width: 40, height: 12))
        #expect(harness.statusLine.contains("row 20 of 200"), "\(harness.statusLine)")
        // On screen: the last of the rows (lines 1–9 under the header at this height).
        #expect(harness.lines[9].dropFirst(2).split(separator: " ").first == "20", "\(harness.screen)")
        try harness.resize(Size(width: 80, height: 24))
        #expect(harness.statusLine.contains("row 20 of 200"), "\(harness.statusLine)")
    }
}
