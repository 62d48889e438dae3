import CardfileStore
import Foundation
import NIOCore
import PostgresNIO

/// PostgreSQL's ``EngineSession``: the store's statements on one ``PostgresSession``.
///
/// - Each `?` outside quotes and comments becomes `$1`, `$2`, … in order.
/// - Values go as text of no declared type (bytes as `bytea`), so the server reads each as
///   the type of what it meets: a value compared with an integer column is read as an integer
///   by the type's own input function, as psql's would be.
/// - Rows come back as ``Value``s by each cell's type: integers, floats, booleans, bytes,
///   text, uuids (as their text) and `numeric` (exact, as ``Value/decimal(_:)``); every other
///   type must be selected as `::text` (``PostgresDialect/selectExpression(_:)`` does).
package struct PostgresEngineSession: EngineSession {
    package let session: PostgresSession
    /// Rows a scan fetches at a time from its cursor.
    package var scanBatch = 10_000

    /// Transactions open on the session through this value (and its copies): the owner's
    /// (``inTransaction``) and those of scans running.
    private let open: OpenTransactions

    /// A session on `session`; `inTransaction` when its owner has opened a transaction there
    /// (a scan's cursor then lives in it, and the scan does not commit it).
    package init(_ session: PostgresSession, inTransaction: Bool = false) {
        self.session = session
        self.open = OpenTransactions(count: inTransaction ? 1 : 0)
    }

    package var dialect: any SQLDialect { PostgresDialect() }

    package func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]] {
        try session.rows(Self.query(sql, arguments)).map(Self.values)
    }

    /// Reads through a cursor, `scanBatch` rows at a time, in a transaction of its own when
    /// none is open; `cancellation` is asked between batches (the server's sort before the
    /// first batch runs to its end: the protocol's cancel request is not sent yet).
    package func forEachRow(_ sql: String, _ arguments: [Value], cancellation: Cancellation?, _ body: ([Value]) throws -> Void) throws {
        // (Inside the owner's transaction, or the body of another scan: the cursor lives in
        // that one.)
        let own = open.count == 0
        // A name of its own: a scan may run inside another's body.
        let cursor = "cardfile_scan_\(UInt32.random(in: 0...UInt32.max))"
        if own {
            try session.run("BEGIN READ ONLY")
            open.count += 1
        }
        defer { if own { open.count -= 1 } }
        do {
            try session.run(Self.query("DECLARE \(cursor) NO SCROLL CURSOR FOR " + sql, arguments))
            while true {
                if cancellation?.isCancelled == true { throw Cancellation.Stopped() }
                let batch = try session.rows(PostgresQuery(unsafeSQL: "FETCH \(scanBatch) FROM \(cursor)"))
                for row in batch { try body(try Self.values(row)) }
                if batch.count < scanBatch { break }
            }
            try session.run(PostgresQuery(unsafeSQL: "CLOSE \(cursor)"))
            if own { try session.run("COMMIT") }
        } catch {
            if own { try? session.run("ROLLBACK") } else { try? session.run(PostgresQuery(unsafeSQL: "CLOSE \(cursor)")) }
            throw error
        }
    }

    package func execute(_ sql: String, _ arguments: [Value]) throws -> Int {
        try session.execute(Self.query(sql, arguments))
    }

    /// A savepoint around `body`: an error inside rolls back to it, and the transaction goes
    /// on (PostgreSQL refuses every statement of a transaction after an error otherwise).
    package func attempt<T>(_ body: () throws -> T) throws -> T {
        let name = "cardfile_attempt_\(UInt32.random(in: 0...UInt32.max))"
        try session.run(PostgresQuery(unsafeSQL: "SAVEPOINT \(name)"))
        do {
            let result = try body()
            try session.run(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"))
            return result
        } catch {
            try session.run(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(name)"))
            try session.run(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"))
            throw error
        }
    }

    /// Constraints (SQLSTATE class 23) by the server's words; a value its column's type
    /// refused (class 22: not a date, not one of an enum's labels, out of range) by casting each
    /// written value to its column's type on its own, so the failure names the field.
    package func constraintFailures(for error: any Error, id: ObjectID, entity: Entity, operation: WriteOperation, schema: DatabaseSchema) -> [ValidationFailure]? {
        guard case .refused(let message, let detail, let state)? = error as? PostgresProblem else { return nil }
        if state.hasPrefix("23") {
            return PostgresConstraintFailures.failures(message: message, detail: detail, sqlState: state, id: id, table: entity.table, operation: operation)
        }
        guard state.hasPrefix("22"), case .write(let values) = operation else { return nil }
        var failures: [ValidationFailure] = []
        for (column, value) in zip(entity.table.columns, values) where !value.isNull && column.isWritable {
            do {
                _ = try attempt { try rows("SELECT (\(PostgresDialect().placeholder(for: column)))::text", [value]) }
            } catch PostgresProblem.refused(let reason, _, _) {
                failures.append(ValidationFailure(objectID: id, field: column.name, rule: .refusedValue(reason: reason), value: value))
            } catch {
                return nil
            }
        }
        return failures.isEmpty ? [ValidationFailure(objectID: id, field: nil, rule: .refusedValue(reason: message), value: nil)] : failures
    }

    /// True when the plan has no sort in it.
    package func isServedByIndex(_ sql: String, _ arguments: [Value]) throws -> Bool {
        let plan = try session.rows(Self.query("EXPLAIN " + sql, arguments)).compactMap { try? $0.decode(String.self) }
        return !plan.contains { $0.contains("Sort") }
    }

    // MARK: Statements

    /// `sql` with its `?` numbered, and `arguments` bound as untyped text (bytes as bytea).
    static func query(_ sql: String, _ arguments: [Value]) throws -> PostgresQuery {
        let (numbered, count) = numbered(sql)
        guard count == arguments.count else {
            throw PostgresProblem.refused(message: "a statement has \(count) placeholders for \(arguments.count) values", detail: nil, sqlState: "")
        }
        var bindings = PostgresBindings(capacity: arguments.count)
        for value in arguments {
            switch value {
            case .null: bindings.appendNull()
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            default: bindings.append(UntypedText(text: PostgresValues.text(value)))
            }
        }
        return PostgresQuery(unsafeSQL: numbered, binds: bindings)
    }

    /// `sql` with each `?` outside quotes and comments replaced by `$1`, `$2`, …
    ///
    /// Quotes are `'…'` (an `E'…'` string also skips what follows a backslash) and `"…"`;
    /// comments `-- …` to the end of the line and `/* … */`. Dollar quoting is not read: the
    /// store's own statements never use it.
    static func numbered(_ sql: String) -> (sql: String, count: Int) {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var quote: Character?
        var escapes = false
        var escaped = false
        var lineComment = false
        var blockComment = false
        // The character before, as far as opening or closing something goes: a closing or
        // opening pair does not lend its last character to the next pair.
        var previous: Character = " "
        var beforePrevious: Character = " "
        for char in sql {
            var current = char
            if lineComment {
                if char == "\n" || char == "\r" || char == "\r\n" { lineComment = false }
            } else if blockComment {
                if previous == "*" && char == "/" { blockComment = false; current = " " }
            } else if let open = quote {
                if escaped {
                    escaped = false
                    current = " "
                } else if escapes && char == "\\" {
                    escaped = true
                } else if char == open {
                    quote = nil
                }
            } else if char == "'" || char == "\"" {
                quote = char
                // E'…' (or e'…'), where the E is not the end of a longer word.
                escapes = char == "'" && (previous == "E" || previous == "e") && !(beforePrevious.isLetter || beforePrevious.isNumber || beforePrevious == "_")
            } else if char == "-" && previous == "-" {
                lineComment = true
            } else if char == "*" && previous == "/" {
                blockComment = true
                current = " "
            } else if char == "?" {
                count += 1
                out += "$\(count)"
                beforePrevious = previous
                previous = current
                continue
            }
            out.append(char)
            beforePrevious = previous
            previous = current
        }
        return (out, count)
    }

    // MARK: Rows

    static func values(_ row: PostgresRow) throws -> [Value] {
        var values: [Value] = []
        for cell in row { values.append(try value(cell)) }
        return values
    }

    static func value(_ cell: PostgresCell) throws -> Value {
        guard let bytes = cell.bytes else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8, .oid: return .integer(try cell.decode(Int64.self))
            // A float4 through its own shortest text, so 0.1 stays 0.1 (not 0.10000000149…).
            case .float4: return .real(Double("\(try cell.decode(Float.self))") ?? .nan)
            case .float8: return .real(try cell.decode(Double.self))
            case .bool: return .boolean(try cell.decode(Bool.self))
            case .bytea: return .blob(try cell.decode(Data.self))
            case .text, .varchar, .bpchar, .name: return .text(try cell.decode(String.self))
            case .uuid: return .text(try cell.decode(UUID.self).uuidString.lowercased())
            case .numeric:
                guard cell.format == .binary, let text = NumericText.text(bytes) else { break }
                return .decimal(text)
            default:
                break
            }
        } catch {
            throw PostgresProblem.refused(message: "cannot read \(cell.columnName): \(error)", detail: nil, sqlState: "")
        }
        throw PostgresProblem.refused(message: "cannot read \(cell.columnName) of type \(cell.dataType) (select it as text)", detail: nil, sqlState: "")
    }
}

/// How many transactions are open through one engine session and its copies.
private final class OpenTransactions {
    var count: Int
    init(count: Int) { self.count = count }
}

/// Text sent with no declared type: the server reads it as whatever type the statement needs
/// there.
struct UntypedText: PostgresDynamicTypeEncodable {
    var text: String
    var psqlType: PostgresDataType { .null }   // object id 0: "unspecified"
    var psqlFormat: PostgresFormat { .text }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}
