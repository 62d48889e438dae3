import Foundation
/// Saving: a root context writes to the store; a child moves its changes into its parent.
extension ObjectContext {
    /// Saves pending changes.
    ///
    /// For a root context: one write transaction (see ``MergePolicy`` for how conflicts are
    /// resolved). On success every object's snapshot is the row as written and inserted objects
    /// carry their permanent IDs. On failure nothing is written and every pending change is
    /// kept, so the save can be retried.
    ///
    /// For a child context: inserts, updates (with the values their edits started from) and
    /// deletes move into the parent; nothing is written to disk until a root context saves.
    /// A field the child edited whose value in the parent changed meanwhile (a sibling
    /// editor's save, a merge from the store: the field is flagged in
    /// ``Record/changedElsewhere``) meets that change as a conflict, resolved by the child's
    /// ``mergePolicy`` as a root save would resolve it against the store, with the parent's
    /// value as *theirs*; under `.error` nothing moves up.
    ///
    /// - Throws: ``StoreError/validationFailed(_:)`` with every failure,
    ///   ``StoreError/conflicts(_:)`` under `.error`, ``StoreError/busy`` when another
    ///   connection held the lock past the busy timeout, ``StoreError/readOnly(_:)``, and
    ///   ``StoreError/saveNotAllowed(_:)`` for a temporary context.
    public func save() throws(StoreError) {
        guard identity.role != .temporary else { throw StoreError.saveNotAllowed(identity) }
        let policy = mergePolicy
        try storeErrors(path: core.path) {
            try state.withLock { state in
                try catchUp(&state, reading: nil)
                if let parent {
                    try parent.absorb(childChanges(state), policy: policy)
                    try markSavedIntoParent(&state, parent: parent)
                } else {
                    try RootSave(context: self, policy: policy).run(&state)
                }
            }
        }
    }

    /// Saves this context's changes all the way to the store in one step: for a child, into
    /// its parent and on up to the root's save, as one unit. If any save on the way fails (a
    /// conflict, a validation failure, a busy database), nothing moves anywhere: every parent is
    /// as it was and this context keeps every pending change, so a person's edits are never
    /// stranded half way. For a root context it is ``save()``.
    ///
    /// - Returns: the permanent IDs the store gave inserted objects, by their temporary IDs.
    /// - Throws: what ``save()`` throws, from whichever context failed.
    @discardableResult
    public func saveToStore() throws(StoreError) -> [ObjectID: ObjectID] {
        guard identity.role != .temporary else { throw StoreError.saveNotAllowed(identity) }
        let policy = mergePolicy
        return try storeErrors(path: core.path) {
            try state.withLock { state in
                try catchUp(&state, reading: nil)
                guard let parent else { return try RootSave(context: self, policy: policy).run(&state) }
                let replaced = try parent.absorb(childChanges(state), policy: policy)
                let permanent: [ObjectID: ObjectID]
                do {
                    permanent = try parent.saveToStore()
                } catch {
                    parent.restore(replaced)
                    throw error
                }
                try markSavedIntoParent(&state, parent: parent)
                return permanent
            }
        }
    }

    /// ``saveToStore()``, journaled as writing `step` (an undo or redo from the history, made
    /// in a form because a record had changed since): the step's entries count as undone (or
    /// redone) once this save is written, and not before.
    public func saveToStore(writing step: HistoryStep) throws(StoreError) -> [ObjectID: ObjectID] {
        var root = self
        while let parent = root.parent { root = parent }
        let note = HistoryNote(source: step.isRedo ? .redo : .undo, undoing: step.entries.map(\.id))
        root.historyNote.withLock { $0 = note }
        defer { root.historyNote.withLock { $0 = nil } }
        return try saveToStore()
    }

    /// Records in the history that `step` is done (undone, or redone) although this context
    /// wrote nothing for it: the person chose the values there are now (the conflict
    /// dialog's Take theirs, or choices that left nothing to save).
    /// - Returns: why the journal could not record it, in words (nil when it did): the
    ///   entries then stay as they were, and the next undo offers the same step again.
    @discardableResult
    public func recordWritten(_ step: HistoryStep) -> String? {
        let note = HistoryNote(source: step.isRedo ? .redo : .undo, undoing: step.entries.map(\.id))
        // (It waits for a lock as this context's saves do: tens of milliseconds on a UI loop.)
        var root = self
        while let parent = root.parent { root = parent }
        do {
            try core.journalWithoutWriting(note, busyTimeout: root.saveBusyTimeout)
            return nil
        } catch {
            return error.message
        }
    }

    /// Puts back objects an ``absorb(_:)`` replaced, then re-reads them from the source (a
    /// failed save may have merged newer values into the replaced copies meanwhile).
    ///
    /// The objects are put back before anything is read (no catch-up first): a read that
    /// fails (the server gone) must not leave a child's changes here as this context's own.
    /// Reading them again is then best done, not required: a later catch-up reads them.
    private func restore(_ replaced: [ObjectID: ManagedObject?]) {
        state.withLock { state in
            for (id, object) in replaced {
                if let object { state.store(object, for: id) } else { state.remove(id) }
            }
        }
        // (When this read fails, the records keep the values they were read with: a save
        // that finds their rows moved meets the change as a conflict, never over it.)
        _ = try? withState { state in
            let stored = replaced.compactMap { id, object in object.map { $0.isInserted ? nil : id } ?? nil }
            let fresh = try loadFromSource(stored, db: nil)
            for id in stored { merge(id, source: fresh[id], entity: try core.entity(id.table), into: &state) }
        }
    }

    /// Saves only when ``hasPersistentChanges`` is true; otherwise writes nothing and starts
    /// no transaction. Returns whether it saved.
    @discardableResult
    public func saveIfNeeded() throws(StoreError) -> Bool {
        guard hasPersistentChanges else { return false }
        try save()
        return true
    }

    // MARK: - Child to parent

    /// One object's changes as a child hands them to its parent.
    struct ChildChange {
        let id: ObjectID
        let object: ManagedObject
    }

    /// The changes to hand the parent, in the order they were made.
    private func childChanges(_ state: ContextState) -> [ChildChange] {
        state.dirtyObjects
            .filter { $0.object.isInserted || $0.object.isDeleted || !$0.object.edits.isEmpty }
            .map { ChildChange(id: $0.id, object: $0.object) }
            .sorted { $0.object.insertSequence < $1.object.insertSequence }
    }

    /// One child object's change after meeting `theirs`, this (parent) context's current column
    /// values (nil when the object is gone here); nil when nothing of it goes up. Checked
    /// under this context's lock, so two children saving at once cannot both pass. Fields
    /// merge by ``ThreeWayMerge``, exactly as a root save merges with the store.
    private func resolve(_ object: ManagedObject, id: ObjectID, entity: Entity, theirs: [Value]?, policy: MergePolicy, conflicts: inout [MergeConflict]) -> ManagedObject? {
        guard !object.isInserted, object.snapshot != nil else { return object }
        if object.isDeleted {
            guard let theirs else { return nil }             // gone on both sides
            let merge = object.deletionMerge(theirs: theirs, entity: entity)
            guard !merge.changedByTheirs.isEmpty else { return object }
            switch policy.recordSide {
            case nil:
                conflicts.append(MergeConflict(objectID: id, kind: .deleteUpdate, fields: MergeConflict.fields(of: merge, entity: entity)))
                return nil
            case .mine?:
                var deleting = object
                deleting.deletionBase = theirs
                return deleting
            case .theirs?, .original?:
                return nil
            }
        }
        guard let theirs else {
            guard object.hasPersistentChanges(entity: entity) else { return nil }
            switch policy.recordSide {
            case nil:
                conflicts.append(MergeConflict(objectID: id, kind: .updateDelete, fields: MergeConflict.fields(
                    entity: entity, original: object.baseValues(entity: entity), mine: object.columnValues(entity: entity))))
                return nil
            case .mine?: return object
            case .theirs?, .original?: return nil
            }
        }
        let merge = object.merge(theirs: theirs, entity: entity)
        guard !merge.contested.isEmpty else { return object }
        guard let values = merge.resolved(by: policy) else {
            conflicts.append(MergeConflict(objectID: id, kind: .updateUpdate, fields: MergeConflict.fields(of: merge, entity: entity)))
            return nil
        }
        // Fields the policy settled (contested ones, and any whose value it changed) now start
        // from the parent's value, so the parent does not meet the same conflict again with the
        // store; every other edit goes up as it was.
        var resolved = object
        for column in merge.fields where merge.contested.contains(column) || values[column] != merge.mine[column] {
            resolved.set(column, to: values[column], base: theirs[column])
        }
        return resolved
    }

    /// After a child's save: the objects it handed up now show what the parent holds, and
    /// every object takes the parent's version so the next catch-up does not re-read it.
    private func markSavedIntoParent(_ state: inout ContextState, parent: ObjectContext) throws {
        var savedIDs: Set<ObjectID> = []
        for (id, object) in state.dirtyObjects where object.isInserted || object.isDeleted || !object.edits.isEmpty {
            savedIDs.insert(id)
        }
        let ids = Array(state.objects.keys)
        guard let (count, sources) = try parent.sourceObjects(ids, ifChangedSince: nil) else { return }
        state.parentChangeCount = count
        for id in ids {
            guard let object = state.objects[id] else { continue }
            guard let source = sources[id] else {
                if savedIDs.contains(id) { state.remove(id) }
                continue
            }
            if savedIDs.contains(id) {
                var fresh = ManagedObject(snapshot: source.values)
                fresh.insertSequence = object.insertSequence
                fresh.sourceVersion = source.version
                state.store(fresh, for: id)
            } else if source.version != object.sourceVersion {
                // The parent may have merged a commit while this save ran: take its values.
                let entity = try core.entity(id.table)
                merge(id, source: source, entity: entity, into: &state)
                if var merged = state.objects[id] {
                    merged.sourceVersion = source.version
                    state.register(merged, for: id)
                }
            }
        }
    }

    /// Receives a child's changes. An edited field keeps this context's own base when it has
    /// one, else takes the child's: so a value that changed in the store while the child was
    /// editing still conflicts when this context saves.
    ///
    /// Returns the objects it replaced as they were before (nil for those it added), so a
    /// failed save through the parents can put them back.
    /// First every change meets this context's current values under `policy` (the child's);
    /// under `.error` any conflict throws and nothing here changes.
    @discardableResult
    func absorb(_ incoming: [ChildChange], policy: MergePolicy) throws -> [ObjectID: ManagedObject?] {
        try withState { state in
            var changes: [ChildChange] = []
            var conflicts: [MergeConflict] = []
            for change in incoming {
                let entity = try core.entity(change.id.table)
                var theirs: [Value]?
                if !change.object.isInserted, let current = try registeredObject(change.id, entity: entity, in: &state),
                   !current.isDeleted, !current.isDeletedElsewhere {
                    theirs = current.columnValues(entity: entity)
                }
                guard let resolved = resolve(change.object, id: change.id, entity: entity, theirs: theirs, policy: policy, conflicts: &conflicts) else { continue }
                changes.append(ChildChange(id: change.id, object: resolved))
            }
            if !conflicts.isEmpty { throw StoreError.conflicts(conflicts) }
            var previous: [ObjectID: ManagedObject?] = [:]
            for change in changes {
                previous[change.id] = .some(state.objects[change.id])
                let entity = try core.entity(change.id.table)
                let child = change.object
                if child.isInserted {
                    guard !child.isDeleted else { continue }
                    var object = ManagedObject(edits: child.edits.mapValues { Edit(value: $0.value, base: .null) }, isInserted: true)
                    object.insertSequence = child.insertSequence
                    state.store(object, for: change.id)
                    continue
                }
                var object: ManagedObject
                if let existing = try registeredObject(change.id, entity: entity, in: &state) {
                    object = existing
                } else {
                    // Gone here (deleted elsewhere) while the child edited it: keep the child's
                    // view so this context's save reports the conflict.
                    guard !child.isDeleted else { continue }
                    object = ManagedObject(snapshot: child.snapshot)
                    object.isDeletedElsewhere = true
                }
                if child.isDeleted {
                    if object.isInserted {
                        state.remove(change.id)
                        continue
                    }
                    let childBases = child.deletionBase ?? child.baseValues(entity: entity)
                    object.deletionBase = (0..<entity.columnCount).map { object.edits[$0]?.base ?? childBases[$0] }
                } else {
                    // Deleted here but edited in the child: the child's merge policy chose to
                    // keep its record, so the delete is undone.
                    object.deletionBase = nil
                    for (field, edit) in child.edits {
                        object.set(field, to: edit.value, base: object.edits[field]?.base ?? edit.base)
                    }
                }
                state.store(object, for: change.id)
            }
            return previous
        }
    }
}
