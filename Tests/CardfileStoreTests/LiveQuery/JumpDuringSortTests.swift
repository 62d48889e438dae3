@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// A jump to a row made while an order no index serves is still being sorted in the background
/// waits for the sort and then lands on that row of the new order (it used to land on whatever
/// row the old window held). A move made meanwhile drops it.
@Suite("Live query: jumps during a background sort", .timeLimit(.minutes(Fuzz.scaled(10))))
struct JumpDuringSortTests {
    /// Keeps the live query's background jobs waiting until `release()`.
    final class WorkerHold: @unchecked Sendable {
        private let gate = DispatchSemaphore(value: 0)
        init(_ live: LiveQuery) {
            let gate = self.gate
            live.worker.queue.async { gate.wait() }
        }
        func release() { gate.signal() }
    }

    private func selectedID(_ live: LiveQuery) -> Int64? {
        if case .integer(let id)? = live.window.selection?.primaryKeyValues?.first { return id }
        return nil
    }

    @Test func aJumpWaitsForTheSortThenLandsOnThatRow() throws {
        let fixture = try ItemsFixture(rows: 500)
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 10)
        let hold = WorkerHold(live)
        try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort("name")]))
        #expect(!live.walksByKey && live.sorted == nil, "the sort is still to come")
        let firstPage = try fixture.oracle(order: "name, id", offset: 0, limit: 10).ids
        // Within the window: at once.
        try live.jump(toRow: 3)
        #expect(!live.isWaitingToJump)
        #expect(selectedID(live) == firstPage[3])
        // Past it: later, and the window stays as it is meanwhile.
        try live.jump(toRow: 400)
        #expect(live.isWaitingToJump)
        #expect(live.window.firstRow == 0 && selectedID(live) == firstPage[3])
        hold.release()
        try live.waitForBackgroundWork()
        #expect(!live.isWaitingToJump)
        #expect(live.window.selectedPosition == 400)
        #expect(selectedID(live) == (try fixture.oracle(order: "name, id", offset: 400, limit: 1).ids.first))
    }

    @Test func theEndWaitsTooAndAMoveMeanwhileDropsTheJump() throws {
        let fixture = try ItemsFixture(rows: 500)
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 10)
        var hold = WorkerHold(live)
        try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort("name", ascending: false)]))
        try live.jumpToEnd()
        #expect(live.isWaitingToJump)
        hold.release()
        try live.waitForBackgroundWork()
        #expect(selectedID(live) == (try fixture.oracle(order: "name DESC, id DESC", offset: 499, limit: 1).ids.first))
        #expect(live.window.selectedPosition == 499)

        hold = WorkerHold(live)
        try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort("notes")]))
        try live.jump(toRow: 300)
        #expect(live.isWaitingToJump)
        try live.moveSelection(by: 1)
        #expect(!live.isWaitingToJump, "a move made after the jump was asked for wins")
        let line = live.window.selectedLine
        hold.release()
        try live.waitForBackgroundWork()
        #expect(live.window.firstRow < 20 && live.window.selectedLine == line, "no jump happened later")
    }

    /// Seeded rounds: a new order, jumps (some within the window), moves and the sort's arrival
    /// in random order. Oracle: SQL's ORDER BY … OFFSET. After the sort arrives, the selection
    /// is at the last jump's row unless a move came after it.
    @Test func randomJumpsAndMovesAgainstTheOracle() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let fixture = try ItemsFixture(rows: 300)
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 8)
        let orders = [("name", true, "name, id"), ("notes", true, "notes, id"), ("price", false, "price DESC, id DESC")]
        for round in 0..<Fuzz.scaled(40) {
            let (column, ascending, order) = orders[random.next(below: orders.count)]
            let hold = WorkerHold(live)
            try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort(column, ascending: ascending)]))
            var expected: Int?
            for _ in 0..<(1 + random.next(below: 4)) {
                if random.next(below: 3) == 0 {
                    try live.moveSelection(by: 1)
                    expected = nil
                } else {
                    let row = random.next(below: 2) == 0 ? random.next(below: 8) : random.next(below: 320)
                    try live.jump(toRow: row)
                    expected = min(row, 299)
                }
            }
            hold.release()
            try live.waitForBackgroundWork()
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), \(order)"
            if let expected {
                #expect(live.window.selectedPosition == expected, "\(context)")
                #expect(selectedID(live) == (try fixture.oracle(order: order, offset: expected, limit: 1).ids.first), "\(context)")
            }
            #expect(!live.isWaitingToJump, "\(context)")
        }
    }
}
