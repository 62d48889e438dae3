import GRDB
import GRDBSQLite

/// Introspects the views of the main database: their columns, the key they can be written
/// by, and what their `INSTEAD OF` triggers let through.
///
/// A view has a key when SQLite can show its rows are one base table's rows, once each: its
/// query plan reads exactly one table at the top level (no join, compound, grouping or
/// DISTINCT, which SQLite would run as a co-routine), and its columns include that table's
/// whole key, unchanged (SQLite's column metadata names each column's origin). Any other
/// view is read as an unidentifiable table.
enum ViewReader {
    static func read(_ db: Database, tables: [TableSchema]) throws -> [TableSchema] {
        let views = try Row.fetchAll(db, sql: """
            SELECT name FROM sqlite_schema
            WHERE type = 'view' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            """)
        var result: [TableSchema] = []
        for row in views {
            let name: String = row["name"]
            // A view whose query no longer compiles (a table it reads was dropped) cannot be
            // read at all; it is left out rather than failing the whole file.
            guard let view = try? readView(db, name: name, tables: tables) else { continue }
            result.append(view)
        }
        return result
    }

    private static func readView(_ db: Database, name: String, tables: [TableSchema]) throws -> TableSchema {
        let origins = try columnOrigins(db, view: name)
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
        for trigger in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?", arguments: [name]) {
            writes.add(triggerSQL: trigger)
        }
        let key = try provenKey(db, view: name, origins: origins, tables: tables)
        return TableSchema(
            name: name, columns: columns,
            primaryKey: key.map { .columns($0) } ?? .unidentifiable(columns: columns.map(\.name)),
            view: writes)
    }

    /// Where each result column of the view comes from: the table and column it names
    /// unchanged, or nil for an expression.
    private static func columnOrigins(_ db: Database, view: String) throws -> [(name: String, table: String?, column: String?)] {
        let statement = try db.makeStatement(sql: "SELECT * FROM \(view.quotedIdentifier)")
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

    /// The view's columns that carry its single base table's whole key, in key order; nil
    /// when the view cannot be shown to hold each row of one table at most once.
    private static func provenKey(
        _ db: Database, view: String, origins: [(name: String, table: String?, column: String?)], tables: [TableSchema]
    ) throws -> [String]? {
        guard let table = try singleTableRead(db, view: view),
              let base = tables.first(where: { $0.name.lowercased() == table.lowercased() }) else { return nil }
        let fromBase = origins.filter { $0.table?.lowercased() == base.name.lowercased() }
        func exposing(_ column: String) -> String? {
            fromBase.first { $0.column?.lowercased() == column.lowercased() }?.name
        }
        switch base.primaryKey {
        case .rowidAlias(let column):
            return (exposing(column) ?? ["rowid", "_rowid_", "oid"].lazy.compactMap(exposing).first).map { [$0] }
        case .implicitRowid:
            return ["rowid", "_rowid_", "oid"].lazy.compactMap(exposing).first.map { [$0] }
        case .columns(let names), .withoutRowid(let names):
            let exposed = names.compactMap(exposing)
            return exposed.count == names.count ? exposed : nil
        case .unidentifiable:
            return nil
        }
    }

    /// The one table the view's plan reads at its top level, by the name the plan shows; nil
    /// when it reads several (a join, a compound), or runs a co-routine or materializes.
    /// Subqueries in a condition or a column do not repeat rows, so they are allowed.
    private static func singleTableRead(_ db: Database, view: String) throws -> String? {
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM \(view.quotedIdentifier)")
        var read: String?
        for row in plan where (row["parent"] as Int? ?? 0) == 0 {
            let detail: String = row["detail"] ?? ""
            let words = detail.split(separator: " ", maxSplits: 2).map(String.init)
            if words.first == "SCAN" || words.first == "SEARCH" {
                guard read == nil, words.count > 1 else { return nil }
                read = words[1]
            } else if !(detail.hasPrefix("USE TEMP B-TREE") || detail.contains("SUBQUERY") && !detail.hasPrefix("COMPOUND")) {
                return nil
            }
        }
        return read
    }
}
