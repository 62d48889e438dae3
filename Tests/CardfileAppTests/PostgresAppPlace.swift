@testable import CardfileApp
import CardfilePostgres
import CardfileStore
import CardfileTerminal
import CardfileTestSupport

/// The editor on a PostgreSQL database of one test's own, made by `sql` on the run's server,
/// showing `table`; the database is dropped when the test lets go of it.
final class PostgresAppPlace {
    let server: PostgresTestServer
    let database: String
    let engine: PostgresEngine
    let harness: AppHarness

    /// With `history`, the editor keeps the server's history, and `pg-setup` is run first
    /// unless `setUp` says otherwise.
    init(_ sql: String, table: String, history: Bool = false, setUp: Bool? = nil) throws {
        server = try PostgresTestServer.current()
        database = try server.makeDatabase()
        _ = try server.psql(database, sql)
        let location = try PostgresLocation.resolve(server.url(database: database), environment: [:], homeFolder: TemporaryDirectory().path, loginName: "x").location
        if setUp ?? history {
            let session = try PostgresSession.open(location)
            defer { session.close() }
            let catalog = PostgresCatalog(session: session)
            _ = try NotifySetup(session: session).install(try catalog.relations().map { try catalog.describe($0) })
        }
        engine = try PostgresEngine(location)
        let container = try Container(engine: engine, options: StoreOptions(history: history ? HistorySettings(folder: "/nonexistent") : nil))
        harness = try AppHarness(container: container, size: Size(width: 120, height: 20), options: CardfileApp.Options(table: table))
    }

    deinit {
        engine.close()
        server.drop(database)
    }

    func psql(_ sql: String) throws -> String { try server.psql(database, sql) }

    /// The open question's text.
    var question: String? {
        if case .question(let question)? = harness.app.overlay { return question.dialog.message }
        return nil
    }
}
