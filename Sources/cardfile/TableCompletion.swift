import CardfileApp
import CardfileStore
import CardfileTerminal
import Foundation

/// Completes `--table` from the database named earlier on the command line: the shell's
/// completion script calls the program with the words typed so far.
enum TableCompletion {
    /// Table names starting with `prefix`, from the first word that is an SQLite file.
    @Sendable static func candidates(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        for word in words.map(unquoted) where isSQLiteFile(word) {
            // Opened read-only through the store: the names are the tables and views it
            // would open (a view whose table is gone is left out, as on the tables screen).
            guard let container = try? Container(path: word, options: StoreOptions(createIfMissing: false, readOnly: true)) else { continue }
            let names = container.schema.tables.map(\.name).sorted()
            // A name with control characters cannot be typed, and must not reach the terminal.
            return names.filter { $0.hasPrefix(prefix) && TerminalText.visible($0) == $0 }
        }
        return []
    }

    /// A word as the shell will pass it: bash hands completion the word as typed, so quotes
    /// and backslash escapes are still in it (`'my db.sqlite'`, `my\\ db.sqlite`). They are
    /// read as the command line reads them; a word still being typed is taken as it is.
    static func unquoted(_ word: String) -> String {
        var out = commandWords(word).flatMap { $0.count == 1 ? $0[0] : nil } ?? word
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
