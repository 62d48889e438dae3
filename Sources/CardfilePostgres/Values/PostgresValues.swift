import CardfileStore
import Foundation
import NIOCore
import PostgresNIO

/// PostgreSQL's values as the store's ``Value``s, and back.
///
/// Reading: numbers, booleans, bytes and plain text come in PostgreSQL's binary form; every
/// other type is selected as `::text` (``selectExpression(_:)``), so a date, a uuid or an array
/// arrives as the text the type prints, and `numeric` as its exact digits (a ``Value/decimal(_:)``,
/// never through `Double`).
///
/// Writing: a value goes as the text its type reads (or as bytes for `bytea`), cast to the
/// column's type without its modifier (``placeholder(_:for:)``): the type's own input function
/// reads it, and the column's assignment then checks a length or rounds a scale, exactly as
/// for a value typed in psql.
public enum PostgresValues {
    /// The select-list entry for `column`: its quoted name, or `name::text` for the types read
    /// as text (kept under the column's own name).
    public static func selectExpression(_ column: PostgresTableColumn) -> String {
        let name = PostgresName.quoted(column.name)
        switch column.kind {
        case .integer, .real, .boolean, .bytes, .text:
            return name
        case .decimal, .textual:
            return "\(name)::text AS \(name)"
        }
    }

    /// The value a cell of `column` holds (selected by ``selectExpression(_:)``).
    public static func value(_ cell: PostgresCell, column: PostgresTableColumn) throws(PostgresProblem) -> Value {
        guard cell.bytes != nil else { return .null }
        do {
            switch column.kind {
            case .integer: return .integer(try cell.decode(Int64.self))
            // A float4 through its own shortest text, so 0.1 stays 0.1 (not 0.10000000149…).
            case .real where cell.dataType == .float4: return .real(Double("\(try cell.decode(Float.self))") ?? .nan)
            case .real: return .real(try cell.decode(Double.self))
            case .boolean: return .boolean(try cell.decode(Bool.self))
            case .bytes: return .blob(try cell.decode(Data.self))
            case .decimal, .textual:
                // Only as text (``selectExpression(_:)``): a binary form read as a string
                // would be garbage, not an error.
                guard cell.dataType == .text else {
                    throw PostgresProblem.refused(message: "\(column.name) was not selected as text", detail: nil, sqlState: "")
                }
                let text = try cell.decode(String.self)
                return column.kind == .decimal ? .decimal(text) : .text(text)
            case .text: return .text(try cell.decode(String.self))
            }
        } catch {
            throw .refused(message: "cannot read \(column.name) (\(column.typeName)): \(error)", detail: nil, sqlState: "")
        }
    }

    /// The values of one row, in `columns`' order.
    public static func values(_ row: PostgresRow, columns: [PostgresTableColumn]) throws(PostgresProblem) -> [Value] {
        let cells = Array(row)
        guard cells.count == columns.count else {
            throw .refused(message: "a row has \(cells.count) values for \(columns.count) columns", detail: nil, sqlState: "")
        }
        var values: [Value] = []
        values.reserveCapacity(columns.count)
        for (cell, column) in zip(cells, columns) { values.append(try value(cell, column: column)) }
        return values
    }

    /// Binds `value` for `column` and returns its placeholder in the statement, cast to the
    /// column's type (`$3::numeric`); `NULL` binds nothing.
    public static func placeholder(_ value: Value, for column: PostgresTableColumn, into bindings: inout PostgresBindings) -> String {
        switch value {
        case .null:
            return "NULL::\(column.castType)"
        case .blob(let data):
            bindings.append(ByteBuffer(bytes: data))
        case .integer(let number) where column.kind == .integer:
            bindings.append(number)
        case .real(let number) where column.kind == .real:
            bindings.append(number)
        case .boolean(let flag) where column.kind == .boolean:
            bindings.append(flag)
        default:
            bindings.append(text(value))
        }
        return "$\(bindings.count)::\(column.castType)"
    }

    /// A value as the text a type's input function reads.
    static func text(_ value: Value) -> String {
        switch value {
        case .null: return ""
        case .integer(let number): return String(number)
        // Swift's shortest form reads back as the same double; PostgreSQL's words for the rest.
        case .real(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
            return "\(number)"
        case .text(let text), .decimal(let text): return text
        case .boolean(let flag): return flag ? "true" : "false"
        case .blob(let data): return "\\x" + data.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// `value` as an SQL literal of no declared type (bytes as `bytea`), as a bound value
    /// would be read: dollar-quoted, so no setting (`standard_conforming_strings`) and no
    /// character in it changes how it is read.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        // (A number too: bare, 99999999999 would be a bigint, and compared with an integer
        // column it would not be refused as the same value bound is.)
        case .blob: return dollarQuoted(text(value)) + "::bytea"
        default: return dollarQuoted(text(value))
        }
    }

    /// `text` between `$cf$` quotes (or `$cf1$`, …): the first tag whose closing quote is
    /// first found where it is put, after the whole text.
    static func dollarQuoted(_ text: String) -> String {
        var number = 0
        while true {
            let quote = number == 0 ? "$cf$" : "$cf\(number)$"
            let quoted = text + quote
            if quoted.range(of: quote)?.lowerBound == quoted.index(quoted.endIndex, offsetBy: -quote.count) {
                return quote + quoted
            }
            number += 1
        }
    }

    /// `sql` with each `?` outside quotes and comments replaced by its value's literal (a `?`
    /// beyond the values, which the store never writes, by NULL).
    static func inlined(_ sql: String, _ values: [Value]) -> String {
        PostgresEngineSession.numbered(sql) { number in
            values.indices.contains(number - 1) ? " \(literal(values[number - 1])) " : "NULL"
        }.sql
    }
}
