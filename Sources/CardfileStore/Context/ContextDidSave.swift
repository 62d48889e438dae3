/// Who made a commit.
public enum SaveOrigin: Hashable, Sendable {
    /// A root context's save.
    case context(ContextIdentity)
    /// A batch update or delete run as SQL.
    case batch
    /// Another process (seen by ``Container/checkForExternalChanges()``).
    case external
}

/// Names a context without holding on to it.
public struct ContextIdentity: Hashable, Sendable, CustomStringConvertible {
    /// What a context is for.
    public enum Role: String, Hashable, Sendable {
        case view, background, importer, editor, temporary
    }
    public let number: UInt64
    public let name: String
    public let role: Role

    public var description: String { "\(name) (#\(number))" }
}

/// What one commit to the database file changed. Every commit through a container produces
/// exactly one, and ``Container/checkForExternalChanges()`` produces one for another process's
/// commits.
///
/// Rows are named by ``ObjectID``. Some changes cannot be named: rows changed by triggers or
/// cascades in tables SQLite reports no row changes for, and anything another process did.
/// Those tables are listed in ``invalidatedTables`` and readers must assume any of their
/// rows changed.
public struct ContextDidSave: Sendable {
    public let origin: SaveOrigin
    public let inserted: Set<ObjectID>
    public let updated: Set<ObjectID>
    public let deleted: Set<ObjectID>
    /// Temporary IDs of the saved inserts, mapped to their permanent IDs.
    public let permanentIDs: [ObjectID: ObjectID]
    /// Tables in which unnamed rows may have changed.
    public let invalidatedTables: Set<String>

    public init(
        origin: SaveOrigin, inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = [],
        permanentIDs: [ObjectID: ObjectID] = [:], invalidatedTables: Set<String> = []
    ) {
        self.origin = origin
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.permanentIDs = permanentIDs
        self.invalidatedTables = invalidatedTables
    }

    /// True when the commit may have changed rows of `table` (case-insensitive).
    public func touches(table: String) -> Bool {
        let lowered = table.lowercased()
        if invalidatedTables.contains(where: { $0.lowercased() == lowered }) { return true }
        return [inserted, updated, deleted].contains { ids in ids.contains { $0.table.lowercased() == lowered } }
    }

    /// True when nothing was changed at all.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && invalidatedTables.isEmpty
    }
}
