/// Every matching row's identity in an order no index serves, computed once in the
/// background (the engine sorts; this keeps only the keys). Rowid-keyed tables keep 8 bytes a row.
struct SortedKeys: Sendable {
    private enum Storage: Sendable {
        case rowids([Int64])
        case keys([[Value]])
    }

    private let storage: Storage
    private let table: String

    var count: Int {
        switch storage {
        case .rowids(let rowids): return rowids.count
        case .keys(let keys): return keys.count
        }
    }

    /// The IDs at `range` (clamped to the available rows).
    func ids(in range: Range<Int>) -> [ObjectID] {
        let clamped = range.clamped(to: 0..<count)
        switch storage {
        case .rowids(let rowids): return rowids[clamped].map { ObjectID(table: table, rowid: $0) }
        case .keys(let keys): return keys[clamped].map { ObjectID(table: table, primaryKey: $0) }
        }
    }

    /// The position of `id`, by a linear scan (about a millisecond per million rows).
    func position(of id: ObjectID) -> Int? {
        guard let key = id.primaryKeyValues else { return nil }
        switch storage {
        case .rowids(let rowids):
            guard key.count == 1, case .integer(let rowid) = key[0] else { return nil }
            return rowids.firstIndex(of: rowid)
        case .keys(let keys):
            return keys.firstIndex(of: key)
        }
    }

    /// Sorts on `db`. The engine's sorter does the work (spilling to temporary files when
    /// large); `progress` hears how many rows were read back, and `cancellation` interrupts
    /// even the sort itself.
    static func build(_ query: OrderedQuery, db: any EngineSession, cancellation: Cancellation, progress: (Int) -> Void) throws -> SortedKeys {
        let table = query.table
        let clause = query.whereClause([])
        let sql = "SELECT \(table.keyReadExpressions.joined(separator: ", ")) FROM \(table.fromSQL)\(clause.sql) ORDER BY \(query.orderBy())"
        // Rowids take 8 bytes each; a key read as anything but an integer (another engine's
        // row address) turns the scan to whole keys from there.
        var byRowid = table.primaryKey.isRowid
        var rowids: [Int64] = []
        var keys: [[Value]] = []
        try db.forEachRow(sql, clause.arguments, cancellation: cancellation) { row in
            if byRowid {
                if case .integer(let rowid) = row[0] {
                    rowids.append(rowid)
                    if rowids.count % 65_536 == 0 { progress(rowids.count) }
                    return
                }
                byRowid = false
                keys = rowids.map { [.integer($0)] }
                rowids = []
            }
            keys.append(row)
            if keys.count % 65_536 == 0 { progress(keys.count) }
        }
        if byRowid { return SortedKeys(storage: .rowids(rowids), table: table.name) }
        return SortedKeys(storage: .keys(keys), table: table.name)
    }
}
