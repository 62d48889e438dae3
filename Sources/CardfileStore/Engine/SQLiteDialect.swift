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
    package var importsCopyText: Bool { false }
    package var deferForeignKeys: (sql: String, every: Bool) { ("PRAGMA defer_foreign_keys = ON", true) }
    package var keepingNumberedValues: String { "" }
    package var groupsRowWrites: Bool { false }
    package var transactionRowCounts: String? { nil }
    package var ordersAsSwiftDoes: Bool { true }
    package var indexCatalog: (ledBy: String, nameTaken: String)? { nil }
    package var nameBytes: Int? { nil }
    package func comparable(_ name: String, column: ColumnDescription) -> String { name }
    package func extremeAggregates(_ name: String, column: ColumnDescription) -> (least: String, greatest: String)? { ("min(\(name))", "max(\(name))") }
    /// Any column may hold text.
    package func holdsText(_ name: String, column: ColumnDescription) -> String? { "typeof(\(name)) = 'text'" }
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

    package func keyInJSON(_ expressions: [String], columns: [ColumnDescription?]) -> String? {
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

    /// By each value's storage class (a column of any affinity may hold text). `total()`, not
    /// `sum()`: `sum()` fails on an integer overflow (nanosecond timestamps). The sum is said
    /// as an integer when every number is one and the total is exact in a double.
    package func numberMeasures(_ name: String, column: ColumnDescription) -> NumberMeasures {
        let number = "CASE WHEN typeof(\(name)) IN ('integer', 'real') THEN \(name) END"
        return NumberMeasures(terms: ["count(\(number))", "total(\(number))", "avg(\(number))", "coalesce(sum(typeof(\(name)) = 'real'), 0)"]) { values in
            let numbers = values.first?.wholeNumber ?? 0
            guard numbers > 0, values.count >= 4 else { return (0, .null, nil) }
            let (total, mean, reals) = (values[values.startIndex + 1].doubleValue ?? 0, values[values.startIndex + 2].doubleValue, values[values.startIndex + 3].wholeNumber ?? 0)
            if reals == 0, total.magnitude < 9_007_199_254_740_992, let whole = Int64(exactly: total) {
                return (numbers, .integer(whole), mean)
            }
            return (numbers, .real(total), mean)
        }
    }
}
