/// A table together with its entity description: the field layout every context uses.
///
/// Fields are the table's columns in schema order followed by the transient fields; a field
/// index below ``columnCount`` is persistent.
struct Entity: Sendable {
    let table: TableSchema
    let fieldNames: [String]
    let rules: [Int: [EntityDescription.FieldRule]]
    let versionColumn: Int?
    /// Columns a save may write.
    let writableColumns: [Int]
    /// Columns an update or delete compares with its snapshot to detect a conflict.
    let checkedColumns: [Int]
    private let fieldPositions: [String: Int]

    init(table: TableSchema, description: EntityDescription?) throws(StoreError) {
        self.table = table
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
        writableColumns = table.columns.indices.filter { table.columns[$0].isWritable }
        if let versionColumn {
            checkedColumns = [versionColumn]
        } else {
            checkedColumns = writableColumns.filter { !keyColumns.contains($0) }
        }
    }

    var name: String { table.name }
    var columnCount: Int { table.columns.count }

    func fieldIndex(named name: String) -> Int? {
        fieldPositions[name.lowercased()]
    }

    func isPersistent(_ field: Int) -> Bool { field < columnCount }

    /// The ObjectID of a row read with the table's select list (key values first).
    func objectID(fromKey key: ArraySlice<Value>) -> ObjectID {
        ObjectID(table: table.name, key: .permanent(Array(key)))
    }
}
