/// One field edit: the value set, and the stored value the edit started from.
///
/// Keeping `base` apart from the object's snapshot is what stops merges from hiding
/// conflicts: a merge moves the snapshot forward but never the base, so a save of an edited
/// field checks the store against what the person actually saw.
struct Edit: Hashable, Sendable {
    var value: Value
    var base: Value
}

/// A context's state for one registered object.
struct ManagedObject: Sendable {
    /// Every field's value as last known in the source (the store, or the parent context),
    /// columns first, then transient fields (which keep their in-memory value after a save);
    /// nil for an object inserted here and never saved.
    var snapshot: [Value]?
    /// Edits by field index, persistent and transient.
    var edits: [Int: Edit] = [:]
    var isInserted = false
    /// For a child context: the parent holds this object as an unsaved insert, so a field set
    /// to the value it shows (NULL for a field never set) must still go up explicitly, or the
    /// INSERT would leave the column to its default.
    var sourceIsInserted = false
    /// For a deleted object, the column values the delete is checked against.
    var deletionBase: [Value]?
    var isDeletedElsewhere = false
    /// The owning context's change counter when this object last changed.
    var version: UInt64 = 0
    /// For a child context: the parent's version of the object when last synchronised.
    var sourceVersion: UInt64 = 0
    /// Orders inserts so a save writes them in the order they were made.
    var insertSequence: UInt64 = 0

    var isDeleted: Bool { deletionBase != nil }

    /// Sets a field, keeping the rule that an edit equal to the value it started from is no
    /// edit at all: such an edit is removed at once, so merges reach the field again and
    /// `hasChanges` clears. (An inserted object keeps every field set: a field set to NULL
    /// must not fall back to the column's default.)
    mutating func set(_ field: Int, to value: Value, entity: Entity) {
        if isInserted {
            edits[field] = Edit(value: value, base: .null)
            return
        }
        let base = edits[field]?.base ?? self.value(field, entity: entity)
        if sourceIsInserted {
            edits[field] = Edit(value: value, base: base)
        } else if value == base || value == snapshot?[field] {
            // Back where it started, or the value the source holds now: nothing to write.
            edits.removeValue(forKey: field)
        } else {
            edits[field] = Edit(value: value, base: base)
        }
    }

    /// Sets a field to `value` with its edit starting from `base` (a parent taking a child's
    /// edit); the edit is dropped when it changes nothing.
    mutating func set(_ field: Int, to value: Value, base: Value) {
        if isInserted {
            edits[field] = Edit(value: value, base: .null)
        } else if value == base {
            edits.removeValue(forKey: field)
        } else {
            edits[field] = Edit(value: value, base: base)
        }
    }

    /// The current value of a field.
    func value(_ field: Int, entity: Entity) -> Value {
        if let edit = edits[field] { return edit.value }
        if let snapshot { return snapshot[field] }
        return .null
    }

    /// Current values of every field.
    func values(entity: Entity) -> [Value] {
        (0..<entity.fieldNames.count).map { value($0, entity: entity) }
    }

    /// Current column values only.
    func columnValues(entity: Entity) -> [Value] {
        (0..<entity.columnCount).map { value($0, entity: entity) }
    }

    /// True when the field's edit changes its value (for inserts, any set field).
    func isChanged(_ field: Int) -> Bool {
        guard let edit = edits[field] else { return false }
        return isInserted || edit.value != edit.base
    }

    /// Persistent fields whose value differs from the value the edit started from.
    func persistentChanges(entity: Entity) -> [Int] {
        edits.keys.filter { $0 < entity.columnCount && isChanged($0) }.sorted()
    }

    func hasPersistentChanges(entity: Entity) -> Bool {
        isInserted || isDeleted || edits.contains { $0.key < entity.columnCount && ($0.value.value != $0.value.base || sourceIsInserted) }
    }

    /// Edited persistent fields whose stored value moved away from the edit's base: the
    /// fields a save would meet as a conflict. (A field whose stored value became the edit's
    /// own value is no longer edited: merging drops such edits.)
    func changedElsewhere(entity: Entity) -> [Int] {
        guard let snapshot, !isInserted else { return [] }
        return persistentChanges(entity: entity).filter { edits[$0]!.base != snapshot[$0] }
    }

    /// For a deleted object: true when the source's row moved away from what the delete was
    /// checked against (the delete meets a changed row).
    func deletionMeetsChange(entity: Entity) -> Bool {
        guard let deletionBase, let snapshot, !isInserted else { return false }
        return (0..<entity.columnCount).contains { deletionBase[$0] != snapshot[$0] }
    }

    /// The value each checked column must still have in the store for an update to apply.
    func updateCheckValues(entity: Entity) -> [Value] {
        guard let snapshot else { return [] }
        return entity.checkedColumns.map { column in
            if let edit = edits[column], edit.value != edit.base { return edit.base }
            return snapshot[column]
        }
    }

    /// The column values as the person last saw them with edits' bases: what a delete checks.
    func baseValues(entity: Entity) -> [Value] {
        guard let snapshot else { return [] }
        return (0..<entity.columnCount).map { column in
            if let edit = edits[column], edit.value != edit.base { return edit.base }
            return snapshot[column]
        }
    }

    func status(entity: Entity) -> Record.Status {
        if isDeleted { return .deleted }
        if isInserted { return .inserted }
        return edits.contains(where: { isChanged($0.key) }) ? .updated : .unchanged
    }

    func record(id: ObjectID, entity: Entity) -> Record {
        let changed = edits.keys.filter { isChanged($0) }.map { entity.fieldNames[$0] }
        return Record(
            id: id,
            fieldNames: entity.fieldNames,
            values: values(entity: entity),
            status: status(entity: entity),
            changedFields: Set(changed),
            changedElsewhere: Set(changedElsewhere(entity: entity).map { entity.fieldNames[$0] }),
            isDeletedElsewhere: isDeletedElsewhere)
    }
}
