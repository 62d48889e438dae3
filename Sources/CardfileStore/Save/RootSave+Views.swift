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

    /// Why a new record cannot be added through its view: no `INSTEAD OF INSERT` trigger.
    /// (A key field left empty is refused by the validator, like any key's: the key is how
    /// the record is found again once the trigger has stored it.) Empty for a table.
    static func viewRefusals(inserting id: ObjectID, entity: Entity) -> [ValidationFailure] {
        guard entity.table.view?.insert == false else { return [] }
        return [ValidationFailure(objectID: id, field: nil, rule: .viewNotWritable(.insert), value: nil)]
    }

    /// Deletes the view's row by key; the trigger must have taken it away.
    func deleteThroughView(_ item: Item, db: any EngineSession, note: inout WriteAnnotation) throws -> Outcome {
        let key = item.id.primaryKeyValues ?? []
        _ = try db.execute(SaveStatements.delete(item.entity), key)
        guard try readRow(item.id, entity: item.entity, db: db) == nil else { throw Refused() }
        note.note(deleted: item.id)
        return .removed(item.id)
    }

    /// Writes `write` of `values` through the view's trigger and reads the row back: gone, it
    /// was removed; exactly as before although a value was to change, the trigger ignored it.
    func updateThroughView(_ item: Item, setting write: [Int], values: [Value], theirs: [Value], db: any EngineSession,
                           note: inout WriteAnnotation) throws -> Outcome {
        let key = item.id.primaryKeyValues ?? []
        _ = try db.execute(item.entity.updateSQL(setting: write, conditional: false, returning: false), write.map { values[$0] } + key)
        guard let after = try readRow(item.id, entity: item.entity, db: db) else { return .removed(item.id) }
        if after == theirs, write.contains(where: { values[$0] != theirs[$0] }) { throw Refused() }
        note.note(updated: item.id)
        return .stored(item.id, newID: item.id, columns: after)
    }

    /// Inserts `values` into `columns` of the view, then finds the stored row by the key the
    /// values carry (the validator made sure they carry one). A row already under that key
    /// is refused first: a trigger that replaces or ignores would otherwise hand back another
    /// record as this one.
    func insertThroughView(_ item: Item, columns: [Int], values: [Value], db: any EngineSession, note: inout WriteAnnotation) throws -> Outcome {
        let entity = item.entity
        let given = Dictionary(zip(columns, values), uniquingKeysWith: { first, _ in first })
        let key = entity.table.keyColumnIndexes.map { given[$0] ?? .null }
        guard try db.rows(SaveStatements.selectRow(entity), key).isEmpty else {
            throw Refused(field: entity.table.primaryKey.columnNames.first, rule: .unique(columns: entity.table.primaryKey.columnNames))
        }
        _ = try db.execute(SaveStatements.insert(entity, columns: columns, returning: false), values)
        let rows = try db.rows(SaveStatements.selectRow(entity), key)
        guard let row = rows.first else { throw Refused() }
        let stored = entity.objectID(fromKey: row[0..<entity.table.keyWidth])
        note.note(inserted: stored)
        if item.id.isTemporary { note.permanentIDs[item.id] = stored }
        return .stored(item.id, newID: stored, columns: Array(row[entity.table.keyWidth...]))
    }
}
