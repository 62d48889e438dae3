import Foundation
import GRDB
import Testing
import CardfileTestSupport
@testable import CardfileStore

/// The cursor rules, the same on both paths (an index serves the order, or the keys are
/// sorted in the background): the selected row keeps its screen line; a selection that
/// vanished goes to the row now sorting right after its old key (the one before when none
/// follows), at the same line; the ends of the result clamp the window.
@Suite("Live query cursor", .timeLimit(.minutes(Fuzz.scaled(10))))
struct LiveQueryCursorTests {
    static func settle(_ live: LiveQuery, _ clock: inout TestClock) throws {
        clock.advance(.seconds(1))
        _ = try live.update(now: clock.now)
        try live.waitForBackgroundWork()
        clock.advance(.seconds(1))
        _ = try live.update(now: clock.now)
    }

    @Test(arguments: [true, false])
    func aDeletedRowAboveTheSelectionKeepsItsLine(indexed: Bool) throws {
        let fixture = try ItemsFixture(rows: 300)
        let sort = indexed ? [ColumnSort("year")] : [ColumnSort("name")]
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items", sort: sort), height: 12)
        var clock = TestClock()
        try live.jump(toRow: 100)
        try live.moveSelection(by: 5)
        let selected = try #require(live.window.selection)
        let doomed = live.window.rows[2].id
        let other = fixture.container.newBackgroundContext()
        try other.delete(doomed)
        try other.save()

        // At once (before any re-sort) and once everything settled.
        clock.advance(.seconds(1))
        _ = try live.update(now: clock.now)
        #expect(live.window.selection == selected)
        #expect(live.window.selectedLine == 5)
        #expect(live.window.firstRow == 99)
        try Self.settle(live, &clock)
        #expect(live.window.selection == selected)
        #expect(live.window.selectedLine == 5)
        #expect(live.window.firstRow == 99)
        let order = indexed ? "year, id" : "name, id"
        #expect(live.window.rowids == (try fixture.oracle(order: order, offset: 99, limit: 12)).ids)
    }

    @Test(arguments: [true, false])
    func aVanishedSelectionGoesToTheRowAfterItEvenWhenNoShownRowSurvives(indexed: Bool) throws {
        let fixture = try ItemsFixture(rows: 400)
        let sort = indexed ? [ColumnSort("year")] : [ColumnSort("name")]
        let order = indexed ? "year, id" : "name, id"
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items", sort: sort, filter: "year >= 1990"), height: 1)
        var clock = TestClock()
        try live.jump(toRow: 100)
        let selected = try #require(live.window.rowids.first)
        let next = try #require(try fixture.oracle(where: "year >= 1990", order: order, offset: 101, limit: 1).ids.first)

        // One save: the selected row stops matching, and a matching row that sorts first arrives.
        let other = fixture.container.newBackgroundContext()
        try other.update(fixture.item(selected), values: ["year": 1900])
        try other.insert(into: "items", values: ["name": "  first", "year": 1000, "category": "books"])
        try other.update(fixture.item(7), values: ["year": 2001, "name": "   aaa"])
        try other.save()
        try Self.settle(live, &clock)
        #expect(live.window.rowids == [next])
        #expect(live.window.selection == fixture.item(next))
    }

    @Test(arguments: [true, false])
    func aSelectedInsertStaysSelectedOnceSaved(indexed: Bool) throws {
        let fixture = try ItemsFixture(rows: 200)
        let sort = indexed ? [ColumnSort("year")] : [ColumnSort("name")]
        let live = try fixture.liveQuery(LiveQuerySpec(table: "items", sort: sort), height: 10)
        var clock = TestClock()
        let inserted = try fixture.view.insert(into: "items", values: ["name": "mmm new", "year": 1985])
        try Self.settle(live, &clock)
        try live.select(inserted)
        #expect(live.window.selection == inserted)
        try fixture.view.save()
        try Self.settle(live, &clock)
        let saved = try #require(live.window.selection)
        #expect(!saved.isTemporary)
        #expect(try fixture.view.record(for: saved)?["name"] == "mmm new")
    }

    // MARK: - Randomized, against an SQL oracle

    /// A live query driven by random moves and random changes from every source, checked
    /// after each step against plain SQL on a connection of its own.
    /// One to three sort keys (their directions chosen at random); `indexed` when an index
    /// serves the order.
    @Test(arguments: [
        (["year"], true, ""), (["name"], false, ""), (["name"], false, "year >= 1990"),
        (["year"], true, "category = books"), (["name"], false, "category = music or year < 1960"),
        (["category", "year"], false, ""), (["year", "name"], false, "category = music or year < 1960"),
        (["category", "year", "name"], false, ""), (["category", "name", "year"], false, "year >= 1960"),
    ])
    func randomWalkAgainstTheOracle(columns: [String], indexed: Bool, filter: String) throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let steps = Fuzz.scaled(60)
        let fixture = try ItemsFixture(rows: 240)
        let sort = columns.map { ColumnSort($0, ascending: random.next(below: 3) != 0) }
        let spec = LiveQuerySpec(table: "items", sort: sort, filter: filter)
        let oracle = Oracle(fixture: fixture, sort: sort, filter: filter)
        var height = 1 + random.next(below: 20)
        let live = try fixture.liveQuery(spec, height: height)
        let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), sort \(sort.map { $0.column + ($0.ascending ? "" : " desc") }), filter '\(filter)'"
        #expect(live.walksByKey == indexed, "\(context)")
        var clock = TestClock()
        let other = fixture.container.newBackgroundContext()
        var nextName = 0

        for step in 0..<steps {
            let before = live.window
            let beforeKeys = try oracle.keys()
            let line = before.selectedLine
            var changed = true
            var operation = "move"
            other.reset()       // it reads the store afresh for each change
            switch random.next(below: 14) {
            case 0: try live.moveSelection(by: random.next(below: 7) - 3); changed = false
            case 1: try live.pageDown(); changed = false
            case 2: try live.pageUp(); changed = false
            case 3: try live.jump(toRow: random.next(below: 260)); changed = false
            case 4: random.next(below: 2) == 0 ? try live.jumpToEnd() : try live.jumpToStart(); changed = false
            case 5:
                height = 1 + random.next(below: 20)
                try live.setHeight(height)
                changed = false
                operation = "height \(height)"
                // A new height keeps the selected record selected (and so on screen).
                #expect(live.window.selection == before.selection, "\(context), step \(step): height \(height) kept the selection")
            case 6, 7:
                operation = "delete"
                // Another context deletes a shown row (often the selected one) or any row.
                let id = random.next(below: 2) == 0 ? before.selection : fixture.item(Int64(1 + random.next(below: 300)))
                if let id, try other.record(for: id) != nil {
                    try other.delete(id)
                    try other.save()
                }
            case 8, 9:
                operation = "update"
                // Another context changes a row's sort value and whether it matches.
                let id = random.next(below: 2) == 0 ? before.rows.randomElement(using: &random)?.id : fixture.item(Int64(1 + random.next(below: 300)))
                if let id, try other.record(for: id) != nil {
                    nextName += 1
                    try other.update(id, values: [
                        "name": .text(Self.name(&random, nextName)),
                        "year": random.next(below: 5) == 0 ? .null : .integer(Int64(1940 + random.next(below: 80))),
                        "category": .text(["books", "music", "films", "games"][random.next(below: 4)]),
                    ])
                    try other.save()
                }
            case 10:
                operation = "insert"
                nextName += 1
                try other.insert(into: "items", values: [
                    "name": .text(Self.name(&random, nextName)), "year": .integer(Int64(1940 + random.next(below: 80))),
                    "category": .text(["books", "music"][random.next(below: 2)]),
                ])
                try other.save()
            case 11:
                operation = "batch update"
                // A batch over a random slice of rows.
                let low = Int64(1 + random.next(below: 300))
                try fixture.container.batchUpdate(
                    table: "items", set: ["year": .integer(Int64(1940 + random.next(below: 80)))],
                    where: .sql("id BETWEEN \(low) AND \(low + Int64(random.next(below: 12)))", arguments: []))
            case 12:
                operation = "batch delete"
                let low = Int64(1 + random.next(below: 300))
                try fixture.container.batchDelete(from: "items", where: .sql("id BETWEEN \(low) AND \(low + Int64(random.next(below: 4)))", arguments: []))
            default:
                operation = "sqlite3"
                // Another process, noticed by the poll.
                let id = before.selection?.primaryKeyValues?.first ?? .integer(1)
                nextName += 1
                try sqlite3(fixture.path, """
                    UPDATE items SET year = \(random.next(below: 2) == 0 ? "NULL" : String(1940 + random.next(below: 80))) WHERE id = \(id);
                    DELETE FROM items WHERE id = \(1 + random.next(below: 300));
                    INSERT INTO items (name, year, category) VALUES ('\(Self.name(&random, nextName))', \(1940 + random.next(below: 80)), 'books');
                    """)
                _ = try fixture.container.checkForExternalChanges()
            }
            try Self.settle(live, &clock)

            let where_ = "\(context), step \(step) (\(operation)) from line \(line.map(String.init) ?? "-") at \(before.firstRow) of \(before.count.known)"
            let window = live.window
            let count = try oracle.count()
            #expect(window.count == .exact(count), "\(where_): count")
            let expected = try oracle.ids(offset: window.firstRow, limit: height)
            #expect(window.rowids == expected, "\(where_): rows at \(window.firstRow)")
            if count > 0 {
                #expect(window.selectedLine != nil, "\(where_): a cursor")
            }
            guard changed, let oldSelection = before.selection, let line, count > 0 else { continue }
            // The cursor rules after a data change.
            let oldID = oldSelection.primaryKeyValues![0]
            let newKeys = try oracle.keys()
            let target: Value
            if newKeys.contains(where: { $0.id == oldID }) {
                target = oldID
            } else {
                let oldKey = try #require(beforeKeys.first { $0.id == oldID })
                target = (newKeys.first { oracle.sortsAfter($0, oldKey) } ?? newKeys.last { !oracle.sortsAfter($0, oldKey) })!.id
            }
            let position = newKeys.firstIndex { $0.id == target }!
            let first = max(0, min(position - line, count - height))
            #expect(window.selection?.primaryKeyValues?.first == target, "\(where_): selection")
            #expect(window.firstRow == first, "\(where_): selection's line \(line) kept")
        }
        #expect(try fixture.disk("PRAGMA integrity_check") == "ok")
    }

    static func name(_ random: inout SeededRandom, _ number: Int) -> String {
        let words = ["amber", "Birch", "cedar", "delta", "Ember", "fjord", "grove", "haven", "  lead"]
        return "\(words[random.next(below: words.count)]) \(number % 7)"
    }

    /// The same question in plain SQL, and the sort rule written out.
    struct Oracle {
        let fixture: ItemsFixture
        let sort: [ColumnSort]
        let filter: String

        /// A row's values for the sort's columns, and its id.
        struct Key { let values: [Value]; let id: Value }

        var condition: String {
            switch filter {
            case "": return "1"
            case "category = books": return "category = 'books'"
            case "category = music or year < 1960": return "category = 'music' OR year < 1960"
            default: return filter
            }
        }

        /// The sort's columns, then the id in the direction of the last.
        var order: String {
            (sort.map { "\($0.column) \($0.ascending ? "ASC" : "DESC")" } + ["id \(sort.last?.ascending == false ? "DESC" : "ASC")"]).joined(separator: ", ")
        }

        func keys() throws -> [Key] {
            try read { db in
                try Row.fetchAll(db, sql: "SELECT \(sort.map(\.column).joined(separator: ", ")), id FROM items WHERE \(condition) ORDER BY \(order)").map { row in
                    Key(values: (0..<sort.count).map { Value(row[$0] as DatabaseValue) }, id: Value(row[sort.count] as DatabaseValue))
                }
            }
        }

        func count() throws -> Int { try read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items WHERE \(condition)") ?? 0 } }

        func ids(offset: Int, limit: Int) throws -> [Int64] {
            try read { try Int64.fetchAll($0, sql: "SELECT id FROM items WHERE \(condition) ORDER BY \(order) LIMIT ? OFFSET ?", arguments: [limit, offset]) }
        }

        /// True when `key` comes after `other` in the list's order (SQLite's: key by key, each
        /// in its direction, NULLs first ascending; ties broken by id in the direction of the
        /// last key).
        func sortsAfter(_ key: Key, _ other: Key) -> Bool {
            for (index, term) in sort.enumerated() {
                let order = Value.compare(key.values[index], other.values[index], collation: .binary)
                if order != 0 { return term.ascending ? order > 0 : order < 0 }
            }
            let order = Value.compare(key.id, other.id, collation: .binary)
            return sort.last?.ascending == false ? order < 0 : order > 0
        }

        private func read<T>(_ body: (Database) throws -> T) throws -> T {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: fixture.path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read(body)
        }
    }
}
