/// A comparison operator of ``Predicate/compare(_:_:_:)``.
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// A filter on the rows of one table, turned into SQL with every value bound as an argument.
///
/// Column names are checked against the schema when the SQL is built, so a typo is an error
/// rather than an empty result.
public indirect enum Predicate: Hashable, Sendable {
    /// `column op value`, with SQLite's comparison rules (the column's affinity applies).
    case compare(String, ComparisonOperator, Value)
    /// The column is NULL.
    case isNull(String)
    /// The column is NULL or empty text.
    case isEmpty(String)
    /// Case-insensitive (for ASCII letters) substring match in any of the columns.
    case contains([String], String)
    case and([Predicate])
    case or([Predicate])
    case not(Predicate)
    /// Raw SQL over the table's columns, with `?` placeholders bound to `arguments`.
    case sql(String, arguments: [Value])

    /// The SQL condition and its arguments, checking column names against `table`.
    func sql(for table: TableSchema) throws(StoreError) -> (sql: String, arguments: [Value]) {
        var arguments: [Value] = []
        let sql = try render(table, &arguments)
        return (sql, arguments)
    }

    private func column(_ name: String, _ table: TableSchema) throws(StoreError) -> String {
        guard let column = table.column(named: name) else {
            throw StoreError.noSuchField(table: table.name, field: name)
        }
        return column.name.quotedIdentifier
    }

    private func render(_ table: TableSchema, _ arguments: inout [Value]) throws(StoreError) -> String {
        switch self {
        case .compare(let name, let op, let value):
            let quoted = try column(name, table)
            if value.isNull {
                return op == .equal ? "\(quoted) IS NULL" : (op == .notEqual ? "\(quoted) IS NOT NULL" : table.dialect.alwaysFalse)
            }
            arguments.append(value)
            // (A type without equality of its own, PostgreSQL's json, is compared as its text.)
            let described = table.column(named: name).map { table.dialect.comparable(quoted, column: $0) } ?? quoted
            return "\(described) \(op.rawValue) ?"
        case .isNull(let name):
            return "\(try column(name, table)) IS NULL"
        case .isEmpty(let name):
            let quoted = try column(name, table)
            return "(\(quoted) IS NULL OR \(table.dialect.isEmptyText(quoted)))"
        case .contains(let names, let text):
            guard !names.isEmpty else { return table.dialect.alwaysFalse }
            let pattern = "%" + Predicate.escapeLike(text) + "%"
            var parts: [String] = []
            for name in names {
                parts.append(table.dialect.containsText(try column(name, table)))
                arguments.append(.text(pattern))
            }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .and(let predicates):
            guard !predicates.isEmpty else { return table.dialect.alwaysTrue }
            var parts: [String] = []
            for predicate in predicates { parts.append(try predicate.render(table, &arguments)) }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .or(let predicates):
            guard !predicates.isEmpty else { return table.dialect.alwaysFalse }
            var parts: [String] = []
            for predicate in predicates { parts.append(try predicate.render(table, &arguments)) }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .not(let predicate):
            return "NOT (\(try predicate.render(table, &arguments)))"
        case .sql(let sql, let values):
            arguments.append(contentsOf: values)
            return "(\(sql))"
        }
    }

    /// Escapes LIKE's wildcards so `text` matches literally.
    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for char in text {
            if char == "%" || char == "_" || char == "\\" { escaped.append("\\") }
            escaped.append(char)
        }
        return escaped
    }
}
