import GRDB

/// Everything Cardfile knows about one table: columns, key, constraints, indexes.
///
/// Column lookups are case-insensitive, as SQLite's are. Row values inside the store are
/// arrays aligned with ``columns``.
public struct TableSchema: Hashable, Sendable {
    public var name: String
    public var columns: [ColumnDescription]
    public var primaryKey: PrimaryKey
    public var uniqueIndexes: [UniqueIndex]
    public var indexes: [IndexDescription]
    public var foreignKeys: [ForeignKeyDescription]
    public var checks: [CheckConstraint]
    public var isWithoutRowid: Bool
    public var isStrict: Bool

    private var positions: [String: Int]

    public init(
        name: String, columns: [ColumnDescription], primaryKey: PrimaryKey,
        uniqueIndexes: [UniqueIndex] = [], indexes: [IndexDescription] = [],
        foreignKeys: [ForeignKeyDescription] = [], checks: [CheckConstraint] = [],
        isWithoutRowid: Bool = false, isStrict: Bool = false
    ) {
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
        for (index, column) in columns.enumerated() { positions[column.name.lowercased()] = index }
        self.positions = positions
    }

    /// The position of a column in ``columns``, found case-insensitively.
    public func columnIndex(named name: String) -> Int? {
        positions[name.lowercased()]
    }

    /// The column named `name` (case-insensitively).
    public func column(named name: String) -> ColumnDescription? {
        columnIndex(named: name).map { columns[$0] }
    }

    /// The quoted table name, ready for SQL.
    public var quotedName: String { name.quotedIdentifier }

    /// Positions of the key columns within ``columns``; empty for an implicit rowid.
    var keyColumnIndexes: [Int] {
        primaryKey.columnNames.compactMap { columnIndex(named: $0) }
    }

    /// The select list `key..., columns...` used for every read of whole rows: the first
    /// `keyWidth` values of a row are the key, the rest align with ``columns``.
    var selectList: String {
        (primaryKey.keyExpressions + columns.map(\.name.quotedIdentifier)).joined(separator: ", ")
    }

    /// The number of key values at the start of a row read with ``selectList``.
    var keyWidth: Int { primaryKey.keyExpressions.count }

    /// `key = ?` for one row, or `(a, b) = (?, ?)` for a composite key.
    var keyMatchSQL: String {
        let expressions = primaryKey.keyExpressions
        if expressions.count == 1 { return "\(expressions[0]) = ?" }
        let placeholders = Array(repeating: "?", count: expressions.count).joined(separator: ", ")
        return "(\(expressions.joined(separator: ", "))) = (\(placeholders))"
    }

    /// `key IN (...)` for `count` rows, with the right shape for composite keys.
    func keyInSQL(count: Int) -> String {
        let expressions = primaryKey.keyExpressions
        if expressions.count == 1 {
            return "\(expressions[0]) IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
        }
        let tuple = "(" + Array(repeating: "?", count: expressions.count).joined(separator: ", ") + ")"
        return "(\(expressions.joined(separator: ", "))) IN (VALUES \(Array(repeating: tuple, count: count).joined(separator: ", ")))"
    }

    /// False when rows cannot be told apart, so the table is read-only in Cardfile.
    public var isIdentifiable: Bool { primaryKey != .unidentifiable }
}
