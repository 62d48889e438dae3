/// How often each value of one column occurs over some rows: the frequency table (`F`).
/// Values are grouped as the engine's `GROUP BY` groups them (on SQLite, by the column's
/// collation, 1 and 1.0 together), so a value's count is what a filter `column = value` finds.
public struct ColumnFrequencies: Sendable {
    /// The rows counted.
    public var rows = 0
    /// How many distinct values (NULL counts as one) there are in all; nil when more values
    /// than were kept exist and they have not been counted (``Container/distinctValues(of:table:where:)``).
    public var distinct: Int?
    /// The most frequent values, most frequent first (ties in the engine's order of the values),
    /// at most the number asked for.
    public var values: [(value: Value, count: Int)] = []

    public init() {}
}

extension Container {
    /// The frequency table of `column` over the rows of `table` matching `predicate` (all
    /// rows when nil), as stored now: one `GROUP BY` (a scan and a sort of the groups, off the
    /// loop), keeping the `limit` most frequent values. When values are left out, ``ColumnFrequencies/distinct``
    /// is nil (counted apart) and the rows are counted by a second, quick scan.
    public func frequencies(of column: String, table: String, where predicate: Predicate? = nil, limit: Int = 1_000) throws(StoreError) -> ColumnFrequencies {
        let rows = try columnRows(column, table: table, where: predicate)
        let comparable = rows.dialect.comparable(rows.column, column: rows.described)
        // The most frequent values, and the rows' total. (A window over all the groups would
        // give their number in the same scan, but it makes SQLite keep every group: with a
        // million distinct values that took 1.2-1.45 s, against 0.6-0.8 s without; the number
        // of values is counted apart, only when some are left out.)
        let sql = """
            SELECT \(rows.read), count(*) AS n \(rows.from) GROUP BY \(comparable)
            ORDER BY n DESC, \(rows.dialect.orderTerm(comparable, ascending: true, canBeNull: true)) LIMIT \(max(1, limit))
            """
        let arguments = rows.arguments
        return try storeErrors(path: core.path) {
            try core.session(for: rows.entity) { session in
                var frequencies = ColumnFrequencies()
                for row in try session.rows(sql, arguments) {
                    frequencies.values.append((row[0], row[1].wholeNumber ?? 0))
                }
                if frequencies.values.count < max(1, limit) {
                    frequencies.distinct = frequencies.values.count
                    frequencies.rows = frequencies.values.reduce(0) { $0 + $1.count }
                } else {
                    frequencies.rows = try session.integer("SELECT count(*) \(rows.from)", arguments) ?? 0
                }
                return frequencies
            }
        }
    }

    /// How many distinct values (NULL counting as one) `column` holds over the rows of `table`
    /// matching `predicate`, as `GROUP BY` groups them.
    public func distinctValues(of column: String, table: String, where predicate: Predicate? = nil) throws(StoreError) -> Int {
        let rows = try columnRows(column, table: table, where: predicate)
        return try storeErrors(path: core.path) {
            try core.session(for: rows.entity) { session in
                // (The subquery named: PostgreSQL requires it.)
                try session.integer("SELECT count(*) FROM (SELECT 1 \(rows.from) GROUP BY \(rows.dialect.comparable(rows.column, column: rows.described))) AS groups", rows.arguments) ?? 0
            }
        }
    }
}
