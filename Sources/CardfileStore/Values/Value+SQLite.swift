import Foundation
import GRDB
import GRDBSQLite

extension Value {
    /// Converts a GRDB value.
    init(_ databaseValue: DatabaseValue) {
        switch databaseValue.storage {
        case .null: self = .null
        case .int64(let int): self = .integer(int)
        case .double(let double): self = .real(double)
        case .string(let string): self = .text(string)
        case .blob(let data): self = .blob(data)
        }
    }

    /// Reads column `index` of the current row of a stepped statement.
    ///
    /// This bypasses GRDB's `Row` on the hottest read paths (window fetches, saves); it
    /// reads exactly what `DatabaseValue(sqliteStatement:index:)` would.
    init(statement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            self = .null
        case SQLITE_INTEGER:
            self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            if let bytes = sqlite3_column_text(statement, index) {
                self = .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
            } else {
                self = .text("")
            }
        default:
            let count = Int(sqlite3_column_bytes(statement, index))
            if let bytes = sqlite3_column_blob(statement, index), count > 0 {
                self = .blob(Data(bytes: bytes, count: count))
            } else {
                self = .blob(Data())
            }
        }
    }

    /// The GRDB value to bind in a statement.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let int): return int.databaseValue
        case .real(let double): return double.databaseValue
        case .text(let string): return string.databaseValue
        case .blob(let data): return data.databaseValue
        // (SQLite has neither: a column's NUMERIC affinity reads the text as a number.)
        case .decimal(let text): return text.databaseValue
        case .boolean(let flag): return (flag ? 1 : 0).databaseValue
        }
    }
}

extension Array where Element == Value {
    /// The values as statement arguments, in order.
    var statementArguments: StatementArguments {
        StatementArguments(map { $0.databaseValue as (any DatabaseValueConvertible)? })
    }
}

extension Statement {
    /// Steps through every row of the statement with `arguments` bound, reading the first
    /// `columnCount` columns of each row as values.
    func fetchValueRows(arguments: [Value]) throws -> [[Value]] {
        var rows: [[Value]] = []
        let cursor = try Row.fetchCursor(self, arguments: arguments.statementArguments)
        let width = CInt(columnCount)
        let handle = sqliteStatement
        while try cursor.next() != nil {
            var row: [Value] = []
            row.reserveCapacity(Int(width))
            for index in 0..<width { row.append(Value(statement: handle, index: index)) }
            rows.append(row)
        }
        return rows
    }
}

extension Statement {
    /// Runs a statement that returns no rows with `values` bound straight through SQLite's C
    /// API. For bulk writes (an import binds millions of rows): GRDB's argument boxing took a
    /// third of an import's time (perf: 20% building `StatementArguments`, 12% binding them).
    /// Bypassing it also bypasses GRDB's per-statement observation, so use it only for tables
    /// the transaction writes in bulk (see `StoreCore.write(bulkTables:)`).
    func executeBulk(binding values: [Value], db: Database) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (offset, value) in values.enumerated() {
            let index = CInt(offset + 1)
            switch value {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let int): sqlite3_bind_int64(handle, index, int)
            case .real(let double): sqlite3_bind_double(handle, index, double)
            case .boolean(let flag): sqlite3_bind_int64(handle, index, flag ? 1 : 0)
            case .text(var text), .decimal(var text):
                text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        _ = sqlite3_bind_text(handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), CInt(chars.count), transient)
                    }
                }
            case .blob(let data):
                data.withUnsafeBytes { bytes in
                    _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, CInt(bytes.count), transient)
                }
            }
        }
        let code = sqlite3_step(handle)
        defer { sqlite3_reset(handle) }
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            let connection = db.sqliteConnection
            let extended = sqlite3_extended_errcode(connection)
            throw DatabaseError(resultCode: ResultCode(rawValue: extended), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }
}
