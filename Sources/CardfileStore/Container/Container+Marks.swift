/// How many records marks mark, with the sum and mean of a column's numbers among them.
public struct MarkedCount: Sendable, Equatable {
    public var count: Int
    /// How many of them hold a number in the column summed.
    public var numbers = 0
    /// The sum of those numbers: an integer when they all are and it is exact; else a real
    /// (SQLite's `total`, which never fails on an overflow) or, on PostgreSQL, an exact
    /// `numeric` beyond 64 bits.
    public var sum: Value = .null
    public var mean: Double?

    public init(count: Int) {
        self.count = count
    }
}

/// Reading which records a ``MarkSet`` marks: a count, and the marked ones among a few.
extension Container {
    /// How many records of `table` `marks` marks, as stored now. One query, however many
    /// records a filter rule marks; off the loop for a large table.
    public func countMarked(_ marks: MarkSet, table: String) throws(StoreError) -> Int {
        try countMarked(marks, table: table, summing: nil).count
    }

    /// How many records `marks` marks and, for `column`, the sum and mean of the numbers it
    /// holds in them (its texts, blobs and NULLs left out), in the same scan.
    public func countMarked(_ marks: MarkSet, table: String, summing column: String?) throws(StoreError) -> MarkedCount {
        guard !marks.isEmpty else { return MarkedCount(count: 0) }
        let entity = try core.entity(table)
        let schema = entity.table
        let condition = try marks.predicate(for: schema).sql(for: schema)
        var measures: NumberMeasures?
        if let column {
            guard let found = schema.column(named: column) else { throw StoreError.noSuchField(table: entity.name, field: column) }
            measures = schema.dialect.numberMeasures(found.name.quotedIdentifier, column: found)
        }
        let sql = "SELECT \((["count(*)"] + (measures?.terms ?? [])).joined(separator: ", ")) FROM \(schema.fromSQL) WHERE \(condition.sql)"
        return try storeErrors(path: core.path) {
            try core.session(for: entity) { session in
                guard let row = try session.firstRow(sql, condition.arguments) else { return MarkedCount(count: 0) }
                var counted = MarkedCount(count: row.first?.wholeNumber ?? 0)
                if let measures {
                    (counted.numbers, counted.sum, counted.mean) = measures.read(row.dropFirst())
                }
                return counted
            }
        }
    }

    /// The values of `columns` of the records `marks` marks, in the order of their keys, at
    /// most `limit` of them.
    public func records(marked marks: MarkSet, table: String, columns: [String], limit: Int) throws(StoreError) -> [[Value]] {
        guard !marks.isEmpty else { return [] }
        let entity = try core.entity(table)
        let schema = entity.table
        var names: [String] = []
        for column in columns {
            guard let found = schema.column(named: column) else { throw StoreError.noSuchField(table: schema.name, field: column) }
            names.append(schema.dialect.selectExpression(found))
        }
        let condition = try marks.predicate(for: schema).sql(for: schema)
        let sql = "SELECT \(names.joined(separator: ", ")) FROM \(schema.fromSQL) WHERE \(condition.sql) ORDER BY \(schema.primaryKey.keyExpressions.joined(separator: ", ")) LIMIT \(max(0, limit))"
        return try storeErrors(path: core.path) {
            try core.session(for: entity) { session in try session.rows(sql, condition.arguments) }
        }
    }

    /// Which of `ids` (a screenful) `marks` marks, as stored now. One read of these rows,
    /// asking each filter rule of them; the record rules are looked up in memory.
    public func marked(_ marks: MarkSet, table: String, among ids: [ObjectID]) throws(StoreError) -> Set<ObjectID> {
        guard !marks.isEmpty, !ids.isEmpty else { return [] }
        let entity = try core.entity(table)
        let schema = entity.table
        let keys = ids.compactMap(\.primaryKeyValues)
        guard !keys.isEmpty else { return [] }
        var tests: [String] = []
        var arguments: [Value] = []
        for filter in marks.filters {
            let condition = try filter.sql(for: schema)
            // (A filter's condition may be NULL for a row: that row is not matched.)
            tests.append("CASE WHEN (\(condition.sql)) THEN 1 ELSE 0 END")
            arguments += condition.arguments
        }
        let width = schema.keyWidth
        let sql = "SELECT \((schema.keyReadExpressions + tests).joined(separator: ", ")) FROM \(schema.fromSQL) WHERE \(schema.keyInSQL(count: keys.count))"
        arguments += keys.flatMap { $0 }
        return try storeErrors(path: core.path) {
            try core.session(for: entity) { session in
                var found: Set<ObjectID> = []
                for values in try session.rows(sql, arguments) {
                    let id = entity.objectID(fromKey: values[..<width])
                    let matches = values[width...].map { $0 == .integer(1) }
                    if marks.isMarked(id, filterMatches: matches) { found.insert(id) }
                }
                return found
            }
        }
    }
}
