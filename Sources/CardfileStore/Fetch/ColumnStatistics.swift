import GRDB

/// What one column holds over some rows of a table: how many, how many NULL or empty, how many
/// distinct values, the extremes, the mean of its numbers, its shortest and longest text, and
/// its most common values. Values are compared as SQLite compares them (storage class first).
public struct ColumnStatistics: Sendable {
    public var rows = 0
    public var nulls = 0
    public var emptyTexts = 0
    public var distinct = 0
    public var minimum: Value = .null
    public var maximum: Value = .null
    /// How many values are numbers, and their mean (nil when none is).
    public var numbers = 0
    public var mean: Double?
    public var shortestText: String?
    public var longestText: String?
    /// The most common values, most common first (ties by value), with their counts.
    public var mostCommon: [(value: Value, count: Int)] = []

    public init() {}
}

extension Container {
    /// The statistics of `column` over the rows of `table` matching `predicate` (all rows when
    /// nil), as stored now: a handful of aggregate queries, off the loop for a large table.
    /// `common` says how many of the most common values to list.
    public func statistics(of column: String, table: String, where predicate: Predicate? = nil, common: Int = 5) throws(StoreError) -> ColumnStatistics {
        let rows = try columnRows(column, table: table, where: predicate)
        let (c, arguments, source, whereSQL) = (rows.column, rows.arguments, rows.from, rows.filter)
        let isNumber = "typeof(\(c)) IN ('integer', 'real')"
        return try storeErrors(path: core.path) {
            try core.read(for: rows.entity) { db in
                var statistics = ColumnStatistics()
                if let row = try Row.fetchOne(db, sql: """
                    SELECT count(*), count(*) - count(\(c)), coalesce(sum(\(c) = ''), 0), count(DISTINCT \(c)), min(\(c)), max(\(c)),
                           coalesce(sum(\(isNumber)), 0), avg(CASE WHEN \(isNumber) THEN \(c) END) \(source)
                    """, arguments: arguments) {
                    statistics.rows = row[0]
                    statistics.nulls = row[1]
                    statistics.emptyTexts = row[2]
                    statistics.distinct = row[3]
                    statistics.minimum = Value(row[4] as DatabaseValue)
                    statistics.maximum = Value(row[5] as DatabaseValue)
                    statistics.numbers = row[6]
                    statistics.mean = row[7]
                }
                let texts = "\(whereSQL.isEmpty ? " WHERE" : whereSQL + " AND") typeof(\(c)) = 'text'"
                statistics.shortestText = try String.fetchOne(db, sql: "SELECT \(c) FROM \(rows.source)\(texts) ORDER BY length(\(c)), \(c) LIMIT 1", arguments: arguments)
                statistics.longestText = try String.fetchOne(db, sql: "SELECT \(c) FROM \(rows.source)\(texts) ORDER BY length(\(c)) DESC, \(c) LIMIT 1", arguments: arguments)
                statistics.mostCommon = try Row.fetchAll(db, sql: "SELECT \(c), count(*) \(source) GROUP BY \(c) ORDER BY count(*) DESC, \(c) LIMIT \(max(0, common))", arguments: arguments)
                    .map { (Value($0[0] as DatabaseValue), $0[1]) }
                return statistics
            }
        }
    }
}
