/// The SQL a save runs, per entity. Identifiers are quoted; every value is a `?` argument.
///
/// Conflict checks are the dialect's NULL-safe "still holds this value" (SQLite: `IS` under
/// BINARY collation, so a change that a column's NOCASE collation would call equal, `abc` →
/// `ABC`, is still seen).
enum SaveStatements {
    /// `DELETE ... WHERE key AND each checked column IS its base`. Arguments: key, bases.
    static func conditionalDelete(_ entity: Entity) -> String {
        "DELETE FROM \(entity.table.quotedName) WHERE \(entity.table.keyMatchSQL)\(entity.checksSQL)"
    }

    /// `DELETE ... WHERE key`. Arguments: key.
    static func delete(_ entity: Entity) -> String {
        "DELETE FROM \(entity.table.quotedName) WHERE \(entity.table.keyMatchSQL)"
    }

    /// `UPDATE ... SET columns WHERE key [AND checks] [RETURNING row]`.
    /// Arguments: set values, key, then (when conditional) the checked values.
    static func update(_ entity: Entity, setting columns: [Int], conditional: Bool, returning: Bool = true) -> String {
        let table = entity.table
        var assignments = columns.map { "\(table.quotedColumnNames[$0]) = ?" }
        if let version = entity.versionColumn, !columns.contains(version) {
            let name = table.quotedColumnNames[version]
            assignments.append("\(name) = coalesce(\(name), 0) + 1")
        }
        return "UPDATE \(table.quotedName) SET \(assignments.joined(separator: ", ")) WHERE \(table.keyMatchSQL)"
            + (conditional ? entity.checksSQL : "") + (returning ? " RETURNING \(table.selectList)" : "")
    }

    /// `INSERT ... [RETURNING row]`. With `rowid`, the implicit rowid is written first
    /// (re-inserting a row deleted elsewhere under its old identity). Arguments: [rowid,] values.
    static func insert(_ entity: Entity, columns: [Int], rowid: String? = nil, returning: Bool = true) -> String {
        let table = entity.table
        var names = columns.map { table.quotedColumnNames[$0] }
        if let rowid { names.insert(rowid, at: 0) }
        let returned = returning ? " RETURNING \(table.selectList)" : ""
        guard !names.isEmpty else {
            return "INSERT INTO \(table.quotedName) DEFAULT VALUES\(returned)"
        }
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return "INSERT INTO \(table.quotedName) (\(names.joined(separator: ", "))) VALUES (\(placeholders))\(returned)"
    }

    /// `SELECT row WHERE key`. Arguments: key.
    static func selectRow(_ entity: Entity) -> String {
        "SELECT \(entity.table.selectList) FROM \(entity.table.fromSQL) WHERE \(entity.table.keyMatchSQL)"
    }

    /// ``selectRow(_:)`` for a save about to write over the row: locked until the transaction
    /// ends where the engine needs it (``SQLDialect/lockForWrite``), so the row merged is the
    /// row written over.
    static func selectRowForWrite(_ entity: Entity) -> String {
        selectRow(entity) + entity.table.dialect.lockForWrite
    }
}
