@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// `:index` as a person meets it: the status bar names the column a large list sorts or
/// filters by without an index, `:index` asks and makes one off the loop, and the hint goes.
@Suite("Index hint", .timeLimit(.minutes(10)))
struct IndexAppTests {
    static let schema = """
        CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, year INTEGER);
        CREATE INDEX items_by_year ON items (year);
        WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 60000)
        INSERT INTO items SELECT i, 'item ' || (i * 7 % 1000), 1900 + i % 120 FROM c;
        """

    @Test func aSortWithoutAnIndexIsHintedAndIndexAsksMakesItAndTheHintGoes() throws {
        let harness = try AppHarness(schema: Self.schema, size: Size(width: 120, height: 20), options: CardfileApp.Options(table: "items", autosave: nil))
        #expect(!harness.statusLine.contains(":index"), "sorted by the key: nothing to say")
        try harness.press(.char("l"), .char("]"))                                   // by name, descending
        #expect(try harness.waitFor { _ in harness.statusLine.contains("no index on name: :index") }, "\(harness.statusLine)")
        try harness.command("index")
        let asked = try #require(BulkEditAppTests.question(harness), "\(harness.screen)")
        #expect(asked.hasPrefix("Make an index on items(name)? Sorting by name will read rows in order"), "\(asked)")
        try harness.press(.char("n"))
        #expect(try harness.diskText("SELECT group_concat(name) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items'") == "items_by_year", "no means none is made")
        try harness.command("index")
        try harness.press(.char("y"))
        #expect(try harness.waitFor { _ in harness.messageLine.contains("Made the index items_name on items(name)") }, "\(harness.messageLine)")
        #expect(!harness.statusLine.contains(":index"), "\(harness.statusLine)")
        #expect(try harness.diskText("SELECT sql FROM sqlite_master WHERE name = 'items_name'") == "CREATE INDEX \"items_name\" ON \"items\" (\"name\")")
        // A column with an index already: said, nothing asked.
        try harness.press(.char("l"))
        try harness.command("index")
        #expect(BulkEditAppTests.question(harness) == nil)
        #expect(harness.messageLine.contains("year already has an index: items_by_year"), "\(harness.messageLine)")
    }

    @Test func aFilterWithoutAnIndexIsHintedAndAReadOnlyFileMakesNone() throws {
        let harness = try AppHarness(schema: Self.schema, size: Size(width: 120, height: 20), options: CardfileApp.Options(table: "items", autosave: nil), readOnly: true)
        try harness.press(.char("/"))
        try harness.type("name = 'item 7'")
        try harness.press(KeyEvent(.enter))
        #expect(try harness.waitFor { _ in harness.statusLine.contains("no index on name: :index") }, "\(harness.statusLine)")
        try harness.command("index")
        #expect(BulkEditAppTests.question(harness) == nil)
        #expect(harness.messageLine.contains("Read-only"), "\(harness.messageLine)")
    }
}
