import GRDB

/// How many records marks mark, with the sum and mean of a column's numbers among them.
public struct MarkedCount: Sendable, Equatable {
    public var count: Int
    /// How many of them hold a number in the column summed.
    public var numbers = 0
    /// The sum of those numbers: an integer when they all are and it is exact, else a real
    /// (SQLite's `total`, which never fails on an overflow).
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
        let condition = try marks.predicate(for: entity.table).sql(for: entity.table)
        var measures = "count(*)"
        if let column {
            guard let found = entity.table.column(named: column) else { throw StoreError.noSuchField(table: entity.name, field: column) }
            let c = found.name.quotedIdentifier
            let number = "CASE WHEN typeof(\(c)) IN ('integer', 'real') THEN \(c) END"
            // total(), not sum(): sum() fails on an integer overflow (nanosecond timestamps).
            measures += ", count(\(number)), total(\(number)), avg(\(number)), coalesce(sum(typeof(\(c)) = 'real'), 0)"
        }
        return try storeErrors(path: core.path) {
            try core.read(for: entity) { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT \(measures) FROM \(entity.table.fromSQL) WHERE \(condition.sql)",
                                                 arguments: condition.arguments.statementArguments) else { return MarkedCount(count: 0) }
                var counted = MarkedCount(count: row[0])
                if column != nil {
                    counted.numbers = row[1]
                    let total: Double = row[2]
                    let reals: Int = row[4]
                    // Whole numbers only, and exact in a double: said as an integer.
                    if counted.numbers == 0 {
                        counted.sum = .null
                    } else if reals == 0, total.magnitude < 9_007_199_254_740_992, let whole = Int64(exactly: total) {
                        counted.sum = .integer(whole)
                    } else {
                        counted.sum = .real(total)
                    }
                    counted.mean = row[3]
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
            names.append(found.name.quotedIdentifier)
        }
        let condition = try marks.predicate(for: schema).sql(for: schema)
        let sql = "SELECT \(names.joined(separator: ", ")) FROM \(schema.fromSQL) WHERE \(condition.sql) ORDER BY \(schema.primaryKey.keyExpressions.joined(separator: ", ")) LIMIT \(max(0, limit))"
        return try storeErrors(path: core.path) {
            try core.read(for: entity) { db in
                try db.makeStatement(sql: sql).fetchValueRows(arguments: condition.arguments)
            }
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
            tests.append("coalesce((\(condition.sql)), 0) <> 0")
            arguments += condition.arguments
        }
        let width = schema.primaryKey.keyExpressions.count
        let sql = "SELECT \((schema.primaryKey.keyExpressions + tests).joined(separator: ", ")) FROM \(schema.fromSQL) WHERE \(schema.keyInSQL(count: keys.count))"
        arguments += keys.flatMap { $0 }
        return try storeErrors(path: core.path) {
            try core.read(for: entity) { db in
                var found: Set<ObjectID> = []
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments.statementArguments) {
                    let values = Array(row.databaseValues.map(Value.init))
                    let id = ObjectID(table: schema.name, primaryKey: Array(values[..<width]))
                    let matches = values[width...].map { $0 == .integer(1) }
                    if marks.isMarked(id, filterMatches: matches) { found.insert(id) }
                }
                return found
            }
        }
    }
}
