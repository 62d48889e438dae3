import GRDB
import GRDBSQLite

/// Introspects the views of the main database: their columns, the key they can be written
/// by, and what their `INSTEAD OF` triggers let through.
///
/// A view has a key when SQLite can show its rows are one base table's rows, once each (see
/// ``ViewPlan``), and its columns include that table's whole key, unchanged (SQLite's column
/// metadata names each column's origin). Any other view is read as an unidentifiable table.
enum ViewReader {
    static func read(_ db: Database, tables: [TableSchema]) throws -> [TableSchema] {
        let views = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_schema
            WHERE type = 'view' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            """)
        var result: [TableSchema] = []
        for row in views {
            let name: String = row["name"]
            // A view whose query no longer compiles (a table it reads was dropped) cannot be
            // read at all; it is left out rather than failing the whole file.
            guard let view = try? readView(db, name: name, sql: row["sql"] ?? "", tables: tables) else { continue }
            result.append(view)
        }
        return result
    }

    private static func readView(_ db: Database, name: String, sql: String, tables: [TableSchema]) throws -> TableSchema {
        let origins = try columnOrigins(db, select: "SELECT * FROM \(name.quotedIdentifier)")
        var columns: [ColumnDescription] = []
        for row in try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_xinfo(?)", arguments: [name]) {
            let columnName: String = row["name"]
            // A column taken unchanged from a table sorts and compares under that column's
            // collation, as SQLite does through the view.
            let origin = origins.first { $0.name == columnName }.flatMap { origin in
                origin.table.flatMap { table in tables.first { $0.name.lowercased() == table.lowercased() } }?
                    .column(named: origin.column ?? "")
            }
            columns.append(ColumnDescription(
                name: columnName, declaredType: row["type"] ?? "", collation: origin?.collation ?? .binary))
        }
        var writes = ViewWrites()
        for trigger in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE", arguments: [name]) {
            writes.add(triggerSQL: trigger)
        }
        let key = try provenKey(db, select: "SELECT * FROM \(name.quotedIdentifier)", text: sql, origins: origins, tables: tables)
        writes.rowsOf = key?.table
        return TableSchema(
            name: name, columns: columns,
            primaryKey: key.map { .columns($0.columns) } ?? .unidentifiable(columns: columns.map(\.name)),
            view: writes)
    }

    /// Where each result column of `select` comes from: the table and column it names
    /// unchanged, or nil for an expression.
    static func columnOrigins(_ db: Database, select: String) throws -> [(name: String, table: String?, column: String?)] {
        let statement = try db.makeStatement(sql: select)
        let handle = statement.sqliteStatement
        return (0..<sqlite3_column_count(handle)).map { index in
            let name = sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
            let database = sqlite3_column_database_name(handle, index).map { String(cString: $0) }
            guard database == "main" else { return (name, nil, nil) }
            return (name,
                    sqlite3_column_table_name(handle, index).map { String(cString: $0) },
                    sqlite3_column_origin_name(handle, index).map { String(cString: $0) })
        }
    }

    /// The result columns of `select` that carry its single base table's whole key, in key
    /// order (their positions among `origins`, and their names), and that table; nil when its
    /// rows cannot be shown to be one table's rows, each at most once. `text` is the SQL that
    /// names the tables (a view's `CREATE VIEW`). Positions, since a result may give two
    /// columns one name (`k.id, i.id`).
    static func provenKey(
        _ db: Database, select: String, text: String, origins: [(name: String, table: String?, column: String?)], tables: [TableSchema]
    ) throws -> (columns: [String], positions: [Int], table: String)? {
        guard let plan = try ViewPlan(db, select: select),
              let base = plan.rowsTable(tables: tables, viewSQL: text) else { return nil }
        func exposing(_ column: String) -> Int? {
            origins.indices.first { origins[$0].table?.lowercased() == base.name.lowercased() && origins[$0].column?.lowercased() == column.lowercased() }
        }
        let columns: [Int]?
        switch base.primaryKey {
        case .rowidAlias(let column):
            columns = (exposing(column) ?? ["rowid", "_rowid_", "oid"].lazy.compactMap(exposing).first).map { [$0] }
        case .implicitRowid:
            columns = ["rowid", "_rowid_", "oid"].lazy.compactMap(exposing).first.map { [$0] }
        case .columns(let names), .withoutRowid(let names):
            let exposed = names.compactMap(exposing)
            columns = exposed.count == names.count ? exposed : nil
        case .unidentifiable:
            columns = nil
        }
        return columns.map { positions in (positions.map { origins[$0].name }, positions, base.name) }
    }
}
