import Foundation

/// Where a PostgreSQL database is and who connects to it.
///
/// Made from a `postgres://` (or `postgresql://`) URL and completed the way libpq, and so psql,
/// completes it: what the URL leaves out comes from `PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE`,
/// `PGSSLMODE` and `PGCONNECT_TIMEOUT`, then from libpq's defaults (the socket folder Debian's
/// server uses, port 5432, the login name, a database named after the user). A password comes
/// from the URL, else `PGPASSWORD`, else the password file (`PGPASSFILE`, else `~/.pgpass`).
///
/// A caller must never print the URL it was given: ``description`` is the location with its
/// password masked, and ``PostgresURLMask`` masks one inside any other text.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// A host name, an address, or (when it starts with `/`) the folder of the server's socket.
    public var host: String
    public var port: Int
    public var user: String
    /// The password to offer when the server asks for one; nil when none was found.
    public var password: String?
    public var database: String
    public var sslMode: SSLMode
    /// How long to wait for the server to answer before giving up.
    public var connectTimeout: Duration
    /// Where the password came from (a message about a refused login names it, never the password).
    public var passwordSource: PasswordSource
    /// Whether the URL itself held a password (``description`` then shows it masked).
    public var urlHadPassword: Bool
    /// The certificate authorities trusted for `verify-ca` and `verify-full` (and, when the file
    /// is there, `require`, as libpq does): `sslrootcert`, `PGSSLROOTCERT`, else
    /// `~/.postgresql/root.crt` when it exists. `system` means the system's authorities.
    public var rootCertificate: String?

    /// The folder of the server's socket when neither the URL nor `PGHOST` names a host
    /// (Debian's libpq is built with this one).
    public static let defaultSocketFolder = "/var/run/postgresql"

    /// Whether `text` is a PostgreSQL URL rather than a file's path.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Whether the server is reached through a socket in a folder rather than over TCP.
    public var isSocket: Bool { host.hasPrefix("/") }

    /// The location as a URL with its password masked: the only form a message may quote.
    public var description: String {
        var text = "postgres://" + URLPart.encode(user, allowing: URLPart.userCharacters)
        if urlHadPassword { text += ":" + PostgresURLMask.mask }
        text += "@"
        if isSocket {
            text += URLPart.encode(host, allowing: URLPart.hostCharacters)
        } else {
            text += host.contains(":") ? "[\(host)]" : host
        }
        text += ":\(port)/" + URLPart.encode(database, allowing: URLPart.userCharacters)
        if sslMode != .prefer { text += "?sslmode=\(sslMode.rawValue)" }
        return text
    }

    /// `url` completed from `environment`, the password file in `homeFolder` (unless
    /// `PGPASSFILE` names another) and `loginName` (the user when nothing else names one).
    ///
    /// Returns the location and what a person should be told on the way (a password file that
    /// others can read is ignored, as libpq ignores it). Throws when the URL cannot be read; the
    /// message never quotes its password.
    public static func resolve(
        _ url: String, environment: [String: String], homeFolder: String, loginName: String
    ) throws(PostgresLocationError) -> (location: PostgresLocation, warnings: [String]) {
        let parts = try URLParts.parse(url)
        func setting(_ key: String, _ variable: String) -> String? {
            if let value = parts.parameters[key], !value.isEmpty { return value }
            if let value = environment[variable], !value.isEmpty { return value }
            return nil
        }
        let host = parts.host ?? setting("host", "PGHOST") ?? defaultSocketFolder
        let portText = parts.port ?? setting("port", "PGPORT") ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else {
            // (The text is not quoted: in a URL written without its escapes, it could be a
            // piece of the password.)
            throw .malformed("the port is not a number from 1 to 65535 (write / ? @ : in a password as %2F %3F %40 %3A)")
        }
        let user = parts.user ?? setting("user", "PGUSER") ?? loginName
        let database = parts.database ?? setting("dbname", "PGDATABASE") ?? user
        let modeText = setting("sslmode", "PGSSLMODE") ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: modeText) else {
            let modes = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
            throw .malformed("sslmode \"\(modeText)\" is not one of \(modes)")
        }
        var timeout = Duration.seconds(10)
        if let text = setting("connect_timeout", "PGCONNECT_TIMEOUT") {
            guard let seconds = Int(text), seconds >= 0 else {
                throw .malformed("connect_timeout \"\(text)\" is not a whole number of seconds")
            }
            // libpq reads 0 as "wait for ever" and treats 1 as 2; a minute is as long as a
            // person waits at a prompt, so that is the longest taken here.
            timeout = .seconds(seconds == 0 ? 60 : min(max(seconds, 2), 60))
        }

        var rootCertificate = setting("sslrootcert", "PGSSLROOTCERT")
        if rootCertificate == nil, FileManager.default.fileExists(atPath: homeFolder + "/.postgresql/root.crt") {
            rootCertificate = homeFolder + "/.postgresql/root.crt"
        }
        var location = PostgresLocation(
            host: host, port: port, user: user, password: nil, database: database, sslMode: sslMode,
            connectTimeout: timeout, passwordSource: .none, urlHadPassword: parts.password != nil || parts.parameters["password"] != nil,
            rootCertificate: rootCertificate)
        var warnings: [String] = []
        if let password = parts.password ?? parts.parameters["password"] {
            location.password = password
            location.passwordSource = .url
        } else if let password = environment["PGPASSWORD"], !password.isEmpty {
            location.password = password
            location.passwordSource = .environment
        } else {
            let file = environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFolder + "/.pgpass"
            switch PasswordFile.read(at: file) {
            case .missing:
                break
            case .tooOpen:
                warnings.append("the password file \(file) is ignored: others can read it (chmod 600 \(file))")
            case .entries(let entries):
                // libpq's rule: the default socket folder is "localhost" in the file; another
                // folder is matched by its path.
                let hostKey = host == defaultSocketFolder ? "localhost" : host
                if let entry = entries.first(where: { $0.matches(host: hostKey, port: port, database: database, user: user) }) {
                    location.password = entry.password
                    location.passwordSource = .passwordFile(file)
                }
            }
        }
        return (location, warnings)
    }
}

/// libpq's `sslmode`: whether the connection is encrypted, and what is checked of the server's
/// certificate.
public enum SSLMode: String, Sendable, CaseIterable {
    /// Never encrypted.
    case disable
    /// Encrypted when the server asks for it (cardfile tries plain first, as libpq does).
    case allow
    /// Encrypted when the server offers it (libpq's default).
    case prefer
    /// Always encrypted; the certificate is not checked.
    case require
    /// Always encrypted; the certificate must be signed by a trusted authority.
    case verifyCA = "verify-ca"
    /// Always encrypted; the certificate must be trusted and name the host.
    case verifyFull = "verify-full"
}

/// Where a location's password came from.
public enum PasswordSource: Sendable, Equatable {
    case none
    case url
    case environment
    case passwordFile(String)
}

/// Why a PostgreSQL URL cannot be read. The message never quotes the URL's password.
public enum PostgresLocationError: Error, Equatable, Sendable {
    case malformed(String)

    /// The reason in a person's words.
    public var message: String {
        switch self {
        case .malformed(let reason): return "cannot read the PostgreSQL URL: \(reason)"
        }
    }
}
