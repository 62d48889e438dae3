
/// Fetching records by request: SQLite filters, sorts and pages, with the pending changes of
/// this context and its ancestors laid over the stored rows.
extension ObjectContext {
    /// The records matching `request`, in its order.
    ///
    /// Pending changes show: an edited record is matched and sorted by its edited values, an
    /// inserted one appears where it belongs, a deleted one is left out (or included as
    /// `.deleted` with ``FetchRequest/includesPendingDeletes``). Records already registered are
    /// returned as registered, not re-read; new ones are registered.
    public func fetch(_ request: FetchRequest) throws(StoreError) -> [Record] {
        let entity = try core.entity(request.table)
        let query = try FetchQuery(entity: entity, request: request, pending: pendingRows(for: entity))
        let rows = try storeErrors(path: core.path) {
            try core.session(for: entity) { db in try db.rows(query.sql, query.arguments) }
        }
        return try withState { state in
            var records: [Record] = []
            for row in rows {
                let id = query.objectID(of: row)
                if let object = try registeredObject(id, entity: entity, in: &state, stored: query.columns(of: row)) {
                    records.append(object.record(id: id, entity: entity))
                }
            }
            return records
        }
    }

    /// The number of records `fetch` would return, ignoring limit and offset.
    public func count(for request: FetchRequest) throws(StoreError) -> Int {
        let entity = try core.entity(request.table)
        var unpaged = request
        unpaged.limit = nil
        unpaged.offset = 0
        let query = try FetchQuery(entity: entity, request: unpaged, pending: pendingRows(for: entity))
        return try storeErrors(path: core.path) {
            try core.session(for: entity) { db in
                try db.integer("SELECT count(*) FROM (\(query.sql)) AS counted", query.arguments) ?? 0
            }
        }
    }

    /// Like ``registeredObject(_:entity:in:)`` but registering a root's unknown object from a row
    /// already read, instead of reading it again.
    private func registeredObject(_ id: ObjectID, entity: Entity, in state: inout ContextState, stored: [Value]) throws -> ManagedObject? {
        if let object = state.objects[id] { return object }
        guard parent == nil else { return try registeredObject(id, entity: entity, in: &state) }
        let transient = Array(repeating: Value.null, count: entity.fieldNames.count - entity.columnCount)
        var object = ManagedObject(snapshot: stored + transient)
        object.version = state.changeCount
        state.register(object, for: id)
        return object
    }

    /// Pending objects of one table in this context and its ancestors, nearest context winning.
    func pendingRows(for entity: Entity) throws(StoreError) -> [ObjectID: PendingRow] {
        var rows = try parent?.pendingRows(for: entity) ?? [:]
        try withState { state in
            for (id, object) in state.dirtyObjects where id.table == entity.name {
                if object.isDeleted {
                    rows[id] = PendingRow(columns: object.columnValues(entity: entity), isDeleted: true)
                } else if object.isInserted || !object.persistentChanges(entity: entity).isEmpty {
                    rows[id] = PendingRow(columns: object.columnValues(entity: entity), isDeleted: false)
                }
            }
        }
        return rows
    }
}

/// A pending object's column values, as laid over the stored rows.
struct PendingRow {
    var columns: [Value]
    var isDeleted: Bool
}

/// The SQL of a fetch. Without pending changes it is a plain query on the table; with them,
/// the table's rows minus the pending ones, plus the pending ones as a `VALUES` list, are
/// filtered, sorted and paged by the engine in one statement, so pending rows obey the same
/// comparison and collation rules as stored ones.
struct FetchQuery {
    let sql: String
    let arguments: [Value]
    private let entity: Entity
    private let pendingIDs: [ObjectID]
    private let width: Int

    init(entity: Entity, request: FetchRequest, pending: [ObjectID: PendingRow]) throws(StoreError) {
        self.entity = entity
        let table = entity.table
        let dialect = table.dialect
        width = table.keyWidth
        var arguments: [Value] = []
        let filter = try request.predicate?.sql(for: table)
        let keyAliases = (0..<width).map { "__cf_k\($0)".quotedIdentifier }
        let columnNames = table.columns.map(\.name.quotedIdentifier)

        var source: String
        var ids: [ObjectID] = []
        if pending.isEmpty {
            source = "SELECT \(table.selectList), NULL AS \"__cf_id\" FROM \(table.fromSQL)"
        } else {
            let shown = pending.filter { !$0.value.isDeleted || request.includesPendingDeletes }
                .sorted { $0.key.description < $1.key.description }
            let excluded = pending.keys.filter { !$0.isTemporary }
            var parts: [String] = []
            var tablePart = "SELECT " + (zip(table.primaryKey.keyExpressions, keyAliases).map { "\($0) AS \($1)" } + columnNames).joined(separator: ", ")
                + ", NULL AS \"__cf_id\" FROM \(table.fromSQL)"
            if !excluded.isEmpty {
                tablePart += " WHERE NOT (\(table.keyInSQL(count: excluded.count)))"
                arguments += excluded.flatMap { $0.primaryKeyValues ?? [] }
            }
            parts.append(tablePart)
            if !shown.isEmpty {
                // Typed where the engine needs it: the VALUES list stands alone in the statement.
                let keyNames = table.primaryKey.columnNames
                let keyColumns = (0..<width).map { index in
                    (keyNames.indices.contains(index) ? table.column(named: keyNames[index]) : nil) ?? ColumnDescription(name: "key", declaredType: "text")
                }
                let ordinal = ColumnDescription(name: "__cf_id", declaredType: "bigint")
                let tuple = "(" + (keyColumns + table.columns + [ordinal]).map(dialect.placeholder).joined(separator: ", ") + ")"
                var values: [String] = []
                for (index, (id, row)) in shown.enumerated() {
                    values.append(tuple)
                    let key = id.primaryKeyValues ?? entity.table.keyColumnIndexes.map { row.columns[$0] }
                    arguments += (key.count == width ? key : Array(repeating: .null, count: width)) + row.columns + [.integer(Int64(index))]
                    ids.append(id)
                }
                parts.append("SELECT * FROM (VALUES \(values.joined(separator: ", "))) AS pending")
            }
            source = "SELECT * FROM (\(parts.joined(separator: " UNION ALL "))) AS fetched"
            // Column names of a compound select come from its first part, so the table's names
            // (and the key aliases) apply to the pending rows too.
        }
        pendingIDs = ids

        let outer = keyAliases + table.columns.map(dialect.selectExpression) + ["\"__cf_id\""]
        var sql = pending.isEmpty ? source : "SELECT \(outer.joined(separator: ", ")) FROM (\(source)) AS matched"
        if let filter {
            sql += " WHERE \(filter.sql)"
            arguments += filter.arguments
        }
        let order = try table.orderTerms(request.sort, keyAliases: pending.isEmpty ? nil : keyAliases)
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if request.limit != nil || request.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [request.limit.map { .integer(Int64($0)) } ?? dialect.unlimited, .integer(Int64(request.offset))]
        }
        self.sql = sql
        self.arguments = arguments
    }

    func objectID(of row: [Value]) -> ObjectID {
        if case .integer(let index) = row[row.count - 1] { return pendingIDs[Int(index)] }
        return entity.objectID(fromKey: row[0..<width])
    }

    func columns(of row: [Value]) -> [Value] {
        Array(row[width..<(row.count - 1)])
    }
}
