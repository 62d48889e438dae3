@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// Sorting by several columns: `[` `]` sort by the focused column alone, `{` `}` add it as the
/// next key; the header ranks the keys and the rows follow SQL's order.
@Suite("Sorting by several columns", .timeLimit(.minutes(10)))
struct MultiSortTests {
    static let teams = """
        CREATE TABLE players (id INTEGER PRIMARY KEY, team TEXT, age INTEGER, name TEXT);
        INSERT INTO players (team, age, name) VALUES
            ('red', 30, 'Ana'), ('blue', 25, 'Bo'), ('red', 25, 'Cy'), ('blue', 30, 'Di'),
            ('red', 30, 'Ed'), (NULL, 40, 'Fay'), ('blue', NULL, 'Gus'), ('red', 25, 'Hal');
        """

    /// The names down the list, as shown.
    static func names(_ harness: AppHarness) -> [String] {
        harness.lines.dropFirst().prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .compactMap { $0.split(separator: " ").last.map(String.init) }
            .filter { $0.first?.isUppercase == true }
    }

    /// The names in SQL's order for `order`.
    static func sqlNames(_ harness: AppHarness, _ order: String) throws -> [String] {
        let text = try harness.diskText("SELECT group_concat(name, ' ') FROM (SELECT name FROM players ORDER BY \(order))") ?? ""
        return text.split(separator: " ").map(String.init)
    }

    static func settled(_ harness: AppHarness) throws {
        #expect(try harness.waitFor { _ in !harness.app.isAwaitingAWindow && !harness.statusLine.contains("sorting") })
    }

    @Test func braceKeysAddSortKeysAndTheHeaderRanksThem() throws {
        let harness = try AppHarness(schema: Self.teams, options: CardfileApp.Options(table: "players", autosave: nil))
        try harness.press(.char("l"), .char("["))                            // team ↑ alone
        try Self.settled(harness)
        try harness.press(.char("l"), .char("}"))                            // then age ↓
        try Self.settled(harness)
        #expect(harness.lines[0].contains("team↑1") && harness.lines[0].contains("age↓2"), "\(harness.lines[0])")
        #expect(harness.statusLine.contains("sort: team ↑, age ↓"), "\(harness.statusLine)")
        #expect(Self.names(harness) == (try Self.sqlNames(harness, "team ASC, age DESC, id DESC")))
        try harness.press(.char("l"), .char("{"))                            // then name ↑
        try Self.settled(harness)
        #expect(harness.lines[0].contains("team↑1") && harness.lines[0].contains("age↓2") && harness.lines[0].contains("name↑3"), "\(harness.lines[0])")
        #expect(Self.names(harness) == (try Self.sqlNames(harness, "team ASC, age DESC, name ASC, id ASC")))
        // A key already in the sort keeps its rank and takes the new direction.
        try harness.press(.char("h"), .char("{"))                            // age ↑, still second
        try Self.settled(harness)
        #expect(harness.lines[0].contains("team↑1") && harness.lines[0].contains("age↑2") && harness.lines[0].contains("name↑3"), "\(harness.lines[0])")
        #expect(Self.names(harness) == (try Self.sqlNames(harness, "team ASC, age ASC, name ASC, id ASC")))
        // [ sorts by the focused column alone again.
        try harness.press(.char("]"))
        try Self.settled(harness)
        #expect(harness.lines[0].contains("age↓") && !harness.lines[0].contains("team↑") && !harness.lines[0].contains("age↓1"), "\(harness.lines[0])")
        #expect(harness.statusLine.contains("sort: age ↓") && !harness.statusLine.contains(","), "\(harness.statusLine)")
        #expect(Self.names(harness) == (try Self.sqlNames(harness, "age DESC, id DESC")))
    }

    @Test func aMultiKeyListFollowsAnOutsideChangeAndKeepsTheSelection() throws {
        let harness = try AppHarness(schema: Self.teams, options: CardfileApp.Options(table: "players", autosave: nil))
        try harness.press(.char("l"), .char("["), .char("l"), .char("}"))
        try Self.settled(harness)
        // Cy selected (found by name), then another program moves Cy's team: the list
        // follows, Cy stays selected.
        try harness.press(.char("f"))
        try harness.type("Cy")
        try harness.press(KeyEvent(.enter))
        #expect(harness.app.list?.selection == ObjectID(table: "players", rowid: 3), "Cy is selected")
        try LiveRefreshTests.outside(harness, "UPDATE players SET team = 'blue' WHERE name = 'Cy'")
        // The change is noticed at the next poll and the order no index serves is read again
        // in the background: the list comes to SQL's order (10 s at most).
        let expected = try Self.sqlNames(harness, "team ASC, age DESC, id DESC")
        #expect(expected.firstIndex(of: "Cy")! < expected.firstIndex(of: "Ana")!, "Cy moved to blue")
        #expect(try harness.waitFor { _ in Self.names(harness) == expected }, "\(Self.names(harness)) ≠ \(expected)")
        #expect(harness.app.list?.selection == ObjectID(table: "players", rowid: 3), "still Cy")
    }
}
