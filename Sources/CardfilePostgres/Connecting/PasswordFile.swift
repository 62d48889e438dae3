import Foundation

/// libpq's password file (`~/.pgpass`): lines of `host:port:database:user:password`, where `*`
/// in any of the first four matches anything, `\:` and `\\` stand for `:` and `\`, and lines
/// starting with `#` are comments. The first line that matches gives the password, up to an
/// unescaped `:` if there is one.
enum PasswordFile {
    struct Entry: Equatable {
        var host: String
        var port: String
        var database: String
        var user: String
        var password: String

        func matches(host: String, port: Int, database: String, user: String) -> Bool {
            func field(_ pattern: String, _ value: String) -> Bool { pattern == "*" || pattern == value }
            return field(self.host, host) && field(self.port, String(port)) && field(self.database, database) && field(self.user, user)
        }
    }

    enum Contents: Equatable {
        case missing
        /// Others than its owner can read or write it: libpq then ignores it, and so does cardfile.
        case tooOpen
        case entries([Entry])
    }

    static func read(at path: String) -> Contents {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return .missing }
        if status.st_mode & (S_IRWXG | S_IRWXO) != 0 { return .tooOpen }
        guard let data = FileManager.default.contents(atPath: path) else { return .missing }
        return .entries(parse(String(decoding: data, as: UTF8.self)))
    }

    static func parse(_ text: String) -> [Entry] {
        text.split(whereSeparator: \.isNewline).compactMap { line -> Entry? in
            guard !line.hasPrefix("#") else { return nil }
            var fields: [String] = []
            var current = ""
            var escaped = false
            for character in line {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":" {
                    // The password, too, ends at an unescaped colon (libpq drops the rest).
                    guard fields.count < 4 else { break }
                    fields.append(current)
                    current = ""
                } else {
                    current.append(character)
                }
            }
            fields.append(current)
            guard fields.count == 5 else { return nil }
            return Entry(host: fields[0], port: fields[1], database: fields[2], user: fields[3], password: fields[4])
        }
    }
}
