import GRDB
import GRDBSQLite

/// Describes a SELECT's result (see ``QueryResult``): its columns, whether its rows are one
/// table's records, and which tables it reads.
///
/// A result is editable exactly when a view with that SELECT would have a key (see
/// ``ViewPlan`` and ``ViewReader``): SQLite's plan shows each row is one table's row, once,
/// and the result carries that table's whole key unchanged. Any other result is read-only, and
/// the reason is the most specific one its text shows (a compound, grouping, DISTINCT, a view,
/// a join, a missing key).
enum QueryReader {
    static func describe(_ statement: SQLStatement, db: Database, schema: DatabaseSchema) throws -> QueryResult {
        let text = statement.text
        let columns = try resultColumns(db, select: text, schema: schema)
        let tables = schema.tables.filter { !$0.isView }
        let origins = columns.map { (name: $0.name, table: $0.table, column: $0.column) }
        let named = namedTables((try? SQLTokenizer.tokenize(text)) ?? [], schema: schema)
        // (A plan SQLite cannot make, or a view's rows, leave the result read-only.)
        let key = named.allSatisfy({ !$0.isView }) ? try? ViewReader.provenKey(db, select: text, text: text, origins: origins, tables: tables) : nil
        return describe(statement, columns: columns, key: key.map { ($0.table, $0.positions) }, schema: schema)
    }

    /// The result of `statement`, whose columns are `columns`; its rows are the records of
    /// `key`'s table when given (the result columns holding its key, in key order).
    static func describe(_ statement: SQLStatement, columns: [ResultColumn], key: (table: String, positions: [Int])?,
                         schema: DatabaseSchema) -> QueryResult {
        let text = statement.text
        let names = uniqueNames(columns.map(\.name))
        let tokens = (try? SQLTokenizer.tokenize(text)) ?? []
        let named = namedTables(tokens, schema: schema)
        let records = key.map { QueryResult.RecordSource(table: $0.table, keyColumns: $0.positions.map { names[$0] }) }

        var described: [ColumnDescription] = [ColumnDescription(name: QueryResult.ordinalColumn, declaredType: "INTEGER", isNotNull: true)]
        for (column, name) in zip(columns, names) {
            let origin = column.table.flatMap { schema.table(named: $0) }.flatMap { table in column.column.flatMap(table.column(named:)) }
            described.append(ColumnDescription(name: name, declaredType: column.declaredType ?? origin?.declaredType ?? "",
                                               collation: origin?.collation ?? .binary))
        }
        let key: PrimaryKey = records.map { .columns($0.keyColumns) } ?? .rowidAlias(column: QueryResult.ordinalColumn)
        let table = TableSchema(name: resultName(schema), columns: described, primaryKey: key, view: ViewWrites(), source: text)
        return QueryResult(
            sql: text, table: table, records: records,
            readOnlyReason: records == nil ? readOnlyReason(tokens: tokens, named: named, columns: columns) : nil,
            readTables: Set(named.map { $0.name.lowercased() }))
    }

    static func resultColumns(_ db: Database, select: String, schema: DatabaseSchema) throws -> [ResultColumn] {
        let statement = try db.makeStatement(sql: select)
        let handle = statement.sqliteStatement
        return (0..<sqlite3_column_count(handle)).map { index in
            let name = sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
            let declared = sqlite3_column_decltype(handle, index).map { String(cString: $0) }
            guard sqlite3_column_database_name(handle, index).map({ String(cString: $0) }) == "main" else {
                return ResultColumn(name: name, declaredType: declared, table: nil, column: nil)
            }
            return ResultColumn(name: name, declaredType: declared,
                                table: sqlite3_column_table_name(handle, index).map { String(cString: $0) },
                                column: sqlite3_column_origin_name(handle, index).map { String(cString: $0) })
        }
    }

    /// The positions of `table`'s key columns among `columns` (each the first result column
    /// taken from it unchanged), in key order; nil when one is missing.
    static func key(of table: String, in columns: [ResultColumn], schema: DatabaseSchema) -> (table: String, positions: [Int])? {
        guard let described = schema.table(named: table), described.isIdentifiable, !described.isView else { return nil }
        var positions: [Int] = []
        for name in described.primaryKey.columnNames {
            guard let position = columns.firstIndex(where: {
                $0.table?.lowercased() == described.name.lowercased() && $0.column?.lowercased() == name.lowercased()
            }) else { return nil }
            positions.append(position)
        }
        return positions.isEmpty ? nil : (described.name, positions)
    }

    /// Column names made distinct (case-insensitively, as SQLite compares them): a repeated
    /// name gets ` (2)`, ` (3)`…; a name left empty is `column N`; `#` is the row number's.
    static func uniqueNames(_ names: [String]) -> [String] {
        CardfileStore.uniqueNames(names, taken: [QueryResult.ordinalColumn], blank: { "column \($0)" }, repeated: { "\($0) (\($1))" })
    }

    /// `query`, or `query 2`… when the file has a table or view of that name.
    static func resultName(_ schema: DatabaseSchema) -> String {
        var name = "query"
        var number = 2
        while schema.table(named: name) != nil {
            name = "query \(number)"
            number += 1
        }
        return name
    }

    /// The tables and views of the file that the text names (any identifier with such a
    /// name, so never fewer than it reads), each once.
    static func namedTables(_ tokens: [SQLToken], schema: DatabaseSchema) -> [TableSchema] {
        var seen: Set<String> = []
        var found: [TableSchema] = []
        for token in tokens where token.isIdentifier {
            guard let table = schema.table(named: token.value), seen.insert(table.name.lowercased()).inserted else { continue }
            found.append(table)
        }
        return found
    }

    private static let aggregates: Set<String> = ["COUNT", "SUM", "TOTAL", "AVG", "MIN", "MAX", "GROUP_CONCAT", "STRING_AGG"]

    /// Why a result no plan proves to be one table's records cannot be edited.
    static func readOnlyReason(tokens: [SQLToken], named: [TableSchema], columns: [ResultColumn]) -> String {
        var depth = 0
        var words: [String] = []
        var aggregate: String?
        for (index, token) in tokens.enumerated() {
            if token.isSymbol("(") { depth += 1 }
            if token.isSymbol(")") { depth -= 1 }
            guard token.kind == .word else { continue }
            let word = token.value.uppercased()
            if depth == 0 { words.append(word) }
            if aggregate == nil, aggregates.contains(word), tokens.indices.contains(index + 1), tokens[index + 1].isSymbol("(") {
                aggregate = token.value.lowercased()
            }
        }
        if let compound = words.first(where: { ["UNION", "INTERSECT", "EXCEPT"].contains($0) }) {
            return "the result combines several SELECTs (\(compound))"
        }
        if words.contains("GROUP") { return "the result groups rows (GROUP BY)" }
        if let aggregate { return "the result is computed over many rows (\(aggregate))" }
        if words.contains("DISTINCT") { return "the result leaves out repeated rows (DISTINCT)" }
        if let view = named.first(where: \.isView) {
            return "the result reads the view \(view.name), whose records are edited in its own list"
        }
        let tables = named.filter { !$0.isView }
        if tables.count > 1 { return "the result joins \(tables.count) tables" }
        if let table = tables.first {
            let taken = Set(columns.filter { $0.table?.lowercased() == table.name.lowercased() }.compactMap { $0.column?.lowercased() })
            let key = table.primaryKey.columnNames
            if !taken.isEmpty, !table.isIdentifiable { return "\(table.name) has no key to write by" }
            let keyTaken = key.isEmpty ? !taken.isDisjoint(with: ["rowid", "_rowid_", "oid"]) : key.allSatisfy { taken.contains($0.lowercased()) }
            if !taken.isEmpty, !keyTaken {
                return "the result leaves out the key of \(table.name) (\(key.isEmpty ? "rowid" : key.joined(separator: ", ")))"
            }
        }
        if words.first == "WITH" { return "the result comes from a WITH clause, not from one table's records" }
        if tables.isEmpty { return "the result reads no table" }
        return "its rows cannot be traced to records of one table"
    }
}
