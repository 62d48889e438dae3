import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

extension PostgresProblem {
    /// What an error from connecting means for a person at `location`.
    init(connecting error: any Error, to location: PostgresLocation) {
        let server = location.serverName
        guard let error = error as? PSQLError else {
            self = .unreachable(server: server, reason: Self.networkReason(error, location: location))
            return
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let text = error.serverInfo?[.message] ?? "refused"
            switch state {
            case "3D000":
                self = .unknownDatabase(server: server, database: location.database)
            case "28P01", "28000":
                self = .loginRefused(server: server, user: location.user, reason: text, passwordSource: location.passwordSource)
            default:
                self = .refused(message: text, detail: error.serverInfo?[.detail], sqlState: state)
            }
        case .authMechanismRequiresPassword:
            self = .passwordNeeded(server: server, user: location.user)
        case .unsupportedAuthMechanism:
            self = .loginRefused(server: server, user: location.user, reason: "it asks for a way of logging in that cardfile does not offer (use scram-sha-256, md5 or trust)", passwordSource: location.passwordSource)
        case .sslUnsupported:
            self = .encryptionUnavailable(server: server, sslMode: location.sslMode)
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            self = .encryptionFailed(server: server, reason: Self.reason(error))
        case .connectionError:
            if let tls = error.underlying as? NIOSSLError {
                self = .encryptionFailed(server: server, reason: String(describing: tls))
            } else {
                self = .unreachable(server: server, reason: Self.networkReason(error.underlying ?? error, location: location))
            }
        default:
            self = .unreachable(server: server, reason: Self.networkReason(error.underlying ?? error, location: location))
        }
    }

    /// What an error from running a statement means.
    init(running error: any Error, on location: PostgresLocation) {
        guard let error = error as? PSQLError else {
            self = .connectionLost(server: location.serverName, reason: String(describing: error))
            return
        }
        switch error.code {
        case .server:
            self = .refused(
                message: error.serverInfo?[.message] ?? "refused", detail: error.serverInfo?[.detail],
                sqlState: error.serverInfo?[.sqlState] ?? "")
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown:
            self = .connectionLost(server: location.serverName, reason: Self.networkReason(error.underlying ?? error, location: location))
        default:
            self = .refused(message: Self.reason(error), detail: nil, sqlState: "")
        }
    }

    /// postgres-nio's description of its error is deliberately vague; its code, and the error
    /// under it, say what happened.
    static func reason(_ error: PSQLError) -> String {
        error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }

    /// The network's words for why a connection failed: refused, timed out, an unknown host.
    static func networkReason(_ error: any Error, location: PostgresLocation) -> String {
        if let io = error as? IOError {
            return Self.errnoReason(io.errnoCode, location: location)
        }
        if let failure = error as? NIOConnectionError {
            if let first = failure.connectionErrors.first { return networkReason(first.error, location: location) }
            if failure.dnsAError != nil || failure.dnsAAAAError != nil {
                return "the host name \"\(location.host)\" is not known"
            }
            return "no address of \"\(location.host)\" answered"
        }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout(let amount):
                return "no answer within \(amount.nanoseconds / 1_000_000_000) seconds"
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed:
                return "the server closed the connection"
            default:
                return String(describing: channel)
            }
        }
        if let psql = error as? PSQLError {
            switch psql.code {
            case .serverClosedConnection: return "the server closed the connection"
            case .clientClosedConnection: return "the connection was closed"
            default: return String(describing: psql.code)
            }
        }
        return String(describing: error)
    }

    private static func errnoReason(_ code: Int32, location: PostgresLocation) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused"
        case ENOENT where location.isSocket: return "there is no server socket in \(location.host) for port \(location.port)"
        case EACCES: return "permission denied"
        case ETIMEDOUT: return "the connection timed out"
        case EHOSTUNREACH, ENETUNREACH: return "no route to the host"
        default: return String(cString: strerror(code)).lowercased()
        }
    }
}
