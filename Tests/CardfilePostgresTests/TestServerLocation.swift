import CardfilePostgres
import CardfileTestSupport

extension PostgresTestServer {
    /// Where `database` on this server is, as a location with no PG variables and no password
    /// file (a home folder of its own), as every test here connects.
    func location(_ database: String) throws -> PostgresLocation {
        let home = TemporaryDirectory()
        return try PostgresLocation.resolve(url(database: database), environment: [:], homeFolder: home.path, loginName: "x").location
    }
}
