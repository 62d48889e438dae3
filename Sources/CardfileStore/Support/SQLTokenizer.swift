/// A token of SQLite's SQL dialect, as far as Cardfile needs to read it: the `CREATE TABLE`
/// statements stored in `sqlite_schema` (for CHECK constraints and collations) and the
/// small filter language of the list screen.
struct SQLToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A bare word: a keyword or an unquoted identifier. `text` is as written.
        case word
        /// A quoted identifier (`"x"`, `` `x` `` or `[x]`). `value` is the unquoted name.
        case quotedIdentifier
        /// A string literal. `value` is the unescaped text.
        case string
        /// A numeric literal.
        case number
        /// A blob literal such as `x'00ff'`.
        case blob
        /// An operator or punctuation: `(`, `)`, `,`, `>=`, `||`, ...
        case symbol
    }

    var kind: Kind
    /// The unquoted value for identifiers and strings; the text for everything else.
    var value: String
    /// Offset in characters of the token's first character in the source.
    var start: Int
    /// Offset just past the token's last character.
    var end: Int

    /// True when this is the bare word `keyword`, compared case-insensitively.
    func isWord(_ keyword: String) -> Bool {
        kind == .word && value.caseInsensitiveCompare(keyword) == .orderedSame
    }

    func isSymbol(_ symbol: String) -> Bool { kind == .symbol && value == symbol }

    /// True for anything that can name a column: a bare word or a quoted identifier.
    var isIdentifier: Bool { kind == .word || kind == .quotedIdentifier }
}

/// Errors from tokenizing: an unterminated quote or an unexpected character.
struct SQLTokenizerError: Error, Equatable, Sendable {
    var message: String
    var offset: Int
}

/// Splits SQL text into tokens, skipping white space and comments.
enum SQLTokenizer {
    private static let twoCharacterSymbols: Set<String> = ["<=", ">=", "!=", "<>", "==", "||", "<<", ">>", "->"]

    static func tokenize(_ source: String) throws(SQLTokenizerError) -> [SQLToken] {
        let chars = Array(source)
        var tokens: [SQLToken] = []
        var index = 0
        while index < chars.count {
            let char = chars[index]
            if char.isWhitespace {
                index += 1
                continue
            }
            if char == "-", index + 1 < chars.count, chars[index + 1] == "-" {
                while index < chars.count, chars[index] != "\n" { index += 1 }
                continue
            }
            if char == "/", index + 1 < chars.count, chars[index + 1] == "*" {
                index += 2
                while index + 1 < chars.count, !(chars[index] == "*" && chars[index + 1] == "/") { index += 1 }
                index = min(chars.count, index + 2)
                continue
            }
            let start = index
            switch char {
            case "'":
                let text = try readQuoted(chars, &index, close: "'")
                tokens.append(SQLToken(kind: .string, value: text, start: start, end: index))
            case "\"", "`":
                let text = try readQuoted(chars, &index, close: char)
                tokens.append(SQLToken(kind: .quotedIdentifier, value: text, start: start, end: index))
            case "[":
                index += 1
                var text = ""
                while index < chars.count, chars[index] != "]" { text.append(chars[index]); index += 1 }
                guard index < chars.count else {
                    throw SQLTokenizerError(message: "an opening [ has no closing ]", offset: start)
                }
                index += 1
                tokens.append(SQLToken(kind: .quotedIdentifier, value: text, start: start, end: index))
            case _ where (char == "x" || char == "X") && index + 1 < chars.count && chars[index + 1] == "'":
                index += 1
                let hex = try readQuoted(chars, &index, close: "'")
                tokens.append(SQLToken(kind: .blob, value: hex, start: start, end: index))
            case _ where char.isNumber || (char == "." && index + 1 < chars.count && chars[index + 1].isNumber):
                while index < chars.count, chars[index].isNumber || chars[index] == "." || chars[index].isLetter
                    || ((chars[index] == "+" || chars[index] == "-") && (chars[index - 1] == "e" || chars[index - 1] == "E"))
                {
                    index += 1
                }
                tokens.append(SQLToken(kind: .number, value: String(chars[start..<index]), start: start, end: index))
            case _ where char.isLetter || char == "_" || char.unicodeScalars.first.map { $0.value > 127 } == true:
                while index < chars.count,
                      chars[index].isLetter || chars[index].isNumber || chars[index] == "_" || chars[index] == "$"
                        || chars[index].unicodeScalars.first.map({ $0.value > 127 }) == true
                {
                    index += 1
                }
                tokens.append(SQLToken(kind: .word, value: String(chars[start..<index]), start: start, end: index))
            case "$" where dollarTag(chars, at: index) != nil:
                // PostgreSQL's dollar quoting (`$$ … $$`, `$body$ … $body$`): a function's or
                // a DO block's body, whose semicolons end no statement.
                let tag = dollarTag(chars, at: index) ?? []
                index += tag.count
                var found = false
                while index < chars.count {
                    if chars[index] == "$", index + tag.count <= chars.count, Array(chars[index..<(index + tag.count)]) == tag {
                        index += tag.count
                        found = true
                        break
                    }
                    index += 1
                }
                guard found else { throw SQLTokenizerError(message: "a \(String(tag)) quote opened here is never closed", offset: start) }
                tokens.append(SQLToken(kind: .string, value: String(chars[(start + tag.count)..<(index - tag.count)]), start: start, end: index))
            default:
                if index + 1 < chars.count, twoCharacterSymbols.contains(String([char, chars[index + 1]])) {
                    index += 2
                } else {
                    index += 1
                }
                tokens.append(SQLToken(kind: .symbol, value: String(chars[start..<index]), start: start, end: index))
            }
        }
        return tokens
    }

    /// The opening of a dollar quote at `index` (`$$`, or `$tag$` with a tag of letters,
    /// digits and `_` not led by a digit), or nil.
    private static func dollarTag(_ chars: [Character], at index: Int) -> [Character]? {
        guard chars[index] == "$" else { return nil }
        var end = index + 1
        while end < chars.count, chars[end].isLetter || chars[end] == "_" || (end > index + 1 && chars[end].isNumber) { end += 1 }
        guard end < chars.count, chars[end] == "$" else { return nil }
        return Array(chars[index...end])
    }

    /// Reads a quoted run starting at `index` (on the opening quote). A doubled closing quote
    /// stands for one quote character, as in SQL.
    private static func readQuoted(_ chars: [Character], _ index: inout Int, close: Character) throws(SQLTokenizerError) -> String {
        let start = index
        index += 1
        var text = ""
        while index < chars.count {
            if chars[index] == close {
                if index + 1 < chars.count, chars[index + 1] == close {
                    text.append(close)
                    index += 2
                    continue
                }
                index += 1
                return text
            }
            text.append(chars[index])
            index += 1
        }
        throw SQLTokenizerError(message: "a quote opened here is never closed", offset: start)
    }
}
