@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport

/// A database of one test's own on the run's server, made by `sql`, with a container on it
/// and a folder for files; dropped when the test lets go of it.
final class DatabasePlace {
    let server: PostgresTestServer
    let database: String
    let engine: PostgresEngine
    let container: Container
    let folder = TemporaryDirectory()

    init(_ sql: String) throws {
        server = try PostgresTestServer.current()
        database = try server.makeDatabase()
        _ = try server.psql(database, sql)
        engine = try PostgresEngine(try server.location(database))
        container = try Container(engine: engine)
    }

    deinit {
        engine.close()
        server.drop(database)
    }

    func psql(_ sql: String) throws -> String { try server.psql(database, sql) }
}
