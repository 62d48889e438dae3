import CardfileStore
import PostgresNIO

/// Pages through a table in a sorted order without `OFFSET`: each page starts from the last row
/// of the one before (keyset pagination), so a page deep in a million rows costs what the first
/// does, given an index on the order.
///
/// The order is the sort columns, then the primary key, so every row has one place. NULLs come
/// first going up and last going down, as in SQLite, so the editor orders both engines' rows
/// alike.
public struct PostgresKeysetReader: Sendable {
    public struct SortColumn: Sendable, Equatable {
        public var column: Int
        public var descending: Bool
        public init(column: Int, descending: Bool = false) {
            self.column = column
            self.descending = descending
        }
    }

    public let session: PostgresSession
    public let table: PostgresTableDescription
    /// The sort columns as given, then the key's columns not among them (ascending).
    public let order: [SortColumn]
    /// A filter's SQL condition on the table's columns, or nil.
    public let condition: String?

    public init(session: PostgresSession, table: PostgresTableDescription, sort: [SortColumn], condition: String? = nil) {
        self.session = session
        self.table = table
        let keyColumns = table.primaryKey.compactMap { name in table.columns.firstIndex { $0.name == name } }
        self.order = sort + keyColumns.filter { key in !sort.contains { $0.column == key } }.map { SortColumn(column: $0) }
        self.condition = condition
    }

    /// The first `limit` records in the order (the last `limit`, in order, with `fromEnd`).
    public func first(_ limit: Int, fromEnd: Bool = false) throws(PostgresProblem) -> [PostgresRecord] {
        var bindings = PostgresBindings()
        let records = try page(where: nil, backwards: fromEnd, limit: limit, bindings: &bindings)
        return fromEnd ? records.reversed() : records
    }

    /// The `limit` records after `record` in the order.
    public func after(_ record: PostgresRecord, _ limit: Int) throws(PostgresProblem) -> [PostgresRecord] {
        var bindings = PostgresBindings()
        let boundary = beyond(record, backwards: false, bindings: &bindings)
        return try page(where: boundary, backwards: false, limit: limit, bindings: &bindings)
    }

    /// The `limit` records before `record`, in order.
    public func before(_ record: PostgresRecord, _ limit: Int) throws(PostgresProblem) -> [PostgresRecord] {
        var bindings = PostgresBindings()
        let boundary = beyond(record, backwards: true, bindings: &bindings)
        return try page(where: boundary, backwards: true, limit: limit, bindings: &bindings).reversed()
    }

    /// The planner's estimate of the table's rows (`pg_class.reltuples`), at once; nil when the
    /// table was never analysed. A list shows it until ``exactCount()`` comes.
    public func estimatedCount() throws(PostgresProblem) -> Int? {
        let rows = try session.rows("SELECT reltuples::float8 FROM pg_catalog.pg_class WHERE oid = \(table.relation.oid)::oid")
        guard let tuples = try? rows.first?.decode(Double.self), tuples >= 0 else { return nil }
        return Int(tuples)
    }

    /// The exact number of records matching the condition (a scan: run it off the loop).
    public func exactCount() throws(PostgresProblem) -> Int {
        let filter = condition.map { " WHERE \($0)" } ?? ""
        let rows = try session.rows(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table.relation.quotedName)\(filter)"))
        guard let count = try? rows.first?.decode(Int64.self) else {
            throw .refused(message: "no answer counting \(table.relation.displayName)", detail: nil, sqlState: "")
        }
        return Int(count)
    }

    // MARK: The statements

    private func page(where boundary: String?, backwards: Bool, limit: Int, bindings: inout PostgresBindings) throws(PostgresProblem) -> [PostgresRecord] {
        let conditions = [condition.map { "(\($0))" }, boundary].compactMap { $0 }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let select = (table.columns.map(PostgresValues.selectExpression) + ["xmin::text"]).joined(separator: ", ")
        let sql = "SELECT \(select) FROM \(table.relation.quotedName)\(filter) ORDER BY \(orderBy(backwards: backwards)) LIMIT \(max(0, limit))"
        let rows = try session.rows(PostgresQuery(unsafeSQL: sql, binds: bindings))
        return try rows.map { row throws(PostgresProblem) in
            let cells = Array(row)
            var values: [Value] = []
            for (cell, column) in zip(cells, table.columns) { values.append(try PostgresValues.value(cell, column: column)) }
            let version = (try? cells.last?.decode(String.self)) ?? ""
            return PostgresRecord(values: values, version: version)
        }
    }

    /// `ORDER BY` for the order, or its reverse. NULLs are the smallest values: first going
    /// up, last going down. A column that holds no NULL (NOT NULL, or in the key) is ordered
    /// plainly, so that its index serves the order both ways: PostgreSQL's planner does not
    /// match `ASC NULLS FIRST` with an index's order even there, and sorted the whole table for
    /// each page (the benchmark's pages of a million rows took minutes).
    func orderBy(backwards: Bool) -> String {
        order.map { sort in
            let descending = sort.descending != backwards
            let column = table.columns[sort.column]
            let name = PostgresName.quoted(column.name)
            if column.isNotNull || table.primaryKey.contains(column.name) { return descending ? "\(name) DESC" : "\(name) ASC" }
            return descending ? "\(name) DESC NULLS LAST" : "\(name) ASC NULLS FIRST"
        }.joined(separator: ", ")
    }

    /// The condition for rows strictly beyond `record` in the order (or before it, going
    /// `backwards`): for sort columns c1, c2, … the rows where c1 is beyond, or c1 is the same
    /// and c2 is beyond, and so on, with NULL ordered below every value.
    func beyond(_ record: PostgresRecord, backwards: Bool, bindings: inout PostgresBindings) -> String {
        var alternatives: [String] = []
        var sameSoFar: [String] = []
        for sort in order {
            let column = table.columns[sort.column]
            let name = PostgresName.quoted(column.name)
            let value = record.values[sort.column]
            let upward = sort.descending == backwards   // beyond means larger
            let placeholder = value.isNull ? "" : PostgresValues.placeholder(value, for: column, into: &bindings)
            let further: String?
            if value.isNull {
                // NULL is the smallest: larger is any value; nothing is smaller.
                further = upward ? "\(name) IS NOT NULL" : nil
            } else {
                let comparison = upward ? "\(name) > \(placeholder)" : "(\(name) < \(placeholder) OR \(name) IS NULL)"
                further = comparison
            }
            if let further { alternatives.append((sameSoFar + [further]).joined(separator: " AND ")) }
            sameSoFar.append(value.isNull ? "\(name) IS NULL" : "\(name) = \(placeholder)")
        }
        return alternatives.isEmpty ? "false" : "(" + alternatives.map { "(\($0))" }.joined(separator: " OR ") + ")"
    }
}
