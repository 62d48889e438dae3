import CardfileTestSupport
import Foundation
import Testing
@testable import CardfilePostgres
@testable import CardfileStore

/// The SQL screen's statements on a PostgreSQL server: what kind each is and why one is not
/// run, a result described by the server and read as a live list against `psql`'s answer,
/// writes counted by a rehearsal that leaves nothing behind, then run through the store, and
/// a cancel that stops the server's work.
@Suite("SQL statements and results on PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresSQLScreenTests {
    static let schema = """
        CREATE TABLE kinds (id int PRIMARY KEY, label text NOT NULL);
        CREATE TABLE items (id int PRIMARY KEY, kind int REFERENCES kinds(id), name text, price numeric(6,2), made date, fresh boolean, doc jsonb);
        INSERT INTO kinds VALUES (1, 'tools'), (2, 'toys');
        INSERT INTO items SELECT i, 1 + i % 2, 'item ' || i, i * 1.25, DATE '2026-01-01' + i, i % 3 = 0, jsonb_build_object('n', i)
          FROM generate_series(1, 30) AS i;
        """

    static func kind(_ place: DatabasePlace, _ sql: String) -> Result<SQLStatement.Kind, StoreError> {
        Result { () throws(StoreError) in try place.container.compile(sql).kind }
    }

    @Test func statementsAreClassifiedOrRefusedWithAReason() throws {
        let place = try DatabasePlace(Self.schema)
        #expect(Self.kind(place, "SELECT * FROM items;") == .success(.read))
        #expect(Self.kind(place, "  -- the cheap ones\n VALUES (1, 2)") == .success(.read))
        #expect(Self.kind(place, "TABLE kinds") == .success(.read))
        #expect(Self.kind(place, "WITH x AS (SELECT 1) SELECT * FROM x") == .success(.read))
        #expect(Self.kind(place, "WITH gone AS (DELETE FROM items WHERE id > 28 RETURNING id) SELECT count(*) FROM gone") == .success(.rows(verb: "DELETE")))
        #expect(Self.kind(place, "update items set name = 'x'") == .success(.rows(verb: "UPDATE")))
        #expect(Self.kind(place, "CREATE INDEX items_name ON items (name)") == .success(.schema(verb: "CREATE")))
        for (sql, words) in [("SELECT 1; SELECT 2", "One statement at a time"), ("BEGIN", "each statement runs in a transaction of its own"),
                             ("SET work_mem = '1GB'", "one of Cardfile's connections"), ("COPY items TO STDOUT", ":import and :export"),
                             ("   ", "There is no statement"), ("VACUUM items", "cannot run inside a transaction")] {
            guard case .failure(.statementNotRun(let reason)) = Self.kind(place, sql) else {
                Issue.record("\(sql) was not refused: \(Self.kind(place, sql))")
                continue
            }
            #expect(reason.contains(words), "\(sql): \(reason)")
        }
        // The server's own words for a statement it cannot plan; nothing runs.
        guard case .failure(let error) = Self.kind(place, "SELECT nmae FROM items") else {
            Issue.record("an unknown column was not refused")
            return
        }
        #expect(error.message.hasPrefix("PostgreSQL refused the statement: column \"nmae\" does not exist"), "\(error.message)")
        #expect(Self.kind(place, "DELETE FROM items") == .success(.rows(verb: "DELETE")))
        #expect(try place.psql("SELECT count(*) FROM items") == "30", "compiling runs nothing")
    }

    @Test func aResultIsDescribedByTheServerAndReadAsAList() throws {
        let place = try DatabasePlace(Self.schema)
        let container = place.container
        let sql = "SELECT i.id, i.name, k.label AS name, price, made, fresh, doc, price * 2 FROM items i JOIN kinds k ON k.id = i.kind WHERE i.id <= 12 ORDER BY i.id DESC"
        let result = try container.openQuery(try container.compile(sql))
        #expect(result.table.columns.map(\.name) == ["#", "id", "name", "name (2)", "price", "made", "fresh", "doc", "?column?"])
        #expect(result.table.columns.map(\.declaredType) == ["INTEGER", "integer", "text", "text", "numeric", "date", "boolean", "jsonb", "numeric"])
        #expect(result.records == nil)
        #expect(result.readOnlyReason == "the result joins 2 tables")
        #expect(result.readTables == ["items", "kinds"])
        #expect(try container.load(result, cancellation: Cancellation()) == 12)
        let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: result.table.name, sort: [ColumnSort("#")]), height: 5)
        try live.waitForBackgroundWork()
        #expect(live.window.count.known == 12)
        #expect(live.window.rows.first?.values == [
            .integer(1), .integer(12), .text("item 12"), .text("tools"), .text("15.00"), .text("2026-01-13"), .text("true"),
            .text("{\"n\": 12}"), .text("30.00"),
        ])
        // One table's rows, once each, with its key: editable, by the server's plan.
        for sql in ["SELECT name, id FROM items WHERE price > 3 ORDER BY name LIMIT 5", "SELECT i.id AS \"Key\", upper(name) FROM items i FOR UPDATE",
                    "SELECT id, (SELECT label FROM kinds k WHERE k.id = items.kind) FROM items"] {
            let single = try container.openQuery(try container.compile(sql))
            #expect(single.records?.table == "items" && single.readOnlyReason == nil, "\(sql): \(String(describing: single.readOnlyReason))")
        }
        #expect(try container.openQuery(try container.compile("SELECT name, id FROM items")).records?.keyColumns == ["id"])
        // Rows made, merged or without the key: read-only, and why.
        for (sql, reason) in [("SELECT id, unnest(ARRAY[1, 2]) FROM items", "its rows cannot be traced to records of one table"),
                              ("SELECT DISTINCT id FROM items", "the result leaves out repeated rows (DISTINCT)"),
                              ("SELECT id + 0 AS id, name FROM items", "the result leaves out the key of items (id)"),
                              ("SELECT kind, count(*) FROM items GROUP BY kind", "the result groups rows (GROUP BY)"),
                              ("SELECT id FROM items UNION ALL SELECT id FROM kinds", "the result combines several SELECTs (UNION)")] {
            let result = try container.openQuery(try container.compile(sql))
            #expect(result.records == nil && result.readOnlyReason == reason, "\(sql): \(String(describing: result.readOnlyReason))")
        }
    }

    /// Random SELECTs (joins, set-returning functions, DISTINCT, grouping, subqueries, aliases,
    /// expressions on the key, orders and limits): whenever the plan makes one editable, its
    /// rows are the table's records, once each, and each column taken from the table holds
    /// the record's value (read by `psql`).
    @Test func anEditableResultIsAlwaysItsTablesRecordsOnceEach() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try DatabasePlace(Self.schema + "CREATE TABLE tags (item int, tag text, PRIMARY KEY (item, tag)); INSERT INTO tags SELECT i, t FROM generate_series(1, 30) AS i, unnest(ARRAY['red', 'blue']) AS t WHERE i % 3 <> 0;")
        let container = place.container
        func pick(_ choices: [String]) -> String { choices[random.next(below: choices.count)] }
        var (editable, refused) = (0, 0)
        for round in 0..<Fuzz.scaled(40) {
            let itemColumns = ["i.id", "i.name", "i.price", "i.kind", "i.id AS number", "i.id + 0 AS id", "upper(i.name) AS name", "unnest(ARRAY[1, 2]) AS n"]
            var columns = (0..<(1 + random.next(below: 3))).map { _ in pick(itemColumns) }
            // (Half the time the key is there, unchanged: most such results should be editable.)
            if random.next(below: 2) == 0 { columns.insert(pick(["i.id", "i.id AS number"]), at: random.next(below: columns.count + 1)) }
            var from = "items i"
            switch random.next(below: 9) {
            case 0: from += " JOIN kinds k ON k.id = i.kind"; columns.insert(pick(["k.label", "k.id"]), at: 0)
            case 1: from += " LEFT JOIN tags t ON t.item = i.id"; columns.append("t.tag")
            case 2: from = "(SELECT * FROM items WHERE price > 5) i"
            case 3: from += ", generate_series(1, 2) AS g"
            default: break
            }
            var sql = "SELECT \(random.next(below: 6) == 0 ? "DISTINCT " : "")\(columns.joined(separator: ", ")) FROM \(from)"
            sql += pick(["", " WHERE i.price > 10", " WHERE i.kind IN (1, 2)", " WHERE i.id IN (SELECT item FROM tags)"])
            if random.next(below: 6) == 0 { sql = "SELECT i.kind, count(*) FROM \(from) GROUP BY i.kind" }
            sql += pick(["", " ORDER BY 1", " ORDER BY i.kind DESC"]) + pick(["", "", " LIMIT 7"])
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round): \(sql)"
            let statement: SQLStatement
            do { statement = try container.compile(sql) } catch {
                refused += 1   // (a column named twice in a subquery, and the like)
                continue
            }
            let result = try container.openQuery(statement)
            guard let records = result.records else {
                #expect(result.readOnlyReason?.isEmpty == false, "\(context)")
                continue
            }
            editable += 1
            #expect(records.table == "items", "\(context)")
            let count = try container.load(result, cancellation: Cancellation())
            let names = Array(result.table.columns.map(\.name).dropFirst())
            let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: result.table.name, sort: [ColumnSort("#")]), height: 200)
            try live.waitForBackgroundWork()
            let rows = live.window.rows.map { Array($0.values.dropFirst()) }
            #expect(rows.count == count, "\(context)")
            let keyIndex = try #require(names.firstIndex(of: records.keyColumns[0]))
            let keys = rows.map { $0[keyIndex] }
            #expect(Set(keys).count == keys.count, "\(context): a record shows twice")
            // Each column the description traces to the table holds the record's value.
            let traced = columns.enumerated().compactMap { index, column -> (Int, String)? in
                ["i.id", "i.name", "i.price", "i.kind", "i.id AS number"].contains(column) ? (index, String(column.dropFirst(2).prefix { $0 != " " })) : nil
            }
            for (index, column) in traced {
                let expected = try place.psql("SELECT string_agg(coalesce(\(column)::text, '-'), ',' ORDER BY id) FROM items WHERE id IN (\(keys.map(Self.text).joined(separator: ", ")))")
                let shown = zip(keys, rows).sorted { Self.text($0.0).count == Self.text($1.0).count ? Self.text($0.0) < Self.text($1.0) : Self.text($0.0).count < Self.text($1.0).count }
                    .map { $0.1[index] == .null ? "-" : Self.text($0.1[index]) }.joined(separator: ",")
                #expect(shown == expected, "\(context): \(column)")
            }
        }
        print("anEditableResultIsAlwaysItsTablesRecordsOnceEach (PostgreSQL): \(editable) editable results checked, \(refused) statements refused")
        #expect(refused < Fuzz.scaled(40) / 2, "the generator makes mostly statements the server takes")
    }

    /// Random queries of one table and of a join, with and without an order and a limit: the
    /// list walked page by page shows `psql`'s rows in `psql`'s order.
    @Test func randomQueriesShowTheServersRows() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try DatabasePlace(Self.schema)
        let container = place.container
        let conditions = ["TRUE", "price > 10", "fresh", "made < '2026-01-10'", "name LIKE 'item 1%'"]
        for round in 0..<Fuzz.scaled(10) {
            let condition = conditions[random.next(below: conditions.count)]
            var sql = random.next(below: 2) == 0
                ? "SELECT id, name, price FROM items WHERE \(condition) ORDER BY \(["price DESC, id", "name, id", "id DESC"][random.next(below: 3)])"
                : "SELECT k.label, count(*) AS n, sum(price) AS total FROM items i JOIN kinds k ON k.id = i.kind WHERE \(condition) GROUP BY k.label ORDER BY k.label"
            if random.next(below: 3) == 0 { sql += " LIMIT \(random.next(below: 20))" }
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round): \(sql)"
            let expected = try place.psql("SELECT string_agg(concat_ws('|', \(Self.columns(of: sql))), ',') FROM (\(sql)) AS q").split(separator: ",").map(String.init)
            let result = try container.openQuery(try container.compile(sql))
            #expect(try container.load(result, cancellation: Cancellation()) == expected.count, "\(context)")
            let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: result.table.name, sort: [ColumnSort("#")]), height: 1 + random.next(below: 7))
            try live.waitForBackgroundWork()
            var shown: [String] = []
            try live.jumpToStart()
            while true {
                for (offset, row) in live.window.rows.enumerated() where live.window.firstRow + offset == shown.count {
                    shown.append(row.values.dropFirst().map(Self.text).joined(separator: "|"))
                }
                guard live.window.firstRow + live.window.rows.count < live.window.count.known else { break }
                try live.pageDown()
            }
            #expect(shown == expected, "\(context)")
        }
    }

    static func columns(of sql: String) -> String {
        sql.contains("GROUP BY") ? "q.label, q.n, q.total" : "q.id, q.name, q.price"
    }

    static func text(_ value: Value) -> String {
        switch value {
        case .integer(let number): return String(number)
        case .text(let text), .decimal(let text): return text
        case .real(let number): return String(number)
        default: return ""
        }
    }

    @Test func aWriteIsCountedWithoutChangingAnythingThenRunThroughTheStore() throws {
        let place = try DatabasePlace(Self.schema)
        let container = place.container
        let update = try container.compile("UPDATE items SET name = upper(name) WHERE kind = 2")
        #expect(try container.rehearse(update, cancellation: Cancellation()) == 15)
        #expect(try place.psql("SELECT count(*) FROM items WHERE name = upper(name)") == "0", "a rehearsal is rolled back")
        let create = try container.compile("CREATE TABLE later (id int PRIMARY KEY)")
        #expect(try container.rehearse(create, cancellation: Cancellation()) == nil)
        #expect(try place.psql("SELECT count(*) FROM pg_class WHERE relname = 'later'") == "0")
        // Run: the view context's record follows, and the new table is known at once.
        let record = try #require(try container.viewContext.record(for: ObjectID(table: "items", primaryKey: [.integer(1)])))
        #expect(record["name"] == .text("item 1"))
        #expect(try container.run(update, cancellation: Cancellation()) == 15)
        #expect(try place.psql("SELECT count(*) FROM items WHERE name = upper(name)") == "15")
        try container.viewContext.refreshAll()
        #expect(try container.viewContext.record(for: ObjectID(table: "items", primaryKey: [.integer(1)]))?["name"] == .text("ITEM 1"))
        #expect(try container.run(create, cancellation: Cancellation()) == nil)
        #expect(container.schema.table(named: "later") != nil)
        // The server's refusal, and nothing written.
        let refused = Result { () throws(StoreError) in try container.run(try container.compile("UPDATE items SET kind = 9 WHERE id = 1"), cancellation: Cancellation()) }
        guard case .failure(.sqlRefused(let message, _, let engine)) = refused else {
            Issue.record("a broken foreign key was not refused: \(refused)")
            return
        }
        #expect(engine == "PostgreSQL" && message.contains("items_kind_fkey"), "\(message)")
        #expect(try place.psql("SELECT kind FROM items WHERE id = 1") == "2")
    }

    @Test func aResultFollowsAWriteToATableItReads() throws {
        let place = try DatabasePlace(Self.schema)
        let container = place.container
        let result = try container.openQuery(try container.compile("SELECT id, name FROM items WHERE id <= 3 ORDER BY id"))
        _ = try container.load(result, cancellation: Cancellation())
        let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: result.table.name, sort: [ColumnSort("#")]),
                                 height: 10, minimumRefreshInterval: .zero)
        try live.waitForBackgroundWork()
        _ = try container.run(try container.compile("UPDATE items SET name = 'renamed' WHERE id = 2"), cancellation: Cancellation())
        let deadline = Date().addingTimeInterval(10)
        while live.window.rows.count > 1, live.window.rows[1].values[2] != .text("renamed"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            _ = try live.update(now: .now, immediately: true)
            try live.waitForBackgroundWork()
        }
        #expect(live.window.rows.map { $0.values[2] } == [.text("item 1"), .text("renamed"), .text("item 3")])
    }

    /// A cancel reaches the server: the query stops there, and the connection is whole after.
    @Test(arguments: ["read", "rehearsal"])
    func cancelStopsTheServersWork(_ what: String) throws {
        let place = try DatabasePlace(Self.schema)
        let container = place.container
        let cancellation = Cancellation()
        let outcome = Locked<Result<Int?, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let statement = try container.compile(what == "read" ? "SELECT pg_sleep(60), id FROM items" : "UPDATE items SET name = name WHERE pg_sleep(60) IS NOT NULL")
        let result = what == "read" ? try container.openQuery(statement) : nil
        DispatchQueue.global().async {
            let answer = Result { () throws(StoreError) -> Int? in
                if let result { return try container.load(result, cancellation: cancellation) }
                return try container.rehearse(statement, cancellation: cancellation)
            }
            outcome.withLock { $0 = answer }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(outcome.value == nil)
        cancellation.cancel()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(outcome.value == .failure(.queryCancelled))
        #expect(try place.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND state = 'active' AND datname = current_database() AND pid <> pg_backend_pid()") == "0")
        #expect(try container.load(try container.openQuery(try container.compile("SELECT id FROM items")), cancellation: Cancellation()) == 30)
    }
}

/// What the second review found on the SQL screen, each held to here.
@Suite("SQL statements on PostgreSQL: the review's cases", .timeLimit(.minutes(5)))
struct PostgresSQLScreenReviewTests {
    @Test func mergeIsCountedAndAJsonbQuestionMarkIsTheOperators() throws {
        let place = try DatabasePlace(PostgresSQLScreenTests.schema)
        let container = place.container
        let merge = try container.compile("MERGE INTO items USING (SELECT g AS id FROM generate_series(1, 5) AS g) AS src ON items.id = src.id WHEN MATCHED THEN UPDATE SET name = 'merged'")
        #expect(merge.kind == .rows(verb: "MERGE"))
        #expect(try container.rehearse(merge, cancellation: Cancellation()) == 5)
        #expect(try container.run(merge, cancellation: Cancellation()) == 5)
        #expect(try place.psql("SELECT count(*) FROM items WHERE name = 'merged'") == "5")
        let jsonb = try container.openQuery(try container.compile("SELECT id FROM items WHERE doc ? 'n' AND doc ?| ARRAY['n']"))
        #expect(try container.load(jsonb, cancellation: Cancellation()) == 30)
    }

    @Test func aSettingChangedByATypedStatementDoesNotStayOnCardfilesConnections() throws {
        let place = try DatabasePlace(PostgresSQLScreenTests.schema)
        let container = place.container
        // A read: its transaction is rolled back, the setting with it.
        let read = try container.openQuery(try container.compile("SELECT set_config('statement_timeout', '1', false), id FROM items"))
        #expect(try container.load(read, cancellation: Cancellation()) == 30)
        for _ in 0..<4 {
            let slow = try container.openQuery(try container.compile("SELECT pg_sleep(0.01), id FROM items WHERE id < 3"))
            #expect(try container.load(slow, cancellation: Cancellation()) == 2)
        }
        // A write: the writing connection goes back to its defaults after it.
        let write = try container.compile("UPDATE items SET name = name || set_config('statement_timeout', '1', false) WHERE id = 1")
        #expect(try container.run(write, cancellation: Cancellation()) == 1)
        let record = try #require(try container.viewContext.record(for: ObjectID(table: "items", primaryKey: [.integer(2)])))
        try container.viewContext.update(record.id, values: ["name": .text("saved after")])
        try container.viewContext.save()
        #expect(try place.psql("SELECT name FROM items WHERE id = 2") == "saved after")
        #expect(try container.rehearse(try container.compile("UPDATE items SET name = name WHERE pg_sleep(0.01) IS NOT NULL AND id < 3"), cancellation: Cancellation()) == 2)
    }

    @Test func aMistypedFirstWordIsTheServersSyntaxErrorAndAStatementItReadsIsSaidNotRun() throws {
        let place = try DatabasePlace(PostgresSQLScreenTests.schema)
        let typo = Result { () throws(StoreError) in try place.container.compile("SELCT * FROM items") }
        guard case .failure(.sqlRefused(let message, _, _)) = typo else {
            Issue.record("a typo gave \(typo)")
            return
        }
        #expect(message.contains("syntax error at or near \"SELCT\""), "\(message)")
        let other = Result { () throws(StoreError) in try place.container.compile("CHECKPOINT") }
        guard case .failure(.statementNotRun(let reason)) = other else {
            Issue.record("CHECKPOINT gave \(other)")
            return
        }
        #expect(reason.hasPrefix("CHECKPOINT is not run here"), "\(reason)")
    }

    @Test func aDoBlockWithSemicolonsInItsBodyRuns() throws {
        let place = try DatabasePlace(PostgresSQLScreenTests.schema)
        let block = try place.container.compile("DO $$ BEGIN UPDATE items SET name = 'done' WHERE id = 1; UPDATE items SET name = 'done' WHERE id = 2; END $$")
        _ = try place.container.run(block, cancellation: Cancellation())
        #expect(try place.psql("SELECT count(*) FROM items WHERE name = 'done'") == "2")
    }

    @Test func anAdvisoryLockTakenByATypedReadIsLetGo() throws {
        let place = try DatabasePlace(PostgresSQLScreenTests.schema)
        let read = try place.container.openQuery(try place.container.compile("SELECT pg_advisory_lock(4242), id FROM items WHERE id = 1"))
        #expect(try place.container.load(read, cancellation: Cancellation()) == 1)
        #expect(try place.psql("SELECT pg_try_advisory_lock(4242)") == "t", "another session may take the lock")
    }

    @Test func aServersStatementTimeoutIsItsRefusalNotACancel() throws {
        let place = try DatabasePlace(PostgresSQLScreenTests.schema)
        _ = try place.psql("ALTER DATABASE \(place.database) SET statement_timeout = '300ms'")
        let engine = try PostgresEngine(try place.server.location(place.database))
        defer { engine.close() }
        let container = try Container(engine: engine)
        let slow = try container.openQuery(try container.compile("SELECT pg_sleep(2), id FROM items"))
        let outcome = Result { () throws(StoreError) in try container.load(slow, cancellation: Cancellation()) }
        guard case .failure(.sqlRefused(let message, _, _)) = outcome else {
            Issue.record("a timeout was not said as the server's: \(outcome)")
            return
        }
        #expect(message.contains("statement timeout"), "\(message)")
    }

    @Test func wordsThatNameColumnsAreNotWritesAndANoColumnSelectSaysSo() throws {
        let place = try DatabasePlace("CREATE TABLE flags (id int PRIMARY KEY, delete boolean, \"update\" text); INSERT INTO flags VALUES (1, true, 'x')")
        let container = place.container
        #expect(try container.compile("WITH r AS (SELECT id FROM flags WHERE delete) SELECT * FROM r").kind == .read)
        #expect(try container.compile("WITH r AS (SELECT id, \"update\" FROM flags FOR UPDATE) SELECT * FROM r").kind == .read)
        #expect(try container.compile("WITH r AS (UPDATE flags SET delete = false RETURNING id) SELECT * FROM r").kind == .rows(verb: "UPDATE"))
        let none = Result { () throws(StoreError) in try container.openQuery(try container.compile("SELECT FROM flags")) }
        guard case .failure(.statementNotRun(let reason)) = none else {
            Issue.record("a select of no columns: \(none)")
            return
        }
        #expect(reason.contains("selects no columns"))
    }
}
