import Foundation
import Testing
@testable import CardfileStore

/// Live query cases found in review: each failed before its fix.
@Suite("Live query edge cases", .timeLimit(.minutes(10)))
struct LiveQueryEdgeCaseTests {
    @Test func changingTheSpecWithQueuedEventsDoesNotReadInsideARead() throws {
        let fixture = try ItemsFixture(rows: 50)
        let view = fixture.view
        _ = try view.record(for: fixture.item(3))              // a registered object
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 10)
        try sqlite3(fixture.path, "UPDATE items SET notes = 'x' WHERE id = 3;")
        #expect(try fixture.container.checkForExternalChanges())   // queues an event in the view
        try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort("year")]))
        try live.waitForBackgroundWork()
        // The rows of the new order, as SQL has them, with the outside change in.
        let expected = try fixture.oracle(where: "1", order: "year, id", offset: live.window.firstRow, limit: 10)
        #expect(live.window.rowids == expected.ids)
        #expect(try view.record(for: fixture.item(3))?["notes"] == "x")
    }

    @Test func changingTheOrderWhenNoShownRowSurvivesTheFilter() throws {
        let fixture = try ItemsFixture(rows: 200)
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 10)
        try live.moveSelection(by: 3)
        // A two-term order (year, id) after a one-term one, and a filter no shown row matches.
        try live.setSpec(LiveQuerySpec(table: "items", sort: [ColumnSort("year")], filter: "category = films year > 2000"))
        try live.waitForBackgroundWork()
        let expected = try fixture.oracle(where: "category = 'films' AND year > 2000", order: "year, id", offset: live.window.firstRow, limit: 10)
        #expect(live.window.rowids == expected.ids)
    }

    @Test func aSelectedInsertStaysSelectedWhenSaved() throws {
        let fixture = try ItemsFixture(rows: 30)
        let view = fixture.view
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 10)
        var clock = TestClock()
        let inserted = try view.insert(into: "items", values: ["name": "fresh"])
        clock.advance(.seconds(1))
        _ = try live.update(now: clock.now)
        try live.select(inserted)
        #expect(live.window.selection == inserted)
        try view.save()
        clock.advance(.seconds(1))
        _ = try live.update(now: clock.now)
        #expect(live.window.selection == fixture.item(31))
        #expect(live.window.rows.last?.id == fixture.item(31))
        #expect(live.window.rows.last?.status == .unchanged)
    }

    @Test func pendingInsertsPastTheStoredRowsCanAllBeReached() throws {
        let fixture = try ItemsFixture(rows: 3)
        let view = fixture.view
        var inserted: [ObjectID] = []
        for index in 0..<10 { inserted.append(try view.insert(into: "items", values: ["name": .text("new \(index)")])) }
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items"), height: 5)
        #expect(live.window.count == .exact(13))
        for _ in 0..<12 { try live.moveSelection(by: 1) }
        #expect(live.window.selection == inserted[9])
        #expect(live.window.firstRow == 8)
        #expect(live.window.rows.map(\.id) == Array(inserted[5...9]))
        try live.jumpToStart()
        try live.jumpToEnd()
        #expect(live.window.firstRow == 8)
        #expect(live.window.rows.map(\.id) == Array(inserted[5...9]))
        try live.pageUp()
        #expect(live.window.firstRow == 3)
        #expect(live.window.rows.map(\.id) == Array(inserted[0...4]))
        try live.jump(toRow: 1)
        #expect(live.window.rows.map(\.id) == [fixture.item(2), fixture.item(3)] + Array(inserted[0...2]))
    }

    @Test func aCaseInsensitiveSortOnTheKeyStillBreaksTies() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("tags.sqlite")
        try makeDatabase(at: path, """
            CREATE TABLE tags (name TEXT PRIMARY KEY, uses INTEGER);
            INSERT INTO tags VALUES ('apple', 1), ('Apple', 2), ('APPLE', 3), ('banana', 4), ('Banana', 5);
            """)
        let container = try Container(path: path)
        let live = try LiveQuery(context: container.viewContext,
                                 spec: LiveQuerySpec(table: "tags", sort: [ColumnSort("name", collation: .nocase)]), height: 2)
        try live.waitForBackgroundWork()
        func shown() -> [String] { live.window.rows.map { $0.values[0].description } }
        // Case-insensitive groups, ties broken by the key itself (binary): every row is reached.
        #expect(shown() == ["APPLE", "Apple"])
        try live.pageDown()
        #expect(shown() == ["apple", "Banana"])
        try live.pageDown()
        #expect(shown() == ["Banana", "banana"])
        #expect(live.window.firstRow == 3)
        #expect(live.window.count == .exact(5))
    }
}
