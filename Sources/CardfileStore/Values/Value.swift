import Foundation

/// One value, exactly as stored in a column.
///
/// The first five cases are SQLite's storage classes; PostgreSQL's values use them too where
/// they fit (`bigint` is an integer, `double precision` a real, `bytea` a blob, and dates,
/// uuids, json, arrays and enums are text the server casts), and two more where none does:
/// ``decimal(_:)`` for `numeric`, kept exact as its text, never through `Double`, and
/// ``boolean(_:)``. SQLite never gives those two; bound into SQLite, they become the text of
/// the number and 0 or 1. Equality is exact, as the bytes SQLite would
/// store: an `integer(1)` is not equal to a `real(1.0)`, and text compares by its UTF-8 bytes
/// (a precomposed "é" is not equal to "e" plus a combining accent, although Swift's `String`
/// calls them equal). That is what change tracking needs: a field counts as edited when its
/// stored representation would change, and a save's conflict check compares the same way
/// (see `SaveStatements`). Ordering that matches SQLite's `ORDER BY` lives in
/// ``Value/compare(_:_:collation:)``.
public enum Value: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// An exact number as PostgreSQL prints a `numeric` (`-12.50`, `NaN`, `Infinity`): its text
    /// is the value, scale included, so `1.50` and `1.5` are different stored values.
    case decimal(String)
    case boolean(Bool)

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// True for `.null` and for the empty string: what a person calls "empty".
    public var isEmpty: Bool {
        switch self {
        case .null: return true
        case .text(let string): return string.isEmpty
        case .blob(let data): return data.isEmpty
        case .decimal(let text): return text.isEmpty
        default: return false
        }
    }

    /// The storage class name SQLite's `typeof()` would report.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        case .decimal: return "numeric"
        case .boolean: return "boolean"
        }
    }

    /// Exact equality: same storage class and same stored bytes (numbers by value, so
    /// `real(0.0)` equals `real(-0.0)`, as in SQLite). NaN, which PostgreSQL stores (SQLite
    /// makes it NULL), equals NaN, as PostgreSQL has it, so a NaN field is not an edit.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.text(var a), .text(var b)):
            // The bytes compared at once: byte by byte through the UTF-8 views, a key typed
            // at the end of a 1 MB field (which compares it a few times) took 12.7 ms to its
            // frame; with memcmp 1.3 ms (p50, the benchmark's `field` section).
            // (Short ones, most cells, are compared in place: no buffer to reach.)
            let count = a.utf8.count
            guard count == b.utf8.count else { return false }
            if count <= 64 { return a.utf8.elementsEqual(b.utf8) }
            return a.withUTF8 { left in b.withUTF8 { right in memcmp(left.baseAddress!, right.baseAddress!, count) == 0 } }
        case (.blob(let a), .blob(let b)): return a == b
        case (.decimal(let a), .decimal(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.boolean(let a), .boolean(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let int): hasher.combine(1); hasher.combine(int)
        case .real(let double): hasher.combine(2); hasher.combine(double.isNaN ? .nan : double)
        case .text(let string):
            hasher.combine(3)
            var string = string
            hasher.combine(string.utf8.count)
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let data): hasher.combine(4); hasher.combine(data)
        case .decimal(let text): hasher.combine(5); hasher.combine(text.utf8.count); hasher.combine(text)
        case .boolean(let flag): hasher.combine(6); hasher.combine(flag)
        }
    }
}

extension Value: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    /// SQLite has no boolean type: booleans are stored as 0 and 1.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension Value: CustomStringConvertible {
    /// A plain rendering for logs and messages: text as is, NULL as `NULL`, blobs by size.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let int): return String(int)
        case .real(let double): return Value.format(double)
        case .text(let string): return string
        case .blob(let data): return "<\(data.count) bytes>"
        case .decimal(let text): return text
        case .boolean(let flag): return flag ? "true" : "false"
        }
    }

    /// Formats a double the way SQLite's text conversion does for common values:
    /// integral values keep a trailing `.0`, others use the shortest round-tripping form.
    static func format(_ double: Double) -> String {
        if double.isFinite, double == double.rounded(), abs(double) < 1e15 {
            return String(format: "%.1f", double)
        }
        return "\(double)"
    }
}
