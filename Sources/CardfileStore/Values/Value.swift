import Foundation

/// One SQLite value, exactly as stored in a column.
///
/// The five cases are SQLite's storage classes. Equality is exact (an `integer(1)` is not
/// equal to a `real(1.0)`), which is what change tracking needs: a field counts as edited
/// when its stored representation would change. Ordering that matches SQLite's `ORDER BY`
/// lives in ``Value/compare(_:_:collation:)``.
public enum Value: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

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
