import GRDB

/// Reads SQLite's query plan of a view to find the table whose rows it shows once each.
///
/// The plan's top-level loops run nested, outermost first. When the outermost loop reads
/// table T and every other loop finds at most one row per row of T (a search by the whole
/// rowid, primary key or a unique index, all compared with `=`), the view holds each row of T
/// at most once, whatever its filter. A compound, a co-routine (grouping, DISTINCT, a
/// subquery in FROM) or a materialized view says nothing so simple, and gives no table.
/// Subqueries in a condition or a column do not repeat rows, so they are allowed, as long as
/// they do not read T (whose key they could then hand out as a column).
///
/// The plan writes `IN` and `IS` lookups as `=?` too, and a unique index holds many NULLs
/// that `IS` matches: so a join is trusted only when the view's text uses neither word.
struct ViewPlan {
    /// One top-level loop: the table (or alias) it reads and how.
    struct Loop {
        let name: String
        /// What follows ` USING ` in the plan's line, or "" for a full scan.
        let access: String
    }

    let loops: [Loop]
    /// The tables or aliases every SCAN and SEARCH reads, at any depth (subqueries too).
    let everyRead: [String]

    /// The plan of `select` (`SELECT * FROM view`, or a query's own text); nil when it has a
    /// shape other than nested loops over tables.
    init?(_ db: Database, select: String) throws {
        var loops: [Loop] = []
        var everyRead: [String] = []
        for row in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + select) {
            let detail: String = row["detail"] ?? ""
            let read = (Self.dropPrefix("SCAN ", detail) ?? Self.dropPrefix("SEARCH ", detail))?.components(separatedBy: " USING ")
            if let read { everyRead.append(read[0]) }
            guard (row["parent"] as Int? ?? 0) == 0 else { continue }
            if let read {
                loops.append(Loop(name: read[0], access: read.dropFirst().joined(separator: " USING ")))
            } else if !(detail.hasPrefix("USE TEMP B-TREE") || detail.contains("SUBQUERY") && !detail.hasPrefix("COMPOUND")) {
                return nil
            }
        }
        guard !loops.isEmpty else { return nil }
        self.loops = loops
        self.everyRead = everyRead
    }

    /// The table whose rows the view shows at most once each, or nil. `viewSQL` is the
    /// view's `CREATE VIEW` statement, for the names its FROM clauses give tables.
    func rowsTable(tables: [TableSchema], viewSQL: String) -> TableSchema? {
        let aliases = Self.aliases(inViewSQL: viewSQL)
        func table(_ name: String) -> TableSchema? {
            let real = aliases[name.lowercased()] ?? name
            return tables.first { $0.name.lowercased() == real.lowercased() }
        }
        guard let outer = table(loops[0].name),
              everyRead.filter({ table($0)?.name == outer.name }).count == 1 else { return nil }
        if loops.count > 1 {
            let tokens = (try? SQLTokenizer.tokenize(viewSQL)) ?? []
            guard !tokens.isEmpty, !tokens.contains(where: { $0.isWord("IN") || $0.isWord("IS") }) else { return nil }
        }
        for loop in loops.dropFirst() {
            guard let inner = table(loop.name), Self.findsOneRow(loop.access, in: inner, tables: tables) else { return nil }
        }
        return outer
    }

    /// True when `access` (`INTEGER PRIMARY KEY (rowid=?)`, `PRIMARY KEY (a=? AND b=?)`,
    /// `[COVERING] INDEX name (a=? AND b=?)`) compares a whole unique key with `=`.
    static func findsOneRow(_ access: String, in table: TableSchema, tables: [TableSchema]) -> Bool {
        if access.hasPrefix("INTEGER PRIMARY KEY (rowid=?)") { return true }
        guard let open = access.firstIndex(of: "("), let close = access.lastIndex(of: ")"), open < close else { return false }
        let equal = Set(access[access.index(after: open)..<close].components(separatedBy: " AND ").compactMap { term in
            term.hasSuffix("=?") ? String(term.dropLast(2)).lowercased() : nil
        })
        let how = access[..<open].trimmingCharacters(in: .whitespaces)
        if how == "PRIMARY KEY" {
            let key = table.primaryKey.columnNames.map { $0.lowercased() }
            return !key.isEmpty && key.allSatisfy(equal.contains)
        }
        guard let name = dropPrefix("INDEX ", String(how)) ?? dropPrefix("COVERING INDEX ", String(how)),
              let index = table.indexes.first(where: { $0.name == name }), index.isUnique else { return false }
        return index.columns.allSatisfy { column in column.name.map { equal.contains($0.lowercased()) } ?? false }
    }

    /// The names a view's FROM clauses give their tables: `people p`, `people AS p`, by the
    /// alias lowercased. Read from the tokens, tolerantly: a name that is no alias maps to
    /// nothing the plan will ask about.
    static func aliases(inViewSQL sql: String) -> [String: String] {
        guard let tokens = try? SQLTokenizer.tokenize(sql) else { return [:] }
        let notAliases: Set<String> = [
            "ON", "USING", "WHERE", "GROUP", "ORDER", "LIMIT", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS",
            "NATURAL", "OUTER", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "HAVING", "INDEXED", "NOT", "FROM", "SELECT",
            "AND", "OR", "IS", "IN", "LIKE", "GLOB", "BETWEEN", "CASE", "WHEN", "THEN", "ELSE", "END", "COLLATE", "ESCAPE",
        ]
        var result: [String: String] = [:]
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            guard tokens[index].isWord("FROM") || tokens[index].isWord("JOIN") || tokens[index].isSymbol(",") else { continue }
            var next = index + 1
            guard next < tokens.count, tokens[next].isIdentifier else { continue }
            var table = tokens[next].value
            if next + 2 < tokens.count, tokens[next + 1].isSymbol("."), tokens[next + 2].isIdentifier {
                table = tokens[next + 2].value
                next += 2
            }
            next += 1
            if next < tokens.count, tokens[next].isWord("AS") { next += 1 }
            guard next < tokens.count, tokens[next].isIdentifier,
                  tokens[next].kind == .quotedIdentifier || !notAliases.contains(tokens[next].value.uppercased()) else { continue }
            result[tokens[next].value.lowercased()] = table
        }
        return result
    }

    private static func dropPrefix(_ prefix: String, _ text: String) -> String? {
        text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : nil
    }
}
