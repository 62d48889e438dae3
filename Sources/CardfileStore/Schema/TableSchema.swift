import GRDB

/// Everything Cardfile knows about one table or view: columns, key, constraints, indexes.
///
/// A view is listed and read like a table; ``view`` says what its `INSTEAD OF` triggers let
/// through. Column lookups are case-insensitive, as SQLite's are. Row values inside the store are
/// arrays aligned with ``columns``.
public struct TableSchema: Hashable, Sendable {
    public let name: String
    public let columns: [ColumnDescription]
    public let primaryKey: PrimaryKey
    public let uniqueIndexes: [UniqueIndex]
    public let indexes: [IndexDescription]
    public let foreignKeys: [ForeignKeyDescription]
    public let checks: [CheckConstraint]
    public let isWithoutRowid: Bool
    public let isStrict: Bool
    /// For a view, what its triggers let through; nil for a table.
    public let view: ViewWrites?

    private let positions: [String: Int]
    /// Positions by the column's name as written.
    private let exactPositions: [String: Int]
    /// The quoted table name, ready for SQL.
    public let quotedName: String
    /// Quoted column names, aligned with ``columns``.
    package let quotedColumnNames: [String]
    /// The select list `key..., columns...` used for every read of whole rows: the first
    /// ``keyWidth`` values of a row are the key, the rest align with ``columns``.
    let selectList: String
    /// `key = ?` for one row, or `(a, b) = (?, ?)` for a composite key (`IS` for a key made
    /// of an unidentifiable table's columns, which may be NULL).
    let keyMatchSQL: String
    /// What reads select from: the quoted name, or for an unidentifiable table a subquery
    /// that adds each row's ordinal among identical rows (see ``PrimaryKey/unidentifiable(columns:)``).
    /// Writes always name ``quotedName``.
    let fromSQL: String
    /// For a query's result (see ``QueryResult``), the SELECT its rows come from (they are
    /// read from a copy in the ``ResultStore``); nil for a table or view of the file.
    public let source: String?
    /// What a select list reads each key term with (``PrimaryKey/keyExpressions``, or a key
    /// column as the engine reads that column).
    package let keyReadExpressions: [String]
    /// Why the engine lets no record of it be changed, in words for the status bar (a
    /// PostgreSQL materialized view, a table without a primary key); nil when it may.
    public let readOnlyReason: String?
    /// The SQL of the engine the table lives in: every statement about it is built for it.
    package let dialect: any SQLDialect

    public init(
        name: String, columns: [ColumnDescription], primaryKey: PrimaryKey,
        uniqueIndexes: [UniqueIndex] = [], indexes: [IndexDescription] = [],
        foreignKeys: [ForeignKeyDescription] = [], checks: [CheckConstraint] = [],
        isWithoutRowid: Bool = false, isStrict: Bool = false, view: ViewWrites? = nil, source: String? = nil
    ) {
        self.init(
            name: name, columns: columns, primaryKey: primaryKey, uniqueIndexes: uniqueIndexes, indexes: indexes,
            foreignKeys: foreignKeys, checks: checks, isWithoutRowid: isWithoutRowid, isStrict: isStrict, view: view,
            source: source, dialect: SQLiteDialect(), quotedName: nil, readOnlyReason: nil)
    }

    /// A table of another engine: its statements are built for `dialect`, and name it as
    /// `quotedName` (a schema-qualified name) where given.
    package init(
        name: String, columns: [ColumnDescription], primaryKey: PrimaryKey,
        uniqueIndexes: [UniqueIndex] = [], indexes: [IndexDescription] = [],
        foreignKeys: [ForeignKeyDescription] = [], checks: [CheckConstraint] = [],
        isWithoutRowid: Bool = false, isStrict: Bool = false, view: ViewWrites? = nil, source: String? = nil,
        dialect: any SQLDialect, quotedName: String?, readOnlyReason: String?
    ) {
        self.dialect = dialect
        self.readOnlyReason = readOnlyReason
        self.view = view
        self.source = source
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.uniqueIndexes = uniqueIndexes
        self.indexes = indexes
        self.foreignKeys = foreignKeys
        self.checks = checks
        self.isWithoutRowid = isWithoutRowid
        self.isStrict = isStrict
        var positions: [String: Int] = [:]
        var exactPositions: [String: Int] = [:]
        for (index, column) in columns.enumerated().reversed() {
            positions[column.name.lowercased()] = index
            exactPositions[column.name] = index
        }
        self.positions = positions
        self.exactPositions = exactPositions
        self.quotedName = quotedName ?? name.quotedIdentifier
        quotedColumnNames = columns.map(\.name.quotedIdentifier)
        let keys = primaryKey.keyExpressions
        let keyNames = primaryKey.columnNames
        let readKeys = keys.indices.map { index -> String in
            guard keyNames.indices.contains(index), let column = columns.first(where: { $0.name.lowercased() == keyNames[index].lowercased() }) else { return keys[index] }
            return dialect.selectExpression(column)
        }
        keyReadExpressions = readKeys
        selectList = (readKeys + columns.map(dialect.selectExpression)).joined(separator: ", ")
        let match = primaryKey.isUnidentifiable ? dialect.same : "="
        if keys.count == 1 {
            keyMatchSQL = "\(keys[0]) \(match) ?"
        } else {
            keyMatchSQL = "(\(keys.joined(separator: ", "))) \(match) (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))"
        }
        let from = self.quotedName
        if case .unidentifiable(let columns) = primaryKey {
            let listed = columns.map(\.quotedIdentifier)
            let partition = PrimaryKey.contentTerms(columns).joined(separator: ", ")
            let ordinal = "row_number() OVER (PARTITION BY \(partition)) AS \(PrimaryKey.duplicateColumn.quotedIdentifier)"
            fromSQL = "(SELECT \((listed + [ordinal]).joined(separator: ", ")) FROM \(from)) AS \(name.quotedIdentifier)"
        } else {
            fromSQL = from
        }
    }

    /// The position of a column in ``columns``: the one named exactly `name`, else the first
    /// named so case-insensitively. (PostgreSQL may hold `"Name"` and `name` side by side;
    /// SQLite's names differ in more than case.)
    public func columnIndex(named name: String) -> Int? {
        exactPositions[name] ?? positions[name.lowercased()]
    }

    /// The column named `name` (exactly, else case-insensitively).
    public func column(named name: String) -> ColumnDescription? {
        columnIndex(named: name).map { columns[$0] }
    }

    /// The key's columns, term by term (nil for the implicit rowid).
    package var keyColumns: [ColumnDescription?] {
        let names = primaryKey.columnNames
        return primaryKey.keyExpressions.indices.map { names.indices.contains($0) ? column(named: names[$0]) : nil }
    }

    /// Positions of the key columns within ``columns``; empty for an implicit rowid.
    var keyColumnIndexes: [Int] {
        primaryKey.columnNames.compactMap { columnIndex(named: $0) }
    }

    public static func == (lhs: TableSchema, rhs: TableSchema) -> Bool {
        lhs.name == rhs.name && lhs.columns == rhs.columns && lhs.primaryKey == rhs.primaryKey
            && lhs.uniqueIndexes == rhs.uniqueIndexes && lhs.indexes == rhs.indexes && lhs.foreignKeys == rhs.foreignKeys
            && lhs.checks == rhs.checks && lhs.isWithoutRowid == rhs.isWithoutRowid && lhs.isStrict == rhs.isStrict
            && lhs.view == rhs.view && lhs.source == rhs.source
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(columns)
    }

    /// The number of key values at the start of a row read with ``selectList``.
    var keyWidth: Int { primaryKey.keyExpressions.count }

    /// The column values of a row a write's `RETURNING selectList` gave, as a read gives them:
    /// RETURNING can hand back a REAL column's whole value (a generated `a * 1.5`) as an
    /// integer, where a read of the stored row gives a real.
    func returned(_ row: [Value]) -> [Value] {
        var values = Array(row[keyWidth...])
        for index in values.indices where columns.indices.contains(index) && columns[index].affinity == .real {
            if case .integer(let int) = values[index] { values[index] = .real(Double(int)) }
        }
        return values
    }

    /// `key IN (...)` for `count` rows, with the right shape for composite keys.
    func keyInSQL(count: Int) -> String {
        // IN never matches NULL, which an unidentifiable table's key may hold.
        if primaryKey.isUnidentifiable { return "(" + Array(repeating: keyMatchSQL, count: count).joined(separator: " OR ") + ")" }
        return dialect.keyIn(primaryKey.keyExpressions, count: count)
    }

    /// `key IN (...)` for these rows' keys, with its arguments. Beyond a few hundred keys
    /// without blobs, the keys go as one JSON array the engine reads (`json_each`,
    /// `jsonb_array_elements`): one argument, where SQLite takes at most 32,766 and
    /// PostgreSQL 65,535, so a rule may name a hundred thousand records.
    func keySetSQL(_ keys: [[Value]]) -> (sql: String, arguments: [Value]) {
        if keys.count > 200, !primaryKey.isUnidentifiable, let sql = dialect.keyInJSON(primaryKey.keyExpressions, columns: keyColumns),
           let json = Self.jsonArray(of: keys) {
            return (sql, [.text(json)])
        }
        return (keyInSQL(count: keys.count), keys.flatMap { $0 })
    }

    /// The keys as a JSON array (each key a value, or an array of values when it has
    /// several); nil when one holds what JSON cannot carry exactly (a blob, NULL, an infinite
    /// real).
    private static func jsonArray(of keys: [[Value]]) -> String? {
        var out = "["
        for (index, key) in keys.enumerated() {
            if index > 0 { out += "," }
            if key.count > 1 { out += "[" }
            for (position, value) in key.enumerated() {
                if position > 0 { out += "," }
                switch value {
                case .integer(let int): out += String(int)
                case .real(let double):
                    guard double.isFinite else { return nil }
                    // Swift's shortest form reads back as the same double; an integral one
                    // keeps its ".0" so it stays a real.
                    out += "\(double)"
                case .text(let text): out += jsonString(text)
                case .null, .blob, .decimal, .boolean: return nil
                }
            }
            if key.count > 1 { out += "]" }
        }
        return out + "]"
    }

    private static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// False when rows cannot be told apart, so the table is read-only in Cardfile.
    public var isIdentifiable: Bool { !primaryKey.isUnidentifiable }

    /// True for a view.
    public var isView: Bool { view != nil }
}
