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

        public init(name: String, original: Value, mine: Value, theirs: Value?) {
            self.name = name
            self.original = original
            self.mine = mine
            self.theirs = theirs
        }

        /// True when I changed the field.
        public var changedByMe: Bool { mine != original }
        /// True when the store's value moved away from the original.
        public var changedByThem: Bool { theirs != original }
        /// True when both sides changed the field, to different values: the fields a person
        /// must choose for (see ``ThreeWayMerge``).
        public var isContested: Bool { ThreeWayMerge.isContested(original: original, mine: mine, theirs: theirs) }
    }

    /// The fields to report from a merge: every compared field that either side changed.
    static func fields(of merge: ThreeWayMerge, entity: Entity) -> [Field] {
        Set(merge.changedByMine).union(merge.changedByTheirs).sorted().map { column in
            Field(name: entity.table.columns[column].name, original: merge.original[column], mine: merge.mine[column], theirs: merge.theirs[column])
        }
    }

    /// The fields to report when their row is gone: every writable column (all of them
    /// differ from a row that no longer exists).
    static func fields(entity: Entity, original: [Value], mine: [Value]) -> [Field] {
        entity.writableColumns.map { column in
            Field(name: entity.table.columns[column].name, original: original[column], mine: mine[column], theirs: nil)
        }
    }

    /// The reported fields as a three-way merge, one field per entry of ``fields`` (a row
    /// deleted elsewhere counts as NULL on their side).
    public var merge: ThreeWayMerge {
        ThreeWayMerge(original: fields.map(\.original), mine: fields.map(\.mine), theirs: fields.map { $0.theirs ?? .null })
    }

    public init(objectID: ObjectID, kind: Kind, fields: [Field]) {
        self.objectID = objectID
        self.kind = kind
        self.fields = fields
    }

    public let objectID: ObjectID
    public let kind: Kind
    /// Every field where mine or theirs differs from the original, in column order.
    public let fields: [Field]
}
