import GRDB

/// A table together with its entity description: the field layout every context uses.
///
/// Fields are the table's columns in schema order followed by the transient fields; a field
/// index below ``columnCount`` is persistent. Entities are built once per container and shared
/// by reference (saves look them up for every object).
package final class Entity: Sendable {
    package let table: TableSchema
    let fieldNames: [String]
    let rules: [Int: [EntityDescription.FieldRule]]
    let versionColumn: Int?
    /// Columns a save may write.
    let writableColumns: [Int]
    /// Columns an update or delete compares with its snapshot to detect a conflict.
    let checkedColumns: [Int]
    /// ` AND <check> ...` for the checked columns, in the dialect's words (SQLite: `"c" IS ? COLLATE BINARY`); see ``checkArguments(_:)``.
    let checksSQL: String
    /// For each checked column: whether its check also compares the storage class. SQL's `IS`
    /// calls the integer 0 and the real 0.0 equal; only a column without affinity (BLOB) can
    /// hold both, so only there is `typeof` compared too. With it a save's check is exactly
    /// ``Value``'s equality, the one merges use to flag a field as changed elsewhere.
    private let typedChecks: [Bool]
    let columnCount: Int
    /// True when some column is generated, so written rows must be read back.
    let hasGeneratedColumns: Bool
    /// The tables and views (lowercased) whose commits can change the rows: the table itself,
    /// or for a query's result every one its SQL names.
    let watchedTables: Set<String>
    /// Where its rows are read, when not from the person's database: a query's result is
    /// read from the ``ResultStore``.
    let reader: (any DatabaseReader)?
    private let fieldPositions: [String: Int]
    /// Built UPDATE statements by the set of columns they write (one entry per edit shape).
    private let updateSQLCache = Locked<[UpdateShape: String]>([:])

    struct UpdateShape: Hashable {
        let columns: [Int]
        let conditional: Bool
        let returning: Bool
    }

    init(table: TableSchema, description: EntityDescription?, watching: Set<String>? = nil, reader: (any DatabaseReader)? = nil) throws(StoreError) {
        self.table = table
        self.reader = reader
        watchedTables = watching ?? [table.name.lowercased()]
        let transient = description?.transientFields ?? []
        for name in transient where table.column(named: name) != nil {
            throw StoreError.noSuchField(table: table.name, field: "\(name) (transient fields must not be columns)")
        }
        fieldNames = table.columns.map(\.name) + transient
        var positions: [String: Int] = [:]
        for (index, name) in fieldNames.enumerated() { positions[name.lowercased()] = index }
        fieldPositions = positions

        var rules: [Int: [EntityDescription.FieldRule]] = [:]
        for (field, fieldRules) in description?.rules ?? [:] {
            guard let index = positions[field.lowercased()] else {
                throw StoreError.noSuchField(table: table.name, field: field)
            }
            rules[index] = fieldRules
        }
        self.rules = rules

        if let version = description?.versionColumn {
            guard let index = table.columnIndex(named: version) else {
                throw StoreError.noSuchField(table: table.name, field: version)
            }
            versionColumn = index
        } else {
            versionColumn = nil
        }

        let keyColumns = Set(table.keyColumnIndexes)
        let writable = table.columns.indices.filter { table.columns[$0].isWritable }
        writableColumns = writable
        let checked = versionColumn.map { [$0] } ?? writable.filter { !keyColumns.contains($0) }
        checkedColumns = checked
        let checks = checked.map { table.dialect.unchanged(table.quotedColumnNames[$0], column: table.columns[$0]) }
        typedChecks = checks.map(\.typed)
        checksSQL = checks.map { " AND " + $0.sql }.joined()
        columnCount = table.columns.count
        hasGeneratedColumns = table.columns.contains { $0.generation != .none }
    }

    /// The UPDATE for a set of columns, built once per shape.
    func updateSQL(setting columns: [Int], conditional: Bool, returning: Bool) -> String {
        let shape = UpdateShape(columns: columns, conditional: conditional, returning: returning)
        if let sql = updateSQLCache.withLock({ $0[shape] }) { return sql }
        let sql = SaveStatements.update(self, setting: columns, conditional: conditional, returning: returning)
        updateSQLCache.withLock { $0[shape] = sql }
        return sql
    }

    var name: String { table.name }

    /// The arguments of ``checksSQL`` for the values the checked columns must hold (one per
    /// checked column, in order).
    func checkArguments(_ values: [Value]) -> [Value] {
        var arguments: [Value] = []
        arguments.reserveCapacity(values.count)
        for (value, typed) in zip(values, typedChecks) {
            arguments.append(value)
            if typed { arguments.append(.text(value.typeName)) }
        }
        return arguments
    }

    func fieldIndex(named name: String) -> Int? {
        fieldPositions[name.lowercased()]
    }

    func isPersistent(_ field: Int) -> Bool { field < columnCount }

    /// The ObjectID of a row read with the table's select list (key values first).
    func objectID(fromKey key: ArraySlice<Value>) -> ObjectID {
        ObjectID(table: table.name, key: .permanent(Array(key)))
    }
}
