import Foundation
import GRDB

/// Completes `--table` from the database named earlier on the command line: the shell's
/// completion script calls the program with the words typed so far.
enum TableCompletion {
    /// Table names starting with `prefix`, from the first word that is an SQLite file.
    @Sendable static func candidates(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        for word in words.map(unquoted) where isSQLiteFile(word) {
            var configuration = Configuration()
            configuration.readonly = true
            guard let queue = try? DatabaseQueue(path: word, configuration: configuration) else { continue }
            defer { try? queue.close() }
            let names = (try? queue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            }) ?? []
            return names.filter { $0.hasPrefix(prefix) }
        }
        return []
    }

    /// A word as the shell will pass it: bash hands completion the word as typed, so quotes
    /// and backslash escapes are still in it (`'my db.sqlite'`, `my\ db.sqlite`).
    static func unquoted(_ word: String) -> String {
        var out = ""
        var quote: Character?
        var escaped = false
        for character in word {
            if escaped {
                out.append(character)
                escaped = false
            } else if let open = quote {
                if character == open { quote = nil } else { out.append(character) }
            } else if character == "\\" {
                escaped = true
            } else if character == "'" || character == "\"" {
                quote = character
            } else {
                out.append(character)
            }
        }
        if out.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] { out = home + out.dropFirst() }
        return out
    }

    /// Whether `path` names a file that starts with SQLite's header.
    static func isSQLiteFile(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 16) else { return false }
        return header == Data("SQLite format 3\0".utf8)
    }
}
