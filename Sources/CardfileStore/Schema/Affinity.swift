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
        // (Another engine's kinds: a decimal is its text to SQLite, a boolean 0 or 1.)
        case (_, .decimal(let text)):
            return self == .text || coerce(text) != nil
        case (_, .boolean):
            return true
        case (.integer, .integer), (.numeric, .integer), (.numeric, .real), (.real, .integer), (.real, .real):
            return true
        case (.integer, .real(let double)):
            return double.isFinite && double == double.rounded()
        case (.integer, .text(let text)), (.numeric, .text(let text)), (.real, .text(let text)):
            return coerce(text) != nil
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
        case (_, .decimal), (_, .boolean):
            // SQLite stores them as text or numbers, never as the kinds they were.
            return false
        case (_, .null), (_, .blob), (.blob, _):
            return true
        case (.integer, .integer), (.numeric, .integer), (.real, .real), (.text, .text):
            return true
        case (.integer, .real(let double)), (.numeric, .real(let double)):
            // An integral real is stored as an integer.
            return !(double.isFinite && double == double.rounded() && abs(double) < 9.2e18)
        case (.integer, .text(let text)), (.numeric, .text(let text)), (.real, .text(let text)):
            // Text that reads as a decimal number is stored as one (SQLite's rule, which
            // takes spaces around it and leaves `0x10` as text).
            return DecimalText(Affinity.trimmed(text)) == nil
        case (.real, .integer), (.text, .integer), (.text, .real):
            return false
        }
    }

    /// Why text is not taken as the number a column wants.
    public enum NumberRefusal: Error, Sendable, Equatable {
        /// Not a decimal number (`abc`, `0x10`, `inf`).
        case notANumber
        /// An INTEGER column, and the number has a fraction.
        case notWhole
        /// A whole number beyond 64 bits, which SQLite would round to a REAL.
        case beyondInteger
        /// Beyond the largest REAL (about 1.8e308).
        case tooLarge
        /// Not 0, but so small that a REAL would hold 0.
        case tooSmall
    }

    /// Converts text typed by a person to the value this affinity stores: `"1990"` becomes
    /// `.integer(1990)` in an integer or numeric column, `"2.5"` becomes `.real(2.5)`.
    /// Returns nil when the column wants a number and the text is not one it can hold (see
    /// ``number(from:)`` for why). A text or untyped column takes the text as it is.
    public func coerce(_ text: String) -> Value? {
        switch self {
        case .text, .blob: return .text(text)
        case .integer, .real, .numeric: return try? number(from: text).get()
        }
    }

    /// The number `text` stands for in a number column, never rounded silently:
    /// - INTEGER: a whole number within 64 bits (`1e3` is 1000); a fraction or a larger number
    ///   is refused;
    /// - REAL: the nearest double, as SQLite stores it (about 16 significant digits), but
    ///   never infinity and never 0 for a number that is not 0;
    /// - NUMERIC: an integer when written as one (and refused beyond 64 bits), else as REAL.
    ///
    /// Spaces and tabs around the number are allowed; hexadecimal, `inf` and `nan` are not
    /// numbers. A text or untyped column refuses nothing here.
    public func number(from text: String) -> Result<Value, NumberRefusal> {
        guard self != .text, self != .blob else { return .success(.text(text)) }
        if let int = Int64(text) { return .success(self == .real ? .real(Double(int)) : .integer(int)) }
        // The common real (`-12.5`): no exponent and few digits, so nothing can overflow or
        // vanish, and no digits are copied (this runs for every field of an import).
        if self != .integer, Self.isShortPlainDecimal(text), let double = Double(text) { return .success(.real(double)) }
        guard let decimal = DecimalText(Self.trimmed(text)) else { return .failure(.notANumber) }
        switch self {
        case .integer:
            if let int = decimal.integer { return .success(.integer(int)) }
            return .failure(decimal.isWhole ? .beyondInteger : .notWhole)
        case .numeric where !decimal.writtenAsReal:
            return decimal.integer.map { .success(.integer($0)) } ?? .failure(.beyondInteger)
        default:
            return decimal.double.map(Value.real)
        }
    }

    /// The number an untyped column keeps for `text`, only when it is kept exactly: an
    /// integer within 64 bits, or a real whose shortest form reads back as the same number.
    /// nil otherwise (spaces around it, `0x10`, more digits than a double holds, a number
    /// beyond 64 bits), and the caller keeps the text.
    public static func exactNumber(_ text: String) -> Value? {
        guard let decimal = DecimalText(Substring(text)) else { return nil }
        if !decimal.writtenAsReal { return decimal.integer.map(Value.integer) }
        guard case .success(let double) = decimal.double, decimal.isHeldExactly(by: double) else { return nil }
        return .real(double)
    }

    /// `text` as an exact decimal (``Value/decimal(_:)``), as an exact numeric column of an
    /// engine keeps it (PostgreSQL's `numeric`); nil when it is no number.
    public static func exactDecimal(_ text: String) -> Value? {
        DecimalText(Substring(text)) == nil ? nil : .decimal(text)
    }

    /// `-12.5`: an optional minus, digits and one point, at most 15 digits in all.
    private static func isShortPlainDecimal(_ text: String) -> Bool {
        var digits = 0
        var point = false
        for (index, byte) in text.utf8.enumerated() {
            if byte >= 0x30, byte <= 0x39 {
                digits += 1
            } else if byte == UInt8(ascii: "."), !point {
                point = true
            } else if byte == UInt8(ascii: "-"), index == 0 {
                continue
            } else {
                return false
            }
        }
        return point && digits > 0 && digits <= 15
    }

    /// Leading and trailing spaces and tabs removed, without Foundation (this runs for every
    /// field of an import).
    static func trimmed(_ text: String) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return text[first...last]
    }
}
