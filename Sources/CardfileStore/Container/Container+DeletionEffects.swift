import GRDB

/// What deleting records does beyond them: the rows that foreign keys (`ON DELETE CASCADE`,
/// `SET NULL`, `SET DEFAULT`) and triggers delete or change in turn, counted per table.
public struct DeletionEffects: Hashable, Sendable {
    /// Rows of `table` that also go.
    public struct Deleted: Hashable, Sendable {
        public let table: String
        public let count: Int
    }

    /// Rows of `table` that are changed, and the foreign key columns a `SET NULL` or
    /// `SET DEFAULT` action writes there (empty when only a trigger changes them).
    public struct Changed: Hashable, Sendable {
        public let table: String
        public let count: Int
        public let columns: [String]
        public let action: ForeignKeyDescription.Action?
    }

    /// Other rows deleted, nearest tables first (children before grandchildren). Rows of
    /// the deleted records' own table count here only beyond the records themselves.
    public var deleted: [Deleted] = []
    public var changed: [Changed] = []

    public var isEmpty: Bool { deleted.isEmpty && changed.isEmpty }
}

extension Container {
    /// Counts what deleting `ids` would also delete or change, as SQLite itself does it: the
    /// rows are deleted in a transaction that is rolled back, with temporary triggers
    /// counting every row deleted or updated in each table a foreign key can reach (every
    /// table when the file has triggers of its own). Cycles and self-references are counted
    /// once per row, as SQLite visits them.
    ///
    /// Takes the write lock for that moment; waits for another program's lock no longer than
    /// `busyTimeout` (the container's own wait when nil). Nothing is written.
    /// - Throws: ``StoreError/busy`` when the lock does not come, ``StoreError/readOnly(_:)``,
    ///   or another store error.
    public func deletionEffects(of ids: [ObjectID], busyTimeout: Duration? = nil) throws(StoreError) -> DeletionEffects {
        let entities = try Set(ids.map(\.table)).sorted().map { (table) throws(StoreError) in try core.entity(table) }
        guard !entities.isEmpty else { return DeletionEffects() }
        let schema = core.schema
        if let counts = entities[0].table.dialect.transactionRowCounts {
            return try rehearseDeletion(of: ids, entities: entities, counting: counts, busyTimeout: busyTimeout)
        }
        let reach = Self.tablesReached(from: entities.map(\.table.name), in: schema)
        // Nothing refers to these tables and no trigger can act: only the rows themselves
        // go, and there is no need for the write lock.
        let names = Set(entities.map { $0.table.name.lowercased() })
        let referenced = schema.tables.contains { table in table.foreignKeys.contains { names.contains($0.parentTable.lowercased()) } }
        guard referenced || schema.hasTriggers else { return DeletionEffects() }
        return try storeErrors(path: core.path) {
            do {
                return try rehearseDeletion(of: ids, entities: entities, reach: reach, busyTimeout: busyTimeout)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                // The delete itself would be refused (a foreign key without an action): say
                // why now, as the save would.
                let id = ids[0]
                let entity = try core.entity(id.table)
                let failures = try core.read { db in
                    ConstraintMapper.failures(for: error, id: id, entity: entity, operation: .delete(key: id.primaryKeyValues ?? []),
                                              db: db, schema: core.schema)
                }
                throw StoreError.validationFailed(failures)
            }
        }
    }

    /// On an engine that counts the rows each transaction wrote per table (`counts`, see
    /// ``SQLDialect/transactionRowCounts``): the records are deleted in a transaction rolled
    /// back, and the counts after are compared with those before. A row a `SET NULL` or `SET
    /// DEFAULT` changed is named with the key's columns when the table's keys say which.
    private func rehearseDeletion(of ids: [ObjectID], entities: [Entity], counting counts: String, busyTimeout: Duration?) throws(StoreError) -> DeletionEffects {
        try storeErrors(path: core.path) {
            try core.rehearse(busyTimeout: busyTimeout) { (session: any EngineSession) -> DeletionEffects in
                // (By quoted name: two schemas may hold tables of one name.)
                let names = Dictionary(core.schema.tables.map { ($0.quotedName, $0.name) }, uniquingKeysWith: { first, _ in first })
                func read() throws -> [String: (deleted: Int, updated: Int)] {
                    var found: [String: (deleted: Int, updated: Int)] = [:]
                    for row in try session.rows(counts, []) {
                        guard case .text(let quoted) = row[0], case .text(let shown) = row[1] else { continue }
                        found[names[quoted] ?? shown] = (row[2].wholeNumber ?? 0, row[3].wholeNumber ?? 0)
                    }
                    return found
                }
                let before = try read()
                var named: [String: Int] = [:]
                for id in ids {
                    guard let key = id.primaryKeyValues, let entity = entities.first(where: { $0.name == id.table }) else { continue }
                    do {
                        let gone = try session.execute(SaveStatements.delete(entity), key)
                        named[entity.table.view?.rowsOf ?? entity.table.name, default: 0] += gone
                    } catch {
                        // The delete itself would be refused (a foreign key without an action).
                        guard let failures = session.constraintFailures(for: error, id: id, entity: entity, operation: .delete(key: key), schema: core.schema) else { throw error }
                        throw StoreError.validationFailed(failures)
                    }
                }
                var effects = DeletionEffects()
                let counted = try read()
                // Rows of these tables went: a SET NULL or SET DEFAULT pointing at one of them
                // is what changed rows elsewhere (or a trigger: then no columns are named).
                let gone = Set(counted.filter { $0.value.deleted > (before[$0.key]?.deleted ?? 0) }.keys.map { $0.lowercased() })
                for (table, after) in counted.sorted(by: { $0.key < $1.key }) {
                    let earlier = before[table] ?? (0, 0)
                    let deleted = after.deleted - earlier.deleted - named[table, default: 0]
                    if deleted > 0 { effects.deleted.append(.init(table: table, count: deleted)) }
                    let updated = after.updated - earlier.updated
                    guard updated > 0 else { continue }
                    let keys = (core.schema.table(named: table)?.foreignKeys ?? []).filter {
                        ($0.onDelete == .setNull || $0.onDelete == .setDefault) && gone.contains($0.parentTable.lowercased())
                    }
                    effects.changed.append(.init(table: table, count: updated, columns: keys.flatMap(\.columns), action: keys.first?.onDelete))
                }
                return effects
            }
        }
    }

    private func rehearseDeletion(
        of ids: [ObjectID], entities: [Entity], reach: [TableSchema], busyTimeout: Duration?
    ) throws -> DeletionEffects {
        try core.rehearse(busyTimeout: busyTimeout) { db in
            // (Inside a trigger a table cannot be qualified, temp names are found first, and
            // OR IGNORE does not hold in a foreign key's action, hence NOT EXISTS.)
            // Rows are counted once each, by key: a row two SET NULLs update is one change,
            // and a row updated and then deleted is a deletion.
            try db.execute(sql: """
                CREATE TEMP TABLE cardfile_gone (k INTEGER, row ANY, PRIMARY KEY (k, row));
                CREATE TEMP TABLE cardfile_changed (k INTEGER, row ANY, PRIMARY KEY (k, row));
                """)
            for (index, table) in reach.enumerated() {
                let name = table.name.quotedIdentifier
                let old = Self.rowKey(table, "OLD")
                try db.execute(sql: """
                    CREATE TEMP TRIGGER cardfile_effect_d\(index) AFTER DELETE ON main.\(name) BEGIN
                        INSERT INTO cardfile_gone SELECT \(index), \(old)
                            WHERE NOT EXISTS (SELECT 1 FROM cardfile_gone WHERE k = \(index) AND row = \(old));
                        DELETE FROM cardfile_changed WHERE k = \(index) AND row = \(old);
                    END;
                    CREATE TEMP TRIGGER cardfile_effect_u\(index) AFTER UPDATE ON main.\(name) BEGIN
                        INSERT INTO cardfile_changed SELECT \(index), \(old)
                            WHERE NOT EXISTS (SELECT 1 FROM cardfile_changed WHERE k = \(index) AND row = \(old));
                    END
                    """)
            }
            // The named records are not "also" deleted, even when a cascade from another named
            // record reaches them first: count those that exist before anything goes. Through
            // a view, the record is the row of the table the view shows.
            var named: [String: Int] = [:]
            for id in ids {
                guard let key = id.primaryKeyValues, let entity = entities.first(where: { $0.name == id.table }) else { continue }
                let table = entity.table
                let exists = try Row.fetchOne(db, sql: "SELECT 1 FROM \(table.fromSQL) WHERE \(table.keyMatchSQL)", arguments: key.statementArguments) != nil
                if exists { named[table.view?.rowsOf ?? table.name, default: 0] += 1 }
            }
            for id in ids {
                guard let key = id.primaryKeyValues, let entity = entities.first(where: { $0.name == id.table }) else { continue }
                try db.cachedStatement(sql: SaveStatements.delete(entity)).execute(arguments: key.statementArguments)
            }
            let counts = try Row.fetchAll(db, sql: """
                SELECT k, (SELECT count(*) FROM temp.cardfile_gone g WHERE g.k = e.k) AS deleted,
                          (SELECT count(*) FROM temp.cardfile_changed c WHERE c.k = e.k) AS updated
                FROM (SELECT k FROM temp.cardfile_gone UNION SELECT k FROM temp.cardfile_changed) e ORDER BY k
                """)
            var effects = DeletionEffects()
            let reached = Set(reach.map { $0.name.lowercased() })
            for row in counts {
                let table = reach[row["k"] as Int]
                let deleted = (row["deleted"] as Int) - named[table.name, default: 0]
                if deleted > 0 { effects.deleted.append(.init(table: table.name, count: deleted)) }
                let updated: Int = row["updated"]
                guard updated > 0 else { continue }
                let keys = table.foreignKeys.filter {
                    ($0.onDelete == .setNull || $0.onDelete == .setDefault) && reached.contains($0.parentTable.lowercased())
                }
                effects.changed.append(.init(table: table.name, count: updated, columns: keys.flatMap(\.columns),
                                             action: keys.first?.onDelete))
            }
            return effects
        }
    }

    /// An expression naming one row of `table` in a trigger (`OLD` or `NEW`): its rowid, or
    /// its quoted key columns; a row that cannot be told apart counts as new each time.
    private static func rowKey(_ table: TableSchema, _ prefix: String) -> String {
        switch table.primaryKey {
        case .rowidAlias(let column): return "\(prefix).\(column.quotedIdentifier)"
        case .implicitRowid(let accessor): return "\(prefix).\(accessor)"
        case .columns(let columns), .withoutRowid(let columns):
            return columns.map { "quote(\(prefix).\($0.quotedIdentifier))" }.joined(separator: " || ',' || ")
        case .unidentifiable: return "random()"
        }
    }

    /// The tables a delete in `tables` can reach through foreign keys with an action,
    /// nearest first (the tables themselves, then their children, and so on); every table
    /// when the file has triggers, which may write anywhere. Views hold no rows of their own
    /// (a delete through one reaches its tables by its trigger), so they are never listed.
    static func tablesReached(from tables: [String], in schema: DatabaseSchema) -> [TableSchema] {
        var reached = tables.compactMap { schema.table(named: $0) }.filter { !$0.isView }
        var names = Set(reached.map { $0.name.lowercased() })
        var frontier = names
        while !frontier.isEmpty {
            var next: Set<String> = []
            for child in schema.tables where !names.contains(child.name.lowercased()) {
                let linked = child.foreignKeys.contains { key in
                    frontier.contains(key.parentTable.lowercased()) && key.onDelete != .noAction && key.onDelete != .restrict
                }
                if linked {
                    reached.append(child)
                    next.insert(child.name.lowercased())
                }
            }
            names.formUnion(next)
            frontier = next
        }
        if schema.hasTriggers {
            reached += schema.tables.filter { !$0.isView && !names.contains($0.name.lowercased()) }
        }
        return reached
    }
}
