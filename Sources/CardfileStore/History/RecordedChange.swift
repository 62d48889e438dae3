/// One record's change as the journal keeps it: which record, what happened to it, and the
/// fields it changed with their values before and after.
public struct RecordedChange: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case insert, update, delete
    }

    /// One field: its value before the change (nil for an insert) and after (nil for a delete).
    public struct Field: Hashable, Sendable {
        public let name: String
        public let old: Value?
        public let new: Value?

        public init(name: String, old: Value?, new: Value?) {
            self.name = name
            self.old = old
            self.new = new
        }
    }

    public let id: ObjectID
    public let kind: Kind
    /// An update's changed fields; every column of an inserted or deleted row.
    public let fields: [Field]

    public init(id: ObjectID, kind: Kind, fields: [Field]) {
        self.id = id
        self.kind = kind
        self.fields = fields
    }

    /// The change that undoes this one: an insert becomes a delete of the row as inserted,
    /// a delete an insert of the row as it was, an update the old values back.
    public var inverted: RecordedChange {
        let kind: Kind = switch kind {
        case .insert: .delete
        case .delete: .insert
        case .update: .update
        }
        return RecordedChange(id: id, kind: kind, fields: fields.map { Field(name: $0.name, old: $0.new, new: $0.old) })
    }

    /// Roughly what the change takes in the journal, in bytes (the size cap counts this).
    var byteCount: Int {
        fields.reduce(48) { total, field in
            total + 24 + field.name.utf8.count + (field.old.map(Self.size) ?? 0) + (field.new.map(Self.size) ?? 0)
        }
    }

    private static func size(_ value: Value) -> Int {
        switch value {
        case .null: 1
        case .integer, .real: 8
        case .text(let text): text.utf8.count
        case .blob(let data): data.count
        }
    }
}
