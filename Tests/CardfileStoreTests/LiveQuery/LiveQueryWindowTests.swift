import Foundation
import Testing
@testable import CardfileStore

@Suite("Live query windows", .timeLimit(.minutes(10)))
struct LiveQueryWindowTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let spec: LiveQuerySpec
        /// The same query in SQL, for the oracle.
        let condition: String
        let order: String
        let walksByKey: Bool
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "primary key", spec: LiveQuerySpec(table: "items"), condition: "1", order: "id", walksByKey: true),
        Case(name: "indexed year, NULLs first", spec: LiveQuerySpec(table: "items", sort: [ColumnSort("year")]),
             condition: "1", order: "year, id", walksByKey: true),
        Case(name: "indexed year descending, NULLs last", spec: LiveQuerySpec(table: "items", sort: [ColumnSort("year", ascending: false)]),
             condition: "1", order: "year DESC, id DESC", walksByKey: true),
        Case(name: "unindexed name", spec: LiveQuerySpec(table: "items", sort: [ColumnSort("name")]),
             condition: "1", order: "name, id", walksByKey: false),
        Case(name: "name descending, case-insensitive", spec: LiveQuerySpec(table: "items", sort: [ColumnSort("name", ascending: false, collation: .nocase)]),
             condition: "1", order: "name COLLATE NOCASE DESC, id DESC", walksByKey: false),
        Case(name: "condition on the indexed column", spec: LiveQuerySpec(table: "items", sort: [ColumnSort("year")], filter: "year >= 1990"),
             condition: "year >= 1990", order: "year, id", walksByKey: true),
        Case(name: "substring search", spec: LiveQuerySpec(table: "items", filter: "ember", searchColumns: ["name", "notes"]),
             condition: "(name LIKE '%ember%' OR notes LIKE '%ember%')", order: "id", walksByKey: true),
        Case(name: "empty notes, by category then price", spec: LiveQuerySpec(table: "items", sort: [ColumnSort("category"), ColumnSort("price", ascending: false)], filter: "notes is empty"),
             condition: "(notes IS NULL OR notes = '')", order: "category, price DESC, id DESC", walksByKey: false),
        Case(name: "two conditions and a word", spec: LiveQuerySpec(table: "items", sort: [ColumnSort("year", ascending: false)], filter: "category = music price < 20 delta", searchColumns: ["name"]),
             condition: "category = 'music' AND price < 20 AND name LIKE '%delta%'", order: "year DESC, id DESC", walksByKey: true),
    ]

    @Test(arguments: cases)
    func windowsAndPositionsMatchSQL(_ example: Case) throws {
        let fixture = try ItemsFixture()
        let height = 20
        let live = try fixture.liveQuery(example.spec, height: height)
        #expect(live.walksByKey == example.walksByKey)
        let total = try fixture.oracle(where: example.condition, order: example.order, offset: 0, limit: 0).count
        #expect(live.window.count == .exact(total))

        func check(_ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let expected = try fixture.oracle(where: example.condition, order: example.order, offset: live.window.firstRow, limit: height)
            #expect(live.window.rowids == expected.ids, "\(label)", sourceLocation: sourceLocation)
            #expect(live.window.count == .exact(total), "\(label)", sourceLocation: sourceLocation)
        }

        try check("first window")
        #expect(live.window.firstRow == 0)
        #expect(live.window.selectedLine == 0)
        for _ in 0..<3 { try live.pageDown() }
        try check("three pages down")
        #expect(live.window.firstRow == min(3 * height, max(0, total - height)))

        try live.jump(toRow: total / 2)
        try check("middle")
        #expect(live.window.selectedPosition == total / 2)

        try live.jumpToEnd()
        try check("end")
        #expect(live.window.firstRow == max(0, total - height))
        #expect(live.window.selectedPosition == total - 1)

        try live.jump(toFraction: 0.25)
        try check("a quarter")
        #expect(live.window.selectedPosition == Int((Double(total - 1) * 0.25).rounded()))

        try live.pageUp()
        try check("a page up")

        // Moving the selection past the top and bottom edges scrolls by a row.
        try live.jump(toRow: 100)
        let top = live.window.firstRow
        try live.moveSelection(by: -1)
        try check("selection above the window")
        #expect(live.window.firstRow == top - 1 && live.window.selectedLine == 0)
        try live.moveSelection(by: height)
        try check("selection below the window")
        #expect(live.window.selectedLine == height - 1)
        #expect(live.window.selectedPosition == top - 1 + height)

        try live.jumpToStart()
        try check("back to the start")
        try live.moveSelection(by: -5)
        #expect(live.window.selectedPosition == 0)
    }

    @Test func aWindowTallerThanTheResultShowsEverything() throws {
        let fixture = try ItemsFixture(rows: 30)
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items", filter: "category = books"), height: 20)
        let expected = try fixture.oracle(where: "category = 'books'", offset: 0, limit: 20)
        #expect(live.window.rowids == expected.ids)
        #expect(live.window.count == .exact(expected.count))
        try live.pageDown()
        #expect(live.window.rowids == expected.ids)
        try live.jumpToEnd()
        #expect(live.window.firstRow == 0)
    }

    @Test func changingTheHeightKeepsTheFirstRowAndSelection() throws {
        let fixture = try ItemsFixture(rows: 100)
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 10)
        try live.jump(toRow: 40)
        try live.moveSelection(by: 3)
        let selected = live.window.selection
        try live.setHeight(25)
        #expect(live.window.firstRow == 40)
        #expect(live.window.rowids == Array(41...65))
        #expect(live.window.selection == selected)
        // A window that shrinks above the selected row starts lower: the row stays selected,
        // on the last line (it used to fall back to the first row, 41).
        try live.setHeight(2)
        #expect(live.window.rowids == [43, 44])
        #expect(live.window.selection == selected)
    }

    @Test func anInvalidFilterSaysWhere() throws {
        let fixture = try ItemsFixture(rows: 10)
        // A column that does not exist is named, with the place it was typed and the columns.
        let unknown = storeError { _ = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "items", filter: "  yeer >= 1990"), height: 5) }
        guard case .invalidFilter(let message, let offset)? = unknown else { Issue.record("\(String(describing: unknown))"); return }
        #expect(offset == 2, "counted in the text as typed, leading spaces included")
        #expect(message.hasPrefix("no column is named “yeer” (the columns: id, name, "))
        let error = storeError { _ = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "items", filter: "year >="), height: 5) }
        #expect(error?.message.contains("a value is missing after “>=”") == true)
    }

    @Test func filterLanguage() throws {
        let fixture = try ItemsFixture(rows: 10)
        let table = try #require(fixture.container.schema.table(named: "items"))
        let columns = ["name", "notes"]
        #expect(try FilterParser.parse("", table: table, searchColumns: columns) == nil)
        #expect(try FilterParser.parse("Year >= 1990", table: table, searchColumns: columns) == .compare("year", .greaterOrEqual, 1990))
        #expect(try FilterParser.parse("name = 'Le Guin'", table: table, searchColumns: columns) == .compare("name", .equal, "Le Guin"))
        #expect(try FilterParser.parse("notes is not empty", table: table, searchColumns: columns) == .not(.isEmpty("notes")))
        #expect(try FilterParser.parse("ursula \"left hand\"", table: table, searchColumns: columns) == .and([.contains(columns, "ursula"), .contains(columns, "left hand")]))
        #expect(try FilterParser.parse("O'Brien", table: table, searchColumns: columns) == .contains(columns, "O'Brien"))
        #expect(try FilterParser.parse("(year < 1960 or year > 2000) and not category = books", table: table, searchColumns: columns)
            == .and([.or([.compare("year", .less, 1960), .compare("year", .greater, 2000)]), .not(.compare("category", .equal, "books"))]))
        #expect(try FilterParser.parse("name ~ ember", table: table, searchColumns: columns) == .contains(["name"], "ember"))
        // What more typing would finish is reported at the end, naming where it opened.
        #expect(throws: StoreError.invalidFilter(message: "the parenthesis opened at character 1 is never closed", offset: 9)) {
            _ = try FilterParser.parse("(year > 1", table: table, searchColumns: columns)
        }
        #expect(throws: StoreError.invalidFilter(message: "the quote opened at character 8 is never closed", offset: 10)) {
            _ = try FilterParser.parse("name = 'Le", table: table, searchColumns: columns)
        }
        #expect(throws: StoreError.invalidFilter(message: "something is missing at the end", offset: 16)) {
            _ = try FilterParser.parse("year >= 1990 and ", table: table, searchColumns: columns)
        }
        #expect(throws: StoreError.invalidFilter(message: "something is missing at the end", offset: 3)) {
            _ = try FilterParser.parse("not", table: table, searchColumns: columns)
        }
        // A stray quote among words is still searched for; after a comparison it is not.
        #expect(try FilterParser.parse("O'Brien rare", table: table, searchColumns: columns) == .contains(columns, "O'Brien rare"))
        #expect(try FilterParser.parse("name ~ \"O'Brien\"", table: table, searchColumns: columns) == .contains(["name"], "O'Brien"))
    }
}
