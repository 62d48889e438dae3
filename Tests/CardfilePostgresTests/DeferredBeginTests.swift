@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// A write of one statement runs on its own (one round trip); whatever follows a statement
/// that changed nothing runs in a transaction begun then, all or nothing.
@Suite("PostgreSQL: a one-statement write", .timeLimit(.minutes(5)))
struct DeferredBeginTests {
    struct Place {
        let server: PostgresTestServer
        let database: String
        let engine: PostgresEngine

        func psql(_ sql: String) throws -> String { try server.psql(database, sql) }
        func close() {
            engine.close()
            server.drop(database)
        }
    }

    static func place() throws -> Place {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        try server.psql(database, "CREATE TABLE t (id int PRIMARY KEY, n int CHECK (n >= 0), d date); INSERT INTO t VALUES (1, 1, NULL), (2, 2, NULL)")
        return Place(server: server, database: database, engine: try PostgresEngine(try server.location(database)))
    }

    struct Stop: Error {}

    @Test func whatFollowsAStatementThatChangedNothingIsAllOrNothing() throws {
        let place = try Self.place()
        defer { place.close() }
        #expect(throws: Stop.self) {
            try place.engine.write(lockWait: .seconds(1), oneStatement: true) { session in
                let changed = [try session.execute("UPDATE t SET n = 10 WHERE id = 1 AND n = 99", []),
                               try session.execute("UPDATE t SET n = 20 WHERE id = 1", []),
                               try session.execute("UPDATE t SET n = 30 WHERE id = 2", [])]
                #expect(changed == [0, 1, 1])
                throw Stop()
            }
        }
        #expect(try place.psql("SELECT string_agg(n::text, ',' ORDER BY id) FROM t") == "1,2")
        // And committed together when the body returns.
        try place.engine.write(lockWait: .seconds(1), oneStatement: true) { session in
            _ = try session.execute("UPDATE t SET n = 10 WHERE id = 1 AND n = 99", [])
            _ = try session.execute("UPDATE t SET n = 20 WHERE id = 1", [])
            _ = try session.execute("UPDATE t SET n = 30 WHERE id = 2", [])
        }
        #expect(try place.psql("SELECT string_agg(n::text, ',' ORDER BY id) FROM t") == "20,30")
    }

    /// A statement after one that changed rows on its own could not be undone with it: it is
    /// refused, not run.
    @Test func nothingRunsAfterAStatementThatChangedRowsOnItsOwn() throws {
        let place = try Self.place()
        defer { place.close() }
        var refused = false
        do {
            try place.engine.write(lockWait: .seconds(1), oneStatement: true) { session in
                _ = try session.rows("UPDATE t SET n = 5 WHERE id = 1 RETURNING n", [])
                _ = try session.execute("UPDATE t SET n = 6 WHERE id = 2", [])
            }
        } catch {
            refused = "\(error)".contains("another to run in the same save")
        }
        #expect(refused)
        #expect(try place.psql("SELECT string_agg(n::text, ',' ORDER BY id) FROM t") == "5,2")
    }

    /// A refused first statement left nothing behind: the attempt after it (the probe that
    /// names a refused value's field) runs, and a locking read begins the transaction.
    @Test func aRefusedStatementLeavesTheWriteUsable() throws {
        let place = try Self.place()
        defer { place.close() }
        try place.engine.write(lockWait: .seconds(1), oneStatement: true) { session in
            for refused in ["UPDATE t SET d = 'not a date' WHERE id = 1", "UPDATE t SET n = -1 WHERE id = 1"] {
                var failed = false
                do { _ = try session.attempt { try session.execute(refused, []) } } catch { failed = true }
                #expect(failed, "\(refused)")
            }
            let locked = try session.rows("SELECT n FROM t WHERE id = 2 FOR UPDATE", [])
            #expect(locked == [[.integer(2)]])
            let changed = try session.execute("UPDATE t SET n = 7 WHERE id = 2", [])
            #expect(changed == 1)
        }
        #expect(try place.psql("SELECT string_agg(n::text, ',' ORDER BY id) FROM t") == "1,7")
    }

    /// Through the contexts: one record's save whose row another client changed (another
    /// field) merges, and a refused value still names its field.
    @Test func oneRecordSavesMergeAndNameRefusedFields() throws {
        let place = try Self.place()
        defer { place.close() }
        let container = try Container(engine: place.engine, options: StoreOptions(busyTimeout: 1))
        let view = container.viewContext
        let one = ObjectID(table: "t", primaryKey: [.integer(1)])
        _ = try view.record(for: one)
        try place.psql("UPDATE t SET d = '2026-01-01' WHERE id = 1")
        try view.update(one, values: ["n": .integer(8)])
        try view.save()
        #expect(try place.psql("SELECT n || ' ' || d FROM t WHERE id = 1") == "8 2026-01-01")
        try view.update(one, values: ["d": .text("someday")])
        let refused = failures { () throws(StoreError) in try view.save() }
        #expect(refused.map(\.field) == ["d"])
    }
}
