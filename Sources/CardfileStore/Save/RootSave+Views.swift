import GRDB

/// Saving through a view's `INSTEAD OF` triggers.
///
/// SQLite counts no changes made by such a trigger and its `RETURNING` describes the
/// statement, not the row the trigger wrote: so every write through a view is checked by
/// reading the view's row by key, under the write lock, before (for conflicts) and after
/// (for what was stored).
extension RootSave {
    /// Why an update of `object` cannot go through its view: a changed field that no
    /// `INSTEAD OF UPDATE` trigger covers. Empty for a table.
    static func viewRefusals(updating object: ManagedObject, id: ObjectID, entity: Entity) -> [ValidationFailure] {
        guard let view = entity.table.view else { return [] }
        return object.persistentChanges(entity: entity)
            .filter { !view.canUpdate(entity.table.columns[$0].name) }
            .map { ValidationFailure(objectID: id, field: entity.table.columns[$0].name, rule: .viewNotWritable(.update), value: nil) }
    }

    /// Why a new `object` cannot be added through its view: no `INSTEAD OF INSERT` trigger.
    /// (A key field left empty is refused by the validator, like any key's: the key is how
    /// the record is found again once the trigger has stored it.) Empty for a table.
    static func viewRefusals(inserting object: ManagedObject, id: ObjectID, entity: Entity) -> [ValidationFailure] {
        guard entity.table.view?.insert == false else { return [] }
        return [ValidationFailure(objectID: id, field: nil, rule: .viewNotWritable(.insert), value: nil)]
    }

    /// Deletes the view's row by key; the trigger must have taken it away.
    func deleteThroughView(_ item: Item, db: Database, note: inout WriteAnnotation) throws -> Outcome {
        let key = item.id.primaryKeyValues ?? []
        try db.cachedStatement(sql: SaveStatements.delete(item.entity)).execute(arguments: key.statementArguments)
        guard try readRow(item.id, entity: item.entity, db: db) == nil else { throw IgnoredWrite() }
        note.note(deleted: item.id)
        return .removed(item.id)
    }

    /// Inserts `values` into `columns` of the view, then finds the stored row by the key the
    /// values carry (``viewRefusals(inserting:id:entity:)`` made sure they carry one).
    func insertThroughView(_ item: Item, columns: [Int], values: [Value], db: Database, note: inout WriteAnnotation) throws -> Outcome {
        let entity = item.entity
        try db.cachedStatement(sql: SaveStatements.insert(entity, columns: columns, returning: false))
            .execute(arguments: values.statementArguments)
        let given = Dictionary(zip(columns, values), uniquingKeysWith: { first, _ in first })
        let key = entity.table.keyColumnIndexes.map { given[$0] ?? .null }
        let rows = try db.cachedStatement(sql: SaveStatements.selectRow(entity)).fetchValueRows(arguments: key)
        guard let row = rows.first else { throw IgnoredWrite() }
        let stored = entity.objectID(fromKey: row[0..<entity.table.keyWidth])
        note.note(inserted: stored)
        if item.id.isTemporary { note.permanentIDs[item.id] = stored }
        return .stored(item.id, newID: stored, columns: Array(row[entity.table.keyWidth...]))
    }
}
