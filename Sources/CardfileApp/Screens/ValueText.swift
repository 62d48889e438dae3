import CardfileStore
import Foundation

/// How values look on screen and how typed text becomes a value again.
enum ValueText {
    /// NULL in lists and forms: distinct from the empty string, which shows as nothing.
    static let null = "∅"

    /// A value as one line of a list cell (line breaks stay visible as the buffer's
    /// placeholders).
    static func cell(_ value: Value) -> String {
        switch value {
        case .null: return null
        case .blob(let data): return blob(data)
        default: return value.description
        }
    }

    /// A value as a form field's editable text (NULL is shown by the field, not as text).
    static func editable(_ value: Value) -> String {
        switch value {
        case .null: return ""
        case .blob(let data): return blob(data)
        default: return value.description
        }
    }

    /// A blob as its size and first bytes: `<12 bytes: 89 50 4e 47 …>`.
    static func blob(_ data: Data) -> String {
        let shown = data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
        return "<\(data.count) byte\(data.count == 1 ? "" : "s")\(data.isEmpty ? "" : ": " + shown)\(data.count > 8 ? " …" : "")>"
    }

    /// The value typed text stands for in a column of `affinity`. Text a number column cannot
    /// take stays text, so the save's validation names the problem at the field. A column
    /// without affinity keeps numbers numbers when the stored value was one.
    static func value(from text: String, affinity: Affinity, original: Value) -> Value {
        switch affinity {
        case .integer, .real, .numeric:
            // A field of exact decimals (PostgreSQL's numeric) keeps them so: the `7` it read
            // is that decimal still, not the integer 7 (which compares unequal, and made the
            // form say its own save's fields were updated from elsewhere).
            if case .decimal = original, let exact = Affinity.exactDecimal(text) { return exact }
            return affinity.coerce(text) ?? .text(text)
        case .text:
            return .text(text)
        case .blob:
            switch original {
            case .integer, .real: return Affinity.numeric.coerce(text) ?? .text(text)
            default: return .text(text)
            }
        }
    }

    /// A value for a sentence: text in quotes (one line, cut when long), NULL and numbers bare.
    static func quoted(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .text(let text):
            let line = text.replacingOccurrences(of: "\n", with: " ")
            return "“" + (line.count > 40 ? line.prefix(39) + "…" : line) + "”"
        default: return cell(value)
        }
    }

    /// `1234567` as `1,234,567`.
    static func count(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (number < 0 ? "-" : "") + grouped
    }
}
