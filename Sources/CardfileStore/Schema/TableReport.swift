import GRDB

/// What `:schema` shows of a table beyond its ``TableSchema``: the foreign keys of other
/// tables that point at it, its triggers, the expressions of its generated columns, how many
/// rows it holds and its size on disk.
public struct TableReport: Sendable {
    /// A foreign key of another table that points at this one.
    public struct Reference: Sendable, Hashable {
        public let table: String
        public let key: ForeignKeyDescription
    }

    public let table: TableSchema
    public var referencedBy: [Reference] = []
    /// Each trigger on the table: its name and its SQL as written.
    public var triggers: [(name: String, sql: String)] = []
    /// The expression of each generated column, by column name, as written.
    public var generated: [String: String] = [:]
    public var rows = 0
    /// The pages of the table and its indexes, in bytes; nil when SQLite cannot say (no
    /// `dbstat`, or a view).
    public var bytes: Int?

    package init(table: TableSchema) {
        self.table = table
    }
}

extension Container {
    /// What `:schema` shows of `table`. Counts its rows (a scan of a large table: off the loop).
    public func report(on table: String) throws(StoreError) -> TableReport {
        var schema = try core.entity(table).table
        // (The database's schema as it is now: an index made since opening, by :index or SQL, shows.)
        let current = try? core.engine.map { try $0.readSchema() } ?? core.read({ db in try SchemaReader.read(db) })
        if let fresh = current?.table(named: schema.name) { schema = fresh }
        var report = TableReport(table: schema)
        for other in (current ?? core.schema).tables {
            for key in other.foreignKeys where key.parentTable.lowercased() == schema.name.lowercased() {
                report.referencedBy.append(TableReport.Reference(table: other.name, key: key))
            }
        }
        if let engine = core.engine {
            let referencedBy = report.referencedBy
            return try storeErrors(path: core.path) {
                var report = try engine.report(on: schema)
                report.referencedBy = referencedBy
                return report
            }
        }
        return try storeErrors(path: core.path) {
            try core.read { db in
                for row in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE ORDER BY name",
                                            arguments: [schema.name]) {
                    report.triggers.append((row[0], row[1] ?? ""))
                }
                if schema.columns.contains(where: { $0.generation != .none }),
                   let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [schema.name]) {
                    for column in schema.columns where column.generation != .none {
                        report.generated[column.name] = Self.generatedExpression(of: column.name, in: sql)
                    }
                }
                report.rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(schema.quotedName)") ?? 0
                if !schema.isView {
                    // (dbstat is an optional part of SQLite: without it, no size.)
                    report.bytes = try? Int.fetchOne(db, sql: """
                        SELECT sum(pgsize) FROM dbstat WHERE name = ? COLLATE NOCASE
                           OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? COLLATE NOCASE)
                        """, arguments: [schema.name, schema.name])
                }
                return report
            }
        }
    }

    /// The `AS (…)` of column `name` in a `CREATE TABLE` statement, as written; nil when it
    /// cannot be found.
    static func generatedExpression(of name: String, in sql: String) -> String? {
        guard let tokens = try? SQLTokenizer.tokenize(sql) else { return nil }
        let characters = Array(sql)
        var depth = 0
        var index = 0
        var atDefinitionStart = false
        while index < tokens.count {
            let token = tokens[index]
            if token.isSymbol("(") {
                depth += 1
                atDefinitionStart = depth == 1
                index += 1
                continue
            }
            if token.isSymbol(")") { depth -= 1 }
            if depth == 1, token.isSymbol(",") { atDefinitionStart = true; index += 1; continue }
            if depth == 1, atDefinitionStart, token.isIdentifier, token.value.lowercased() == name.lowercased() {
                // This column's definition: its `AS (` at the same depth, up to the closing `)`.
                var scan = index + 1
                var level = 1
                while scan < tokens.count, !(level == 1 && (tokens[scan].isSymbol(",") || tokens[scan].isSymbol(")"))) {
                    if tokens[scan].isWord("as"), scan + 1 < tokens.count, tokens[scan + 1].isSymbol("(") {
                        var inner = 0
                        var end = scan + 1
                        repeat {
                            if tokens[end].isSymbol("(") { inner += 1 }
                            if tokens[end].isSymbol(")") { inner -= 1 }
                            end += 1
                        } while end < tokens.count && inner > 0
                        let from = tokens[scan + 1].end
                        let to = tokens[end - 1].start
                        guard from <= to, to <= characters.count else { return nil }
                        return String(characters[from..<to]).trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                    if tokens[scan].isSymbol("(") { level += 1 }
                    if tokens[scan].isSymbol(")") { level -= 1 }
                    scan += 1
                }
                return nil
            }
            atDefinitionStart = false
            index += 1
        }
        return nil
    }
}
