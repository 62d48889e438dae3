@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// `:N` and End typed while the list's new order is still being sorted in the background wait
/// for the sort, say so, and then land on that row of the new order.
@Suite("Jumps during a background sort", .timeLimit(.minutes(10)))
struct JumpDuringSortAppTests {
    static let schema = """
        CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT NOT NULL, phone TEXT UNIQUE, age INTEGER, notes TEXT);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
        INSERT INTO cards (name, age) SELECT printf('name %03d', (i * 7919) % 300), i FROM n;
        """

    @Test func aRowNumberWaitsForTheSortAndSaysSo() throws {
        let harness = try AppHarness(schema: Self.schema)
        let list = try #require(harness.app.list)
        let gate = DispatchSemaphore(value: 0)
        list.live.worker.queue.async { gate.wait() }
        try harness.press(.char("l"), .char("["))                       // sort by name: no index serves it
        try harness.command("150")
        #expect(harness.messageLine.contains("Going to row 150 once the sort is done."), "\(harness.messageLine)")
        #expect(!harness.statusLine.contains("row 150 of"))
        gate.signal()
        #expect(try harness.waitFor { _ in harness.statusLine.contains("row 150 of 300") })
        #expect(!harness.messageLine.contains("Going to row"), "the notice goes once the jump is made: \(harness.messageLine)")
        // Row 150 of the order by name is name 149.
        #expect(harness.screen.split(separator: "\n").contains { $0.contains("name 149") })
        #expect(try harness.diskText("SELECT name FROM cards ORDER BY name, id LIMIT 1 OFFSET 149") == "name 149")

        list.live.worker.queue.async { gate.wait() }
        try harness.press(.char("]"))
        try harness.press(KeyEvent(.end))
        #expect(harness.messageLine.contains("Going to the last row once the sort is done."))
        gate.signal()
        #expect(try harness.waitFor { _ in harness.statusLine.contains("row 300 of 300") })
        #expect(harness.screen.contains("name 000"))
    }
}
