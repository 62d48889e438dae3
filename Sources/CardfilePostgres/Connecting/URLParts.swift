import Foundation

/// The pieces of a `postgres://user:password@host:port/database?key=value` URL, decoded, before
/// anything fills in what it leaves out. libpq's URI form: every piece may be left out, a host
/// may be an IPv6 address in brackets or a percent-encoded socket folder (`%2Fvar%2Frun%2Fpostgresql`).
struct URLParts: Equatable {
    var user: String?
    var password: String?
    var host: String?
    var port: String?
    var database: String?
    var parameters: [String: String] = [:]

    /// The query parameters understood (those libpq also takes in a URL).
    static let knownParameters: Set<String> = [
        "host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "connect_timeout", "application_name",
    ]

    static func parse(_ url: String) throws(PostgresLocationError) -> URLParts {
        guard let schemeEnd = url.range(of: "://"), PostgresLocation.isURL(url) else {
            throw .malformed("it does not start with postgres:// or postgresql://")
        }
        var rest = Substring(url[schemeEnd.upperBound...])
        var parts = URLParts()

        // The user part first, as libpq finds it: before an @ that comes ahead of the first /.
        // (The last such @, so that an @ or ? left unencoded in a password still reads.)
        let userRegion = rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]
        if let at = userRegion.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                let password = try URLPart.decode(userInfo[userInfo.index(after: colon)...], what: "the password")
                parts.password = password.isEmpty ? nil : password   // libpq: an empty one is none
                let user = try URLPart.decode(userInfo[..<colon], what: "the user name")
                parts.user = user.isEmpty ? nil : user
            } else if !userInfo.isEmpty {
                parts.user = try URLPart.decode(userInfo, what: "the user name")
            }
        }
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
                let (rawKey, rawValue) = pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (pair, "")
                let key = try URLPart.decode(rawKey, what: "a parameter's name")
                // (The name is not quoted: in a URL written without its escapes, it could be
                // a piece of the password.)
                guard knownParameters.contains(key) else {
                    let names = knownParameters.sorted().joined(separator: ", ")
                    throw .malformed("it has a parameter cardfile does not read (it reads \(names); write & = ? / @ in a password as %26 %3D %3F %2F %40)")
                }
                let value = try URLPart.decode(rawValue, what: key == "password" ? "the password" : "the parameter \(key)")
                if key != "password" || !value.isEmpty { parts.parameters[key] = value }
            }
        }
        var hostPort = rest
        if let slash = rest.firstIndex(of: "/") {
            hostPort = rest[..<slash]
            let path = rest[rest.index(after: slash)...]
            if !path.isEmpty { parts.database = try URLPart.decode(path, what: "the database name") }
        }
        guard !hostPort.contains(",") else {
            throw .malformed("it names several hosts; cardfile connects to one")
        }
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw .malformed("an IPv6 address opens [ and does not close it") }
            parts.host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") {
                parts.port = String(after.dropFirst())
            } else if !after.isEmpty {
                throw .malformed("\"\(after)\" follows the IPv6 address")
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            let host = try URLPart.decode(hostPort[..<colon], what: "the host")
            parts.host = host.isEmpty ? nil : host
            parts.port = String(hostPort[hostPort.index(after: colon)...])
        } else if !hostPort.isEmpty {
            parts.host = try URLPart.decode(hostPort, what: "the host")
        }
        if parts.port?.isEmpty == true { parts.port = nil }
        return parts
    }
}

/// Percent-encoding of a URL's pieces, as a URL in a message shows them.
enum URLPart {
    static let userCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
    static let hostCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    static func encode(_ text: String, allowing allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// `text` with its `%XX` escapes decoded; throws naming `what` when an escape is broken or
    /// the bytes are not UTF-8 (without quoting the text, which may be a password).
    static func decode(_ text: Substring, what: String) throws(PostgresLocationError) -> String {
        guard text.contains("%") else { return String(text) }
        guard let decoded = String(text).removingPercentEncoding else {
            throw .malformed("\(what) has a broken %-escape (write % itself as %25)")
        }
        return decoded
    }
}
