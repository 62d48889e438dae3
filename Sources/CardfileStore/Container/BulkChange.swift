/// A bulk edit as written: each record's values of the written columns before and after, so
/// that it can be undone (``reversed``) and redone.
///
/// ``Container/bulkSet(table:column:to:where:progress:)`` and
/// ``Container/bulkDelete(from:where:progress:)`` read the values before writing, in the same
/// transaction; ``Container/apply(_:overwriting:)`` writes a change's `after` over records
/// that still hold its `before`.
public struct BulkChange: Hashable, Sendable {
    /// One record's values of ``columns``; nil when the record does not exist on that side.
    public struct Sides: Hashable, Sendable {
        public var before: [Value]?
        public var after: [Value]?

        public init(before: [Value]?, after: [Value]?) {
            self.before = before
            self.after = after
        }
    }

    public enum Kind: Hashable, Sendable {
        /// One column set to one value (`:set`).
        case set(column: String, value: Value)
        /// Records deleted (`:delete`): ``columns`` are every column an insert can write.
        case delete
        /// A journaled change written back (or again) by `:undo` / Alt-R: whole rows (records
        /// added or deleted) or the fields an update changed.
        case history(wholeRows: Bool)
    }

    public let table: String
    public let kind: Kind
    /// The columns ``Sides`` hold values of, in that order.
    public let columns: [String]
    public var records: [ObjectID: Sides]
    /// True for the undo of ``kind`` (after ``reversed``).
    public var isUndo: Bool

    public init(table: String, kind: Kind, columns: [String], records: [ObjectID: Sides], isUndo: Bool = false) {
        self.table = table
        self.kind = kind
        self.columns = columns
        self.records = records
        self.isUndo = isUndo
    }

    /// The same change the other way: what undoes it (or, from an undo, what redoes it).
    public var reversed: BulkChange {
        BulkChange(table: table, kind: kind, columns: columns,
                   records: records.mapValues { Sides(before: $0.after, after: $0.before) }, isUndo: !isUndo)
    }

    /// The change narrowed to `ids`.
    public func only(_ ids: some Sequence<ObjectID>) -> BulkChange {
        var narrowed = self
        narrowed.records = [:]
        for id in ids { narrowed.records[id] = records[id] }
        return narrowed
    }

    public var count: Int { records.count }
}

/// What ``Container/apply(_:overwriting:)`` did.
public struct BulkApplication: Hashable, Sendable {
    /// The part of the change written: its reverse undoes exactly that.
    public var applied: BulkChange
    /// Records left alone because they no longer held the change's `before` (changed or
    /// deleted or added since), with what they hold now (nil: the record does not exist).
    public var changedSince: [ObjectID: [Value]?]

    public init(applied: BulkChange, changedSince: [ObjectID: [Value]?]) {
        self.applied = applied
        self.changedSince = changedSince
    }
}
