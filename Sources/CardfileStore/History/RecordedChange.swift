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

    /// Changes in the order they were made, each record's folded into one: from the record as
    /// it was before the first to the record after the last (a row deleted and added again
    /// under its key, as `INSERT OR REPLACE` does, is one update; a row added then deleted is
    /// nothing). Records keep the order of their first change.
    public static func combined(_ changes: [RecordedChange]) -> [RecordedChange] {
        struct Fold {
            var existedBefore: Bool
            var existsAfter: Bool
            var before: [String: Value] = [:]
            var after: [String: Value] = [:]
            var names: [String] = []
            var count = 0
            var only: RecordedChange?
            /// A delete was folded in: a field it left out (its old value unknown) is unknown.
            var deleted = false
        }
        var folds: [ObjectID: Fold] = [:]
        var order: [ObjectID] = []
        for change in changes {
            var fold = folds[change.id] ?? Fold(existedBefore: change.kind != .insert, existsAfter: change.kind != .insert)
            if folds[change.id] == nil { order.append(change.id) }
            fold.count += 1
            fold.only = change
            for field in change.fields where !fold.names.contains(field.name) { fold.names.append(field.name) }
            switch change.kind {
            case .insert:
                fold.after = [:]
                for field in change.fields { fold.after[field.name] = field.new ?? .null }
                fold.existsAfter = true
            case .update:
                for field in change.fields {
                    if fold.before[field.name] == nil, fold.existedBefore { fold.before[field.name] = field.old ?? .null }
                    fold.after[field.name] = field.new ?? .null
                }
                fold.existsAfter = true
            case .delete:
                fold.deleted = true
                for field in change.fields where fold.before[field.name] == nil && fold.existedBefore {
                    fold.before[field.name] = field.old ?? .null
                }
                fold.after = [:]
                fold.existsAfter = false
            }
            folds[change.id] = fold
        }
        return order.compactMap { id in
            let fold = folds[id]!
            if fold.count == 1 { return fold.only }
            switch (fold.existedBefore, fold.existsAfter) {
            case (false, false): return nil
            case (false, true):
                return RecordedChange(id: id, kind: .insert, fields: fold.names.compactMap { name in fold.after[name].map { Field(name: name, old: nil, new: $0) } })
            case (true, false):
                return RecordedChange(id: id, kind: .delete, fields: fold.names.compactMap { name in fold.before[name].map { Field(name: name, old: $0, new: nil) } })
            case (true, true):
                let fields = fold.names.compactMap { name -> Field? in
                    guard let new = fold.after[name] else { return nil }
                    // (Not `?? nil`: `Value` takes `nil` as its NULL.)
                    let known: Value? = fold.before[name] ?? (fold.deleted ? Optional<Value>.none : Value.null)
                    guard let old = known else { return nil }
                    return old == new ? nil : Field(name: name, old: old, new: new)
                }
                return fields.isEmpty ? nil : RecordedChange(id: id, kind: .update, fields: fields)
            }
        }
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
        case .decimal(let text): text.utf8.count
        case .boolean: 1
        }
    }
}
