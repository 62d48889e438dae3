/// Batch operations: one SQL statement over every matching row, without loading records.
///
/// They skip the snapshot checks of a context save (they are deliberate bulk writes), increase
/// a declared version column like any save, and
/// their commit reaches every context through the same ``ContextDidSave`` as a save: contexts
/// that merge automatically refresh the registered objects involved, with no manual merging.
extension Container {
    /// Sets `values` on every row of `table` matching `predicate` (every row when nil) and
    /// returns the IDs of the rows changed.
    /// - Throws: ``StoreError/noSuchField(table:field:)``; ``StoreError/validationFailed(_:)``
    ///   when a value does not fit its column, the column cannot be written, or a constraint
    ///   fails (nothing is written then).
    @discardableResult
    public func batchUpdate(table: String, set values: [String: Value], where predicate: Predicate? = nil) throws(StoreError) -> Set<ObjectID> {
        let entity = try core.entity(table)
        let schema = entity.table
        guard schema.isIdentifiable else { throw StoreError.tableNotEditable(schema.name, isView: schema.isView) }
        guard !schema.isView else { throw StoreError.viewNotWritable(view: schema.name, kind: nil) }
        let placeholder = ObjectID(table: schema.name, primaryKey: [])
        var assignments: [String] = []
        var arguments: [Value] = []
        var failures: [ValidationFailure] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let index = schema.columnIndex(named: name) else {
                throw StoreError.noSuchField(table: schema.name, field: name)
            }
            let column = schema.columns[index]
            if !column.isWritable || schema.keyColumnIndexes.contains(index) {
                failures.append(ValidationFailure(objectID: placeholder, field: column.name, rule: .readOnlyField, value: value))
            } else if case .real(let double) = value, double.isNaN {
                failures.append(ValidationFailure(objectID: placeholder, field: column.name, rule: .notANumber, value: value))
            } else if column.isNotNull, value.isNull {
                failures.append(ValidationFailure(objectID: placeholder, field: column.name, rule: .notNull, value: nil))
            } else if !column.affinity.accepts(value) {
                failures.append(ValidationFailure(objectID: placeholder, field: column.name, rule: .type(column.affinity), value: value))
            }
            assignments.append("\(column.name.quotedIdentifier) = ?")
            arguments.append(value)
        }
        guard failures.isEmpty else { throw StoreError.validationFailed(failures) }
        guard !assignments.isEmpty else { return [] }
        // A version column counts every write, batches included, so a context that read the
        // row before the batch meets it as a conflict.
        if let version = entity.versionColumn, !values.keys.contains(where: { schema.columnIndex(named: $0) == version }) {
            let name = schema.quotedColumnNames[version]
            assignments.append("\(name) = coalesce(\(name), 0) + 1")
        }
        var sql = "UPDATE \(schema.quotedName) SET \(assignments.joined(separator: ", "))"
        if let filter = try predicate?.sql(for: schema) {
            sql += " WHERE \(filter.sql)"
            arguments += filter.arguments
        }
        sql += " RETURNING \(schema.keyReadExpressions.joined(separator: ", "))"
        return try runBatch(entity: entity, sql: sql, arguments: arguments, deleting: false)
    }

    /// Deletes every row of `table` matching `predicate` (every row when nil) and returns the
    /// IDs of the rows deleted.
    @discardableResult
    public func batchDelete(from table: String, where predicate: Predicate? = nil) throws(StoreError) -> Set<ObjectID> {
        let entity = try core.entity(table)
        let schema = entity.table
        guard schema.isIdentifiable else { throw StoreError.tableNotEditable(schema.name, isView: schema.isView) }
        guard !schema.isView else { throw StoreError.viewNotWritable(view: schema.name, kind: nil) }
        var sql = "DELETE FROM \(schema.quotedName)"
        var arguments: [Value] = []
        if let filter = try predicate?.sql(for: schema) {
            sql += " WHERE \(filter.sql)"
            arguments = filter.arguments
        }
        sql += " RETURNING \(schema.keyReadExpressions.joined(separator: ", "))"
        return try runBatch(entity: entity, sql: sql, arguments: arguments, deleting: true)
    }

    private func runBatch(entity: Entity, sql: String, arguments: [Value], deleting: Bool) throws(StoreError) -> Set<ObjectID> {
        let placeholder = ObjectID(table: entity.name, primaryKey: [])
        let operation: WriteOperation = deleting ? .delete(key: []) : .write(values: [])
        return try storeErrors(path: core.path) {
            do {
                return try core.transaction(origin: .batch) { session, note in
                    var ids: Set<ObjectID> = []
                    for key in try session.rows(sql, arguments) {
                        let id = entity.objectID(fromKey: key[...])
                        ids.insert(id)
                        // Rowid-keyed rows are named by SQLite's hook; others only by us.
                        if !entity.table.primaryKey.isRowid {
                            if deleting { note.note(deleted: id) } else { note.note(updated: id) }
                        }
                    }
                    return ids
                }
            } catch let error as StoreError {
                throw error
            } catch {
                let failures = try core.session(for: entity) { session in
                    session.constraintFailures(for: error, id: placeholder, entity: entity, operation: operation, schema: core.schema)
                }
                guard let failures else { throw error }
                throw StoreError.validationFailed(failures)
            }
        }
    }
}
