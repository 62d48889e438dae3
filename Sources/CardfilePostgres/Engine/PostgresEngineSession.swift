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
    /// The owner's transaction when it is begun only once a second statement comes (see
    /// ``DeferredBegin``); nil when the owner began it, or runs none.
    let deferred: DeferredBegin?
    /// What the owner's write did so far (nil outside a write).
    let written: WriteLog?

    /// A session on `session`; `inTransaction` when its owner has opened a transaction there
    /// (a scan's cursor then lives in it, and the scan does not commit it).
    package init(_ session: PostgresSession, inTransaction: Bool = false) {
        self.session = session
        self.open = OpenTransactions(count: inTransaction ? 1 : 0)
        deferred = nil
        written = nil
    }

    /// A session of a write: its transaction begun by its owner, or by `deferred` when needed;
    /// `written` notes what it does.
    init(_ session: PostgresSession, deferred: DeferredBegin?, written: WriteLog) {
        self.session = session
        self.open = OpenTransactions(count: deferred == nil ? 1 : 0)
        self.deferred = deferred
        self.written = written
    }

    package var dialect: any SQLDialect { PostgresDialect() }

    package func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]] {
        try beforeStatement(sql)
        written?.note(sql)
        let rows = try session.rows(Self.query(sql, arguments)).map(Self.values)
        // (A write's RETURNING gives a row for each row it changed.)
        deferred?.ran(changed: Self.isRead(sql) ? 0 : rows.count)
        return rows
    }

    /// Begins the deferred transaction when `sql` may not run on its own: a statement after
    /// the first, or one that locks rows (a lock outside a transaction ends with its
    /// statement). A statement after a first that changed rows alone cannot join it in one
    /// transaction any more: that is refused, as a mistake of the caller's.
    private func beforeStatement(_ sql: String) throws {
        guard let deferred, !deferred.begun else { return }
        guard deferred.statements > 0 || sql.hasSuffix(PostgresDialect().lockForWrite) else { return }
        guard deferred.changedAlone == 0 else {
            throw PostgresProblem.refused(
                message: "cardfile wrote one statement on its own and then had another to run in the same save; nothing more was written",
                detail: nil, sqlState: "")
        }
        try session.run("BEGIN")
        deferred.begun = true
        open.count += 1
    }

    /// True for a statement that reads only (the store's reads start with SELECT; a locking
    /// read changes nothing either).
    static func isRead(_ sql: String) -> Bool {
        sql.drop { $0 == " " || $0 == "\n" }.prefix(6).uppercased() == "SELECT"
    }

    /// Reads through a cursor, `scanBatch` rows at a time, in a transaction of its own when
    /// none is open; `cancellation` is asked between batches, and a batch the server is still
    /// working on (the first of a sort waits for the whole sort) is cancelled there
    /// (`pg_cancel_backend` from a connection of its own: postgres-nio keeps the key the
    /// protocol's cancel request needs to itself).
    package func forEachRow(_ sql: String, _ arguments: [Value], cancellation: Cancellation?, _ body: ([Value]) throws -> Void) throws {
        try scan(sql, arguments, cancellation: cancellation) { row in try body(try Self.values(row)) }
    }

    /// Each row of `sql`, read through a cursor in batches of ``scanBatch``.
    private func scan(_ sql: String, _ arguments: [Value], cancellation: Cancellation?, _ body: (PostgresRow) throws -> Void) throws {
        try beforeStatement(sql)
        deferred?.ran(changed: 0)
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
            // (A batch may take long: the first of a sort waits for the whole sort. Once
            // cancelled, the server is asked to stop it.)
            let backend = cancellation == nil ? nil : try session.backend()
            try session.run(Self.query("DECLARE \(cursor) NO SCROLL CURSOR FOR " + sql, arguments))
            while true {
                if cancellation?.isCancelled == true { throw Cancellation.Stopped() }
                let batch = try fetch(cursor, backend: backend, cancellation: cancellation)
                for row in batch { try body(row) }
                if batch.count < scanBatch { break }
            }
            try session.run(PostgresQuery(unsafeSQL: "CLOSE \(cursor)"))
            // (Rolled back, not committed: it wrote nothing, and a setting a statement typed
            // on the SQL screen changed with `set_config` goes back with it.)
            if own { try session.run("ROLLBACK") }
            // A scan that can be stopped is a long one or a statement typed on the SQL
            // screen, which may have taken a session's advisory lock (`pg_advisory_lock`)
            // that no rollback lets go: let go of it before the connection is lent again.
            if own, cancellation != nil { try session.run("SELECT pg_advisory_unlock_all()") }
        } catch {
            if own { try? session.run("ROLLBACK") } else { try? session.run(PostgresQuery(unsafeSQL: "CLOSE \(cursor)")) }
            if own, cancellation != nil { try? session.run("SELECT pg_advisory_unlock_all()") }
            throw error
        }
    }

    /// The next batch of `cursor`; a batch the server is still working on when `cancellation`
    /// is set is cancelled there (see ``PostgresSession/rows(_:backend:cancelled:)``).
    private func fetch(_ cursor: String, backend: Int32?, cancellation: Cancellation?) throws -> [PostgresRow] {
        let query = PostgresQuery(unsafeSQL: "FETCH \(scanBatch) FROM \(cursor)")
        guard let backend, let cancellation else { return try session.rows(query) }
        let isCancelled: @Sendable () -> Bool = { cancellation.isCancelled }
        do {
            return try session.rows(query, backend: backend, cancelled: isCancelled)
        } catch {
            if case .refused(_, _, let state) = error, state == "57014", cancellation.isCancelled { throw Cancellation.Stopped() }
            throw error
        }
    }

    package func execute(_ sql: String, _ arguments: [Value]) throws -> Int {
        try beforeStatement(sql)
        written?.note(sql)
        let changed = try session.execute(Self.query(sql, arguments))
        deferred?.ran(changed: changed)
        return changed
    }

    /// A statement the server is asked to cancel once `cancellation` is set (it then fails
    /// with SQLSTATE 57014).
    package func execute(_ sql: String, _ arguments: [Value], cancellation: Cancellation) throws -> Int {
        try beforeStatement(sql)
        written?.note(sql)
        let backend = try session.backend()
        let changed = try session.execute(Self.query(sql, arguments), backend: backend, cancelled: { cancellation.isCancelled })
        deferred?.ran(changed: changed)
        return changed
    }

    /// A savepoint around `body`: an error inside rolls back to it, and the transaction goes
    /// on (PostgreSQL refuses every statement of a transaction after an error otherwise).
    ///
    /// Before a deferred transaction has begun no savepoint is needed: a statement that fails
    /// on its own changes nothing, and a transaction begun inside `body` holds only `body`'s
    /// statements, so it is rolled back whole (the next statement runs on its own again).
    package func attempt<T>(_ body: () throws -> T) throws -> T {
        if let deferred, !deferred.begun {
            do {
                return try body()
            } catch {
                if deferred.begun {
                    try session.run("ROLLBACK")
                    deferred.begun = false
                    open.count -= 1
                }
                // (Unless a first statement changed rows on its own: then nothing more runs.)
                if deferred.changedAlone == 0 { deferred.statements = 0 }
                throw error
            }
        }
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
    /// Without arguments the text goes as it is: a statement typed on the SQL screen may hold
    /// a `?` of its own (jsonb's `?` operator), and the store's statements without values hold
    /// no placeholder.
    static func query(_ sql: String, _ arguments: [Value]) throws -> PostgresQuery {
        if arguments.isEmpty { return PostgresQuery(unsafeSQL: sql) }
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
    static func numbered(_ sql: String, as placeholder: (Int) -> String = { "$\($0)" }) -> (sql: String, count: Int) {
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
                out += placeholder(count)
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

/// What a write's statements were, as far as its commit goes: one that inserts makes a lost
/// answer to `COMMIT` worth asking about (an update or delete tried again finds its own values
/// and writes nothing twice; an insert would be stored twice).
final class WriteLog {
    private(set) var inserted = false

    func note(_ sql: String) {
        if !inserted, sql.drop(while: { $0 == " " || $0 == "\n" }).prefix(6).uppercased() == "INSERT" { inserted = true }
    }
}

/// A write transaction begun only when a second statement comes. A save of one record whose
/// row has not moved is one statement (`UPDATE … WHERE` every field read is unchanged
/// `RETURNING …`), which then runs on its own: one round trip instead of four (`BEGIN`, the
/// statement, `COMMIT`, and the savepoint's two). When it changes nothing (the row moved) or
/// fails, it had no effect, and what follows runs in a transaction begun then.
final class DeferredBegin {
    /// `BEGIN` was sent: the owner commits or rolls back at the end.
    var begun = false
    /// Statements run so far, before the transaction began.
    var statements = 0
    /// Rows the first statement changed, on its own.
    var changedAlone = 0

    func ran(changed: Int) {
        guard !begun else { return }
        if statements == 0 { changedAlone = changed }
        statements += 1
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
