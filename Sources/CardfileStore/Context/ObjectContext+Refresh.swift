/// Discarding and re-reading: rollback, reset, refresh, and choosing a side of a conflict.
extension ObjectContext {
    /// Which value a person chose for a conflicting field.
    public typealias ConflictChoice = ThreeWayMerge.Side

    /// Discards every pending change: inserts are forgotten, deletes undone, edits dropped.
    /// Snapshots are kept.
    public func rollback() {
        _ = try? withState { state in
            for (id, object) in state.dirtyObjects {
                if object.isInserted || object.isDeletedElsewhere {
                    state.remove(id)
                } else {
                    var clean = object
                    clean.edits = [:]
                    clean.deletionBase = nil
                    state.store(clean, for: id)
                }
            }
        }
    }

    /// Forgets every registered object and pending change.
    public func reset() {
        _ = try? withState { state in
            state.removeAll()
        }
    }

    /// Re-reads an object from the source. With `mergeChanges`, its edits stay on top (and an
    /// edited field whose stored value moved is flagged, as in automatic merging); without,
    /// its edits and deletion are dropped. An object inserted here is left as it is.
    public func refresh(_ id: ObjectID, mergeChanges: Bool) throws(StoreError) {
        let (entity, id) = try canonical(id)
        try withState { state in
            guard let object = state.objects[id], !object.isInserted else { return }
            if !mergeChanges {
                var clean = object
                clean.edits = [:]
                clean.deletionBase = nil
                state.register(clean, for: id)
            }
            let source = try loadFromSource([id], db: nil)[id]
            if mergeChanges || source != nil {
                merge(id, source: source, entity: entity, into: &state)
            } else {
                state.remove(id)
            }
            state.bump()
        }
    }

    /// Refreshes every registered object, keeping edits on top.
    public func refreshAll() throws(StoreError) {
        try withState { state in
            let ids = state.objects.compactMap { $0.value.isInserted ? nil : $0.key }
            let fresh = try loadFromSource(ids, db: nil)
            for id in ids {
                merge(id, source: fresh[id], entity: try core.entity(id.table), into: &state)
            }
        }
    }

    /// Settles one conflicting field after a person chose a side, using the store's current
    /// value as the new starting point so the next save does not conflict on it again.
    /// Call ``refresh(_:mergeChanges:)`` with `true` first so the context knows the store's
    /// value.
    public func resolveConflict(of id: ObjectID, field: String, choosing choice: ConflictChoice) throws(StoreError) {
        let (entity, id) = try canonical(id)
        guard let index = entity.fieldIndex(named: field) else {
            throw StoreError.noSuchField(table: entity.name, field: field)
        }
        try withState { state in
            guard var object = state.objects[id], let snapshot = object.snapshot else {
                throw StoreError.noSuchObject(id)
            }
            let sides: [ConflictChoice: Value] = [
                .original: object.original(index), .mine: object.value(index, entity: entity), .theirs: snapshot[index],
            ]
            object.set(index, to: sides[choice]!, base: snapshot[index])
            state.store(object, for: id)
        }
    }

    /// Settles a reported conflict as `policy` would have (see ``ThreeWayMerge/resolved(by:)``),
    /// from the three versions of each field the conflict carries: each field takes the
    /// policy's value, its edit starting from *theirs as reported*. So the next save meets no
    /// conflict on a field nobody touched since, and meets one again where the store moved
    /// after the report: a person's answer never silently overwrites a change they did not
    /// see. The version column is left to the save (writing back the version read would let a
    /// stale save pass its check). Under `.error` nothing changes.
    public func resolveConflict(_ conflict: MergeConflict, by policy: MergePolicy) throws(StoreError) {
        guard conflict.kind == .updateUpdate, let values = conflict.merge.resolved(by: policy) else { return }
        try settle(conflict, with: values)
    }

    /// Settles a reported conflict with a side chosen per contested field (the conflict
    /// dialog's Original / Mine / Theirs); every other field merges (the side that changed it
    /// wins). As with ``resolveConflict(_:by:)``, each edit starts from *theirs as reported*,
    /// so a field that moved again after the report conflicts again at the next save. A
    /// contested field missing from `choices` keeps mine.
    public func resolveConflict(_ conflict: MergeConflict, choosing choices: [String: ConflictChoice]) throws(StoreError) {
        guard conflict.kind == .updateUpdate else { return }
        let values = conflict.merge.merged { index in
            let name = conflict.fields[index].name
            return choices.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value ?? .mine
        }
        try settle(conflict, with: values)
    }

    /// Sets each field of the conflict's record to its value in `values` (in the conflict's
    /// field order), its edit starting from theirs as reported.
    private func settle(_ conflict: MergeConflict, with values: [Value]) throws(StoreError) {
        let (entity, id) = try canonical(conflict.objectID)
        try withState { state in
            guard var object = state.objects[id], object.snapshot != nil else { throw StoreError.noSuchObject(id) }
            for (field, value) in zip(conflict.fields, values) {
                guard let index = entity.fieldIndex(named: field.name), let theirs = field.theirs else { continue }
                if index == entity.versionColumn, !field.changedByMe { continue }
                object.set(index, to: value, base: theirs)
            }
            state.store(object, for: id)
        }
    }

    /// Settles a conflict about a whole record after a person chose a side; call
    /// ``refresh(_:mergeChanges:)`` with `true` first so the context knows the store's row.
    ///
    /// - Deleted here, changed elsewhere: `.mine` deletes it anyway at the next save; `.theirs`
    ///   or `.original` keeps their row and forgets the delete.
    /// - Changed here, deleted elsewhere: `.mine` writes it back (the next save inserts it with
    ///   this context's values and key); `.theirs` or `.original` lets it go.
    /// - Otherwise every field flagged as changed elsewhere is settled with `choice`, as
    ///   ``resolveConflict(of:field:choosing:)`` does.
    public func resolveConflict(of id: ObjectID, keeping choice: ConflictChoice) throws(StoreError) {
        let (entity, id) = try canonical(id)
        let flagged: [String] = try withState { state in
            guard var object = state.objects[id] else { throw StoreError.noSuchObject(id) }
            if object.isDeleted {
                if choice == .mine, let snapshot = object.snapshot {
                    object.deletionBase = Array(snapshot[0..<entity.columnCount])
                } else {
                    object.deletionBase = nil
                    object.edits = [:]
                }
                state.store(object, for: id)
                return []
            }
            if object.isDeletedElsewhere {
                guard choice == .mine else {
                    state.remove(id)
                    return []
                }
                var recreated = ManagedObject(isInserted: true)
                for column in entity.writableColumns {
                    recreated.edits[column] = Edit(value: object.value(column, entity: entity), base: .null)
                }
                for field in entity.columnCount..<entity.fieldNames.count {
                    recreated.edits[field] = Edit(value: object.value(field, entity: entity), base: .null)
                }
                recreated.insertSequence = core.nextInsertSequence()
                state.store(recreated, for: id)
                return []
            }
            return object.changedElsewhere(entity: entity).map { entity.fieldNames[$0] }
        }
        for field in flagged {
            try resolveConflict(of: id, field: field, choosing: choice)
        }
    }
}
