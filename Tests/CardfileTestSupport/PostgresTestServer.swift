import Foundation

/// The PostgreSQL server `scripts/test` starts for the run (Debian's, in a folder of the run, on a
/// private port): its URL, and psql against it for setting up and for playing another writer.
///
/// A test that needs it fails, never skips, when it is not there: ``current()`` throws saying
/// why (the server did not start, or the tests were not run through `scripts/test`).
public struct PostgresTestServer: Sendable {
    /// `postgres://cardfile:PASSWORD@127.0.0.1:PORT/postgres`.
    public let url: String
    public let password: String
    public let port: Int
    /// The folder of the server's socket (psql logs in through it without a password).
    public let socketFolder: String

    public struct Missing: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    public init(url: String, password: String, port: Int, socketFolder: String) {
        self.url = url
        self.password = password
        self.port = port
        self.socketFolder = socketFolder
    }

    /// SQL that makes the first commit of an insert into `table` run `action` (PL/pgSQL) as it
    /// commits: a deferred constraint trigger named `name`, which acts once (a sequence counts,
    /// whatever becomes of the transaction).
    public static func atFirstCommit(into table: String, name: String, run action: String) -> String {
        """
        CREATE SEQUENCE \(name)_count;
        CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF nextval('\(name)_count') = 1 THEN \(action) END IF;
            RETURN NULL;
        END $$;
        CREATE CONSTRAINT TRIGGER \(name) AFTER INSERT ON \(table) DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(name)();
        """
    }

    /// The server of this run; throws when there is none.
    public static func current() throws -> PostgresTestServer {
        let environment = ProcessInfo.processInfo.environment
        if let problem = environment["CARDFILE_TEST_POSTGRES_PROBLEM"] { throw Missing(description: problem) }
        guard let url = environment["CARDFILE_TEST_POSTGRES"], let socket = environment["CARDFILE_TEST_POSTGRES_SOCKET"],
              let components = URLComponents(string: url), let port = components.port, let password = components.password
        else {
            throw Missing(description: "no PostgreSQL server for the tests: run them through scripts/test, which starts one (CARDFILE_TEST_POSTGRES is not set)")
        }
        return PostgresTestServer(url: url, password: password, port: port, socketFolder: socket)
    }

    /// The URL of `database` on this server, over TCP with the password.
    public func url(database: String, password: String? = nil, extra: String = "") -> String {
        "postgres://cardfile:\(password ?? self.password)@127.0.0.1:\(port)/\(database)\(extra)"
    }

    /// A new, empty database of its own for one test (dropped by ``drop(_:)``).
    public func makeDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        _ = try psql("postgres", "CREATE DATABASE \(name)")
        return String(name)
    }

    public func drop(_ database: String) {
        _ = try? psql("postgres", "DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
    }

    /// Runs `sql` with psql in `database`: unaligned, tuples only, stops at the first error.
    /// Returns what it printed; throws with its error output when it fails.
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> String {
        try Self.psql(["-h", socketFolder, "-p", String(port), "-U", "cardfile", "-d", database], sql)
    }

    /// ``psql(_:_:)`` logged in as `role` with `password`, over TCP (the user a session
    /// reports is that role, not the tests' own).
    @discardableResult
    public func psql(_ database: String, as role: String, password: String, _ sql: String) throws -> String {
        try Self.psql(["postgres://\(role):\(password)@127.0.0.1:\(port)/\(database)"], sql)
    }

    private static func psql(_ connection: [String], _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + connection + ["-c", sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Missing(description: "psql failed on \(sql): " + String(decoding: complaint, as: UTF8.self))
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
