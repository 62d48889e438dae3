/// Where the SQL of two engines differs, for the statements the store builds itself.
///
/// Every builder writes `?` for a value; an engine that numbers its parameters renumbers them
/// (see ``EngineSession``). Identifiers are quoted the same way on both engines
/// (`quotedIdentifier`), so the dialect holds only what really differs.
package protocol SQLDialect: Sendable {
    /// The engine's name, for messages and tests ("SQLite", "PostgreSQL").
    var name: String { get }
    /// A condition that always holds, and one that never does.
    var alwaysTrue: String { get }
    var alwaysFalse: String { get }
    /// The NULL-safe equality operator: `IS` (SQLite) or `IS NOT DISTINCT FROM`.
    var same: String { get }
    /// A placeholder for a value compared with or standing for `column` where nothing else
    /// gives the value its type (a one-row subquery of pending values).
    func placeholder(for column: ColumnDescription) -> String
    /// One `ORDER BY` term. NULLs sort first going up and last going down on every engine;
    /// `canBeNull` false lets an engine leave that out (PostgreSQL's planner then uses an index).
    func orderTerm(_ expression: String, ascending: Bool, canBeNull: Bool) -> String
    /// `expression` matches the `LIKE` pattern bound to the next `?` (escaped with `\`), ASCII
    /// letters in either case.
    func containsText(_ expression: String) -> String
    /// A save's check that `column` (quoted as `name`) still holds the value bound to the next
    /// `?`, exactly as ``Value``'s equality has it; `typed` when a second `?` follows for the
    /// value's type name (``Value/typeName``).
    func unchanged(_ name: String, column: ColumnDescription) -> (sql: String, typed: Bool)
    /// `expression` is empty text (on a column of any type).
    func isEmptyText(_ expression: String) -> String
    /// `expressions` (a key of two or more terms) is one of `count` keys bound in order.
    func keyTupleIn(_ expressions: [String], count: Int) -> String
    /// `expressions` is one of the keys of a JSON array bound to one `?` (an array of values,
    /// or of arrays for a key of several terms), or nil when the engine has no such form: for
    /// thousands of keys, where one placeholder each would not do. `columns` are the key's
    /// columns, term by term (nil for SQLite's rowid), for an engine that types what it reads.
    func keyInJSON(_ expressions: [String], columns: [ColumnDescription?]) -> String?
    /// Appended to a read of a row a write is about to decide on: locks the row until the
    /// transaction ends (PostgreSQL's `FOR UPDATE`), so nothing commits between the read and the
    /// write; empty where the transaction's write lock already does (SQLite).
    var lockForWrite: String { get }
    /// True when the engine stores a value exactly as sent when its column's affinity keeps
    /// it (SQLite): a save may then skip reading the written row back. PostgreSQL's input
    /// functions rewrite values (`2026-2-1` is stored as `2026-02-01`), so its rows always
    /// come back through RETURNING.
    var storesValuesAsGiven: Bool { get }
    /// True when a value sent as text is read by the type of the column it goes to, by that
    /// type's own input function (PostgreSQL). An import then sends each field as the file
    /// has it (as `psql`'s `\copy` does), and a value the column cannot take is refused in
    /// the server's words. False where the store reads a number column's text itself, by the
    /// column's affinity (SQLite, which would keep text it cannot read as a number).
    var typesTextByColumn: Bool { get }
    /// True when the engine's import writes an insert's rows with PostgreSQL's `COPY` and
    /// takes a delimited file's rows in its text format (``CopyTextRow``), made while the file
    /// is read. Only with ``typesTextByColumn``: every field goes as the file has it.
    var importsCopyText: Bool { get }
    /// What `LIMIT ?` is given for "no limit".
    var unlimited: Value { get }
    /// The select-list entry reading `column` as a ``Value`` (under its own name).
    func selectExpression(_ column: ColumnDescription) -> String
    /// How an export reads `column` for the engine's own CSV writer
    /// (``StoreEngine/bulkExport(select:arguments:quoted:delimiter:null:isCancelled:_:)``), and
    /// whether CSV writes it bare (a number, a boolean, bytes in `\x` hex) rather than quoted;
    /// nil where the export reads values (SQLite, whose rows it reads from the statement directly).
    func exportText(_ column: ColumnDescription) -> (expression: String, bare: Bool)?
    /// Aggregates over the numbers `column` (quoted as `name`) holds among the rows read:
    /// the select-list terms, and how the values they give read as how many numbers there
    /// are, their sum and their mean. Texts, blobs and NULLs are not numbers.
    func numberMeasures(_ name: String, column: ColumnDescription) -> NumberMeasures
    /// The statement that defers the checks of foreign keys to the transaction's commit,
    /// and whether it defers every one (SQLite) or only those declared `DEFERRABLE`
    /// (PostgreSQL, where the others are checked at each statement).
    var deferForeignKeys: (sql: String, every: Bool) { get }
    /// Written between an `INSERT`'s column list and its `VALUES` when the columns include
    /// one the database numbers (an identity column): a row written back keeps its key.
    var keepingNumberedValues: String { get }
    /// True when many rows are best written by one statement (each statement a round trip to
    /// a server: PostgreSQL); false where one at a time costs no more (SQLite, in-process,
    /// whose hook then names each row a trigger or a cascade changes).
    var groupsRowWrites: Bool { get }
    /// True when ``Value/compare(_:_:collation:)`` orders values as the engine's `ORDER BY`
    /// does (SQLite, whose collations it reproduces); false where the engine orders by rules of
    /// its own (PostgreSQL's locale collations, enums by their declared order, arrays by
    /// element), and only the engine can say which of two keys comes first.
    var ordersAsSwiftDoes: Bool { get }
    /// A query giving, for each table the current transaction wrote, its quoted name (as
    /// ``TableSchema/quotedName``), a name to show, and how many rows it deleted and updated
    /// so far (cascades and triggers included); nil where the engine keeps no such count
    /// (SQLite, where temporary triggers count instead).
    var transactionRowCounts: String? { get }
    /// Queries for `:index` on an engine that keeps its catalog in tables (nil on SQLite, read
    /// by its pragmas): `ledBy` gives the names of the indexes whose first column is the one
    /// bound second, of the table bound first (as its quoted name); `nameTaken` gives a row
    /// when the name bound first is taken beside the table bound second.
    var indexCatalog: (ledBy: String, nameTaken: String)? { get }
    /// The longest name the engine keeps, in UTF-8 bytes (PostgreSQL cuts longer ones to 63);
    /// nil for no limit.
    var nameBytes: Int? { get }
    /// The term that groups, orders and counts `column`'s values (quoted as `name`): the
    /// column itself, or its text where its type has no equality or order (PostgreSQL's `json`).
    func comparable(_ name: String, column: ColumnDescription) -> String
    /// Aggregates giving the least and the greatest of `column`'s values, read as
    /// ``selectExpression(_:)`` reads them; nil where some types have none (PostgreSQL: a
    /// `uuid`, a `boolean`), and each is read by ordering the rows instead.
    func extremeAggregates(_ name: String, column: ColumnDescription) -> (least: String, greatest: String)?
    /// A condition true for the rows where `column` holds text, whose length is then
    /// measured; nil where the column holds no text (a number column on PostgreSQL).
    func holdsText(_ name: String, column: ColumnDescription) -> String?
}

/// What ``SQLDialect/numberMeasures(_:column:)`` gives: aggregate terms, and how their values read.
package struct NumberMeasures: Sendable {
    package var terms: [String]
    package var read: @Sendable (ArraySlice<Value>) -> (numbers: Int, sum: Value, mean: Double?)

    package init(terms: [String], read: @escaping @Sendable (ArraySlice<Value>) -> (numbers: Int, sum: Value, mean: Double?)) {
        self.terms = terms
        self.read = read
    }
}

extension SQLDialect {
    /// `expressions` (a key of one or more terms) is one of `count` keys bound in order.
    func keyIn(_ expressions: [String], count: Int) -> String {
        guard expressions.count == 1 else { return keyTupleIn(expressions, count: count) }
        return "\(expressions[0]) IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
    }

    /// `a <same> b`.
    func isSame(_ expression: String, _ other: String) -> String {
        "\(expression) \(same) \(other)"
    }
}
