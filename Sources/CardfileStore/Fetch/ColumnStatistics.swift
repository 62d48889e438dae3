/// What one column holds over some rows of a table: how many, how many NULL or empty, how many
/// distinct values, the extremes, the mean of its numbers, its shortest and longest text, and
/// its most common values. Values are compared as the engine compares them (on SQLite, storage
/// class first).
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
        let (c, arguments, dialect) = (rows.column, rows.arguments, rows.dialect)
        let comparable = dialect.comparable(c, column: rows.described)
        let measures = dialect.numberMeasures(c, column: rows.described)
        let extremes = dialect.extremeAggregates(c, column: rows.described)
        var terms = ["count(*)", "count(*) - count(\(c))", "coalesce(sum(CASE WHEN \(dialect.isEmptyText(c)) THEN 1 ELSE 0 END), 0)", "count(DISTINCT \(comparable))"]
        if let extremes { terms += [extremes.least, extremes.greatest] }
        terms += measures.terms
        let text = dialect.holdsText(c, column: rows.described)
        return try storeErrors(path: core.path) {
            try core.session(for: rows.entity) { session in
                var statistics = ColumnStatistics()
                if let row = try session.firstRow("SELECT \(terms.joined(separator: ", ")) \(rows.from)", arguments) {
                    statistics.rows = row[0].wholeNumber ?? 0
                    statistics.nulls = row[1].wholeNumber ?? 0
                    statistics.emptyTexts = row[2].wholeNumber ?? 0
                    statistics.distinct = row[3].wholeNumber ?? 0
                    var next = 4
                    if extremes != nil {
                        (statistics.minimum, statistics.maximum) = (row[4], row[5])
                        next = 6
                    }
                    (statistics.numbers, _, statistics.mean) = measures.read(row[next...])
                }
                if extremes == nil {
                    // The least and the greatest by the column's own order, each a top-1 read.
                    for ascending in [true, false] {
                        let sql = "SELECT \(rows.read) \(rows.also("\(c) IS NOT NULL")) ORDER BY \(dialect.orderTerm(comparable, ascending: ascending, canBeNull: false)) LIMIT 1"
                        let found = try session.firstRow(sql, arguments)?.first ?? .null
                        if ascending { statistics.minimum = found } else { statistics.maximum = found }
                    }
                }
                if let text {
                    for longest in [false, true] {
                        let sql = "SELECT \(rows.read) \(rows.also(text)) ORDER BY length(\(c)) \(longest ? "DESC" : "ASC"), \(dialect.orderTerm(comparable, ascending: true, canBeNull: false)) LIMIT 1"
                        let found: String?
                        if case .text(let value)? = try session.firstRow(sql, arguments)?.first { found = value } else { found = nil }
                        if longest { statistics.longestText = found } else { statistics.shortestText = found }
                    }
                }
                let common = """
                    SELECT \(rows.read), count(*) \(rows.from) GROUP BY \(comparable)
                    ORDER BY count(*) DESC, \(dialect.orderTerm(comparable, ascending: true, canBeNull: true)) LIMIT \(max(0, common))
                    """
                statistics.mostCommon = try session.rows(common, arguments).map { ($0[0], $0[1].wholeNumber ?? 0) }
                return statistics
            }
        }
    }
}
