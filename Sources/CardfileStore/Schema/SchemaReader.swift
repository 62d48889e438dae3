import GRDB

/// Introspects every user table of the main database (and its views, through ``ViewReader``) through SQLite's pragmas, and the
/// `CREATE TABLE` text for what pragmas do not tell. Table names are always bound as
/// arguments of the table-valued pragma functions, never spliced into SQL.
enum SchemaReader {
    static func read(_ db: Database) throws -> DatabaseSchema {
        let listed = try Row.fetchAll(db, sql: """
            SELECT l.name, l.wr, l.strict, m.sql
            FROM pragma_table_list AS l
            JOIN sqlite_schema AS m ON m.name = l.name AND m.type = 'table'
            WHERE l.schema = 'main' AND l.type = 'table' AND l.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            """)
        var tables: [TableSchema] = []
        for row in listed {
            let name: String = row["name"]
            let sql: String = row["sql"] ?? ""
            tables.append(try readTable(db, name: name, sql: sql, withoutRowid: row["wr"] == 1, strict: row["strict"] == 1))
        }
        tables += try ViewReader.read(db, tables: tables)
        let triggers = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'") ?? 0
        return DatabaseSchema(tables: tables, hasTriggers: triggers > 0)
    }

    private static func readTable(_ db: Database, name: String, sql: String, withoutRowid: Bool, strict: Bool) throws -> TableSchema {
        let columnRows = try Row.fetchAll(db, sql: "SELECT * FROM pragma_table_xinfo(?)", arguments: [name])
        let names: [String] = columnRows.map { $0["name"] }
        let parsed = CreateTableParser.parse(sql, columnNames: names)
        var columns: [ColumnDescription] = []
        for row in columnRows {
            let columnName: String = row["name"]
            let hidden: Int = row["hidden"]
            let pk: Int = row["pk"]
            columns.append(ColumnDescription(
                name: columnName,
                declaredType: row["type"] ?? "",
                isNotNull: row["notnull"] == 1,
                defaultSQL: row["dflt_value"],
                primaryKeyPosition: pk > 0 ? pk : nil,
                generation: hidden == 2 ? .virtual : (hidden == 3 ? .stored : .none),
                isHidden: hidden == 1,
                collation: parsed.collations[columnName.lowercased()] ?? .binary,
                strict: strict))
        }

        var uniqueIndexes: [UniqueIndex] = []
        var indexes: [IndexDescription] = []
        var hasKeyIndex = false
        for index in try Row.fetchAll(db, sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?)", arguments: [name]) {
            if index["origin"] == "pk" { hasKeyIndex = true }
            let indexName: String = index["name"]
            let keyColumns = try Row.fetchAll(
                db, sql: "SELECT name, \"desc\", coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno",
                arguments: [indexName])
            let described = keyColumns.map { row in
                IndexDescription.Column(
                    name: row["name"], isDescending: row["desc"] == 1,
                    collation: Collation(name: row["coll"] ?? "BINARY"))
            }
            let isUnique: Bool = index["unique"] == 1
            let isPartial: Bool = index["partial"] == 1
            indexes.append(IndexDescription(name: indexName, columns: described, isUnique: isUnique, isPartial: isPartial))
            if isUnique, described.allSatisfy({ $0.name != nil }) {
                uniqueIndexes.append(UniqueIndex(name: indexName, columns: described.compactMap(\.name), isPartial: isPartial))
            }
        }

        var foreignKeys: [Int: ForeignKeyDescription] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", arguments: [name]) {
            let id: Int = row["id"]
            let from: String = row["from"]
            let to: String? = row["to"]
            if foreignKeys[id] == nil {
                foreignKeys[id] = ForeignKeyDescription(
                    parentTable: row["table"], columns: [], parentColumns: [],
                    onDelete: ForeignKeyDescription.Action(rawValue: row["on_delete"] ?? "") ?? .noAction,
                    onUpdate: ForeignKeyDescription.Action(rawValue: row["on_update"] ?? "") ?? .noAction)
            }
            foreignKeys[id]!.columns.append(from)
            foreignKeys[id]!.parentColumns.append(to)
        }

        let primaryKey = readPrimaryKey(columns: columns, withoutRowid: withoutRowid, hasKeyIndex: hasKeyIndex)
        return TableSchema(
            name: name, columns: columns, primaryKey: primaryKey,
            uniqueIndexes: uniqueIndexes, indexes: indexes,
            foreignKeys: foreignKeys.keys.sorted().compactMap { foreignKeys[$0] },
            checks: parsed.checks,
            isWithoutRowid: withoutRowid, isStrict: strict)
    }

    /// A rowid table's single `INTEGER` primary key column aliases the rowid, except in the
    /// one case where SQLite builds a separate index for it (`INTEGER PRIMARY KEY DESC`): so a
    /// key is an alias exactly when no index of origin `pk` exists.
    private static func readPrimaryKey(columns: [ColumnDescription], withoutRowid: Bool, hasKeyIndex: Bool) -> PrimaryKey {
        let keyColumns = columns
            .filter { $0.primaryKeyPosition != nil }
            .sorted { $0.primaryKeyPosition! < $1.primaryKeyPosition! }
        if withoutRowid { return .withoutRowid(keyColumns.map(\.name)) }
        if keyColumns.count == 1, keyColumns[0].declaredType.uppercased() == "INTEGER", !hasKeyIndex {
            return .rowidAlias(column: keyColumns[0].name)
        }
        if !keyColumns.isEmpty { return .columns(keyColumns.map(\.name)) }
        let taken = Set(columns.map { $0.name.lowercased() })
        if let accessor = ["rowid", "_rowid_", "oid"].first(where: { !taken.contains($0) }) {
            return .implicitRowid(accessor: accessor)
        }
        return .unidentifiable(columns: columns.map(\.name))
    }
}
