@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// A scan cancelled while the server works on a batch (the first batch of a sort waits for
/// the whole sort) is stopped on the server, not only between batches.
@Suite("PostgreSQL: cancelling a scan", .timeLimit(.minutes(5)))
struct ScanCancelTests {
    @Test func aCancelledScanStopsTheServersWork() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        let engine = try PostgresEngine(try server.location(database))
        defer { engine.close() }
        let cancellation = Cancellation()
        let canceller = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            cancellation.cancel()
        }
        canceller.start()
        // (Ten minutes of work: without the server's cancel the test's time limit ends it.)
        var stopped = false
        do {
            try engine.read { session in
                try session.forEachRow("SELECT pg_sleep(600)", [], cancellation: cancellation) { _ in }
            }
        } catch is Cancellation.Stopped {
            stopped = true
        }
        #expect(stopped)
        let running = try server.psql(database, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(600)%' AND state = 'active' AND pid <> pg_backend_pid()")
        #expect(running == "0")
        // The connection goes on serving reads.
        let answer = try engine.read { session in try session.rows("SELECT 1", []) }
        #expect(answer == [[.integer(1)]])
    }
}
