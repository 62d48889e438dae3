import Foundation

/// Masks the password of every PostgreSQL URL inside a text: a message, an argument, a report.
///
/// Every line cardfile prints passes through ``masked(_:)``, so a URL quoted anywhere (an
/// argument the command line could not read, a server's message) never shows its password.
/// In running text a URL ends at a space or a quote, so a password holding one is not found
/// there: ``passwords(inArgument:)`` gives a program's arguments' passwords, for masking by
/// their text as well.
public enum PostgresURLMask {
    /// What stands for a password.
    public static let mask = "*****"

    /// `text` with the password of each `postgres://` or `postgresql://` URL in it replaced by
    /// ``mask``: what lies between the first `:` after the scheme and the last `@` of the URL
    /// (a URL ends at a space or a quote), and any `password=` parameter's value. Where a
    /// password was written without its escapes this may mask more than the password; it never
    /// masks less.
    public static func masked(_ text: String) -> String {
        passwordRanges(in: text).reversed().reduce(text) { result, range in
            result.replacingCharacters(in: range, with: mask)
        }
    }

    /// `argument`, one of a program's arguments, with its passwords masked. An argument that
    /// starts with the scheme is one URL to its end, spaces and quotes included.
    public static func maskedArgument(_ argument: String) -> String {
        passwordRanges(in: argument, wholeArgument: true).reversed().reduce(argument) { result, range in
            result.replacingCharacters(in: range, with: mask)
        }
    }

    /// The passwords in one of a program's arguments: as written, and with their escapes
    /// decoded (as a message might quote either).
    public static func passwords(inArgument argument: String) -> [String] {
        passwordRanges(in: argument, wholeArgument: true).flatMap { range -> [String] in
            let written = String(argument[range])
            return [written, written.removingPercentEncoding].compactMap { $0 }
        }
    }

    /// Where the passwords are in `text`, first to last. With `wholeArgument`, text that starts
    /// with the scheme is taken as one URL to its end.
    public static func passwordRanges(in text: String, wholeArgument: Bool = false) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var searchFrom = text.startIndex
        while let scheme = nextScheme(in: text, from: searchFrom) {
            var end = scheme.upperBound
            if wholeArgument, scheme.lowerBound == text.startIndex {
                end = text.endIndex
            } else {
                while end < text.endIndex, !ends(text[end]) { end = text.index(after: end) }
            }
            let url = text[scheme.upperBound..<end]
            var userInfoEnd = url.startIndex
            if let at = url.lastIndex(of: "@") {
                userInfoEnd = at
                if let colon = url[..<at].firstIndex(of: ":"), url.index(after: colon) < at {
                    ranges.append(url.index(after: colon)..<at)
                }
            }
            var from = userInfoEnd
            while let key = url[from...].range(of: "password=", options: .caseInsensitive) {
                let valueEnd = url[key.upperBound...].firstIndex(of: "&") ?? url.endIndex
                if key.upperBound < valueEnd { ranges.append(key.upperBound..<valueEnd) }
                from = valueEnd
            }
            searchFrom = end
        }
        return ranges
    }

    private static func nextScheme(in text: String, from start: String.Index) -> Range<String.Index>? {
        let rest = text[start...]
        let candidates = ["postgres://", "postgresql://"].compactMap { rest.range(of: $0, options: .caseInsensitive) }
        return candidates.min { $0.lowerBound < $1.lowerBound }
    }

    /// What ends a URL in running text.
    private static func ends(_ character: Character) -> Bool {
        character == "\"" || character == "'" || character == "`" || character.isWhitespace
    }
}
