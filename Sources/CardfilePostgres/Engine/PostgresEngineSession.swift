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
    /// True when the owner has opened a transaction on the session (a cursor then lives in it).
    package let inTransaction: Bool
    /// Rows a scan fetches at a time from its cursor.
    package var scanBatch = 10_000

    package init(_ session: PostgresSession, inTransaction: Bool = false) {
        self.session = session
        self.inTransaction = inTransaction
    }

    package var dialect: any SQLDialect { PostgresDialect() }

    package func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]] {
        try session.rows(Self.query(sql, arguments)).map(Self.values)
    }

    /// Reads through a cursor, `scanBatch` rows at a time, in a transaction of its own when
    /// none is open; `cancellation` is asked between batches.
    package func forEachRow(_ sql: String, _ arguments: [Value], cancellation: Cancellation?, _ body: ([Value]) throws -> Void) throws {
        let own = !inTransaction
        if own { try session.run("BEGIN READ ONLY") }
        do {
            try session.run(Self.query("DECLARE cardfile_scan NO SCROLL CURSOR FOR " + sql, arguments))
            while true {
                if cancellation?.isCancelled == true { throw Cancellation.Stopped() }
                let batch = try session.rows(PostgresQuery(unsafeSQL: "FETCH \(scanBatch) FROM cardfile_scan"))
                for row in batch { try body(try Self.values(row)) }
                if batch.count < scanBatch { break }
            }
            try session.run("CLOSE cardfile_scan")
            if own { try session.run("COMMIT") }
        } catch {
            if own { try? session.run("ROLLBACK") } else { try? session.run("CLOSE cardfile_scan") }
            throw error
        }
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
    static func numbered(_ sql: String) -> (sql: String, count: Int) {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var quote: Character?
        var lineComment = false
        var blockComment = false
        var previous: Character = " "
        for char in sql {
            defer { previous = char }
            if lineComment {
                if char == "\n" { lineComment = false }
            } else if blockComment {
                if previous == "*" && char == "/" { blockComment = false; out.append(char); previous = " "; continue }
            } else if let open = quote {
                if char == open { quote = nil }
            } else if char == "'" || char == "\"" {
                quote = char
            } else if char == "-" && previous == "-" {
                lineComment = true
            } else if char == "*" && previous == "/" {
                blockComment = true
            } else if char == "?" {
                count += 1
                out += "$\(count)"
                continue
            }
            out.append(char)
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
