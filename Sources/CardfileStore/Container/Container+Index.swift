import GRDB

/// `:index`: an index on one column, made when a list of a large table is sorted or filtered
/// by a column the engine would otherwise sort or scan for (see ``IndexAdvice``).
extension Container {
    /// The index `:index` would make on `column` of `table`: its name, or the name of an index
    /// the column already leads (then none is made). Read from the file, not the schema read at open.
    public func existingIndex(on column: String, of table: String) throws(StoreError) -> String? {
        let schema = try core.entity(table).table
        guard !schema.isView, schema.source == nil else { throw StoreError.statementNotRun(reason: "\(schema.name) is not a table: only a table's columns are indexed.") }
        guard let found = schema.column(named: column) else { throw StoreError.noSuchField(table: schema.name, field: column) }
        if let catalog = schema.dialect.indexCatalog {
            return try storeErrors(path: core.path) {
                try core.session(for: try core.entity(table)) { session in
                    try session.rows(catalog.ledBy, [.text(schema.quotedName), .text(found.name)]).first?.first.flatMap { value in
                        if case .text(let name) = value { return name }
                        return nil
                    }
                }
            }
        }
        return try storeErrors(path: core.path) {
            try core.read { db in
                for index in try Row.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?)", arguments: [schema.name]) {
                    let name: String = index["name"]
                    let first = try String.fetchOne(db, sql: "SELECT name FROM pragma_index_info(?) WHERE seqno = 0", arguments: [name])
                    if first?.lowercased() == found.name.lowercased() { return name }
                }
                return nil
            }
        }
    }

    /// Makes an index on `column` of `table`, named `table_column` (numbered when that name is
    /// taken), in one transaction, and returns its name. Lists find it at their next order or
    /// filter (SQLite's planner is asked each time). Refused when the column already leads an
    /// index: that index's name is in the reason.
    public func createIndex(on column: String, of table: String) throws(StoreError) -> String {
        if let existing = try existingIndex(on: column, of: table) {
            throw StoreError.statementNotRun(reason: "\(column) already has an index: \(existing).")
        }
        let schema = try core.entity(table).table
        let found = schema.column(named: column)?.name ?? column
        if let catalog = schema.dialect.indexCatalog {
            // (Not CONCURRENTLY, which no transaction may hold: the table's writers wait while
            // the index is built.)
            return try storeErrors(path: core.path) {
                try core.transaction(origin: .batch) { session, _ in
                    // (Cut to the engine's length, the number kept: a longer name would be
                    // cut by the engine, and every numbered one found taken.)
                    func candidate(_ number: Int) -> String {
                        let suffix = number == 1 ? "" : "_\(number)"
                        let base = "\(schema.name)_\(found)"
                        return (schema.dialect.nameBytes.map { base.cut(toBytes: $0 - suffix.utf8.count) } ?? base) + suffix
                    }
                    var number = 1
                    var name = candidate(number)
                    while try !session.rows(catalog.nameTaken, [.text(name), .text(schema.quotedName)]).isEmpty {
                        number += 1
                        guard number < 10_000 else { throw StoreError.statementNotRun(reason: "No free name for the index was found.") }
                        name = candidate(number)
                    }
                    _ = try session.execute("CREATE INDEX \(name.quotedIdentifier) ON \(schema.quotedName) (\(found.quotedIdentifier))", [])
                    return name
                }
            }
        }
        return try storeErrors(path: core.path) {
            try core.write(origin: .batch) { db, _ in
                var name = "\(schema.name)_\(found)"
                var number = 2
                while try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE name = ? COLLATE NOCASE", arguments: [name]) == true {
                    name = "\(schema.name)_\(found)_\(number)"
                    number += 1
                }
                try db.execute(sql: "CREATE INDEX \(name.quotedIdentifier) ON \(schema.quotedName) (\(found.quotedIdentifier))")
                return name
            }
        }
    }
}
