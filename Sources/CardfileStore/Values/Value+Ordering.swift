import Foundation

/// A text collating sequence, as SQLite names them.
///
/// Ordering in Swift must agree with `ORDER BY` in SQL, because live queries merge rows that
/// exist only in memory (unsaved inserts) into windows that SQLite sorted. The three built-in
/// collations are reproduced exactly; any other name (an application-defined collation) is
/// kept so callers can fall back to asking SQLite.
public enum Collation: Hashable, Sendable {
    case binary
    case nocase
    case rtrim
    case custom(String)

    /// Parses a collation name case-insensitively, as SQLite does.
    public init(name: String) {
        switch name.uppercased() {
        case "BINARY": self = .binary
        case "NOCASE": self = .nocase
        case "RTRIM": self = .rtrim
        default: self = .custom(name)
        }
    }

    /// The name to use in a `COLLATE` clause.
    public var name: String {
        switch self {
        case .binary: return "BINARY"
        case .nocase: return "NOCASE"
        case .rtrim: return "RTRIM"
        case .custom(let name): return name
        }
    }

    /// False for application-defined collations, which Swift cannot reproduce.
    public var isBuiltIn: Bool {
        if case .custom = self { return false }
        return true
    }
}

extension Value {
    /// Rank of a storage class in SQLite's ordering: NULL, then numbers, then text, then blobs.
    private var classRank: Int {
        switch self {
        case .null: return 0
        case .integer, .real, .decimal, .boolean: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    /// Compares two values the way SQLite's `ORDER BY` does: NULLs first, numbers by value
    /// (integers and reals compared exactly), text by the collation, blobs by `memcmp`.
    ///
    /// Returns a negative number, zero or a positive number. A custom collation is compared
    /// as binary; callers that need exactness for those ask SQLite instead.
    public static func compare(_ lhs: Value, _ rhs: Value, collation: Collation = .binary) -> Int {
        let (left, right) = (lhs.classRank, rhs.classRank)
        if left != right { return left < right ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null):
            return 0
        case (.integer(let a), .integer(let b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.real(let a), .real(let b)):
            // NaN above every number, as PostgreSQL orders it (SQLite stores none).
            if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? 0 : (a.isNaN ? 1 : -1) }
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.integer(let a), .real(let b)):
            return -compareReal(b, withInteger: a)
        case (.real(let a), .integer(let b)):
            return compareReal(a, withInteger: b)
        case (.text(let a), .text(let b)):
            return compareText(a, b, collation: collation)
        case (.blob(let a), .blob(let b)):
            return compareBytes(Array(a), Array(b))
        case (.boolean(let a), .boolean(let b)):
            return a == b ? 0 : (a ? 1 : -1)
        case (.decimal, _), (_, .decimal), (.boolean, _), (_, .boolean):
            return compareNumbers(lhs, rhs)
        default:
            return 0
        }
    }

    /// Compares numbers of which one at least is a decimal or a boolean (a boolean as 0 or 1),
    /// exactly where both are written in decimal, as PostgreSQL orders `numeric`: NaN above
    /// everything, the infinities at the ends.
    private static func compareNumbers(_ lhs: Value, _ rhs: Value) -> Int {
        func exact(_ value: Value) -> Either {
            switch value {
            case .integer(let number): return .decimal(DecimalText(Substring(String(number)))!)
            case .boolean(let flag): return .decimal(DecimalText(flag ? "1" : "0")!)
            case .real(let number): return number.isNaN ? .nan : .real(number)
            case .decimal(let text):
                switch text {
                case "NaN": return .nan
                case "Infinity": return .real(.infinity)
                case "-Infinity": return .real(-.infinity)
                default: return DecimalText(Substring(text)).map(Either.decimal) ?? .nan
                }
            default: return .nan
            }
        }
        switch (exact(lhs), exact(rhs)) {
        case (.nan, .nan): return 0
        case (.nan, _): return 1
        case (_, .nan): return -1
        case (.decimal(let a), .decimal(let b)): return a.compare(b)
        case (.real(let a), .real(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.real(let a), .decimal(let b)): return a.isInfinite ? (a < 0 ? -1 : 1) : compareReal(a, b)
        case (.decimal(let a), .real(let b)): return b.isInfinite ? (b < 0 ? 1 : -1) : -compareReal(b, a)
        }
    }

    private enum Either {
        case decimal(DecimalText)
        case real(Double)
        case nan
    }

    /// A finite real against a decimal, exactly: through the decimal rounded to a double
    /// first (rounding keeps the order, so unequal doubles decide), and when that is the real
    /// itself, through the real's exact decimal expansion. (Its shortest text is not exact,
    /// and would make the order of an integer, a real and a decimal go round in a circle.)
    private static func compareReal(_ real: Double, _ decimal: DecimalText) -> Int {
        if let rounded = try? decimal.double.get(), rounded != real { return rounded < real ? 1 : -1 }
        return DecimalText.exact(real).compare(decimal)
    }

    /// Compares a real with an integer without the rounding a plain conversion would cause
    /// for integers beyond 2^53.
    private static func compareReal(_ real: Double, withInteger integer: Int64) -> Int {
        if real.isNaN { return 1 }
        if real < -9.223372036854775808e18 { return -1 }
        if real >= 9.223372036854775808e18 { return 1 }
        let truncated = Int64(real.rounded(.towardZero))
        if truncated != integer { return truncated < integer ? -1 : 1 }
        let fraction = real - Double(truncated)
        return fraction == 0 ? 0 : (fraction < 0 ? -1 : 1)
    }

    private static func compareText(_ a: String, _ b: String, collation: Collation) -> Int {
        switch collation {
        case .binary, .custom:
            return compareBytes(Array(a.utf8), Array(b.utf8))
        case .nocase:
            // SQLite's NOCASE folds only the 26 ASCII letters.
            return compareBytes(a.utf8.map(asciiLowercase), b.utf8.map(asciiLowercase))
        case .rtrim:
            return compareBytes(trimmingTrailingSpaces(Array(a.utf8)), trimmingTrailingSpaces(Array(b.utf8)))
        }
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }

    private static func trimmingTrailingSpaces(_ bytes: [UInt8]) -> [UInt8] {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 32 { end -= 1 }
        return Array(bytes[..<end])
    }

    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let count = min(a.count, b.count)
        for index in 0..<count where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
