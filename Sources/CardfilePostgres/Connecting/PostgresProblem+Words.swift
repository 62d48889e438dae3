// Every sentence about a PostgreSQL server that cardfile shows a person is written here.

extension PostgresProblem: CustomStringConvertible {
    /// What happened, in a person's words, with what they can do about it. One line; never a
    /// password (URLs are masked, and a server's own words pass through the mask too).
    public var message: String {
        switch self {
        case .location(let problem):
            return problem.message
        case .unreachable(let server, let reason):
            return "cannot reach the PostgreSQL server at \(server): \(reason) (is it running, and listening there?)"
        case .loginRefused(let server, let user, let reason, let source):
            return "the PostgreSQL server at \(server) refused the login of \"\(user)\": \(reason)\(Self.from(source))"
        case .passwordNeeded(let server, let user):
            return "the PostgreSQL server at \(server) asks for \"\(user)\"'s password and none was given "
                + "(put it in the URL, in PGPASSWORD or in ~/.pgpass)"
        case .unknownDatabase(let server, let database):
            return "the PostgreSQL server at \(server) has no database \"\(database)\" (psql's \\l lists them)"
        case .encryptionUnavailable(let server, let mode):
            return "the PostgreSQL server at \(server) offers no encryption, and sslmode=\(mode.rawValue) asks for it"
        case .encryptionFailed(let server, let reason):
            return "the encrypted connection to the PostgreSQL server at \(server) failed: \(reason)"
        case .unknownTable(let database, let table, let known):
            let list = known.isEmpty ? " (it has none this user can read)" : " (its tables: \(Self.listed(known)))"
            return "no table or view \"\(table)\" in \(database)\(list)"
        case .connectionLost(let server, let reason):
            return "the connection to the PostgreSQL server at \(server) was lost: \(reason)"
        case .refused(let message, let detail, let state):
            let more = detail.map { " (\($0))" } ?? ""
            return PostgresURLMask.masked("the PostgreSQL server refused: \(message)\(more) [\(state)]")
        }
    }

    public var description: String { message }

    private static func from(_ source: PasswordSource) -> String {
        switch source {
        case .none: return ""
        case .url: return " (the password came from the URL)"
        case .environment: return " (the password came from PGPASSWORD)"
        case .passwordFile(let path): return " (the password came from \(path))"
        }
    }

    /// At most twenty names, then how many more.
    private static func listed(_ names: [String]) -> String {
        let shown = names.prefix(20).joined(separator: ", ")
        return names.count > 20 ? "\(shown) and \(names.count - 20) more" : shown
    }
}
