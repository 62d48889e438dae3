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
