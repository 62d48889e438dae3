/// The save of a root context: one write transaction that validates, checks every update and
/// delete against its snapshot, resolves conflicts by the merge policy, and applies the
/// results to the context only once the transaction has committed.
///
/// Failures are collected, not thrown one by one: pre-write validation and constraint
/// failures of every object are reported together. Any failure, or any conflict under
/// `.error`, rolls the whole transaction back, so nothing at all is written and the context
/// keeps every pending change.
struct RootSave {
    let context: ObjectContext
    let policy: MergePolicy

    struct Item {
        let id: ObjectID
        let entity: Entity
        let object: ManagedObject
    }

    /// What became of one object once the transaction committed.
    enum Outcome {
        /// The object now matches `columns` in the store, under `newID`.
        case stored(ObjectID, newID: ObjectID, columns: [Value])
        /// The object is gone from the store.
        case removed(ObjectID)
    }

    private var core: StoreCore { context.core }

    /// A write refused while it ran, reported as a failure of its object: by default one that
    /// SQLite ignored (an INSERT that returned no row, a trigger's RAISE(IGNORE), a view's
    /// trigger that left its row as it was).
    struct Refused: Error {
        var field: String? = nil
        var rule: ValidationFailure.Rule = .ignoredByDatabase
    }

    /// True when the state holds anything a save would write.
    static func hasWork(_ state: ContextState, core: StoreCore) throws -> Bool {
        try state.dirtyObjects.contains { id, object in object.hasPersistentChanges(entity: try core.entity(id.table)) }
    }

    /// Saves; returns the permanent IDs of inserted objects by their temporary IDs.
    @discardableResult
    func run(_ state: inout ContextState) throws -> [ObjectID: ObjectID] {
        guard try Self.hasWork(state, core: core) else {
            try foldTransientEdits(&state)
            return [:]
        }
        var permanent: [ObjectID: ObjectID] = [:]
        var outcomes: [Outcome] = []
        // One record's update or delete is one statement when its row has not moved (see
        // `update` and `delete`): nothing else is written after it. (Not an insert: a lone
        // statement whose answer was lost cannot be asked about afterwards, and an insert,
        // unlike the checked update and delete, would be written twice when tried again.)
        // (Asked of an engine only: SQLite's saves take no round trips.)
        let records = core.engine == nil ? [] : try state.dirtyObjects.filter { id, object in object.hasPersistentChanges(entity: try core.entity(id.table)) }
        let oneStatement = records.count == 1 && !(records.first?.object.isInserted ?? true)
        let history = context.historyNote.withLock { $0 }
        try core.transaction(origin: .context(context.identity), busyTimeout: context.saveBusyTimeout, oneStatement: oneStatement, history: history) { db, note in
            // Events of commits made before this transaction began are already queued; apply
            // them now, reading through the writer, so snapshots are as fresh as they can be.
            try context.catchUp(&state, reading: db)
            outcomes = try write(state, db: db, note: &note)
        }
        for outcome in outcomes {
            switch outcome {
            case .removed(let id):
                state.remove(id)
            case .stored(let id, let newID, let columns):
                if id != newID { permanent[id] = newID }
                guard let old = state.take(id) else { continue }
                let entity = try core.entity(id.table)
                let transient = (entity.columnCount..<entity.fieldNames.count).map { old.value($0, entity: entity) }
                state.store(ManagedObject(snapshot: columns + transient), for: newID)
            }
        }
        try foldTransientEdits(&state)
        return permanent
    }

    /// After a save, the transient edits of an object with nothing left to write become its
    /// in-memory values.
    private func foldTransientEdits(_ state: inout ContextState) throws {
        for (id, object) in state.dirtyObjects where !object.edits.isEmpty && !object.isInserted && !object.isDeleted {
            let entity = try core.entity(id.table)
            guard object.persistentChanges(entity: entity).isEmpty, var snapshot = object.snapshot else { continue }
            for (field, edit) in object.edits where !entity.isPersistent(field) { snapshot[field] = edit.value }
            var folded = object
            folded.snapshot = snapshot
            folded.edits = [:]
            state.store(folded, for: id)
        }
    }

    private func write(_ state: ContextState, db: any EngineSession, note: inout WriteAnnotation) throws -> [Outcome] {
        var deletes: [Item] = []
        var updates: [Item] = []
        var inserts: [Item] = []
        for (id, object) in state.dirtyObjects {
            let entity = try core.entity(id.table)
            let item = Item(id: id, entity: entity, object: object)
            if object.isDeleted {
                deletes.append(item)
            } else if object.isInserted {
                inserts.append(item)
            } else if !object.persistentChanges(entity: entity).isEmpty {
                updates.append(item)
            }
        }
        // Children before parents when deleting, parents before children when inserting.
        deletes.sort { ($0.entity.table.foreignKeys.count, $0.id.description) > ($1.entity.table.foreignKeys.count, $1.id.description) }
        updates.sort { $0.id.description < $1.id.description }
        inserts.sort { ($0.entity.table.foreignKeys.count, $0.object.insertSequence) < ($1.entity.table.foreignKeys.count, $1.object.insertSequence) }

        var failures: [ValidationFailure] = []
        for item in updates { failures += Validator.validateUpdate(item.object, id: item.id, entity: item.entity) }
        for item in inserts { failures += Validator.validateInsert(item.object, id: item.id, entity: item.entity) }
        for item in deletes + updates + inserts where item.entity.table.readOnlyReason != nil {
            failures.append(ValidationFailure(objectID: item.id, field: nil, rule: .readOnlyTable, value: nil))
        }
        for item in deletes + updates where !item.entity.table.isIdentifiable && item.entity.table.readOnlyReason == nil {
            failures.append(ValidationFailure(objectID: item.id, field: nil, rule: .readOnlyTable, value: nil))
        }
        for item in deletes where item.entity.table.view?.delete == false {
            failures.append(ValidationFailure(objectID: item.id, field: nil, rule: .viewNotWritable(.delete), value: nil))
        }
        for item in updates where item.entity.table.isIdentifiable { failures += Self.viewRefusals(updating: item.object, id: item.id, entity: item.entity) }
        for item in inserts { failures += Self.viewRefusals(inserting: item.id, entity: item.entity) }
        let invalid = Set(failures.map(\.objectID))

        var outcomes: [Outcome] = []
        var conflicts: [MergeConflict] = []
        for item in deletes where !invalid.contains(item.id) {
            do {
                if let outcome = try db.attempt({ try delete(item, db: db, note: &note, conflicts: &conflicts) }) { outcomes.append(outcome) }
            } catch let refused as Refused {
                failures.append(ValidationFailure(objectID: item.id, field: refused.field, rule: refused.rule, value: nil))
            } catch {
                guard let mapped = db.constraintFailures(
                    for: error, id: item.id, entity: item.entity, operation: .delete(key: item.id.primaryKeyValues ?? []), schema: core.schema)
                else { throw error }
                failures += mapped
            }
        }
        for item in updates where !invalid.contains(item.id) {
            do {
                if let outcome = try db.attempt({ try update(item, db: db, note: &note, conflicts: &conflicts) }) { outcomes.append(outcome) }
            } catch let refused as Refused {
                failures.append(ValidationFailure(objectID: item.id, field: refused.field, rule: refused.rule, value: nil))
            } catch {
                guard let mapped = db.constraintFailures(
                    for: error, id: item.id, entity: item.entity,
                    operation: .write(values: item.object.columnValues(entity: item.entity)), schema: core.schema)
                else { throw error }
                failures += mapped
            }
        }
        for item in inserts where !invalid.contains(item.id) {
            do {
                outcomes.append(try db.attempt { try insert(item, db: db, note: &note) })
            } catch let refused as Refused {
                failures.append(ValidationFailure(objectID: item.id, field: refused.field, rule: refused.rule, value: nil))
            } catch {
                guard let mapped = db.constraintFailures(
                    for: error, id: item.id, entity: item.entity,
                    operation: .write(values: item.object.columnValues(entity: item.entity)), schema: core.schema)
                else { throw error }
                failures += mapped
            }
        }
        if !conflicts.isEmpty { throw StoreError.conflicts(conflicts) }
        if !failures.isEmpty { throw StoreError.validationFailed(failures) }
        return outcomes
    }

    // MARK: - Deletes

    private func delete(_ item: Item, db: any EngineSession, note: inout WriteAnnotation, conflicts: inout [MergeConflict]) throws -> Outcome? {
        let entity = item.entity
        let key = item.id.primaryKeyValues ?? []
        let bases = item.object.deletionBase ?? []
        // The store's row must still be the one deleted. When the SQL check can prove it,
        // delete on that condition; otherwise (or when the check failed) read the row under
        // the write lock and merge. (SQLite counts no changes made through a view's trigger,
        // so a view's row is always read.)
        if !entity.table.isView, item.object.checkProvesUnmoved(entity: entity, original: { bases }) {
            let checked = entity.checkArguments(entity.checkedColumns.map { bases[$0] })
            if try db.execute(SaveStatements.conditionalDelete(entity), key + checked) > 0 {
                note.note(deleted: item.id)
                return .removed(item.id)
            }
        }
        guard let theirs = try readRow(item.id, entity: entity, db: db) else {
            // Deleted on both sides: nothing to do, nothing to report.
            return .removed(item.id)
        }
        let merge = item.object.deletionMerge(theirs: theirs, entity: entity)
        let mineWins: Bool
        if merge.changedByTheirs.isEmpty {
            mineWins = true
        } else {
            switch policy.recordSide {
            case nil:
                conflicts.append(MergeConflict(objectID: item.id, kind: .deleteUpdate, fields: MergeConflict.fields(of: merge, entity: entity)))
                return nil
            case let side?:
                mineWins = side == .mine
            }
        }
        guard mineWins else { return .stored(item.id, newID: item.id, columns: theirs) }
        if entity.table.isView { return try deleteThroughView(item, db: db, note: &note) }
        // The row was there a moment ago, under the lock: a delete that took nothing was ignored.
        guard try db.execute(SaveStatements.delete(entity), key) > 0 else { throw Refused() }
        note.note(deleted: item.id)
        return .removed(item.id)
    }

    // MARK: - Updates

    private func update(_ item: Item, db: any EngineSession, note: inout WriteAnnotation, conflicts: inout [MergeConflict]) throws -> Outcome? {
        let entity = item.entity
        let object = item.object
        let key = item.id.primaryKeyValues ?? []
        let changed = object.persistentChanges(entity: entity)
        let mine = object.columnValues(entity: entity)
        // When the SQL check can prove the row is still as the edits started from, the
        // merge's result is mine: update on that condition. (A view's trigger reports no
        // changes, so a view's row always takes the path below.)
        if !entity.table.isView, object.checkProvesUnmoved(entity: entity, original: { object.baseValues(entity: entity) }) {
            let arguments = changed.map { mine[$0] } + key + entity.checkArguments(entity.checkedColumns.map(object.original))
            // When every other column matched its snapshot and SQLite stores the new values as
            // given, the written row is exactly `mine`: no need to read it back. Generated and
            // version columns, and values the column's affinity converts, need RETURNING;
            // triggers may change the row after the statement, so then it is re-read.
            let known = entity.table.dialect.storesValuesAsGiven && entity.versionColumn == nil && !entity.hasGeneratedColumns
                && changed.allSatisfy { entity.table.columns[$0].affinity.storesUnchanged(mine[$0]) }
            if known {
                if try db.execute(entity.updateSQL(setting: changed, conditional: true, returning: false), arguments) > 0 {
                    note.note(updated: item.id)
                    let written = core.schema.hasTriggers ? try readRow(item.id, entity: entity, db: db) : mine
                    return written.map { .stored(item.id, newID: item.id, columns: $0) } ?? .removed(item.id)
                }
            } else {
                if let row = try db.rows(entity.updateSQL(setting: changed, conditional: true, returning: true), arguments).first {
                    note.note(updated: item.id)
                    let written = core.schema.hasTriggers ? try readRow(item.id, entity: entity, db: db) : entity.table.returned(row)
                    return written.map { .stored(item.id, newID: item.id, columns: $0) } ?? .removed(item.id)
                }
            }
        }
        // The row may have moved: read it under the write lock (so it is the row written
        // over) and merge it field by field, exactly as a merge of the change would have, so
        // the outcome does not depend on whether a poll ran first.
        guard let theirs = try readRow(item.id, entity: entity, db: db) else {
            switch policy.recordSide {
            case nil:
                let original = object.baseValues(entity: entity)
                conflicts.append(MergeConflict(objectID: item.id, kind: .updateDelete, fields: MergeConflict.fields(entity: entity, original: original, mine: mine)))
                return nil
            case .mine?:
                return try reinsert(item, values: mine, db: db, note: &note)
            case .theirs?, .original?:
                return .removed(item.id)
            }
        }
        let merge = object.merge(theirs: theirs, entity: entity)
        guard let values = merge.resolved(by: policy) else {
            conflicts.append(MergeConflict(objectID: item.id, kind: .updateUpdate, fields: MergeConflict.fields(of: merge, entity: entity)))
            return nil
        }
        // Write what differs from their row. The key cannot; the version column is the
        // statement's to increment (writing back the version read would let a later stale
        // save pass its check), unless the person edited it.
        let keyColumns = Set(entity.table.keyColumnIndexes)
        let write = merge.fields.filter { column in
            values[column] != theirs[column] && !keyColumns.contains(column)
                && (column != entity.versionColumn || changed.contains(column))
        }
        guard !write.isEmpty else {
            return .stored(item.id, newID: item.id, columns: theirs)
        }
        if entity.table.isView {
            return try updateThroughView(item, setting: write, values: values, theirs: theirs, db: db, note: &note)
        }
        let sql = entity.updateSQL(setting: write, conditional: false, returning: true)
        guard let row = try db.rows(sql, write.map { values[$0] } + key).first else {
            return .removed(item.id)
        }
        note.note(updated: item.id)
        let written = core.schema.hasTriggers ? try readRow(item.id, entity: entity, db: db) : entity.table.returned(row)
        return written.map { .stored(item.id, newID: item.id, columns: $0) } ?? .removed(item.id)
    }

    // MARK: - Inserts

    private func insert(_ item: Item, db: any EngineSession, note: inout WriteAnnotation) throws -> Outcome {
        let entity = item.entity
        let columns = entity.writableColumns.filter { item.object.edits[$0] != nil }
        let values = columns.map { item.object.edits[$0]!.value }
        if entity.table.isView {
            return try insertThroughView(item, columns: columns, values: values, db: db, note: &note)
        }
        guard let row = try db.rows(SaveStatements.insert(entity, columns: columns), values).first else {
            throw Refused()
        }
        let permanent = entity.objectID(fromKey: row[0..<entity.table.keyWidth])
        note.note(inserted: permanent)
        if item.id.isTemporary { note.permanentIDs[item.id] = permanent }
        return .stored(item.id, newID: permanent, columns: entity.table.returned(row))
    }

    /// Writes a row deleted elsewhere back under its old key.
    private func reinsert(_ item: Item, values: [Value], db: any EngineSession, note: inout WriteAnnotation) throws -> Outcome {
        let entity = item.entity
        let key = item.id.primaryKeyValues ?? []
        if let view = entity.table.view {
            guard view.insert else { throw Refused(rule: .viewNotWritable(.insert)) }
            return try insertThroughView(item, columns: entity.writableColumns, values: entity.writableColumns.map { values[$0] }, db: db, note: &note)
        }
        var rowid: String?
        var arguments: [Value] = []
        // Key columns are among the writable columns and carry the old key; an implicit rowid
        // is written explicitly.
        let columns = entity.writableColumns
        if case .implicitRowid(let accessor) = entity.table.primaryKey {
            rowid = accessor
            arguments = key
        }
        arguments += columns.map { values[$0] }
        guard let row = try db.rows(SaveStatements.insert(entity, columns: columns, rowid: rowid), arguments).first else { throw Refused() }
        note.note(inserted: item.id)
        return .stored(item.id, newID: item.id, columns: entity.table.returned(row))
    }

    // MARK: - Conflicts

    func readRow(_ id: ObjectID, entity: Entity, db: any EngineSession) throws -> [Value]? {
        let rows = try db.rows(SaveStatements.selectRowForWrite(entity), id.primaryKeyValues ?? [])
        return rows.first.map { Array($0[entity.table.keyWidth...]) }
    }
}
