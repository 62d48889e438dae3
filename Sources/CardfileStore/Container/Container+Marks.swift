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

    /// Which of `ids` (a screenful) `marks` marks, as stored now.
    public func marked(_ marks: MarkSet, table: String, among ids: [ObjectID]) throws(StoreError) -> Set<ObjectID> {
        guard !marks.isEmpty, !ids.isEmpty else { return [] }
        let entity = try core.entity(table)
        let schema = entity.table
        let keys = ids.compactMap(\.primaryKeyValues)
        guard !keys.isEmpty else { return [] }
        let condition = try marks.predicate(for: schema).sql(for: schema)
        let sql = "SELECT \(schema.primaryKey.keyExpressions.joined(separator: ", ")) FROM \(schema.fromSQL) WHERE \(schema.keyInSQL(count: keys.count)) AND \(condition.sql)"
        let arguments = keys.flatMap { $0 } + condition.arguments
        return try storeErrors(path: core.path) {
            try core.read { db in
                var found: Set<ObjectID> = []
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments.statementArguments) {
                    found.insert(ObjectID(table: schema.name, primaryKey: row.databaseValues.map(Value.init)))
                }
                return found
            }
        }
    }
}
