import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// A column's frequency table against the rows themselves, counted in Swift.
@Suite("Column frequencies", .timeLimit(.minutes(10)))
struct ColumnFrequencyTests {
    @Test func randomColumnsAgainstTheirRows() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(20) {
            let fixture = try PeopleFixture(schema: ColumnStatisticsTests.schema)
            let queue = try DatabaseQueue(path: fixture.path)
            try queue.write { db in
                for _ in 0..<random.next(below: 80) {
                    try db.execute(sql: "INSERT INTO t (v, grp) VALUES (?, ?)", arguments: [ColumnStatisticsTests.value(&random), random.next(below: 3)])
                }
            }
            let group: Int64? = random.next(below: 2) == 0 ? nil : Int64(random.next(below: 3))
            let filter: CardfileStore.Predicate? = group.map { .compare("grp", .equal, .integer($0)) }
            let values: [Value] = try queue.read { db in
                try DatabaseValue.fetchAll(db, sql: "SELECT v FROM t WHERE \(group.map { "grp = \($0)" } ?? "1")").map(Value.init)
            }
            try queue.close()
            let limit = 1 + random.next(below: 8)
            let table = try fixture.container.frequencies(of: "v", table: "t", where: filter, limit: limit)
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), \(values.count) rows, limit \(limit)"
            var counts: [Value: Int] = [:]
            for value in values { counts[value, default: 0] += 1 }

            #expect(table.rows == values.count, "\(context)")
            let distinct = try table.distinct ?? fixture.container.distinctValues(of: "v", table: "t", where: filter)
            #expect(distinct == counts.count, "\(context)")
            #expect((table.distinct == nil) == (counts.count >= limit), "\(context): counted apart only when values are left out")
            #expect(table.values.count == min(limit, counts.count), "\(context)")
            for (value, count) in table.values {
                #expect(counts[value] == count, "\(context): \(value)")
            }
            // Most frequent first, and nothing left out counts more than the last one kept.
            #expect(table.values.map(\.count) == table.values.map(\.count).sorted(by: >), "\(context)")
            let kept = Set(table.values.map(\.value))
            if let last = table.values.last {
                #expect(counts.filter { !kept.contains($0.key) }.allSatisfy { $0.value <= last.count }, "\(context)")
            }
        }
    }

    @Test func valuesGroupAsTheColumnsCollationSays() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT COLLATE NOCASE);
            INSERT INTO t (v) VALUES ('a'), ('A'), ('b'), (NULL), (NULL), (NULL);
            """)
        let table = try fixture.container.frequencies(of: "v", table: "t")
        #expect(table.values.map(\.count) == [3, 2, 1], "\(table.values)")
        #expect(table.values.first?.value == .null)
        #expect(table.rows == 6 && table.distinct == 3)
    }
}
