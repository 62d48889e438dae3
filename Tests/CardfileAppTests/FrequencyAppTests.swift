@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// `F` in a list: the focused column's frequency table, and Enter filtering the list to a value.
@Suite("Frequency table in the list", .timeLimit(.minutes(10)))
struct FrequencyAppTests {
    static let schema = """
        CREATE TABLE paints (id INTEGER PRIMARY KEY, colour TEXT, "odd name" INTEGER);
        INSERT INTO paints (colour, "odd name") VALUES ('red', 1), ('blue', 2), ('red', 1), (NULL, 3), ('green', 1), ('red', 2), ('blue', 1);
        """

    /// Focuses the column named `name`.
    static func focus(_ name: String, _ harness: AppHarness) throws {
        for _ in 0..<10 {
            guard let list = harness.app.list, list.columns[list.focusedColumn].name != name else { return }
            try harness.press(.char("l"))
        }
    }

    static func panel(_ harness: AppHarness) -> FrequencyPanel? {
        if case .frequencies(let panel)? = harness.app.overlay { return panel }
        return nil
    }

    @Test func fCountsTheValuesMostFrequentFirstAndEnterFiltersToOne() throws {
        let harness = try AppHarness(schema: Self.schema)
        try Self.focus("colour", harness)
        try harness.press(.char("F"))
        let panel = try #require(Self.panel(harness), "\(harness.screen)")
        #expect(panel.frequencies.values.map(\.value) == [.text("red"), .text("blue"), .null, .text("green")])
        #expect(panel.frequencies.values.map(\.count) == [3, 2, 1, 1])
        let lines = harness.lines
        let red = try #require(lines.first { $0.contains("› red") }, "\(harness.screen)")
        #expect(red.contains("3") && red.contains("42.9%") && red.contains("█"), "\(red)")
        #expect(harness.screen.contains("colour in paints: every record, 4 values"), "\(harness.screen)")
        try harness.press(.char("j"))
        try harness.press(KeyEvent(.enter))
        #expect(Self.panel(harness) == nil)
        #expect(harness.statusLine.contains("filter: colour = 'blue'"), "\(harness.statusLine)")
        #expect(try harness.waitFor { _ in harness.app.list?.live.window.rows.count == 2 }, "\(harness.screen)")
    }

    @Test func enterKeepsTheListsFilterAndNullIsFilteredAsNull() throws {
        let harness = try AppHarness(schema: Self.schema)
        try harness.press(.char("/"))
        try harness.type("id > 1")
        try harness.press(KeyEvent(.enter))
        try Self.focus("colour", harness)
        try harness.press(.char("F"))
        #expect(harness.screen.contains("the records the filter shows"), "\(harness.screen)")
        #expect(Self.panel(harness)?.frequencies.rows == 6)
        try harness.press(.char("j"), .char("j"))                                        // NULL
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("filter: (id > 1) and colour is null"), "\(harness.statusLine)")
        #expect(try harness.waitFor { _ in harness.app.list?.live.window.rows.count == 1 })
    }

    @Test func withMarksItCountsTheMarkedRecordsAndEscGoesBack() throws {
        let harness = try AppHarness(schema: Self.schema)
        try harness.command("select id <= 3")
        try Self.focus("odd name", harness)
        try harness.press(.char("F"))
        let panel = try #require(Self.panel(harness))
        #expect(panel.scope == "the marked records")
        #expect(panel.frequencies.values.map(\.count) == [2, 1] && panel.frequencies.rows == 3)
        try harness.press(KeyEvent(.escape))
        #expect(Self.panel(harness) == nil && !harness.statusLine.contains("filter"))
        // Enter shows every record holding the value, and says how many of them are marked.
        try harness.press(.char("F"), KeyEvent(.enter))
        #expect(harness.messageLine.contains("2 of them marked"), "\(harness.messageLine)")
        #expect(try harness.waitFor { _ in harness.app.list?.live.window.rows.count == 4 })
        try harness.press(.char("/"), KeyEvent(.escape))
        // A column whose name needs quotes is quoted in the filter.
        try harness.press(.char("F"))
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("filter: \"odd name\" = 1"), "\(harness.statusLine)")
    }

    @Test func moreValuesThanAreListedAreCountedAfterTheTableShows() throws {
        let harness = try AppHarness(schema: """
            CREATE TABLE n (id INTEGER PRIMARY KEY, v INTEGER);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500) INSERT INTO n (v) SELECT i % 1200 FROM c;
            """, size: Size(width: 100, height: 30))
        try Self.focus("v", harness)
        try harness.press(.char("F"))
        let panel = try #require(Self.panel(harness), "\(harness.screen)")
        #expect(panel.frequencies.values.count == 1_000 && panel.frequencies.rows == 1_500)
        #expect(panel.frequencies.distinct == 1_200, "the count that followed the table was taken")
        #expect(harness.screen.contains("v in n: every record, 1,200 values"), "\(harness.screen)")
        #expect(harness.screen.contains("The 1,000 most frequent of 1,200 values, 1,500 rows"), "\(harness.screen)")
        // Values that occur twice (0 to 299) come first.
        #expect(panel.frequencies.values.prefix(300).allSatisfy { $0.count == 2 })
        try harness.press(KeyEvent(.end))
        #expect(Self.panel(harness)?.selected == 999)
    }

    @Test func aTableCountedForRowsTheListNoLongerShowsIsNotShown() throws {
        let harness = try AppHarness(schema: Self.schema)
        try Self.focus("colour", harness)
        // F, then a filter typed before its result is taken (keys straight to the app; the
        // inbox is read when the harness settles).
        for key in [KeyEvent.char("F"), .char("/")] + "id > 3".map { KeyEvent(.character($0)) } + [KeyEvent(.enter)] {
            _ = harness.app.update(.event(.key(key)))
        }
        try harness.settle()
        #expect(Self.panel(harness) == nil, "\(harness.screen)")
        #expect(harness.messageLine.contains("The list changed while the values of colour were counted: F counts them again."), "\(harness.messageLine)")
        try harness.press(.char("F"))
        #expect(Self.panel(harness)?.frequencies.rows == 4)
    }

    @Test func anEmptyTableHasNoValueToFilterTo() throws {
        let harness = try AppHarness(schema: "CREATE TABLE paints (id INTEGER PRIMARY KEY, colour TEXT);")
        try Self.focus("colour", harness)
        try harness.press(.char("F"))
        let panel = try #require(Self.panel(harness), "\(harness.screen)")
        #expect(panel.frequencies.values.isEmpty && panel.selectedValue == nil)
        try harness.press(KeyEvent(.end), KeyEvent(.enter))
        #expect(!harness.statusLine.contains("filter"), "Enter filtered an empty table to NULL: \(harness.statusLine)")
    }

    @Test func theFilterConditionReadsBackAsTheValue() throws {
        let table = TableSchema(name: "t", columns: [ColumnDescription(name: "id", declaredType: "INTEGER"), ColumnDescription(name: "v", declaredType: "")],
                                primaryKey: .rowidAlias(column: "id"))
        for value in [Value.integer(-3), .real(0.1), .real(-2.5e-7), .text("it's"), .text(""), .text("a \"b\""), .null] {
            let condition = try #require(CardfileApp.filterCondition(column: "v", value: value))
            let predicate = try FilterParser.parse(condition, table: table, searchColumns: [])
            #expect(predicate == (value.isNull ? .isNull("v") : .compare("v", .equal, value)), "\(condition)")
        }
        #expect(CardfileApp.filterCondition(column: "v", value: .blob(Data([1]))) == nil)
    }
}
