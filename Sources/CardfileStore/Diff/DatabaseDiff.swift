import GRDB

/// Compares two databases table by table, record by record (`cardfile diff A B`).
///
/// Tables are matched by name. A table in both is compared by its primary key: both sides
/// are read in key order and walked together, so memory stays flat however large the tables
/// (``run(_:_:tables:emit:)`` streams what it finds). A table without a declared key is
/// compared by rowid, with a warning (a rowid may change when a file is rebuilt); one whose
/// key changed, or that has no key to go by, is compared by its rows, as multisets. Schema
/// differences come first: tables and columns on one side only, a column whose declared
/// type changed. Values compare exactly: 1 and 1.0 differ, as their storage classes do.
public enum DatabaseDiff {
    /// What the comparison found, in order.
    public enum Event: Sendable, Equatable {
        /// A difference of schema, in words (`table notes is only in B`).
        case schema(String)
        /// A table starts: its name, the columns compared, what identifies a record (key
        /// columns, the rowid as the table names it (`rowid`, `_rowid_`, `oid`), or empty when
        /// rows are compared whole), a note, and whether B's table has a rowid.
        case table(name: String, columns: [String], key: [String], note: String?, hasRowid: Bool)
        /// A record of B that A has not: its key and its values (aligned with the columns).
        case added(table: String, key: [Value], values: [Value])
        /// A record of A that B has not.
        case deleted(table: String, key: [Value], values: [Value])
        /// A record on both sides whose values differ: the columns that differ.
        case changed(table: String, key: [Value], fields: [Field])
        /// A table only in B, as B creates it (for SQL that makes A into B).
        case created(table: String, sql: String)
        /// A table only in A.
        case dropped(table: String)
    }

    public struct Field: Sendable, Equatable {
        public let column: String
        public let old: Value
        public let new: Value

        public init(column: String, old: Value, new: Value) {
            self.column = column
            self.old = old
            self.new = new
        }
    }

    /// How many records were added, deleted and changed, over every table, and whether the
    /// schemas differ.
    public struct Summary: Sendable, Equatable {
        public var added = 0
        public var deleted = 0
        public var changed = 0
        public var schemaDiffers = false

        public init(added: Int = 0, deleted: Int = 0, changed: Int = 0, schemaDiffers: Bool = false) {
            self.added = added
            self.deleted = deleted
            self.changed = changed
            self.schemaDiffers = schemaDiffers
        }

        public var isEqual: Bool { added == 0 && deleted == 0 && changed == 0 && !schemaDiffers }
    }

    /// Compares `a` with `b`: every table, or those named in `tables` (an unknown one is an
    /// error). `emit` hears each difference as it is found; its error stops the comparison.
    /// `deletesFirst` gives each table's deleted records before the others (for SQL), at the
    /// cost of reading it twice.
    public static func run(_ a: Container, _ b: Container, tables names: [String]? = nil, deletesFirst: Bool = false,
                           emit: (Event) throws -> Void) throws(StoreError) -> Summary {
        let left = a.schema.tables.filter { !$0.isView }
        let right = b.schema.tables.filter { !$0.isView }
        var wanted = Set((left + right).map { $0.name.lowercased() })
        if let names {
            for name in names where !wanted.contains(name.lowercased()) { throw StoreError.noSuchTable(name) }
            wanted = Set(names.map { $0.lowercased() })
        }
        var summary = Summary()
        let pairs = wanted.sorted().map { name in
            (left.first { $0.name.lowercased() == name }, right.first { $0.name.lowercased() == name })
        }
        return try storeErrors(path: a.core.path) {
            // The schemas first, every table's; then the records.
            for (tableA, tableB) in pairs {
                let sentences: [String] = switch (tableA, tableB) {
                case (let tableA?, nil): ["table \(tableA.name) is only in A"]
                case (nil, let tableB?): ["table \(tableB.name) is only in B"]
                case (let tableA?, let tableB?): schemaDifferences(tableA, tableB)
                case (nil, nil): []
                }
                for sentence in sentences {
                    summary.schemaDiffers = true
                    try emit(.schema(sentence))
                }
            }
            for (tableA, tableB) in pairs {
                switch (tableA, tableB) {
                case (let tableA?, nil):
                    try emit(.dropped(table: tableA.name))
                case (nil, let tableB?):
                    let sql = try b.core.read { db in
                        try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [tableB.name])
                    } ?? ""
                    try emit(.created(table: tableB.name, sql: sql))
                    // Its rows are all added (as SQL that makes A into B must insert them), with
                    // their rowids when the table has no declared key.
                    let columns = stored(tableB).map(\.name)
                    let key: [String] = if case .implicitRowid(let accessor) = tableB.primaryKey { [accessor] } else { tableB.primaryKey.columnNames }
                    let keyed = tableB.primaryKey.isRowid && tableB.primaryKey.columnNames.isEmpty ? key : []
                    try emit(.table(name: tableB.name, columns: columns, key: key, note: nil, hasRowid: !tableB.isWithoutRowid))
                    try b.core.read { db in
                        let statement = try db.makeStatement(sql: "SELECT \((keyed + columns.map(\.quotedIdentifier)).joined(separator: ", ")) FROM \(tableB.quotedName)")
                        let cursor = try Row.fetchCursor(statement)
                        while try cursor.next() != nil {
                            summary.added += 1
                            let all = Self.values(statement, count: keyed.count + columns.count)
                            let keyValues = keyed.isEmpty ? key.compactMap { name in columns.firstIndex(of: name).map { all[$0] } } : Array(all[..<keyed.count])
                            try emit(.added(table: tableB.name, key: keyValues, values: Array(all[keyed.count...])))
                        }
                    }
                case (let tableA?, let tableB?):
                    try compare(tableA, tableB, a: a, b: b, deletesFirst: deletesFirst, summary: &summary, emit: emit)
                case (nil, nil):
                    break
                }
            }
            return summary
        }
    }

    private static func values(_ statement: Statement, from start: Int = 0, count: Int) -> [Value] {
        let handle = statement.sqliteStatement
        return (start..<(start + count)).map { Value(statement: handle, index: CInt($0)) }
    }

    /// Stored columns only: a generated one follows from the others.
    private static func stored(_ table: TableSchema) -> [ColumnDescription] {
        table.columns.filter { !$0.isHidden && $0.generation == .none }
    }

    /// How a table's columns differ between the sides, in words.
    private static func schemaDifferences(_ tableA: TableSchema, _ tableB: TableSchema) -> [String] {
        let name = tableA.name
        let columnsA = stored(tableA), columnsB = stored(tableB)
        let namesA = Set(columnsA.map { $0.name.lowercased() }), namesB = Set(columnsB.map { $0.name.lowercased() })
        var sentences = columnsA.filter { !namesB.contains($0.name.lowercased()) }.map { "\(name): column \($0.name) is only in A" }
        sentences += columnsB.filter { !namesA.contains($0.name.lowercased()) }.map { "\(name): column \($0.name) is only in B" }
        for column in columnsA {
            guard let other = columnsB.first(where: { $0.name.lowercased() == column.name.lowercased() }),
                  other.declaredType.uppercased() != column.declaredType.uppercased() else { continue }
            sentences.append("\(name): column \(column.name) is \(column.declaredType.isEmpty ? "untyped" : column.declaredType) in A, \(other.declaredType.isEmpty ? "untyped" : other.declaredType) in B")
        }
        return sentences
    }

    /// One table on both sides: its records, by key (or rowid, or whole rows).
    private static func compare(_ tableA: TableSchema, _ tableB: TableSchema, a: Container, b: Container, deletesFirst: Bool,
                                summary: inout Summary, emit: (Event) throws -> Void) throws {
        let name = tableA.name
        let columnsB = stored(tableB)
        let namesB = Set(columnsB.map { $0.name.lowercased() })
        let common = stored(tableA).filter { namesB.contains($0.name.lowercased()) }
        // What identifies a record: the same declared key on both sides, else the rowid on
        // both, else nothing (rows compared whole).
        let keyA = tableA.primaryKey.columnNames.map { $0.lowercased() }
        let keyB = tableB.primaryKey.columnNames.map { $0.lowercased() }
        var key: [String]
        var keyExpressions: (a: [String], b: [String])
        var collations: [Collation]
        var note: String?
        if !keyA.isEmpty, keyA == keyB, tableA.isIdentifiable, tableB.isIdentifiable {
            key = tableA.primaryKey.columnNames
            keyExpressions = (key.map(\.quotedIdentifier), key.map(\.quotedIdentifier))
            // (A collation SQLite does not know here is read as BINARY, on both sides.)
            collations = key.map { name in
                let collation = tableA.column(named: name)?.collation ?? .binary
                if case .custom = collation { return .binary }
                return collation
            }
        } else if case .implicitRowid(let accessorA) = tableA.primaryKey, case .implicitRowid(let accessorB) = tableB.primaryKey {
            // (Named as B's table reads it: a column may be called rowid.)
            key = [accessorB]
            keyExpressions = ([accessorA], [accessorB])
            collations = [.binary]
            note = "\(name) has no declared key: its records are compared by rowid, which a rebuilt file may change"
        } else {
            key = []
            keyExpressions = ([], [])
            collations = []
            note = keyA == keyB ? "\(name) has no key to go by: its rows are compared whole"
                : "the key of \(name) changed (\(keyA.isEmpty ? "rowid" : keyA.joined(separator: ", ")) → \(keyB.isEmpty ? "rowid" : keyB.joined(separator: ", "))): its rows are compared whole"
        }
        let columnNames = common.map(\.name)
        try emit(.table(name: name, columns: columnNames, key: key, note: note, hasRowid: !tableB.isWithoutRowid))
        if common.isEmpty { return }
        // Rows compared whole are ordered by every column, as BINARY and by storage class.
        func query(_ table: TableSchema, key: [String]) -> String {
            let order = key.isEmpty
                ? columnNames.flatMap { ["typeof(\($0.quotedIdentifier))", "\($0.quotedIdentifier) COLLATE BINARY"] }
                : zip(key, collations).map { "\($0) COLLATE \($1.name)" }
            let select = (key + columnNames.map(\.quotedIdentifier)).joined(separator: ", ")
            return "SELECT \(select) FROM \(table.quotedName) ORDER BY \(order.joined(separator: ", "))"
        }
        let sqlA = query(tableA, key: keyExpressions.a), sqlB = query(tableB, key: keyExpressions.b)
        let width = keyExpressions.a.count
        // With `deletesFirst`, the table is walked twice: its deletes, then the rest (SQL that
        // inserts a value a delete frees must delete first).
        for pass in deletesFirst ? [Pass.deletes, .rest] : [.all] {
        try a.core.read { dbA in
            try b.core.read { dbB in
                let statementA = try dbA.makeStatement(sql: sqlA), statementB = try dbB.makeStatement(sql: sqlB)
                let cursorA = try Row.fetchCursor(statementA), cursorB = try Row.fetchCursor(statementB)
                func next(_ cursor: RowCursor, _ statement: Statement) throws -> (key: [Value], values: [Value])? {
                    guard try cursor.next() != nil else { return nil }
                    return (values(statement, count: width), values(statement, from: width, count: columnNames.count))
                }
                var rowA = try next(cursorA, statementA), rowB = try next(cursorB, statementB)
                while rowA != nil || rowB != nil {
                    let order: Int
                    if let rowA, let rowB {
                        order = width > 0 ? Self.compare(rowA.key, rowB.key, collations) : Self.compareWhole(rowA.values, rowB.values)
                    } else {
                        order = rowA == nil ? 1 : -1
                    }
                    if order < 0, let deleted = rowA {
                        if pass != .rest {
                            summary.deleted += 1
                            try emit(.deleted(table: name, key: deleted.key, values: deleted.values))
                        }
                        rowA = try next(cursorA, statementA)
                    } else if order > 0, let added = rowB {
                        if pass != .deletes {
                            summary.added += 1
                            try emit(.added(table: name, key: added.key, values: added.values))
                        }
                        rowB = try next(cursorB, statementB)
                    } else if let old = rowA, let new = rowB {
                        var fields: [Field] = []
                        for (index, column) in columnNames.enumerated() where old.values[index] != new.values[index] {
                            fields.append(Field(column: column, old: old.values[index], new: new.values[index]))
                        }
                        if !fields.isEmpty, pass != .deletes {
                            summary.changed += 1
                            try emit(.changed(table: name, key: old.key, fields: fields))
                        }
                        rowA = try next(cursorA, statementA)
                        rowB = try next(cursorB, statementB)
                    }
                }
            }
        }
        }
    }

    private enum Pass { case all, deletes, rest }

    /// Keys in SQLite's order under each key column's collation.
    static func compare(_ a: [Value], _ b: [Value], _ collations: [Collation]) -> Int {
        for (index, collation) in collations.enumerated() {
            let order = Value.compare(a[index], b[index], collation: collation)
            if order != 0 { return order }
        }
        return 0
    }

    /// Whole rows in the order they were read: by storage class, then BINARY, column by column.
    private static func compareWhole(_ a: [Value], _ b: [Value]) -> Int {
        for (left, right) in zip(a, b) {
            if left.typeName != right.typeName { return left.typeName < right.typeName ? -1 : 1 }
            let order = Value.compare(left, right, collation: .binary)
            if order != 0 { return order }
        }
        return 0
    }
}
