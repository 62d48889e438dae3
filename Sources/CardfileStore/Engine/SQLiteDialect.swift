/// SQLite's SQL: the statements as the store always wrote them.
package struct SQLiteDialect: SQLDialect {
    package init() {}

    package var name: String { "SQLite" }
    package var alwaysTrue: String { "1" }
    package var alwaysFalse: String { "0" }
    package var same: String { "IS" }
    package var unlimited: Value { .integer(-1) }
    package var lockForWrite: String { "" }
    package var storesValuesAsGiven: Bool { true }
    package var typesTextByColumn: Bool { false }
    package func exportText(_ column: ColumnDescription) -> (expression: String, bare: Bool)? { nil }

    package func placeholder(for column: ColumnDescription) -> String { "?" }

    /// SQLite already sorts NULLs first ascending and last descending.
    package func orderTerm(_ expression: String, ascending: Bool, canBeNull: Bool) -> String {
        "\(expression) \(ascending ? "ASC" : "DESC")"
    }

    /// SQLite's LIKE ignores the case of ASCII letters, and reads any value as text.
    package func containsText(_ expression: String) -> String {
        "\(expression) LIKE ? ESCAPE '\\'"
    }

    /// `IS` under BINARY collation (NOCASE would call `abc` and `ABC` the same); `IS` calls the
    /// integer 0 and the real 0.0 equal, and only a column without affinity (BLOB) can hold
    /// both, so only there the storage class is compared too.
    package func unchanged(_ name: String, column: ColumnDescription) -> (sql: String, typed: Bool) {
        let typed = column.affinity == .blob
        return ("\(name) IS ? COLLATE BINARY" + (typed ? " AND typeof(\(name)) = ?" : ""), typed)
    }

    package func isEmptyText(_ expression: String) -> String { "\(expression) = ''" }

    /// A row value's IN needs a subquery on the right in SQLite: `VALUES` is one.
    package func keyTupleIn(_ expressions: [String], count: Int) -> String {
        let tuple = "(" + Array(repeating: "?", count: expressions.count).joined(separator: ", ") + ")"
        return "(\(expressions.joined(separator: ", "))) IN (VALUES \(Array(repeating: tuple, count: count).joined(separator: ", ")))"
    }

    package func keyInJSON(_ expressions: [String]) -> String? {
        if expressions.count == 1 {
            return "\(expressions[0]) IN (SELECT value FROM json_each(?))"
        }
        let parts = expressions.indices.map { "json_extract(value, '$[\($0)]')" }.joined(separator: ", ")
        return "(\(expressions.joined(separator: ", "))) IN (SELECT \(parts) FROM json_each(?))"
    }

    /// SQLite hands every value back as what it holds.
    package func selectExpression(_ column: ColumnDescription) -> String {
        column.name.quotedIdentifier
    }
}
