/// One object whose save met a change made elsewhere.
public struct MergeConflict: Hashable, Sendable {
    /// What each side did to the row.
    public enum Kind: Hashable, Sendable {
        /// Both sides changed it.
        case updateUpdate
        /// I changed it; it was deleted elsewhere.
        case updateDelete
        /// I deleted it; it was changed elsewhere.
        case deleteUpdate
    }

    /// One field as the three parties see it.
    public struct Field: Hashable, Sendable {
        public let name: String
        /// The value my edit started from (the stored value when I read it).
        public let original: Value
        /// My value (equal to `original` when I did not change this field).
        public let mine: Value
        /// The store's value now; nil when the row was deleted elsewhere.
        public let theirs: Value?

        /// True when I changed the field.
        public var changedByMe: Bool { mine != original }
        /// True when the store's value moved away from the original.
        public var changedByThem: Bool { theirs != original }
        /// True when both sides changed the field, to different values: the fields a person
        /// must choose for. (Fields changed on one side only merge by themselves.)
        public var isContested: Bool { changedByMe && changedByThem && theirs != mine }
    }

    /// The fields to report: every writable column where mine or theirs differs from the
    /// original.
    static func fields(entity: Entity, original: [Value], mine: [Value], theirs: [Value]?) -> [Field] {
        entity.writableColumns.compactMap { column in
            let field = Field(name: entity.table.columns[column].name, original: original[column], mine: mine[column], theirs: theirs?[column])
            return field.changedByMe || field.changedByThem ? field : nil
        }
    }

    public let objectID: ObjectID
    public let kind: Kind
    /// Every field where mine or theirs differs from the original, in column order.
    public let fields: [Field]
}
