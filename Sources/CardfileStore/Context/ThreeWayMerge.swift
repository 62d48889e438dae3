/// The one rule for meeting a change made elsewhere: a record's fields as three parties see
/// them, and what merging them gives.
///
/// Per field, `original` is the value my edit started from, `mine` my value now, and `theirs`
/// the source's value now (the store's row, or a parent context's copy):
/// - changed on one side only: that side's value, never contested;
/// - changed on both sides to the same value: that value, never contested;
/// - changed on both sides to different values: *contested*; a person or a ``MergePolicy``
///   decides it.
///
/// Everything that compares the three sides calls this: a child's save into its parent, a
/// root save against the row it read under the write lock, the *changed elsewhere* flag of
/// ``Record``, the conflict dialog's fields and choices, and the merge policies. A version
/// column, or a save's SQL check of the row, only proves that `theirs` is still `original`
/// so the read can be skipped; it never decides a field.
public struct ThreeWayMerge: Hashable, Sendable {
    /// One of the three parties.
    public enum Side: Hashable, Sendable {
        case original, mine, theirs
    }

    public let original: [Value]
    public let mine: [Value]
    public let theirs: [Value]
    /// The fields compared, ascending; every other field takes `theirs`.
    public let fields: [Int]
    /// The compared fields both sides changed to different values, ascending.
    public let contested: [Int]

    /// Merges three versions of the same fields. The arrays must have one value per field;
    /// `fields` (default: all) limits the comparison, for instance to a table's writable columns.
    public init(original: [Value], mine: [Value], theirs: [Value], fields: [Int]? = nil) {
        precondition(original.count == mine.count && mine.count == theirs.count, "three versions of different fields")
        self.original = original
        self.mine = mine
        self.theirs = theirs
        self.fields = fields ?? Array(original.indices)
        contested = self.fields.filter { Self.isContested(original: original[$0], mine: mine[$0], theirs: theirs[$0]) }
    }

    /// The rule for one field: true when both sides changed it, to different values.
    public static func isContested(original: Value, mine: Value, theirs: Value?) -> Bool {
        mine != original && theirs != original && theirs != mine
    }

    /// The compared fields I changed.
    public var changedByMine: [Int] { fields.filter { mine[$0] != original[$0] } }

    /// The compared fields they changed.
    public var changedByTheirs: [Int] { fields.filter { theirs[$0] != original[$0] } }

    /// The merged values, each contested field taking `side`.
    public func merged(contestedTaking side: Side) -> [Value] {
        merged { _ in side }
    }

    /// The merged values, each contested field taking the side `choose` names for it (a
    /// person's choice per field).
    public func merged(choosing choose: (Int) -> Side) -> [Value] {
        var values = theirs
        for field in fields where mine[field] != original[field] { values[field] = mine[field] }
        for field in contested {
            switch choose(field) {
            case .original: values[field] = original[field]
            case .mine: values[field] = mine[field]
            case .theirs: values[field] = theirs[field]
            }
        }
        return values
    }

    /// The values `policy` settles on: the plain merge when nothing is contested; otherwise
    /// mine for contested fields (`.objectTrump`), theirs for them (`.storeTrump`), my whole
    /// record (`.overwrite`), their whole record (`.rollback`), or nil (`.error`).
    public func resolved(by policy: MergePolicy) -> [Value]? {
        if contested.isEmpty { return merged(contestedTaking: .mine) }
        switch policy {
        case .error: return nil
        case .objectTrump: return merged(contestedTaking: .mine)
        case .storeTrump: return merged(contestedTaking: .theirs)
        case .overwrite:
            var values = theirs
            for field in fields { values[field] = mine[field] }
            return values
        case .rollback: return theirs
        }
    }
}
