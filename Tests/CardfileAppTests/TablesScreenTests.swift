import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing
@testable import CardfileApp

/// The tables screen moves as a list does, filters by name, keeps its place when a table is
/// left, and says what to do when the database has no table.
@Suite("Tables screen", .timeLimit(.minutes(10)))
struct TablesScreenTests {
    /// Thirty tables, `t00`…`t29` in this order, three with longer names.
    static let many: String = (0..<30).map { index in
        let name = switch index {
        case 7: "t07_orders"
        case 8: "t08_order_lines"
        case 20: "t20_customers"
        default: String(format: "t%02d", index)
        }
        return "CREATE TABLE \(name) (id INTEGER PRIMARY KEY, note TEXT);"
    }.joined(separator: "\n")

    static func selected(_ harness: AppHarness) -> String? { harness.app.tables?.selectedTable?.name }

    @Test func homeEndAndPagesMoveTheSelection() throws {
        let harness = try AppHarness(schema: Self.many, size: Size(width: 60, height: 12))
        #expect(Self.selected(harness) == "t00")
        try harness.press(KeyEvent(.end))
        #expect(Self.selected(harness) == "t29")
        #expect(harness.lines.contains { $0.contains("t29") }, "the last table is drawn: \(harness.screen)")
        try harness.press(KeyEvent(.home))
        #expect(Self.selected(harness) == "t00")
        try harness.press(.char("G"))
        #expect(Self.selected(harness) == "t29")
        try harness.press(.char("g"))
        // A page is the rows the screen shows (12 less the title, status and message lines).
        try harness.press(KeyEvent(.pageDown))
        #expect(harness.app.tables?.selected == 9, "\(harness.screen)")
        try harness.press(KeyEvent(.pageDown), KeyEvent(.pageDown), KeyEvent(.pageDown))
        #expect(Self.selected(harness) == "t29", "held at the last")
        try harness.press(KeyEvent(.pageUp))
        #expect(harness.app.tables?.selected == 20)
    }

    @Test func slashFiltersByNameAndTheFilterAndSelectionStayAcrossATable() throws {
        let harness = try AppHarness(schema: Self.many, size: Size(width: 60, height: 12))
        try harness.press(.char("/"))
        try harness.type("ORDER")
        #expect(harness.app.tables?.shown.map(\.name) == ["t07_orders", "t08_order_lines"])
        #expect(harness.lines[0].contains("Tables whose name contains “ORDER” (2 of 30)"), "\(harness.lines[0])")
        try harness.press(KeyEvent(.enter), KeyEvent(.down), KeyEvent(.enter))
        #expect(harness.statusLine.contains("t08_order_lines"), "\(harness.statusLine)")
        try harness.press(.char("q"))
        #expect(Self.selected(harness) == "t08_order_lines", "the selection stays")
        #expect(harness.app.tables?.shown.count == 2, "and the filter")
        // Esc on the filter shows every table, the selection still on the same table.
        try harness.press(.char("/"), KeyEvent(.escape))
        #expect(harness.app.tables?.shown.count == 30)
        #expect(Self.selected(harness) == "t08_order_lines")
        // No match says so, and Enter opens nothing.
        try harness.press(.char("/"))
        try harness.type("zzz")
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("No table's name contains “zzz”"), "\(harness.screen)")
        try harness.press(KeyEvent(.enter))
        #expect(harness.app.list == nil)
    }

    @Test func comingBackFromATableKeepsItsSelectionAndPlace() throws {
        let harness = try AppHarness(schema: Self.many, size: Size(width: 60, height: 12))
        for _ in 0..<14 { try harness.press(.char("j")) }
        let before = harness.lines
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("t14"), "\(harness.statusLine)")
        try harness.press(.char("q"))
        #expect(Self.selected(harness) == "t14")
        // The same rows are drawn, the same one selected (the counts come back as they are made).
        _ = try harness.waitFor { _ in !harness.screen.contains("counting…") }
        #expect(harness.lines.dropLast(2).map { $0.prefix(20) } == before.dropLast(2).map { $0.prefix(20) }, "\(harness.screen)")
    }

    @Test func anEmptyDatabaseSaysWhatToDo() throws {
        let harness = try AppHarness(schema: "PRAGMA user_version = 1;", size: Size(width: 60, height: 12))
        #expect(harness.screen.contains("This database has no tables yet"), "\(harness.screen)")
        #expect(harness.screen.replacingOccurrences(of: "\n", with: " ").contains("--create"), "\(harness.screen)")
        #expect(!harness.messageLine.contains("Enter open"), "nothing to open: \(harness.messageLine)")
        try harness.press(KeyEvent(.enter), KeyEvent(.end), KeyEvent(.pageDown))
        #expect(harness.app.list == nil)
    }
}
