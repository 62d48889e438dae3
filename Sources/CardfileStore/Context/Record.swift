/// A snapshot of one object as a context sees it: stored values with pending edits on top.
///
/// Records are values: changing one does nothing. Edits go through the context
/// (``ObjectContext/update(_:values:)``); read the record again to see them.
public struct Record: Sendable, Hashable {
    /// Where the object stands relative to the store.
    public enum Status: Hashable, Sendable {
        /// Nothing pending.
        case unchanged
        /// Inserted in this context (or a child that saved into it), not yet in the store.
        case inserted
        /// Has edits not yet saved.
        case updated
        /// Marked for deletion, not yet saved.
        case deleted
    }

    public let id: ObjectID
    /// Field names: the table's columns in schema order, then transient fields.
    public let fieldNames: [String]
    /// Current values, aligned with ``fieldNames``.
    public let values: [Value]
    public let status: Status
    /// Fields whose value differs from the value the edit started from.
    public let changedFields: Set<String>
    /// Edited fields whose stored value changed elsewhere since the edit began: saving them
    /// will conflict.
    public let changedElsewhere: Set<String>
    /// True when the row was deleted elsewhere while this context had edits to it.
    public let isDeletedElsewhere: Bool

    /// The value of a field, looked up case-insensitively; nil for an unknown field.
    public subscript(field: String) -> Value? {
        if let index = fieldNames.firstIndex(of: field) { return values[index] }
        let lowered = field.lowercased()
        return fieldNames.firstIndex { $0.lowercased() == lowered }.map { values[$0] }
    }

    /// The values as a dictionary keyed by field name.
    public var dictionary: [String: Value] {
        Dictionary(uniqueKeysWithValues: zip(fieldNames, values))
    }

    /// True when any field conflicts or the row vanished elsewhere.
    public var hasConflict: Bool { !changedElsewhere.isEmpty || isDeletedElsewhere }
}
