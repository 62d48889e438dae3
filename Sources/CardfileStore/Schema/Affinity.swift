import Foundation

/// A column's type affinity: the storage class SQLite prefers for values written to it.
public enum Affinity: String, Hashable, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case numeric = "NUMERIC"
    case text = "TEXT"
    case blob = "BLOB"

    /// Derives the affinity of a declared type with SQLite's five rules, applied in order:
    /// `INT` → integer; `CHAR`, `CLOB` or `TEXT` → text; `BLOB` or no type → blob;
    /// `REAL`, `FLOA` or `DOUB` → real; anything else → numeric.
    public init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.trimmingCharacters(in: .whitespaces).isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// True when SQLite can store `value` in a column of this affinity without losing what a
    /// person meant: a number column takes numbers and numeric text, a text column takes
    /// text and numbers, a blob column takes anything. NULL is always accepted here (NOT NULL
    /// is a separate rule).
    public func accepts(_ value: Value) -> Bool {
        switch (self, value) {
        case (_, .null), (.blob, _):
            return true
        case (.integer, .integer), (.numeric, .integer), (.numeric, .real), (.real, .integer), (.real, .real):
            return true
        case (.integer, .real(let double)):
            return double.isFinite && double == double.rounded()
        case (.integer, .text(let text)):
            return Affinity.integerValue(of: text) != nil
        case (.numeric, .text(let text)), (.real, .text(let text)):
            return Affinity.numericValue(of: text) != nil
        case (.text, .integer), (.text, .real), (.text, .text):
            return true
        case (.integer, .blob), (.real, .blob), (.numeric, .blob), (.text, .blob):
            return false
        }
    }

    /// True when SQLite stores `value` in a column of this affinity exactly as given (same
    /// storage class, same value), so a writer knows the stored row without reading it back.
    func storesUnchanged(_ value: Value) -> Bool {
        switch (self, value) {
        case (_, .null), (_, .blob), (.blob, _):
            return true
        case (.integer, .integer), (.numeric, .integer), (.real, .real), (.text, .text):
            return true
        case (.integer, .real(let double)), (.numeric, .real(let double)):
            // An integral real is stored as an integer.
            return !(double.isFinite && double == double.rounded() && abs(double) < 9.2e18)
        case (.integer, .text(let text)), (.numeric, .text(let text)), (.real, .text(let text)):
            // Text that reads as a number is stored as one.
            return Affinity.numericValue(of: text) == nil
        case (.real, .integer), (.text, .integer), (.text, .real):
            return false
        }
    }

    /// Converts text typed by a person to the value this affinity stores: `"1990"` becomes
    /// `.integer(1990)` in an integer or numeric column, `"2.5"` becomes `.real(2.5)`.
    /// Returns nil when the text is not a number and the column wants one. Empty text is
    /// returned as empty text; the caller decides whether it means NULL.
    public func coerce(_ text: String) -> Value? {
        switch self {
        case .text, .blob:
            return .text(text)
        case .integer:
            if let int = Affinity.integerValue(of: text) { return .integer(int) }
            return nil
        case .real:
            if let number = Affinity.numericValue(of: text) {
                if case .integer(let int) = number { return .real(Double(int)) }
                return number
            }
            return nil
        case .numeric:
            return Affinity.numericValue(of: text)
        }
    }

    /// Leading and trailing spaces and tabs removed, without Foundation (this runs for every
    /// field of an import).
    private static func trimmed(_ text: String) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }

    private static func integerValue(of text: String) -> Int64? {
        if let int = Int64(text) { return int }
        let trimmed = Self.trimmed(text)
        if let int = Int64(trimmed) { return int }
        if let double = Double(trimmed), double.isFinite, double == double.rounded(), abs(double) < 9.2e18 {
            return Int64(double)
        }
        return nil
    }

    private static func numericValue(of text: String) -> Value? {
        if let int = Int64(text) { return .integer(int) }
        let trimmed = Self.trimmed(text)
        if let int = Int64(trimmed) { return .integer(int) }
        if let double = Double(trimmed), double.isFinite { return .real(double) }
        return nil
    }
}
