import Foundation

/// Reads what a person types in a list's filter box into a ``Predicate``.
///
/// The language is small and forgiving:
/// - words and quoted phrases search the displayed columns (`ursula "left hand"`), every term
///   must match somewhere;
/// - `column op value` compares (`year >= 1990`, `name = 'Le Guin'`, `rating != 5`), with
///   `=`, `==`, `!=`, `<>`, `<`, `<=`, `>`, `>=`;
/// - `column is empty`, `column is not empty`, `column is null`, `column is not null`;
/// - `column ~ text` searches one column;
/// - `and`, `or`, `not` and parentheses combine; terms side by side mean `and`.
///
/// A word followed by an operator must name a column (a typo is reported, not searched for).
/// Text that cannot be tokenised (an apostrophe in `O'Brien`) is searched for as typed, unless
/// it comes after a comparison, where an unclosed quote is an error.
public enum FilterParser {
    /// Parses `text` for `table`, searching `searchColumns` for free text. Returns nil for an
    /// empty filter.
    /// - Throws: ``StoreError/invalidFilter(message:offset:)``, whose offset counts characters
    ///   of `text` as given (leading spaces included); an unknown column is one too.
    public static func parse(_ text: String, table: TableSchema, searchColumns: [String]) throws(StoreError) -> Predicate? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        // Offsets count from the start of the text as typed (what the prompt shows).
        let tokens: [SQLToken]
        do {
            tokens = try SQLTokenizer.tokenize(text)
        } catch {
            // A stray quote in words (O'Brien) is searched for; in a condition it is an error.
            guard startsACondition(before: error.offset, in: text) else { return .contains(searchColumns, trimmed) }
            // Reported where typing goes on (the end), naming where the quote opened.
            let opener = Array(text)[error.offset] == "[" ? "[" : "quote"
            throw StoreError.invalidFilter(message: "the \(opener) opened at character \(error.offset + 1) is never closed", offset: text.count)
        }
        let end = text.count - (text.reversed().prefix { $0.isWhitespace }.count)
        var parser = Parser(tokens: tokens, table: table, searchColumns: searchColumns, length: end)
        let predicate = try parser.parseOr()
        if let extra = parser.peek {
            throw StoreError.invalidFilter(message: "unexpected “\(extra.value)”", offset: extra.start)
        }
        return predicate
    }

    /// Reads `COLUMN = VALUE` (`:set`), VALUE a literal as a filter's comparison reads it: a
    /// number (kept as typed for a TEXT column), a quoted text, `NULL`, a bare word (text) or
    /// `x'00ff'` (a blob).
    /// - Throws: ``StoreError/invalidFilter(message:offset:)``, an unknown column included.
    public static func parseAssignment(_ text: String, table: TableSchema) throws(StoreError) -> (column: String, value: Value) {
        let tokens: [SQLToken]
        do {
            tokens = try SQLTokenizer.tokenize(text)
        } catch {
            throw StoreError.invalidFilter(message: "the quote opened at character \(error.offset + 1) is never closed", offset: text.count)
        }
        var parser = Parser(tokens: tokens, table: table, searchColumns: [], length: text.count)
        return try parser.parseAssignment()
    }

    /// True when the text before `offset` holds a comparison, `is` or a parenthesis: what
    /// follows is part of a condition, not words to search for.
    private static func startsACondition(before offset: Int, in text: String) -> Bool {
        guard let tokens = try? SQLTokenizer.tokenize(String(text.prefix(offset))) else { return true }
        return tokens.indices.contains { index in
            let token = tokens[index]
            if token.isSymbol("(") || token.isSymbol(")") { return true }
            return index > 0 && tokens[index - 1].isIdentifier && Parser.startsCondition(token)
        }
    }

    private struct Parser {
        let tokens: [SQLToken]
        let table: TableSchema
        let searchColumns: [String]
        let length: Int
        var index = 0

        init(tokens: [SQLToken], table: TableSchema, searchColumns: [String], length: Int) {
            self.tokens = tokens
            self.table = table
            self.searchColumns = searchColumns
            self.length = length
        }

        var peek: SQLToken? { index < tokens.count ? tokens[index] : nil }

        private func lookahead(_ offset: Int) -> SQLToken? {
            index + offset < tokens.count ? tokens[index + offset] : nil
        }

        mutating func parseOr() throws(StoreError) -> Predicate {
            var terms = [try parseAnd()]
            while let token = peek, token.isWord("or") {
                index += 1
                terms.append(try parseAnd())
            }
            return terms.count == 1 ? terms[0] : .or(terms)
        }

        mutating func parseAnd() throws(StoreError) -> Predicate {
            var terms = [try parseNot()]
            while let token = peek, !token.isWord("or"), !token.isSymbol(")") {
                if token.isWord("and") { index += 1 }
                terms.append(try parseNot())
            }
            return terms.count == 1 ? terms[0] : .and(terms)
        }

        mutating func parseNot() throws(StoreError) -> Predicate {
            if let token = peek, token.isWord("not") {
                index += 1
                return .not(try parseNot())
            }
            return try parsePrimary()
        }

        mutating func parsePrimary() throws(StoreError) -> Predicate {
            guard let token = peek else {
                throw StoreError.invalidFilter(message: "something is missing at the end", offset: length)
            }
            if token.isSymbol("(") {
                index += 1
                let inner = try parseOr()
                guard let close = peek, close.isSymbol(")") else {
                    throw StoreError.invalidFilter(message: "the parenthesis opened at character \(token.start + 1) is never closed", offset: length)
                }
                index += 1
                return inner
            }
            if token.isIdentifier, let next = lookahead(1), Self.startsCondition(next) {
                return try parseCondition()
            }
            index += 1
            switch token.kind {
            case .word, .quotedIdentifier, .string, .number, .blob:
                return .contains(searchColumns, token.value)
            case .symbol:
                throw StoreError.invalidFilter(message: "“\(token.value)” cannot start a condition", offset: token.start)
            }
        }

        private static let operators: [String: ComparisonOperator] = [
            "=": .equal, "==": .equal, "!=": .notEqual, "<>": .notEqual,
            "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual,
        ]

        static func startsCondition(_ token: SQLToken) -> Bool {
            (token.kind == .symbol && (operators[token.value] != nil || token.value == "~")) || token.isWord("is")
        }

        mutating func parseCondition() throws(StoreError) -> Predicate {
            let name = tokens[index]
            guard let column = table.column(named: name.value) else {
                let names = table.columns.map(\.name)
                let listed = names.prefix(12).joined(separator: ", ") + (names.count > 12 ? ", …" : "")
                throw StoreError.invalidFilter(message: "no column is named “\(name.value)” (the columns: \(listed))", offset: name.start)
            }
            index += 1
            let op = tokens[index]
            index += 1
            if op.isWord("is") {
                var negated = false
                if let word = peek, word.isWord("not") {
                    negated = true
                    index += 1
                }
                guard let what = peek, what.isWord("empty") || what.isWord("null") else {
                    throw StoreError.invalidFilter(message: "“is” must be followed by “empty” or “null”", offset: op.end)
                }
                index += 1
                let test: Predicate = what.isWord("empty") ? .isEmpty(column.name) : .isNull(column.name)
                return negated ? .not(test) : test
            }
            if op.value == "~" {
                guard let literal = peek, literal.kind != .symbol else {
                    throw StoreError.invalidFilter(message: "a value is missing after “\(op.value)”", offset: op.end)
                }
                index += 1
                return .contains([column.name], literal.value)
            }
            return .compare(column.name, Self.operators[op.value]!, try literal(after: op, column: nil))
        }

        /// The value after `op`: a number (a sign before it belongs to it), a quoted text,
        /// `NULL`, or a bare word as text. For `column` (an assignment), a number typed into a
        /// TEXT column stays as typed (`0012`), and `x'00ff'` is a blob.
        mutating func literal(after op: SQLToken, column: ColumnDescription?) throws(StoreError) -> Value {
            var sign = ""
            if let symbol = peek, symbol.isSymbol("-") || symbol.isSymbol("+"), let number = lookahead(1), number.kind == .number, number.start == symbol.end {
                sign = symbol.value == "-" ? "-" : ""
                index += 1
            }
            guard let literal = peek, literal.kind != .symbol else {
                throw StoreError.invalidFilter(message: "a value is missing after “\(op.value)”", offset: op.end)
            }
            index += 1
            switch literal.kind {
            case .number:
                let typed = sign + literal.value
                if column?.affinity == .text { return .text(typed) }
                return Int64(typed).map(Value.integer) ?? Double(typed).map(Value.real) ?? .text(typed)
            case .word where literal.isWord("null"):
                return .null
            case .blob where column != nil:
                return Self.blob(hex: literal.value).map(Value.blob) ?? .text(literal.value)
            default:
                return .text(literal.value)
            }
        }

        private static func blob(hex: String) -> Data? {
            let digits = Array(hex.utf8)
            guard digits.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            for pair in stride(from: 0, to: digits.count, by: 2) {
                guard let byte = UInt8(String(decoding: digits[pair..<pair + 2], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(byte)
            }
            return Data(bytes)
        }

        /// `COLUMN = VALUE`, the whole text.
        mutating func parseAssignment() throws(StoreError) -> (column: String, value: Value) {
            guard let name = peek, name.isIdentifier || name.kind == .string else {
                throw StoreError.invalidFilter(message: "say which column: COLUMN = VALUE", offset: peek?.start ?? length)
            }
            guard let column = table.column(named: name.value) else {
                let names = table.columns.map(\.name)
                let listed = names.prefix(12).joined(separator: ", ") + (names.count > 12 ? ", …" : "")
                throw StoreError.invalidFilter(message: "no column is named “\(name.value)” (the columns: \(listed))", offset: name.start)
            }
            index += 1
            guard let op = peek, op.isSymbol("=") || op.isSymbol("==") else {
                throw StoreError.invalidFilter(message: "“=” must follow the column's name: \(column.name) = VALUE", offset: peek?.start ?? length)
            }
            index += 1
            let value = try literal(after: op, column: column)
            if let extra = peek {
                throw StoreError.invalidFilter(message: "unexpected “\(extra.value)” (quote a text with spaces: 'two words')", offset: extra.start)
            }
            return (column.name, value)
        }
    }
}
