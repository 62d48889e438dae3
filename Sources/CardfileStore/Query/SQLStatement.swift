import Foundation
import GRDB
import GRDBSQLite

/// One statement typed on the SQL screen, as SQLite compiled it: its text, and whether it
/// reads (a result to show) or writes (to be asked about first).
public struct SQLStatement: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// SELECT, VALUES or WITH … SELECT: a result.
        case read
        /// INSERT, REPLACE, UPDATE or DELETE (`verb` in capitals): changes rows, counted first.
        case rows(verb: String)
        /// CREATE, DROP, ALTER and the like: changes the schema, with no rows to count.
        case schema(verb: String)
    }

    /// The statement without what follows it (a semicolon, white space).
    public let text: String
    public let kind: Kind

    /// A statement an engine compiled and classified (see ``StoreEngine/compile(_:)``).
    package init(text: String, kind: Kind) {
        self.text = text
        self.kind = kind
    }

    /// Compiles `sql` on `db` and classifies it. Throws ``StoreError/sqlRefused(message:offset:)``
    /// with SQLite's message and position, or ``StoreError/statementNotRun(reason:)`` for
    /// more than one statement or one the screen does not run (transactions, VACUUM, ATTACH,
    /// PRAGMA), each with the reason.
    static func compile(_ sql: String, db: Database) throws(StoreError) -> SQLStatement {
        let connection = db.sqliteConnection
        var statement: OpaquePointer?
        var tailOffset = 0
        let code = sql.withCString { start -> CInt in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection, start, -1, &statement, &tail)
            if let tail { tailOffset = start.distance(to: tail) }
            return code
        }
        defer { sqlite3_finalize(statement) }
        let utf8 = Array(sql.utf8)
        guard code == SQLITE_OK else {
            let message = sqlite3_errmsg(connection).map { String(cString: $0) } ?? "error \(code)"
            let byte = sqlite3_error_offset(connection)
            throw StoreError.sqlRefused(message: message, offset: byte >= 0 ? Self.characters(utf8, upTo: Int(byte)) : nil)
        }
        guard let statement else {
            throw StoreError.statementNotRun(reason: "There is no statement to run: type one, then F5 or Ctrl-E.")
        }
        // What follows must be nothing but white space, comments and semicolons.
        let rest = String(decoding: utf8[min(tailOffset, utf8.count)...], as: UTF8.self)
        var next: OpaquePointer?
        let restCode = sqlite3_prepare_v2(connection, rest, -1, &next, nil)
        sqlite3_finalize(next)
        if restCode != SQLITE_OK || next != nil {
            throw StoreError.statementNotRun(reason: "One statement at a time: the text goes on after the first one ends (at character \(Self.characters(utf8, upTo: tailOffset) + 1)).")
        }
        var text = String(decoding: utf8[..<min(tailOffset, utf8.count)], as: UTF8.self)
        while let last = text.last, last == ";" || last.isWhitespace { text.removeLast() }
        let verb = Self.firstWord(text)
        let kind: Kind
        switch verb {
        case "SELECT", "VALUES":
            kind = .read
        case "WITH":
            kind = sqlite3_stmt_readonly(statement) != 0 ? .read : .rows(verb: Self.rowVerb(text) ?? "CHANGE")
        case "INSERT", "REPLACE", "UPDATE", "DELETE":
            kind = .rows(verb: verb)
        case "CREATE", "DROP", "ALTER", "ANALYZE", "REINDEX":
            kind = .schema(verb: verb)
        case "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE":
            throw StoreError.statementNotRun(reason: "\(verb) is not run here: each statement runs in a transaction of its own, and a write is asked about first.")
        case "VACUUM":
            throw StoreError.statementNotRun(reason: "VACUUM is not run here: it cannot run inside a transaction, and rewrites the whole file. Run it with sqlite3 while Cardfile is closed.")
        case "ATTACH", "DETACH":
            throw StoreError.statementNotRun(reason: "\(verb) is not run here: it would change one of Cardfile's connections only. Name the other file with sqlite3.")
        case "PRAGMA":
            throw StoreError.statementNotRun(reason: "PRAGMA is not run here: Cardfile's connections keep their own settings. A pragma that reads can be selected, as in SELECT * FROM pragma_table_info('t').")
        case "EXPLAIN":
            throw StoreError.statementNotRun(reason: "EXPLAIN is not run here; its result is SQLite's program, not rows of the file.")
        default:
            throw StoreError.statementNotRun(reason: "\(verb.isEmpty ? "This statement" : verb) is not run here: the SQL screen runs SELECT, VALUES, WITH, INSERT, REPLACE, UPDATE, DELETE, CREATE, DROP, ALTER, ANALYZE and REINDEX.")
        }
        return SQLStatement(text: text, kind: kind)
    }

    /// `sql` up to the end of its first statement (what follows dropped: semicolons, white
    /// space, comments), and the character at which a second statement begins, if one does;
    /// nil when the text cannot be read as tokens (the engine then says what it makes of it).
    package static func firstStatement(_ sql: String) -> (text: String, second: Int?)? {
        guard let tokens = try? SQLTokenizer.tokenize(sql) else { return nil }
        var depth = 0
        guard let end = tokens.firstIndex(where: { token in
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            return depth == 0 && token.isSymbol(";")
        }) else {
            return (String(Array(sql)[..<(tokens.last?.end ?? 0)]), nil)
        }
        let text = String(Array(sql)[..<tokens[end].start]).trimmingCharacters(in: .whitespacesAndNewlines)
        return (text, tokens[end...].first { !$0.isSymbol(";") }?.start)
    }

    /// The number of characters in the first `bytes` bytes of `utf8`.
    private static func characters(_ utf8: [UInt8], upTo bytes: Int) -> Int {
        String(decoding: utf8[..<min(max(0, bytes), utf8.count)], as: UTF8.self).count
    }

    /// The first word of `text` in capitals, past comments; "" when there is none.
    package static func firstWord(_ text: String) -> String {
        guard let tokens = try? SQLTokenizer.tokenize(text), let first = tokens.first, first.kind == .word else { return "" }
        return first.value.uppercased()
    }

    /// The words of `text` at any depth that write rows (INSERT, UPDATE, DELETE, MERGE), in
    /// capitals, in order; empty when there are none or the text cannot be read as tokens.
    /// A verb counts only as a statement begins with it (`INSERT INTO`, `DELETE FROM`,
    /// `MERGE INTO`, `UPDATE` a table `SET`), not as a column named `delete`.
    package static func writeVerbs(_ text: String) -> [String] {
        guard let tokens = try? SQLTokenizer.tokenize(text) else { return [] }
        var verbs: [String] = []
        for (index, token) in tokens.enumerated() where token.kind == .word {
            let verb = token.value.uppercased()
            let next = tokens.indices.contains(index + 1) ? tokens[index + 1].value.uppercased() : ""
            switch verb {
            case "INSERT", "MERGE": if next == "INTO" { verbs.append(verb) }
            case "DELETE": if next == "FROM" { verbs.append(verb) }
            case "UPDATE":
                // UPDATE [ONLY] name [[AS] alias] SET: a SET within the next few words.
                if tokens[(index + 1)..<min(tokens.count, index + 8)].contains(where: { $0.isWord("SET") }) { verbs.append(verb) }
            default: break
            }
        }
        return verbs
    }

    /// The verb of a WITH … INSERT / UPDATE / DELETE: its first such word outside parentheses.
    static func rowVerb(_ text: String) -> String? {
        guard let tokens = try? SQLTokenizer.tokenize(text) else { return nil }
        var depth = 0
        for token in tokens {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            if depth == 0, token.kind == .word, ["INSERT", "REPLACE", "UPDATE", "DELETE"].contains(token.value.uppercased()) {
                return token.value.uppercased()
            }
        }
        return nil
    }
}
