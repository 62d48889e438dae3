import CSQLiteSupport
import Foundation
import GRDB
import GRDBSQLite

/// Records what one write transaction changes, with SQLite's session extension.
///
/// Made on the writer's connection just after the transaction begins, and ended before it
/// commits; ``changeset()`` copies the changes out (the bytes are decoded later, off the
/// writer, by ``ChangesetDecoder``). Tables with no declared primary key are not recorded:
/// the system's SQLite (3.40) records only tables that have one.
final class SessionRecorder {
    private var session: UnsafeMutableRawPointer?
    private let skipped: SkippedTables

    /// Starts recording on `db`, but not the tables `skipped` names; nil when SQLite refuses
    /// (the write goes on unjournaled).
    init?(_ db: Database, skipping skipped: SkippedTables) {
        self.skipped = skipped
        var made: UnsafeMutableRawPointer?
        guard cf_session_begin(db.sqliteConnection, skipped.names, &made) == SQLITE_OK, let made else { return nil }
        session = made
    }

    deinit { end() }

    /// The changes recorded so far, as a changeset; nil when SQLite could not make one.
    func changeset() -> Data? {
        guard let session else { return nil }
        var size: CInt = 0
        var bytes: UnsafeMutableRawPointer?
        guard cf_session_changeset(session, &size, &bytes) == SQLITE_OK else { return nil }
        defer { sqlite3_free(bytes) }
        guard let bytes, size > 0 else { return Data() }
        return Data(bytes: bytes, count: Int(size))
    }

    /// Stops recording (the transaction's end must not be recorded into a freed session).
    func end() {
        guard let session else { return }
        cf_session_end(session)
        self.session = nil
    }
}

/// The tables a session must not record (those with generated columns: see
/// `cf_session_begin`), as the NULL-ended list of C strings SQLite's filter reads. Made once
/// per schema, not per write (a filter that asked SQLite each time cost a save 60 µs).
final class SkippedTables: @unchecked Sendable {
    let names: UnsafeMutablePointer<UnsafePointer<CChar>?>
    private let count: Int

    init(schema: DatabaseSchema) {
        let tables = schema.tables.filter { table in !table.isView && table.columns.contains { $0.generation != .none } }.map(\.name)
        count = tables.count
        names = .allocate(capacity: tables.count + 1)
        for (index, name) in tables.enumerated() { names[index] = UnsafePointer(strdup(name)) }
        names[tables.count] = nil
    }

    deinit {
        for index in 0..<count { free(UnsafeMutablePointer(mutating: names[index])) }
        names.deallocate()
    }
}

/// Turns a changeset into ``RecordedChange``s, by the schema the write was made with.
enum ChangesetDecoder {
    /// The changes, and whether every change could be named (false when a table was unknown
    /// to the schema, or shaped otherwise: one made and written in the same statement run).
    static func decode(_ changeset: Data, schema: DatabaseSchema) -> (changes: [RecordedChange], complete: Bool) {
        var changes: [RecordedChange] = []
        var complete = true
        var bytes = changeset
        let count = CInt(bytes.count)
        guard count > 0 else { return ([], true) }
        bytes.withUnsafeMutableBytes { buffer in
            var iterator: UnsafeMutableRawPointer?
            guard cf_changeset_start(&iterator, count, buffer.baseAddress) == SQLITE_OK, let iterator else {
                complete = false
                return
            }
            defer { _ = cf_changeset_finish(iterator) }
            var tables: [String: (schema: TableSchema, columns: [String])?] = [:]
            while cf_changeset_next(iterator) == SQLITE_ROW {
                var name: UnsafePointer<CChar>?
                var columnCount: CInt = 0
                var op: CInt = 0
                guard cf_changeset_op(iterator, &name, &columnCount, &op) == SQLITE_OK, let name else {
                    complete = false
                    continue
                }
                let tableName = String(cString: name)
                if tables[tableName] == nil {
                    tables[tableName] = schema.table(named: tableName).flatMap { table in
                        // The session's columns are the table's, less the generated ones in
                        // some versions of SQLite (by count: either way they come first).
                        let all = table.columns.map(\.name)
                        let written = table.columns.filter { $0.generation == .none }.map(\.name)
                        return all.count == Int(columnCount) ? (table, all) : written.count == Int(columnCount) ? (table, written) : nil
                    }
                }
                guard let known = tables[tableName] ?? nil,
                      let keyNames = keyColumns(of: known.schema) else {
                    complete = false
                    continue
                }
                var old: [Value?] = []
                var new: [Value?] = []
                for column in 0..<columnCount {
                    var value: OpaquePointer?
                    old.append(op != SQLITE_INSERT && cf_changeset_old(iterator, column, &value) == SQLITE_OK ? value.map(Value.init(sqliteValue:)) : nil)
                    value = nil
                    new.append(op != SQLITE_DELETE && cf_changeset_new(iterator, column, &value) == SQLITE_OK ? value.map(Value.init(sqliteValue:)) : nil)
                }
                let side = op == SQLITE_INSERT ? new : old
                var key: [Value] = []
                for keyName in keyNames {
                    guard let position = known.columns.firstIndex(where: { $0.caseInsensitiveCompare(keyName) == .orderedSame }),
                          let value = side[position] else { break }
                    key.append(value)
                }
                guard key.count == keyNames.count else {
                    complete = false
                    continue
                }
                let kind: RecordedChange.Kind = op == SQLITE_INSERT ? .insert : op == SQLITE_DELETE ? .delete : .update
                var fields: [RecordedChange.Field] = []
                for (index, column) in known.columns.enumerated() {
                    switch kind {
                    case .insert: fields.append(.init(name: column, old: nil, new: new[index] ?? .null))
                    case .delete: fields.append(.init(name: column, old: old[index] ?? .null, new: nil))
                    case .update:
                        guard let after = new[index] else { continue }
                        fields.append(.init(name: column, old: old[index] ?? .null, new: after))
                    }
                }
                changes.append(RecordedChange(id: ObjectID(table: known.schema.name, primaryKey: key), kind: kind, fields: fields))
            }
        }
        return (changes, complete)
    }

    /// How many record changes a changeset holds, and the tables they are in: for a change
    /// too large to keep, which is listed without its records.
    static func count(_ changeset: Data) -> (count: Int, tables: Set<String>) {
        var bytes = changeset
        let size = CInt(bytes.count)
        var found = (count: 0, tables: Set<String>())
        bytes.withUnsafeMutableBytes { buffer in
            var iterator: UnsafeMutableRawPointer?
            guard cf_changeset_start(&iterator, size, buffer.baseAddress) == SQLITE_OK, let iterator else { return }
            defer { _ = cf_changeset_finish(iterator) }
            var last: UnsafePointer<CChar>?
            while cf_changeset_next(iterator) == SQLITE_ROW {
                var name: UnsafePointer<CChar>?
                var columns: CInt = 0
                var op: CInt = 0
                guard cf_changeset_op(iterator, &name, &columns, &op) == SQLITE_OK, let name else { continue }
                found.count += 1
                // (The name's pointer stays the same while the table does.)
                if name != last { found.tables.insert(String(cString: name)) }
                last = name
            }
        }
        return found
    }

    /// The key's columns in the order an ``ObjectID`` holds them; nil for a table whose rows
    /// sessions do not record.
    private static func keyColumns(of table: TableSchema) -> [String]? {
        switch table.primaryKey {
        case .rowidAlias(let column): [column]
        case .columns(let columns), .withoutRowid(let columns): columns
        case .implicitRowid, .unidentifiable: nil
        }
    }
}

extension Value {
    /// The value an `sqlite3_value` holds, with its storage class.
    init(sqliteValue value: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: self = .null
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            if let text = sqlite3_value_text(value) {
                self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            } else {
                self = .text("")
            }
        default:
            let count = Int(sqlite3_value_bytes(value))
            if let bytes = sqlite3_value_blob(value), count > 0 {
                self = .blob(Data(bytes: bytes, count: count))
            } else {
                self = .blob(Data())
            }
        }
    }
}
