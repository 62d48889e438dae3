/// The user tables and views of a database file, looked up case-insensitively.
public struct DatabaseSchema: Hashable, Sendable {
    /// Every user table and view, in name order.
    public let tables: [TableSchema]
    /// True when the file defines triggers: writes may then change rows nobody named.
    public let hasTriggers: Bool
    /// Positions by exact name and by lowercased name.
    private let byName: [String: Int]
    private let silentlyAffected: [String: Set<String>]

    public init(tables: [TableSchema], hasTriggers: Bool = false) {
        self.tables = tables.sorted { $0.name.lowercased() < $1.name.lowercased() }
        self.hasTriggers = hasTriggers
        var byName: [String: Int] = [:]
        // (An exact name wins over another table's name in other case: `archive.books` and
        // `Archive.Books` are two tables on PostgreSQL.)
        for (index, table) in self.tables.enumerated() where byName[table.name.lowercased()] == nil {
            byName[table.name.lowercased()] = index
        }
        for (index, table) in self.tables.enumerated() { byName[table.name] = index }
        self.byName = byName
        var silentlyAffected: [String: Set<String>] = [:]
        for table in self.tables {
            silentlyAffected[table.name] = Self.tablesChangedSilently(by: table.name, in: self.tables, hasTriggers: hasTriggers)
        }
        self.silentlyAffected = silentlyAffected
    }

    /// The table named `name` exactly, else one named so in other case.
    public func table(named name: String) -> TableSchema? {
        (byName[name] ?? byName[name.lowercased()]).map { tables[$0] }
    }

    /// Tables whose rows may change, without the hooks naming them, when `table` changes:
    /// `WITHOUT ROWID` tables reached by a cascading foreign key, or every `WITHOUT ROWID`
    /// table when triggers exist (SQLite reports no row changes for those tables), and every
    /// view (whose rows are other tables' rows, which SQLite's hooks never name as the view's).
    func silentlyAffectedTables(by table: String) -> Set<String> {
        if let known = silentlyAffected[table] { return known }
        return self.table(named: table).flatMap { silentlyAffected[$0.name] } ?? []
    }

    private static func tablesChangedSilently(by table: String, in tables: [TableSchema], hasTriggers: Bool) -> Set<String> {
        let views = Set(tables.filter(\.isView).map(\.name))
        let unhooked = tables.filter { !$0.primaryKey.isRowid && !$0.isView }
        if hasTriggers { return Set(unhooked.map(\.name)).union(views) }
        var result = views
        for child in unhooked {
            let cascades = child.foreignKeys.contains { key in
                key.parentTable.lowercased() == table.lowercased()
                    && (key.onDelete != .noAction && key.onDelete != .restrict
                        || key.onUpdate != .noAction && key.onUpdate != .restrict)
            }
            if cascades { result.insert(child.name) }
        }
        return result
    }
}
