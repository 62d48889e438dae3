@testable import CardfileStore
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// A new order no index serves, with its first page read in the background (the UI loop's
/// way): the call returns at once with the old window kept, and the page that arrives is the
/// one SQLite gives, keeping the selection when it is on it.
@Suite("Live query: first window in the background", .timeLimit(.minutes(Fuzz.scaled(10))))
struct BackgroundFirstWindowTests {
    static func ids(_ window: LiveWindow) -> [Int64] {
        window.rows.compactMap { if case .integer(let id)? = $0.id.primaryKeyValues?.first { id } else { nil } }
    }

    @Test func theCallReturnsAtOnceAndThePageArrivesFromTheBackground() throws {
        let fixture = try ItemsFixture(rows: 500)
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 10)
        live.firstWindowInBackground = true
        let before = live.window
        try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort("name")]))
        #expect(live.isAwaitingFirstWindow)
        #expect(Self.ids(live.window) == Self.ids(before), "the old window stays meanwhile")
        try live.waitForBackgroundWork()
        #expect(!live.isAwaitingFirstWindow)
        let oracle = try fixture.oracle(order: "name, id", offset: 0, limit: 10)
        #expect(Self.ids(live.window) == oracle.ids)
        if oracle.ids.contains(1) {
            #expect(live.window.selection == fixture.item(1), "the selected row stays selected on the new first page")
        } else {
            #expect(live.window.selectedLine == 0, "the selected row is not on the first page: the first line")
        }
    }

    @Test func randomOrdersMovesAndChangesAgainstTheOracle() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let fixture = try ItemsFixture(rows: 300)
        let height = 8
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: height)
        live.firstWindowInBackground = true
        let other = fixture.container.newBackgroundContext()
        let sorts = [("name", "name"), ("notes", "notes"), ("price", "price"), ("name", "name DESC")]
        var order = "id"
        // True after another writer changed names, until the background re-sort is taken:
        // meanwhile the window may keep the old order (values change at once, order later).
        var orderMayLag = false
        for step in 0..<Fuzz.scaled(80) {
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), step \(step), order \(order)"
            switch random.next(below: 7) {
            case 0, 1:
                let (column, sql) = sorts[random.next(below: sorts.count)]
                let descending = sql.hasSuffix("DESC")
                try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort(column, ascending: !descending)]))
                order = descending ? "\(column) DESC, id DESC" : "\(column), id"
            case 2:
                try live.moveSelection(by: random.next(below: 9) - 4)       // often while the page is awaited
            case 3:
                random.next(below: 2) == 0 ? try live.pageDown() : try live.setHeight(height + random.next(below: 3) - 1)
            case 4:
                other.reset()
                let id = fixture.item(Int64(1 + random.next(below: 300)))
                if try other.record(for: id) != nil {
                    try other.update(id, values: ["name": .text("n\(random.next(below: 1000))")])
                    try other.save()
                    orderMayLag = true
                }
                _ = try live.update(now: .now, immediately: true)
            default:
                // The page arrives: the row selected now stays selected when it is on it.
                let selected = live.window.selection
                let awaited = live.isAwaitingFirstWindow
                try live.waitForBackgroundWork()
                _ = try live.update(now: .now, immediately: true)
                orderMayLag = false
                if awaited, let selected, live.window.firstRow == 0,
                   try fixture.oracle(order: order, offset: 0, limit: live.window.rows.count).ids.contains(where: { fixture.item($0) == selected }) {
                    #expect(live.window.selection == selected, "\(context): the selection made while the page was awaited stays")
                }
            }
            if !live.isAwaitingFirstWindow, !orderMayLag, !live.walksByKey, !live.window.rows.isEmpty {
                // Never the old order under the new sort: the rows are SQLite's at this position.
                let expected = try fixture.oracle(order: order, offset: live.window.firstRow, limit: live.window.rows.count).ids
                #expect(Self.ids(live.window) == expected, "\(context): rows at \(live.window.firstRow)")
            }
        }
    }
}
