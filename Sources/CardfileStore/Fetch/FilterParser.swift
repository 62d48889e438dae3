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
/// Text that cannot be tokenised (an apostrophe in `O'Brien`) is searched for as typed.
public enum FilterParser {
    /// Parses `text` for `table`, searching `searchColumns` for free text. Returns nil for an
    /// empty filter.
    /// - Throws: ``StoreError/invalidFilter(message:offset:)`` and
    ///   ``StoreError/noSuchField(table:field:)``.
    public static func parse(_ text: String, table: TableSchema, searchColumns: [String]) throws(StoreError) -> Predicate? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        guard let tokens = try? SQLTokenizer.tokenize(trimmed) else {
            return .contains(searchColumns, trimmed)
        }
        var parser = Parser(tokens: tokens, table: table, searchColumns: searchColumns, length: trimmed.count)
        let predicate = try parser.parseOr()
        if let extra = parser.peek {
            throw StoreError.invalidFilter(message: "unexpected “\(extra.value)”", offset: extra.start)
        }
        return predicate
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
                    throw StoreError.invalidFilter(message: "a parenthesis is never closed", offset: token.start)
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

        private static func startsCondition(_ token: SQLToken) -> Bool {
            (token.kind == .symbol && (operators[token.value] != nil || token.value == "~")) || token.isWord("is")
        }

        mutating func parseCondition() throws(StoreError) -> Predicate {
            let name = tokens[index]
            guard let column = table.column(named: name.value) else {
                throw StoreError.noSuchField(table: table.name, field: name.value)
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
            guard let literal = peek, literal.kind != .symbol else {
                throw StoreError.invalidFilter(message: "a value is missing after “\(op.value)”", offset: op.end)
            }
            index += 1
            if op.value == "~" {
                return .contains([column.name], literal.value)
            }
            let value: Value
            switch literal.kind {
            case .number:
                value = Int64(literal.value).map(Value.integer) ?? Double(literal.value).map(Value.real) ?? .text(literal.value)
            case .word where literal.isWord("null"):
                value = .null
            default:
                value = .text(literal.value)
            }
            return .compare(column.name, Self.operators[op.value]!, value)
        }
    }
}
