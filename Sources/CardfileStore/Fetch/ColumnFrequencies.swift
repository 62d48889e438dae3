import GRDB

/// How often each value of one column occurs over some rows: the frequency table (`F`).
/// Values are grouped as SQLite's `GROUP BY` groups them (the column's collation; 1 and 1.0
/// together), so a value's count is what a filter `column = value` finds.
public struct ColumnFrequencies: Sendable {
    /// The rows counted.
    public var rows = 0
    /// How many distinct values (NULL counts as one) there are in all.
    public var distinct = 0
    /// The most frequent values, most frequent first (ties in SQLite's order of the values),
    /// at most the number asked for.
    public var values: [(value: Value, count: Int)] = []

    public init() {}
}

extension Container {
    /// The frequency table of `column` over the rows of `table` matching `predicate` (all
    /// rows when nil), as stored now: one `GROUP BY` (a scan and a sort of the groups, off the
    /// loop), keeping the `limit` most frequent values.
    public func frequencies(of column: String, table: String, where predicate: Predicate? = nil, limit: Int = 1_000) throws(StoreError) -> ColumnFrequencies {
        let entity = try core.entity(table)
        let schema = entity.table
        guard let described = schema.column(named: column) else { throw StoreError.noSuchField(table: schema.name, field: column) }
        let c = described.name.quotedIdentifier
        let condition = try predicate?.sql(for: schema)
        let whereSQL = condition.map { " WHERE \($0.sql)" } ?? ""
        // The groups' number and the rows' total ride along every row (a window over all the
        // groups), so one scan gives all three.
        let sql = """
            SELECT value, n, count(*) OVER (), sum(n) OVER ()
            FROM (SELECT \(c) AS value, count(*) AS n FROM \(schema.fromSQL)\(whereSQL) GROUP BY \(c))
            ORDER BY n DESC, value LIMIT \(max(1, limit))
            """
        return try storeErrors(path: core.path) {
            try core.read { db in
                var frequencies = ColumnFrequencies()
                for row in try Row.fetchAll(db, sql: sql, arguments: (condition?.arguments ?? []).statementArguments) {
                    frequencies.values.append((Value(row[0] as DatabaseValue), row[1]))
                    frequencies.distinct = row[2]
                    frequencies.rows = row[3]
                }
                return frequencies
            }
        }
    }
}
