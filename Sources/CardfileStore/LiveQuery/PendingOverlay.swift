/// The context's unsaved changes to a live query's table, as the list shows them: edited and
/// deleted rows stay where they are stored, marked; inserted rows that match the filter follow
/// the stored rows, in the order they were inserted (they have no stored position yet).
struct PendingOverlay {
    /// Pending values and status of stored rows that have unsaved changes.
    var changed: [ObjectID: (values: [Value], status: Record.Status)] = [:]
    /// Unsaved inserts that match the filter.
    var inserted: [LiveRow] = []

    /// Builds the overlay from `pending` (the context's pending rows, taken before the read:
    /// taking them may read the store, and GRDB reads do not nest).
    static func load(pending: [ObjectID: PendingRow], query: OrderedQuery, db: any EngineSession) throws -> PendingOverlay {
        var overlay = PendingOverlay()
        var inserts: [(number: UInt64, row: LiveRow)] = []
        for (id, row) in pending {
            if case .temporary(let number) = id.key {
                guard !row.isDeleted, try matches(row.columns, query: query, db: db) else { continue }
                inserts.append((number, LiveRow(id: id, values: row.columns, status: .inserted)))
            } else {
                overlay.changed[id] = (row.columns, row.isDeleted ? .deleted : .updated)
            }
        }
        overlay.inserted = inserts.sorted { $0.number < $1.number }.map(\.row)
        return overlay
    }

    /// The row as shown: stored values, or pending ones with their mark.
    func row(id: ObjectID, stored: [Value]) -> LiveRow {
        if let pending = changed[id] {
            return LiveRow(id: id, values: pending.values, status: pending.status)
        }
        return LiveRow(id: id, values: stored, status: .unchanged)
    }

    /// Evaluates the filter on values that are not in the table, by giving the engine a one-row
    /// subquery with the table's column names, so the same SQL decides.
    private static func matches(_ values: [Value], query: OrderedQuery, db: any EngineSession) throws -> Bool {
        guard let filter = query.filter else { return true }
        let table = query.table
        let columns = zip(table.columns, table.quotedColumnNames).map { "\(table.dialect.placeholder(for: $0)) AS \($1)" }.joined(separator: ", ")
        let sql = "SELECT 1 FROM (SELECT \(columns)) AS pending WHERE \(filter.sql)"
        return try db.firstRow(sql, values + filter.arguments) != nil
    }
}
