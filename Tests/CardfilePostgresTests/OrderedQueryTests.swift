@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import PostgresNIO
import Testing

/// The store's own live-query SQL, built for PostgreSQL's dialect and run through
/// ``PostgresEngineSession`` on the real server: pages walked both ways, counts between keys,
/// rows by key, the background passes (positions, sorted keys) and the filter on pending
/// values all agree with a model of the table.
@Suite("PostgreSQL: the live query's statements", .timeLimit(.minutes(5)))
struct OrderedQueryTests {
    typealias Item = (id: Int, a: Int?, b: String?, c: String?, d: String, e: String?)
    typealias Filter = (predicate: CardfileStore.Predicate?, keeps: (Item) -> Bool)

    @Test func theLiveQuerysStatementsAgreeWithAModel() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        // Few distinct values, many NULLs: ties and NULLs on every page. c is numeric (read
        // exactly), d a date and e an enum (read as text; an enum sorts in its own order).
        let moods = ["sad", "ok", "happy"]
        let items: [Item] = (1...150).map { id in
            let a = random.next(below: 4) == 0 ? nil : random.next(below: 5) - 2
            let b = random.next(below: 4) == 0 ? nil : ["x", "y", "xy", "Z", "", "it's"][random.next(below: 6)]
            let c = random.next(below: 4) == 0 ? nil : ["-1.50", "0.00", "2.25", "10.00", "0.10"][random.next(below: 5)]
            let d = "2026-0\(1 + random.next(below: 9))-1\(random.next(below: 10))"
            let e = random.next(below: 4) == 0 ? nil : moods[random.next(below: 3)]
            return (id, a, b, c, d, e)
        }
        func literal(_ text: String?) -> String { text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL" }
        let values = items.map { "(\($0.id), \($0.a.map(String.init) ?? "NULL"), \(literal($0.b)), \($0.c ?? "NULL"), '\($0.d)', \(literal($0.e)))" }
        let name = #""odd ""items""""#
        try server.psql(database, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy'); CREATE TABLE \(name) (id int PRIMARY KEY, a int, b text, c numeric(8,2), d date NOT NULL, e mood);"
            + "INSERT INTO \(name) VALUES \(values.joined(separator: ", ")); ANALYZE \(name)")
        let session = try PostgresSession.open(try server.location(database))
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)
        let table = try catalog.describe(try #require(try catalog.relation(named: "odd \"items\""))).tableSchema
        #expect(table.selectList == #""id", "id", "a", "b", "c", "d"::text AS "__cf_text_d", "e"::text AS "__cf_text_e""#)
        let entity = try Entity(table: table, description: nil)
        let engine = PostgresEngineSession(session)

        func row(_ item: Item) -> [Value] {
            [.integer(Int64(item.id)), item.a.map { .integer(Int64($0)) } ?? .null, item.b.map { .text($0) } ?? .null,
             item.c.map { .decimal($0) } ?? .null, .text(item.d), item.e.map { .text($0) } ?? .null]
        }
        var filters: [Filter] = [(nil, { _ in true })]
        filters.append((.compare("a", .greater, .integer(0)), { ($0.a ?? -99) > 0 }))
        filters.append((.compare("c", .lessOrEqual, .decimal("2.25")), { item in item.c.map { Double($0)! <= 2.25 } ?? false }))
        filters.append((.or([.isNull("b"), .contains(["b"], "X")]), { item in item.b.map { $0.lowercased().contains("x") } ?? true }))
        filters.append((.compare("d", .greaterOrEqual, .text("2026-05-01")), { $0.d >= "2026-05-01" }))
        filters.append((.not(.isEmpty("b")), { item in !(item.b ?? "").isEmpty }))
        filters.append((.compare("e", .greater, .text("sad")), { item in item.e.map { $0 != "sad" } ?? false }))
        for round in 0..<Fuzz.scaled(16) {
            var sort: [ColumnSort] = []
            for column in ["a", "b", "c", "d", "e"].shuffled(using: &random) where random.next(below: 3) == 0 {
                sort.append(ColumnSort(column, ascending: random.next(below: 2) == 0))
            }
            let (filter, keep) = filters[random.next(below: filters.count)]
            let query = try OrderedQuery(entity: entity, sort: sort, filter: filter)
            let context = "seed \(seed) round \(round) sort \(sort.map { "\($0.column)\($0.ascending ? "↑" : "↓")" }) filter \(String(describing: filter))"

            // The model: each sort column with NULL smallest, then the key in the last sort's
            // direction.
            let model = items.filter(keep).map(row).sorted { left, right in
                for term in sort {
                    let index = table.columnIndex(named: term.column)!
                    // (The enum by its declared order, not its label.)
                    func rank(_ value: Value) -> Value {
                        guard case .text(let label) = value else { return .null }
                        return .integer(Int64(moods.firstIndex(of: label)!))
                    }
                    let order = term.column == "e" ? Value.compare(rank(left[index]), rank(right[index])) : Value.compare(left[index], right[index])
                    if order != 0 { return term.ascending ? order < 0 : order > 0 }
                }
                let ascending = sort.last?.ascending ?? true
                return ascending ? Value.compare(left[0], right[0]) < 0 : Value.compare(left[0], right[0]) > 0
            }
            let ids = model.map { $0[0] }

            var forwards: [[Value]] = []
            var page = try engine.rows(query.page(from: nil, inclusive: true, limit: 1 + random.next(below: 9)).sql,
                                       query.page(from: nil, inclusive: true, limit: 1 + random.next(below: 9)).arguments)
            while let last = page.last {
                forwards += page
                let next = query.page(from: query.key(of: last), limit: 1 + random.next(below: 9))
                page = try engine.rows(next.sql, next.arguments)
            }
            #expect(forwards.map { $0[0] } == ids, "\(context): forwards")
            #expect(forwards.map { Array($0[1...]) } == model, "\(context): values as read")

            var backwards: [[Value]] = []
            var previous = try engine.rows(query.page(from: nil, backward: true, limit: 5).sql, query.page(from: nil, backward: true, limit: 5).arguments)
            while let first = previous.last {
                backwards = previous.reversed() + backwards
                let next = query.page(from: query.key(of: first), backward: true, limit: 1 + random.next(below: 9))
                previous = try engine.rows(next.sql, next.arguments)
            }
            #expect(backwards.map { $0[0] } == ids, "\(context): backwards")

            let count = query.count()
            #expect(try engine.integer(count.sql, count.arguments) == ids.count, "\(context): count")
            if !forwards.isEmpty {
                let at = random.next(below: forwards.count)
                let between = query.countBetween(from: nil, before: query.key(of: forwards[at]), limit: 1_000)
                #expect(try engine.integer(between.sql, between.arguments) == at, "\(context): rows before \(at)")
                let asked = forwards.shuffled(using: &random).prefix(3).map { query.objectID(of: $0) }
                    + [ObjectID(table: table.name, primaryKey: [.integer(999)])]
                let found = try engine.rows(query.rows(ids: asked).sql, query.rows(ids: asked).arguments).map(query.objectID)
                #expect(Set(found) == Set(asked.dropLast()), "\(context): rows by key")
            }

            let positions = try PositionIndex.build(query, db: engine, cancellation: Cancellation()) { _ in }
            #expect(positions.count == ids.count, "\(context): positions")
            let sorted = try SortedKeys.build(query, db: engine, cancellation: Cancellation()) { _ in }
            #expect(sorted.ids(in: 0..<ids.count) == ids.map { ObjectID(table: table.name, primaryKey: [$0]) }, "\(context): sorted keys")

            // A pending insert is in the list when the same SQL says it matches the filter.
            let pendingB: [String?] = ["x", nil, "Z"]
            let pendingC: [String?] = ["2.25", nil]
            let pendingItem: Item = (1_000, random.next(below: 5) - 2, pendingB[random.next(below: 3)], pendingC[random.next(below: 2)], "2026-06-15", moods[random.next(below: 3)])
            let pendingID = ObjectID(table: table.name, key: .temporary(1))
            let overlay = try PendingOverlay.load(pending: [pendingID: PendingRow(columns: row(pendingItem), isDeleted: false)], query: query, db: engine)
            #expect(overlay.inserted.map(\.id) == (keep(pendingItem) ? [pendingID] : []), "\(context): pending insert")
        }
    }

    /// Scans read through a cursor in batches, in a transaction of their own, and stop when
    /// cancelled; the key order is served by the key's index, a sort by a plain column is not.
    @Test func scansAndPlans() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, "CREATE TABLE items (id int PRIMARY KEY, a int); INSERT INTO items SELECT n, n % 7 FROM generate_series(1, 20000) n; ANALYZE items")
        let session = try PostgresSession.open(try server.location(database))
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)
        let entity = try Entity(table: try catalog.describe(try #require(try catalog.relation(named: "items"))).tableSchema, description: nil)
        var engine = PostgresEngineSession(session)
        engine.scanBatch = 777
        var seen: [Int64] = []
        try engine.forEachRow("SELECT id FROM items WHERE id > ? ORDER BY id", [.integer(100)], cancellation: nil) { row in
            if case .integer(let id) = row[0] { seen.append(id) }
        }
        #expect(seen == Array(101...20000).map(Int64.init))
        let cancellation = Cancellation()
        var read = 0
        #expect(throws: Cancellation.Stopped.self) {
            try engine.forEachRow("SELECT id FROM items", [], cancellation: cancellation) { _ in
                read += 1
                if read == 1_000 { cancellation.cancel() }
            }
        }
        #expect(read == 1_554)   // the batch in hand is finished, no other is fetched
        // Nothing was left open: no transaction (a scan inside one would not commit it) and
        // the next scans run whole, one inside another's body too.
        var outer = 0
        var inner = 0
        try engine.forEachRow("SELECT id FROM items WHERE id <= 3", [], cancellation: nil) { _ in
            outer += 1
            try engine.forEachRow("SELECT id FROM items", [], cancellation: nil) { _ in inner += 1 }
        }
        #expect(outer == 3 && inner == 60_000)
        // (A savepoint is refused outside a transaction block.)
        #expect(throws: PostgresProblem.self) { try session.run("SAVEPOINT probe") }
        try session.run("BEGIN")
        try session.run("SAVEPOINT probe")
        try session.run("ROLLBACK")

        // A key of a type read as text (a date) walks, and is asked for, like any other.
        try server.psql(database, "CREATE TABLE days (d date PRIMARY KEY, n int); INSERT INTO days SELECT date '2026-01-01' + n, n FROM generate_series(0, 99) n")
        let days = try Entity(table: try catalog.describe(try #require(try catalog.relation(named: "days"))).tableSchema, description: nil)
        let byDay = try OrderedQuery(entity: days, sort: [ColumnSort("n", ascending: false)], filter: nil)
        var walked: [Value] = []
        var page = try engine.rows(byDay.page(from: nil, inclusive: true, limit: 7).sql, byDay.page(from: nil, inclusive: true, limit: 7).arguments)
        while let last = page.last {
            walked += page.map { $0[0] }
            page = try engine.rows(byDay.page(from: byDay.key(of: last), limit: 7).sql, byDay.page(from: byDay.key(of: last), limit: 7).arguments)
        }
        #expect(walked.count == 100 && walked.first == .text("2026-04-10") && walked.last == .text("2026-01-01"))
        let dayKeys = try SortedKeys.build(byDay, db: engine, cancellation: Cancellation()) { _ in }
        #expect(dayKeys.ids(in: 0..<2).map(\.primaryKeyValues) == [[.text("2026-04-10")], [.text("2026-04-09")]])

        #expect(try OrderedQuery(entity: entity, sort: [], filter: nil).isServedByIndex(engine))
        #expect(try OrderedQuery(entity: entity, sort: [ColumnSort("id", ascending: false)], filter: nil).isServedByIndex(engine))
        #expect(try !OrderedQuery(entity: entity, sort: [ColumnSort("a")], filter: nil).isServedByIndex(engine))

        // Records of a key of two columns, asked for by key (row constructors, typed by the
        // columns they meet: a number and a uuid).
        try server.psql(database, "CREATE TABLE pairs (n int, u uuid, PRIMARY KEY (n, u)); INSERT INTO pairs SELECT n % 3, md5(n::text)::uuid FROM generate_series(1, 30) n")
        let pairs = try Entity(table: try catalog.describe(try #require(try catalog.relation(named: "pairs"))).tableSchema, description: nil)
        let pairsQuery = try OrderedQuery(entity: pairs, sort: [], filter: nil)
        let all = try engine.rows(pairsQuery.page(from: nil, inclusive: true, limit: 100).sql, pairsQuery.page(from: nil, inclusive: true, limit: 100).arguments)
        #expect(all.count == 30)
        let asked = [all[3], all[17], all[29]].map(pairsQuery.objectID)
        let found = try engine.rows(pairsQuery.rows(ids: asked).sql, pairsQuery.rows(ids: asked).arguments).map(pairsQuery.objectID)
        #expect(Set(found) == Set(asked) && found.count == 3)
        #expect(asked.allSatisfy { id in id.primaryKeyValues?.last.map { if case .text(let text) = $0 { text.count == 36 } else { false } } ?? false })
    }

    /// `numeric` read in its binary form is the very text PostgreSQL prints for it; seeded
    /// random numbers of every size and scale, with the server's own text as the oracle.
    @Test func numericsReadAsTheServerPrintsThem() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        let session = try PostgresSession.open(try server.location(database))
        defer { session.close() }
        let engine = PostgresEngineSession(session)
        var literals = ["0", "-0.000", "10000", "10000.0001", "0.00001", "-123456789012345678901234567890.5", "1e-20", "1e20",
                        "'NaN'", "'Infinity'", "'-Infinity'", "9999.9999", "-0.5"]
        for _ in 0..<Fuzz.scaled(200) {
            let digits = (0..<(1 + random.next(below: 30))).map { _ in String(random.next(below: 10)) }.joined()
            let point = random.next(below: digits.count + 1)
            let text = (random.next(below: 2) == 0 ? "-" : "") + String(digits.prefix(point)) + "." + String(digits.dropFirst(point)) + "0"
            literals.append(text.hasPrefix(".") || text.hasPrefix("-.") ? text.replacingOccurrences(of: ".", with: "0.") : text)
        }
        for literal in literals {
            let rows = try engine.rows("SELECT (\(literal))::numeric, (\(literal))::numeric::text", [])
            guard case .text(let printed) = rows[0][1] else { Issue.record("seed \(seed): \(literal) not printed"); continue }
            #expect(rows[0][0] == .decimal(printed), "seed \(seed): \(literal)")
        }
    }

    /// Placeholders are numbered outside quotes and comments only.
    @Test func placeholdersAreNumberedOutsideQuotes() {
        let (sql, count) = PostgresEngineSession.numbered("SELECT '?', \"a?\" FROM t -- why?\nWHERE a = ? /* ? */ AND b IN (?, ?)")
        #expect(sql == "SELECT '?', \"a?\" FROM t -- why?\nWHERE a = $1 /* ? */ AND b IN ($2, $3)")
        #expect(count == 3)
        let cases: [(String, String)] = [
            ("'it''s ?' = ?", "'it''s ?' = $1"),
            ("\"a\"\"?\" = ?", "\"a\"\"?\" = $1"),
            ("/* x */* ?", "/* x */* $1"),
            ("/*/ ? */ ?", "/*/ ? */ $1"),
            ("E'\\' ?' = ?", "E'\\' ?' = $1"),
            ("TYPE'\\' = ?", "TYPE'\\' = $1"),
            ("a::text = ? -- ?\r\n?", "a::text = $1 -- ?\r\n$2"),
        ]
        for (given, wanted) in cases {
            #expect(PostgresEngineSession.numbered(given).sql == wanted, "\(given)")
        }
    }
}
