/// A SELECT's result as the SQL screen shows it: readable like a table (a live, windowed list
/// with sorting, filters, finding, copying and export), and editable when its rows are one
/// table's records.
///
/// Its ``table`` is made up: named ``TableSchema/name`` (`query`, or `query 2` when the file
/// has a table of that name), with a first column `#` numbering the rows in the query's own
/// order, then the result's columns (renamed only where two share a name). Lists sort by `#`
/// to show the query's order. Its rows are a copy, made by ``Container/load(_:cancellation:)``
/// in the ``ResultStore`` and made again whenever a table the query names changes.
public struct QueryResult: Sendable, Equatable {
    /// The statement as run (without a trailing semicolon).
    public let sql: String
    /// The result as a table; see the type's summary.
    public let table: TableSchema
    /// The table whose records the rows are, with the result columns that carry its key in
    /// key order; nil when the result is read-only.
    public let records: RecordSource?
    /// Why the result cannot be edited (`the result joins 2 tables`); nil when it can.
    public let readOnlyReason: String?
    /// The tables and views the SQL names (lowercased): a commit to any of them refreshes the
    /// result.
    public let readTables: Set<String>

    /// Where an editable result's rows live.
    public struct RecordSource: Sendable, Equatable {
        public let table: String
        public let keyColumns: [String]
    }

    /// The column numbering the rows in the query's order.
    public static let ordinalColumn = "#"
}
