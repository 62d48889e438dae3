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
}
