/// Reads what the pragmas do not report from a `CREATE TABLE` statement: CHECK constraints
/// (with the columns they mention) and the collation declared on each column.
///
/// The parser is tolerant: SQLite already accepted the statement, so anything it does not
/// recognise is skipped rather than reported.
struct CreateTableParser {
    struct Result: Equatable {
        var checks: [CheckConstraint] = []
        /// Declared collations by lowercased column name.
        var collations: [String: Collation] = [:]
        var isWithoutRowid = false
        var isStrict = false
    }

    static func parse(_ sql: String, columnNames: [String]) -> Result {
        guard let tokens = try? SQLTokenizer.tokenize(sql) else { return Result() }
        let source = Array(sql)
        var result = Result()
        let known = Dictionary(columnNames.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

        guard let open = tokens.firstIndex(where: { $0.isSymbol("(") }) else { return result }
        // Split the body into top-level items separated by commas.
        var items: [[SQLToken]] = []
        var current: [SQLToken] = []
        var depth = 0
        var close = tokens.count
        for index in (open + 1)..<tokens.count {
            let token = tokens[index]
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") {
                if depth == 0 { close = index; break }
                depth -= 1
            }
            if depth == 0, token.isSymbol(",") {
                items.append(current)
                current = []
            } else {
                current.append(token)
            }
        }
        if !current.isEmpty { items.append(current) }

        for tail in tokens.dropFirst(close + 1) {
            if tail.isWord("ROWID") { result.isWithoutRowid = true }
            if tail.isWord("STRICT") { result.isStrict = true }
        }

        let tableConstraintWords = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
        for item in items {
            guard let first = item.first else { continue }
            let isTableConstraint = first.kind == .word && tableConstraintWords.contains { first.isWord($0) }
            let columnName: String? = isTableConstraint ? nil : known[first.value.lowercased()]
            var pendingName: String?
            var index = isTableConstraint ? 0 : 1
            while index < item.count {
                let token = item[index]
                if token.isWord("CONSTRAINT"), index + 1 < item.count {
                    pendingName = item[index + 1].value
                    index += 2
                    continue
                }
                if token.isWord("COLLATE"), index + 1 < item.count, let columnName {
                    result.collations[columnName.lowercased()] = Collation(name: item[index + 1].value)
                    index += 2
                    continue
                }
                if token.isWord("CHECK"), index + 1 < item.count, item[index + 1].isSymbol("(") {
                    let (body, next) = parenthesised(item, from: index + 1)
                    let expression = body.isEmpty
                        ? ""
                        : String(source[body.first!.start..<body.last!.end])
                    var mentioned: [String] = []
                    if let columnName { mentioned.append(columnName) }
                    for token in body where token.isIdentifier {
                        if let name = known[token.value.lowercased()], !mentioned.contains(name) {
                            mentioned.append(name)
                        }
                    }
                    result.checks.append(CheckConstraint(name: pendingName, expression: expression, columns: mentioned))
                    pendingName = nil
                    index = next
                    continue
                }
                if token.isSymbol("(") {
                    // Skip any other parenthesised part (types, defaults, generated expressions).
                    index = parenthesised(item, from: index).next
                    continue
                }
                if token.kind == .word, !token.isWord("NOT"), !token.isWord("NULL") {
                    pendingName = token.isWord("CONSTRAINT") ? pendingName : nil
                }
                index += 1
            }
        }
        return result
    }

    /// The tokens inside the parenthesis opening at `start`, and the index after its close.
    private static func parenthesised(_ tokens: [SQLToken], from start: Int) -> (body: [SQLToken], next: Int) {
        var depth = 0
        var index = start
        while index < tokens.count {
            if tokens[index].isSymbol("(") { depth += 1 }
            if tokens[index].isSymbol(")") {
                depth -= 1
                if depth == 0 { return (Array(tokens[(start + 1)..<index]), index + 1) }
            }
            index += 1
        }
        return (Array(tokens[min(start + 1, tokens.count)...]), tokens.count)
    }
}
