import Foundation
import Testing
import CardfileStore
import CardfileTerminal
@testable import CardfileApp

/// Views on screen: listed beside the tables, opened by name, read-only unless their
/// INSTEAD OF triggers let a change through, and saying so.
@Suite("Views on screen", .timeLimit(.minutes(10)))
struct ViewScreenTests {
    static let schema = """
        CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, city TEXT);
        INSERT INTO people (name, age, city) VALUES ('Ada', 36, 'London'), ('Bob', 12, 'Oslo'), ('Cy', 40, 'Rome');
        CREATE VIEW adults AS SELECT id, name, age FROM people WHERE age >= 18;
        CREATE VIEW cities AS SELECT city, count(*) AS n FROM people GROUP BY city;
        CREATE VIEW editable AS SELECT id, name, city FROM people;
        CREATE TRIGGER editable_update INSTEAD OF UPDATE ON editable BEGIN
            UPDATE people SET name = NEW.name, city = NEW.city WHERE id = OLD.id;
        END;
        CREATE TABLE hopeless (rowid TEXT, _rowid_ TEXT, oid TEXT);
        INSERT INTO hopeless VALUES ('1', '2', '3'), ('1', '2', '3');
        """

    @Test func theTablesScreenListsViewsAsViews() throws {
        let harness = try AppHarness(schema: Self.schema, options: CardfileApp.Options(table: nil, autosave: nil))
        // Counts arrive from the background, each on its own.
        #expect(try harness.waitFor { $0.contains("view · 2 records") && !$0.contains("counting") })
        let adults = try #require(harness.lines.first { $0.contains("adults") })
        #expect(adults.hasSuffix("view · 2 records"), "\(harness.screen)")
        let people = try #require(harness.lines.first { $0.contains("people") })
        #expect(people.hasSuffix("3 records") && !people.contains("view"), "\(harness.screen)")
    }

    @Test func aViewWithoutTriggersOpensReadOnlyAndSaysWhy() throws {
        let harness = try AppHarness(schema: Self.schema, options: CardfileApp.Options(table: "adults", autosave: nil))
        #expect(harness.screen.contains("Ada") && harness.screen.contains("Cy") && !harness.screen.contains("Bob"), "\(harness.screen)")
        #expect(harness.statusLine.contains("read-only (a view)"), "\(harness.statusLine)")
        try harness.press(.char("d"))
        #expect(harness.messageLine.contains("Cannot delete: view “adults” has no INSTEAD OF DELETE trigger."), "\(harness.messageLine)")
        try harness.press(.char("a"))
        #expect(harness.messageLine.contains("Cannot add: view “adults” has no INSTEAD OF INSERT trigger."), "\(harness.messageLine)")
        #expect(!harness.screen.contains("new record"))
        try harness.press(KeyEvent(.enter))
        try harness.type("x")
        #expect(harness.messageLine.contains("Read-only"), "\(harness.messageLine)")
        try harness.press(.control("s"))
        #expect(try harness.disk("SELECT group_concat(name, ',') FROM people") == "Ada,Bob,Cy".databaseValue)
    }

    @Test func aViewWithAnUpdateTriggerIsEditedAndSavedToItsTable() throws {
        let harness = try AppHarness(schema: Self.schema, options: CardfileApp.Options(table: "editable", autosave: nil))
        #expect(harness.statusLine.contains("autosave off"), "\(harness.statusLine)")
        try harness.press(KeyEvent(.enter))
        // The key is the person's id, shown but not edited; the focus starts on name.
        try harness.press(.control("e"))
        try harness.type("a")
        try harness.press(.control("s"))
        #expect(harness.messageLine.contains("Saved"), "\(harness.screen)")
        #expect(try harness.disk("SELECT name FROM people WHERE id = 1") == "Adaa".databaseValue)
    }

    @Test func aKeylessViewAndAShadowedTableAreListedReadOnly() throws {
        let harness = try AppHarness(schema: Self.schema, options: CardfileApp.Options(table: "cities", autosave: nil))
        #expect(harness.screen.contains("London") && harness.screen.contains("Rome"), "\(harness.screen)")
        #expect(harness.statusLine.contains("read-only (no key)"), "\(harness.statusLine)")
        try harness.press(.char("d"))
        #expect(harness.messageLine.contains("cannot be told apart"), "\(harness.messageLine)")

        let table = try AppHarness(schema: Self.schema, options: CardfileApp.Options(table: "hopeless", autosave: nil))
        #expect(table.statusLine.contains("row 1 of 2") && table.statusLine.contains("read-only (no key)"), "\(table.screen)")
        try table.press(.char("a"))
        #expect(table.messageLine.contains("cannot be told apart"), "\(table.messageLine)")
    }
}
