import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// A column's statistics against what the rows themselves say, read plainly and counted in
/// Swift (and SQLite's own comparisons where its ordering is the rule).
@Suite("Column statistics", .timeLimit(.minutes(10)))
struct ColumnStatisticsTests {
    static let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, v, grp INTEGER);"

    /// A random value of any storage class (reals never equal an integer, so equality is the
    /// same in SQLite and in Swift).
    static func value(_ random: inout SeededRandom) -> DatabaseValue {
        let texts = ["", "a", "b", "ab", "Zoë", "é", "漢字", "🐈", "  ", "zz"]
        switch random.next(below: 6) {
        case 0: return .null
        case 1: return Int64(random.next(below: 7) - 3).databaseValue
        case 2: return (Double(random.next(below: 9)) + 0.5).databaseValue
        case 3: return Data([UInt8(random.next(below: 3))]).databaseValue
        default: return texts[random.next(below: texts.count)].databaseValue
        }
    }

    @Test func randomColumnsAgainstTheirRows() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(20) {
            let fixture = try PeopleFixture(schema: Self.schema)
            let queue = try DatabaseQueue(path: fixture.path)
            try queue.write { db in
                for _ in 0..<random.next(below: 60) {
                    try db.execute(sql: "INSERT INTO t (v, grp) VALUES (?, ?)", arguments: [Self.value(&random), random.next(below: 3)])
                }
            }
            // All rows, or one group's.
            let group: Int64? = random.next(below: 2) == 0 ? nil : Int64(random.next(below: 3))
            let filter: CardfileStore.Predicate? = group.map { .compare("grp", .equal, .integer($0)) }
            let values: [Value] = try queue.read { db in
                try DatabaseValue.fetchAll(db, sql: "SELECT v FROM t WHERE \(group.map { "grp = \($0)" } ?? "1") ORDER BY id").map(Value.init)
            }
            let statistics = try fixture.container.statistics(of: "v", table: "t", where: filter)
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), \(values.count) rows, filter \(String(describing: filter))"

            #expect(statistics.rows == values.count, "\(context)")
            #expect(statistics.nulls == values.filter(\.isNull).count, "\(context)")
            #expect(statistics.emptyTexts == values.filter { $0 == .text("") }.count, "\(context)")
            #expect(statistics.distinct == Set(values.filter { !$0.isNull }).count, "\(context)")
            // SQLite's order: numbers, then text, then blobs (NULLs left out).
            let ordered = values.filter { !$0.isNull }.sorted { Value.compare($0, $1, collation: .binary) < 0 }
            #expect(statistics.minimum == (ordered.first ?? .null), "\(context): minimum")
            #expect(statistics.maximum == (ordered.last ?? .null), "\(context): maximum")
            let numbers = values.compactMap { value -> Double? in
                switch value { case .integer(let n): Double(n); case .real(let r): r; default: nil }
            }
            #expect(statistics.numbers == numbers.count, "\(context)")
            if numbers.isEmpty {
                #expect(statistics.mean == nil, "\(context)")
            } else {
                #expect(abs((statistics.mean ?? .nan) - numbers.reduce(0, +) / Double(numbers.count)) < 1e-9, "\(context): mean")
            }
            // Text length as SQLite counts it (characters are code points), ties by bytes.
            let texts = values.compactMap { if case .text(let t) = $0 { t } else { nil } }
            /// SQLite's `ORDER BY length(v), v` for text: characters, then bytes.
            func before(_ a: String, _ b: String) -> Bool {
                let (x, y) = (a.unicodeScalars.count, b.unicodeScalars.count)
                return x != y ? x < y : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            }
            #expect(statistics.shortestText == texts.sorted(by: before).first, "\(context): shortest")
            // `ORDER BY length(v) DESC, v`: the most characters, then the first by bytes.
            let longest = texts.sorted { a, b in
                a.unicodeScalars.count != b.unicodeScalars.count ? a.unicodeScalars.count > b.unicodeScalars.count : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            }.first
            #expect(statistics.longestText == longest, "\(context): longest")
            // Most common: by count, then by value in SQLite's order; NULL counts as a value.
            var counts: [Value: Int] = [:]
            for value in values { counts[value, default: 0] += 1 }
            let common = counts.sorted { $0.value != $1.value ? $0.value > $1.value : Value.compare($0.key, $1.key, collation: .binary) < 0 }.prefix(5)
            #expect(statistics.mostCommon.map(\.value) == common.map(\.key), "\(context): most common")
            #expect(statistics.mostCommon.map(\.count) == common.map(\.value), "\(context): their counts")
        }
    }
}
