import GRDB

/// A database as lines of text, in a stable order (`cardfile dump`, git's `textconv`): each
/// table's CREATE statement, then its records in key order, one line each, as
/// `cardfile diff` shows them. Two versions of a file dumped this way diff line by line.
public enum DatabaseDump {
    /// Writes the lines of `container`'s tables (views and indexes too, as statements) to
    /// `emit`, streaming: memory stays flat however large the tables.
    public static func run(_ container: Container, emit: (String) throws -> Void) throws(StoreError) {
        try storeErrors(path: container.core.path) {
            try container.core.read { db in
                for row in try Row.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type DESC, name") {
                    try emit((row[0] as String) + ";\n")
                }
                for table in container.schema.tables where !table.isView {
                    let columns = table.columns.filter { !$0.isHidden && $0.generation == .none }.map(\.name)
                    let key = table.primaryKey.keyExpressions
                    let statement = try db.makeStatement(sql: "SELECT \((key + columns.map(\.quotedIdentifier)).joined(separator: ", ")) FROM \(table.fromSQL) ORDER BY \(key.joined(separator: ", "))")
                    let handle = statement.sqliteStatement
                    let cursor = try Row.fetchCursor(statement)
                    let width = table.primaryKey.isUnidentifiable ? 0 : key.count
                    while try cursor.next() != nil {
                        let keyText = (0..<CInt(width)).map { DiffText.shown(Value(statement: handle, index: $0)) }.joined(separator: "/")
                        let fields = columns.enumerated().map { index, name in
                            "\(name) \(DiffText.shown(Value(statement: handle, index: CInt(key.count + index))))"
                        }
                        try emit("\(table.name) \(keyText.isEmpty ? "(row)" : keyText): \(fields.joined(separator: ", "))\n")
                    }
                }
            }
        }
    }
}
