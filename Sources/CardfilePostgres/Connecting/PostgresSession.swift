import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import PostgresNIO

/// One connection to a PostgreSQL server, used from plain threads: each call waits for its
/// answer. Errors come out as ``PostgresProblem``s, with the location masked.
///
/// It waits on postgres-nio's futures, which its event loops complete, never on Swift
/// concurrency's pool: a thread of that pool blocked here could be the one an `async` answer
/// needs (seen: tests on two cores hung for good). So call it from a thread of one's own (the
/// UI loop, a store queue, `main`), never from an event loop.
///
/// A session is not a pool: one statement runs at a time on it, in the order called. Close it
/// with ``close()`` when done; the server otherwise sees the connection drop at exit.
public final class PostgresSession: Sendable {
    public let location: PostgresLocation
    let connection: PostgresConnection
    let logger: Logger
    /// How long an answer is waited for; then the connection is closed and taken for lost
    /// (nil: as long as it takes). A server that stops answering without closing the
    /// connection (paused, or cut off by the network) is found so.
    let answerWithin: Duration?
    private let silence = NIOLockedValueBox(false)

    /// True once a statement's answer did not come within ``answerWithin`` (the connection
    /// was closed then).
    var timedOut: Bool { silence.withLockedValue { $0 } }

    private init(location: PostgresLocation, connection: PostgresConnection, logger: Logger, answerWithin: Duration?) {
        self.location = location
        self.connection = connection
        self.logger = logger
        self.answerWithin = answerWithin
    }

    /// Connects and logs in. Throws ``PostgresProblem`` naming what failed: no answer, a refused
    /// login, no password, an unknown database, or encryption the server does not offer.
    ///
    /// `answerWithin` bounds the wait for each statement's answer (see ``answerWithin``);
    /// connecting and logging in are bounded by the location's `connect_timeout` whatever it
    /// is, or by `connectWithin` when that is shorter.
    public static func open(_ location: PostgresLocation, answerWithin: Duration? = nil, connectWithin: Duration? = nil) throws(PostgresProblem) -> PostgresSession {
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try Self.configuration(for: location)
        } catch let problem as PostgresProblem {
            throw problem
        } catch {
            throw .encryptionFailed(server: location.serverName, reason: String(describing: error))
        }
        return try open(location, configuration: configuration, answerWithin: answerWithin, connectWithin: connectWithin)
    }

    /// Connects and logs in as `configuration` says (a channel of the caller's own, say), with
    /// `location` for messages and the limits ``open(_:answerWithin:connectWithin:)`` has.
    static func open(
        _ location: PostgresLocation, configuration: PostgresConnection.Configuration, answerWithin: Duration? = nil, connectWithin: Duration? = nil
    ) throws(PostgresProblem) -> PostgresSession {
        let logger = Logger(label: "cardfile.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        // (A channel of the caller's own is served by its own event loop.)
        let loop = configuration.establishedChannel?.eventLoop ?? PostgresConnection.defaultEventLoopGroup.any()
        let connecting = PostgresConnection.connect(on: loop, configuration: configuration, id: 1, logger: logger)
        // (postgres-nio bounds the TCP connection only: a server that accepts it and then says
        // nothing would be waited for without end.)
        let connectLimit = min(location.connectTimeout, connectWithin ?? location.connectTimeout)
        guard Self.answered(connecting, within: connectLimit) else {
            connecting.whenSuccess { late in late.close().whenComplete { _ in _ = late } }
            throw .unreachable(server: location.serverName, reason: "no answer within \(Self.seconds(connectLimit))")
        }
        do {
            return PostgresSession(location: location, connection: try connecting.wait(), logger: logger, answerWithin: answerWithin)
        } catch {
            throw PostgresProblem(connecting: error, to: location)
        }
    }

    /// True when `future` completed within `limit` (always, for no limit).
    private static func answered<T>(_ future: EventLoopFuture<T>, within limit: Duration?) -> Bool {
        guard let limit else { return true }
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { _ in done.signal() }
        let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        return done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success
    }

    /// `duration` in words ("5 seconds").
    static func seconds(_ duration: Duration) -> String {
        "\(duration.components.seconds) second\(duration.components.seconds == 1 ? "" : "s")"
    }

    /// Waits for a statement's answer, within ``answerWithin``: past it the connection is
    /// closed (the statement then fails) and the wait ends as a lost connection.
    private func waited<T>(_ future: EventLoopFuture<T>) throws -> T {
        guard Self.answered(future, within: answerWithin) else {
            silence.withLockedValue { $0 = true }
            let connection = self.connection
            connection.close().whenComplete { _ in _ = connection }
            throw PostgresProblem.connectionLost(
                server: location.serverName, reason: "no answer within \(Self.seconds(answerWithin ?? .zero))")
        }
        return try future.wait()
    }

    /// Every row `query` returns, read whole, unless `cancelled` turns true while the server
    /// works on it: then the server is asked to cancel it (`pg_cancel_backend`, from a
    /// connection of its own: postgres-nio does not send the protocol's cancel request), and
    /// the statement fails with SQLSTATE 57014. `backend` is this connection's server process
    /// (``backend()``, read before: a connection busy with a statement answers nothing else).
    public func rows(_ query: PostgresQuery, backend: Int32, cancelled: @escaping @Sendable () -> Bool) throws(PostgresProblem) -> [PostgresRow] {
        try answer(query, backend: backend, cancelled: cancelled).rows
    }

    /// ``execute(_:)`` that `cancelled` can stop, as ``rows(_:backend:cancelled:)`` is stopped.
    public func execute(_ query: PostgresQuery, backend: Int32, cancelled: @escaping @Sendable () -> Bool) throws(PostgresProblem) -> Int {
        try answer(query, backend: backend, cancelled: cancelled).metadata.changedRows
    }

    /// The whole answer to `query`, asking the server to cancel it once `cancelled` turns true.
    private func answer(_ query: PostgresQuery, backend: Int32, cancelled: @escaping @Sendable () -> Bool) throws(PostgresProblem) -> PostgresQueryResult {
        if connection.isClosed { throw .connectionLost(server: location.serverName, reason: "the connection was closed") }
        let future = connection.query(query, logger: logger)
        let done = DispatchSemaphore(value: 0)
        future.whenComplete { _ in done.signal() }
        var asked = false
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if !asked, cancelled() {
                asked = true
                let location = self.location
                // (Off this thread: the wait goes on, and ends with the server's refusal.)
                Thread.detachNewThread {
                    guard let side = try? PostgresSession.open(location, answerWithin: .seconds(5), connectWithin: .seconds(5)) else { return }
                    defer { side.close() }
                    try? side.run(PostgresQuery(unsafeSQL: "SELECT pg_cancel_backend(\(backend))"))
                }
            }
        }
        do {
            return try future.wait()
        } catch {
            throw PostgresProblem(running: error, on: location)
        }
    }

    /// Every row `query` returns, read whole. For catalog reads and other small answers.
    public func rows(_ query: PostgresQuery) throws(PostgresProblem) -> [PostgresRow] {
        // (A query on a connection the server has ended may never be answered.)
        if connection.isClosed { throw .connectionLost(server: location.serverName, reason: "the connection was closed") }
        do {
            return try waited(connection.query(query, logger: logger)).rows
        } catch let problem as PostgresProblem {
            throw problem
        } catch {
            throw PostgresProblem(running: error, on: location)
        }
    }

    /// Has the server parse `sql` (the extended protocol's Parse, as a prepared statement that
    /// is then let go) without running it: a statement it cannot read is refused in its
    /// words; any statement it can read, a utility statement too, passes.
    public func parse(_ sql: String) throws(PostgresProblem) {
        if connection.isClosed { throw .connectionLost(server: location.serverName, reason: "the connection was closed") }
        do {
            let prepared = try waited(connection.prepare(query: sql))
            try waited(prepared.deallocate())
        } catch let problem as PostgresProblem {
            throw problem
        } catch PostgresError.server(let refusal) {
            // (This older API of postgres-nio says a refusal in its older words.)
            throw .refused(message: refusal.fields[.message] ?? "refused", detail: refusal.fields[.detail], sqlState: refusal.fields[.sqlState] ?? "")
        } catch {
            throw PostgresProblem(running: error, on: location)
        }
    }

    /// Runs a statement; returns how many rows it inserted, changed or deleted (its command
    /// tag's count; 0 for a statement without one).
    public func execute(_ query: PostgresQuery) throws(PostgresProblem) -> Int {
        if connection.isClosed { throw .connectionLost(server: location.serverName, reason: "the connection was closed") }
        do {
            return try waited(connection.query(query, logger: logger)).metadata.changedRows
        } catch let problem as PostgresProblem {
            throw problem
        } catch {
            throw PostgresProblem(running: error, on: location)
        }
    }

    /// Runs a statement that returns no rows (or whose rows do not matter).
    public func run(_ query: PostgresQuery) throws(PostgresProblem) {
        _ = try rows(query)
    }

    /// The server process serving this connection (`pg_backend_pid()`): notifications name it.
    public func backend() throws(PostgresProblem) -> Int32 {
        let rows = try rows("SELECT pg_backend_pid()")
        guard let row = rows.first, let pid = try? row.decode(Int32.self) else {
            throw .refused(message: "no answer to pg_backend_pid()", detail: nil, sqlState: "")
        }
        return pid
    }

    /// Ends the connection; what is not committed is rolled back by the server.
    public func close() {
        try? connection.close().wait()
    }

    deinit {
        // A session dropped unclosed (a failure half-way) closes without waiting, which is safe
        // on any thread; the closure keeps the connection until it is closed, as postgres-nio
        // asks.
        let connection = self.connection
        if !connection.isClosed { connection.close().whenComplete { _ in _ = connection } }
    }

    /// postgres-nio's configuration for `location`: a socket or TCP, the login, and TLS as
    /// `sslmode` asks (libpq's meanings: `prefer` and `require` do not check the certificate,
    /// `verify-ca` checks who signed it, `verify-full` also that it names the host).
    static func configuration(for location: PostgresLocation) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if location.isSocket {
            configuration = .init(
                unixSocketPath: "\(location.host)/.s.PGSQL.\(location.port)", username: location.user,
                password: location.password, database: location.database)
        } else {
            configuration = .init(
                host: location.host, port: location.port, username: location.user,
                password: location.password, database: location.database, tls: try tls(for: location))
        }
        let seconds = location.connectTimeout.components.seconds
        configuration.options.connectTimeout = .seconds(seconds)
        return configuration
    }

    /// Encryption as `sslmode` asks (libpq's meanings: `prefer` and `require` do not check the
    /// certificate, unless a root certificate is there).
    static func tls(for location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        if location.isSocket { return .disable }
        let roots = location.rootCertificate
        let verifying = location.sslMode == .verifyCA || location.sslMode == .verifyFull
        if verifying, roots == nil {
            throw PostgresProblem.encryptionFailed(
                server: location.serverName,
                reason: "sslmode=\(location.sslMode.rawValue) needs the authority that signed the server's certificate: put it in ~/.postgresql/root.crt, or name its file with sslrootcert= or PGSSLROOTCERT (sslrootcert=system trusts the system's authorities)")
        }
        switch location.sslMode {
        case .disable, .allow:
            return .disable
        case .prefer:
            return .prefer(try NIOSSLContext(configuration: tlsConfiguration(verifying: .none, roots: nil)))
        case .require:
            // libpq checks the authority when a root certificate is there, even here.
            return .require(try NIOSSLContext(configuration: tlsConfiguration(verifying: roots == nil ? .none : .noHostnameVerification, roots: roots)))
        case .verifyCA:
            return .require(try NIOSSLContext(configuration: tlsConfiguration(verifying: .noHostnameVerification, roots: roots)))
        case .verifyFull:
            // postgres-nio names a host (not an address) to the server, and the certificate is
            // checked against it, or against the address.
            return .require(try NIOSSLContext(configuration: tlsConfiguration(verifying: .fullVerification, roots: roots)))
        }
    }

    private static func tlsConfiguration(verifying verification: CertificateVerification, roots: String?) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = verification
        if let roots, roots != "system" { tls.trustRoots = .file(roots) }
        return tls
    }
}

extension PostgresLocation {
    /// `host:port` (or the socket folder), for messages.
    public var serverName: String {
        isSocket ? "\(host) (socket, port \(port))" : (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
    }
}

extension PostgresQueryMetadata {
    /// The rows a statement inserted, changed or deleted, by its command tag; 0 for a tag
    /// without a count. postgres-nio reads no count from a `MERGE n` tag: it is read here.
    var changedRows: Int {
        if let rows { return rows }
        let parts = command.split(separator: " ")
        if parts.count == 2, parts[0] == "MERGE", let rows = Int(parts[1]) { return rows }
        return 0
    }
}
