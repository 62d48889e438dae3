/// Identifies one record across contexts: its table and its primary key.
///
/// Contexts hand each other `ObjectID`s, never records. An object inserted in a context has a
/// temporary ID until a root context saves it; the ``ContextDidSave`` event of that save maps
/// each temporary ID to the permanent one, and every live context re-keys its copy.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The two kinds of identity.
    public enum Key: Hashable, Sendable {
        /// The primary key values in key order (the rowid for rowid-keyed tables).
        case permanent([Value])
        /// A number unique within the container, for objects not yet saved.
        case temporary(UInt64)
    }

    /// The table, spelled as in the schema.
    public let table: String
    public let key: Key

    public init(table: String, key: Key) {
        self.table = table
        self.key = key
    }

    /// A permanent ID from primary key values.
    public init(table: String, primaryKey: [Value]) {
        self.init(table: table, key: .permanent(primaryKey))
    }

    /// A permanent ID for a table keyed by its rowid.
    public init(table: String, rowid: Int64) {
        self.init(table: table, key: .permanent([.integer(rowid)]))
    }

    /// True until a root save assigns the permanent key.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The primary key values, or nil for a temporary ID.
    public var primaryKeyValues: [Value]? {
        if case .permanent(let values) = key { return values }
        return nil
    }

    public var description: String {
        switch key {
        case .permanent(let values):
            return "\(table)(\(values.map(\.description).joined(separator: ", ")))"
        case .temporary(let number):
            return "\(table)(new #\(number))"
        }
    }
}
