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

    /// The one definition of a pending edit: whether a field set to `value`, starting from
    /// `base`, is something a save must carry.
    ///
    /// On an object inserted here, or one the source holds as an unsaved insert, every field set
    /// is pending: a field set to NULL must not fall back to the column's default. Otherwise an
    /// edit is pending unless it is back where it started (`base`) or the source already holds
    /// its value (the person's change is there). Only pending edits are ever stored, so "edited"
    /// everywhere else simply means "has an entry in ``edits``".
    func isPending(_ field: Int, value: Value, base: Value) -> Bool {
        if isInserted || sourceIsInserted { return true }
        return value != base && value != snapshot?[field]
    }

    /// Sets a field; its edit starts where the field's current edit started, or from the value
    /// the source holds (see ``isPending(_:value:base:)`` for when it is kept).
    mutating func set(_ field: Int, to value: Value, entity: Entity) {
        set(field, to: value, base: edits[field]?.base ?? self.value(field, entity: entity))
    }

    /// Sets a field to `value` with its edit starting from `base` (a parent taking a child's
    /// edit, a person choosing a side of a conflict).
    mutating func set(_ field: Int, to value: Value, base: Value) {
        let base = isInserted ? .null : base
        edits[field] = isPending(field, value: value, base: base) ? Edit(value: value, base: base) : nil
    }

    /// Drops the edits a new snapshot made no longer pending (the source now holds their value).
    mutating func dropSettledEdits() {
        for (field, edit) in edits where !isPending(field, value: edit.value, base: edit.base) {
            edits.removeValue(forKey: field)
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

    /// True when the field carries a pending edit.
    func isChanged(_ field: Int) -> Bool {
        edits[field] != nil
    }

    /// Persistent fields with a pending edit, ascending.
    func persistentChanges(entity: Entity) -> [Int] {
        edits.keys.filter(entity.isPersistent).sorted()
    }

    /// True when a save has something of this object to write.
    func hasPersistentChanges(entity: Entity) -> Bool {
        isInserted || isDeleted || edits.keys.contains(where: entity.isPersistent)
    }

    /// The value the person's edit of a column started from: the edit's base, or the value
    /// the source holds for a column not edited.
    func original(_ column: Int) -> Value {
        edits[column]?.base ?? snapshot?[column] ?? .null
    }

    /// ``original(_:)`` of every column: the record as the person last saw it. A delete is
    /// checked against this.
    func baseValues(entity: Entity) -> [Value] {
        guard snapshot != nil else { return [] }
        return (0..<entity.columnCount).map(original)
    }

    /// The three-way merge of this object's columns with `theirs` (see ``ThreeWayMerge``).
    func merge(theirs: [Value], entity: Entity) -> ThreeWayMerge {
        ThreeWayMerge(original: baseValues(entity: entity), mine: columnValues(entity: entity), theirs: theirs, fields: entity.writableColumns)
    }

    /// A delete's merge with `theirs`: mine and original are both the row the delete was
    /// checked against, so only their changes show.
    func deletionMerge(theirs: [Value], entity: Entity) -> ThreeWayMerge {
        let base = deletionBase ?? baseValues(entity: entity)
        return ThreeWayMerge(original: base, mine: base, theirs: theirs, fields: entity.writableColumns)
    }

    /// Edited columns the source moved to a third value since the edit started: the fields a
    /// save would meet as contested, shown as *changed elsewhere*.
    func changedElsewhere(entity: Entity) -> [Int] {
        guard let snapshot, !isInserted, edits.keys.contains(where: entity.isPersistent) else { return [] }
        return merge(theirs: Array(snapshot[0..<entity.columnCount]), entity: entity).contested
    }

    /// True when a save's SQL check of the stored row against `original` (see
    /// ``Entity/checksSQL``) proves the row still is `original`, so the row need not be read
    /// and merged: never for a row known to have vanished (another row may stand under its
    /// key); always when every column is checked; with a version column only when the
    /// snapshot the version was read with is `original` itself.
    func checkProvesUnmoved(entity: Entity, original: () -> [Value]) -> Bool {
        guard !isDeletedElsewhere else { return false }
        guard entity.versionColumn != nil else { return true }
        guard let snapshot else { return false }
        let original = original()
        return (0..<entity.columnCount).allSatisfy { snapshot[$0] == original[$0] }
    }

    func status(entity: Entity) -> Record.Status {
        if isDeleted { return .deleted }
        if isInserted { return .inserted }
        return edits.isEmpty ? .unchanged : .updated
    }

    func record(id: ObjectID, entity: Entity) -> Record {
        let changed = edits.keys.map { entity.fieldNames[$0] }
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
