import GRDB

/// Reading which records a ``MarkSet`` marks: a count, and the marked ones among a few.
extension Container {
    /// How many records of `table` `marks` marks, as stored now. One query, however many
    /// records a filter rule marks; off the loop for a large table.
    public func countMarked(_ marks: MarkSet, table: String) throws(StoreError) -> Int {
        guard !marks.isEmpty else { return 0 }
        let entity = try core.entity(table)
        let condition = try marks.predicate(for: entity.table).sql(for: entity.table)
        return try storeErrors(path: core.path) {
            try core.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(entity.table.fromSQL) WHERE \(condition.sql)",
                                 arguments: condition.arguments.statementArguments) ?? 0
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
            try core.read { db in
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
