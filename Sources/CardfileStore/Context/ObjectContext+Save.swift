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
                    try parent.absorb(childChanges(state))
                    try markSavedIntoParent(&state, parent: parent)
                } else {
                    try RootSave(context: self, policy: policy).run(&state)
                }
            }
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

    private func childChanges(_ state: ContextState) -> [ChildChange] {
        state.dirtyObjects
            .filter { $0.object.isInserted || $0.object.isDeleted || !$0.object.edits.isEmpty }
            .map { ChildChange(id: $0.id, object: $0.object) }
            .sorted { $0.object.insertSequence < $1.object.insertSequence }
    }

    /// After a child's save: its objects match what the parent now holds.
    private func markSavedIntoParent(_ state: inout ContextState, parent: ObjectContext) throws {
        for (id, object) in state.dirtyObjects where object.isInserted || object.isDeleted || !object.edits.isEmpty {
            if object.isDeleted {
                state.remove(id)
                continue
            }
            let entity = try core.entity(id.table)
            var saved = ManagedObject(snapshot: object.values(entity: entity))
            saved.insertSequence = object.insertSequence
            state.store(saved, for: id)
        }
        // Take the parent's versions now so the next catch-up does not re-read them needlessly.
        let ids = Array(state.objects.keys)
        if let (count, sources) = try parent.sourceObjects(ids, ifChangedSince: nil) {
            state.parentChangeCount = count
            for (id, source) in sources {
                guard var object = state.objects[id] else { continue }
                object.sourceVersion = source.version
                state.register(object, for: id)
            }
        }
    }

    /// Receives a child's changes. An edited field keeps this context's own base when it has
    /// one, else takes the child's: so a value that changed in the store while the child was
    /// editing still conflicts when this context saves.
    func absorb(_ changes: [ChildChange]) throws {
        try withState { state in
            for change in changes {
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
                    object.deletionBase = (0..<entity.columnCount).map { column in
                        if let edit = object.edits[column], edit.value != edit.base { return edit.base }
                        return childBases[column]
                    }
                } else {
                    for (field, edit) in child.edits {
                        if object.isInserted {
                            object.edits[field] = Edit(value: edit.value, base: .null)
                        } else if object.edits[field] != nil {
                            object.edits[field]!.value = edit.value
                        } else {
                            object.edits[field] = edit
                        }
                    }
                }
                state.store(object, for: change.id)
            }
        }
    }
}
