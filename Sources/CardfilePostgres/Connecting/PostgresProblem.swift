/// What went wrong talking to a PostgreSQL server, in the terms a person acts on.
///
/// Locations are kept as their masked descriptions, so no case can carry a password into a
/// message. ``message`` (in `PostgresProblem+Words.swift`) is the one place they become words.
public enum PostgresProblem: Error, Equatable, Sendable {
    /// The URL could not be read.
    case location(PostgresLocationError)
    /// No server answered at the location: `reason` says what the network said.
    case unreachable(server: String, reason: String)
    /// The server answered and refused the login.
    case loginRefused(server: String, user: String, reason: String, passwordSource: PasswordSource)
    /// The server asked for a password and none was found.
    case passwordNeeded(server: String, user: String)
    /// The server has no database of that name.
    case unknownDatabase(server: String, database: String)
    /// The location asks for encryption and the server offers none.
    case encryptionUnavailable(server: String, sslMode: SSLMode)
    /// The encrypted connection could not be set up (a certificate refused, say).
    case encryptionFailed(server: String, reason: String)
    /// The database has no table or view of that name in its search path.
    case unknownTable(database: String, table: String, known: [String])
    /// The connection ended while something was being done.
    case connectionLost(server: String, reason: String)
    /// The server refused a statement: its own words, with its SQLSTATE code.
    case refused(message: String, detail: String?, sqlState: String)
}
