import CardfileApp
import CardfilePostgres
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// The editor on a PostgreSQL server of its own that dies while it commits a new record: the
/// person is told it may be stored already, and nothing saves it again behind their back.
@Suite("Losing the server mid-commit", .timeLimit(.minutes(5)))
struct ServerLossAppTests {
    @Test func aNewRecordInDoubtIsSavedAgainOnlyWhenThePersonSaysSo() throws {
        let owned = try PrivatePostgresServer(settings: ["autovacuum=off"])
        defer { owned.stop() }
        try owned.server.psql("postgres", "CREATE TABLE notes (id int PRIMARY KEY, body text);\n"
            + PostgresTestServer.atFirstCommit(into: "notes", name: "slow", run: "PERFORM pg_sleep(3);"))
        let location = try PostgresLocation.resolve(owned.server.url, environment: [:], homeFolder: TemporaryDirectory().path, loginName: "x").location
        let engine = try PostgresEngine(location)
        defer { engine.close() }
        let container = try Container(engine: engine, options: StoreOptions(busyTimeout: 1))
        let harness = try AppHarness(container: container, size: Size(width: 300, height: 20),
                                     options: CardfileApp.Options(table: "notes", autosave: .seconds(1)))
        try harness.press(.char("a"))
        try harness.type("7")
        try harness.press(KeyEvent(.down))
        try harness.type("in doubt")
        // The server dies while it commits (its trigger holds the commit for 3 s).
        let killer = Thread { Thread.sleep(forTimeInterval: 1); try? owned.kill() }
        killer.start()
        try harness.press(.control("s"))
        while !killer.isFinished { Thread.sleep(forTimeInterval: 0.05) }
        #expect(harness.messageLine.contains("whether they were saved is not known"), "\(harness.messageLine)")

        // Back again: the notice stays, and neither autosave nor time saves the record.
        try owned.start()
        // (The status bar says why this form is not saved, which matters more here.)
        #expect(try harness.waitFor { _ in !container.isServerUnreachable })
        try harness.advance(.seconds(10))
        #expect(harness.messageLine.contains("may store them twice"), "\(harness.messageLine)")
        #expect(try owned.server.psql("postgres", "SELECT count(*) FROM notes") == "0")

        // Leaving asks, saying why; the person saves, once.
        try harness.press(KeyEvent(.escape))
        if !harness.screen.contains("Unsaved changes") { try harness.press(KeyEvent(.escape)) }
        #expect(harness.screen.contains("cut off"), "\(harness.screen)")
        #expect(try owned.server.psql("postgres", "SELECT count(*) FROM notes") == "0")
        try harness.press(.char("s"))
        #expect(try owned.server.psql("postgres", "SELECT count(*) FROM notes WHERE body = 'in doubt'") == "1")
    }
}
