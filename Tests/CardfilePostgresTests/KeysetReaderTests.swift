@testable import CardfilePostgres
import CardfileStore
import CardfileTestSupport
import Foundation
import PostgresNIO
import Testing

/// Keyset pages against the real server: walking a table page by page, forwards and backwards,
/// gives the whole table in the order a model of it sorts, NULLs and ties included.
@Suite("PostgreSQL keyset pages", .timeLimit(.minutes(5)))
struct KeysetReaderTests {
    @Test func pagesWalkTheWholeOrderBothWays() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        // Few distinct values, many NULLs: ties and NULLs on every page.
        let rows = (1...120).map { id -> (Int, Int?, String?) in
            let a = random.next(below: 4) == 0 ? nil : random.next(below: 5) - 2
            let b = random.next(below: 4) == 0 ? nil : ["x", "y", "é", "Z", ""][random.next(below: 5)]
            return (id, a, b)
        }
        let values = rows.map { "(\($0.0), \($0.1.map(String.init) ?? "NULL"), \($0.2.map { "'\($0)'" } ?? "NULL"))" }.joined(separator: ", ")
        try server.psql(database, "CREATE TABLE items (id int PRIMARY KEY, a int, b text); INSERT INTO items VALUES \(values); ANALYZE items")
        let location = try server.location(database)
        let session = try PostgresSession.open(location)
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)
        let table = try catalog.describe(try #require(try catalog.relation(named: "items")))

        for round in 0..<Fuzz.scaled(12) {
            var sort: [PostgresKeysetReader.SortColumn] = []
            for column in [1, 2].shuffled(using: &random) where random.next(below: 3) > 0 {
                sort.append(.init(column: column, descending: random.next(below: 2) == 0))
            }
            if random.next(below: 4) == 0 { sort.append(.init(column: 0, descending: true)) }
            let filtered = random.next(below: 3) == 0
            let reader = PostgresKeysetReader(session: session, table: table, sort: sort, condition: filtered ? "a IS DISTINCT FROM 0" : nil)
            let context = "seed \(seed) round \(round) sort \(sort.map { "\($0.column)\($0.descending ? "↓" : "↑")" }) filtered \(filtered)"

            // The model's order: each sort column with NULL smallest, then the key.
            let model = rows.filter { !filtered || $0.1 != 0 }.map { row -> [Value] in
                [.integer(Int64(row.0)), row.1.map { .integer(Int64($0)) } ?? .null, row.2.map { .text($0) } ?? .null]
            }.sorted { left, right in
                for sort in reader.order {
                    let order = Value.compare(left[sort.column], right[sort.column])
                    if order != 0 { return sort.descending ? order > 0 : order < 0 }
                }
                return false
            }.map { $0[0] }

            var forwards: [Value] = []
            var page = try reader.first(1 + random.next(below: 7))
            while let last = page.last {
                forwards += page.map { $0.values[0] }
                page = try reader.after(last, 1 + random.next(below: 7))
            }
            #expect(forwards == model, "\(context): forwards")

            var backwards: [Value] = []
            page = try reader.first(1 + random.next(below: 7), fromEnd: true)
            while let first = page.first {
                backwards = page.map { $0.values[0] } + backwards
                page = try reader.before(first, 1 + random.next(below: 7))
            }
            #expect(backwards == model, "\(context): backwards")
            #expect(try reader.exactCount() == model.count, "\(context)")
        }
        let reader = PostgresKeysetReader(session: session, table: table, sort: [])
        #expect(try reader.estimatedCount() == 120)
    }

    /// A page in the key's order is read through the key's index, both ways; a nullable column
    /// keeps NULLs smallest. (The benchmark found every page of the key order sorting the
    /// whole table when the order said NULLS FIRST even for the key.)
    @Test func theKeyOrderUsesTheKeysIndex() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, "CREATE TABLE items (id int PRIMARY KEY, a int); INSERT INTO items SELECT n, n % 7 FROM generate_series(1, 20000) n; ANALYZE items")
        let location = try server.location(database)
        let session = try PostgresSession.open(location)
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)
        let table = try catalog.describe(try #require(try catalog.relation(named: "items")))
        for backwards in [false, true] {
            let reader = PostgresKeysetReader(session: session, table: table, sort: [])
            #expect(reader.orderBy(backwards: backwards) == (backwards ? "\"id\" DESC" : "\"id\" ASC"))
            let plan = try session.rows(PostgresQuery(unsafeSQL: "EXPLAIN SELECT * FROM items ORDER BY \(reader.orderBy(backwards: backwards)) LIMIT 50"))
                .compactMap { try? $0.decode(String.self) }.joined(separator: "\n")
            #expect(plan.contains("Index Scan") && plan.contains("items_pkey") && !plan.contains("Sort"), "\(plan)")
        }
        let nullable = PostgresKeysetReader(session: session, table: table, sort: [.init(column: 1)])
        #expect(nullable.orderBy(backwards: false) == "\"a\" ASC NULLS FIRST, \"id\" ASC")
    }
}
