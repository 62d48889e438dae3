/// A database engine a container keeps its records in, other than SQLite's own connections
/// (which the container opens itself from a path).
///
/// It owns its connections and transactions; the container asks it for a read or a write and
/// runs the store's statements through the ``EngineSession`` it hands out. An engine is used
/// from several threads (the UI loop, a live query's worker), one call at a time per
/// connection it owns.
package protocol StoreEngine: AnyObject, Sendable {
    /// Where the records are, for messages (never with a password).
    var location: String { get }
    /// The engine's name in messages ("PostgreSQL").
    var name: String { get }

    /// The tables and views to list and edit, as the store describes tables.
    func readSchema() throws -> DatabaseSchema

    /// Runs `body` with a session that reads (one transaction, or statements each their own).
    func read<T>(_ body: (any EngineSession) throws -> T) throws -> T

    /// The tables (by their names in ``readSchema()``) that other connections committed
    /// changes to since the last call; empty when none did or when the engine cannot tell.
    /// Cheap enough to call several times a second.
    func changedElsewhere() throws -> Set<String>

    /// True when `table`'s commits by other connections are announced as they happen; false
    /// when ``changedElsewhere()`` finds them by looking again now and then.
    func isAnnounced(_ table: String) -> Bool

    /// True from when the server was found unreachable (a connection failed or was lost)
    /// until a connection works again. Cheap: no round trip.
    var isUnreachable: Bool { get }

    /// Runs `body` in one write transaction, committed when it returns and rolled back when it
    /// throws. A row another connection holds locked is waited for `lockWait` at most; then
    /// the write fails with ``StoreError/busy`` (a save on the UI's loop never freezes it).
    ///
    /// `oneStatement` says that when all goes as planned `body` changes the database with one
    /// statement, its last: a save of one record whose row had not moved. An engine may then
    /// run that statement on its own, as a transaction by itself, and begin a transaction only
    /// when a statement follows one that changed nothing (a check that found the row moved).
    func write<T>(lockWait: Duration, oneStatement: Bool, _ body: (any EngineSession) throws -> T) throws -> T

    /// The SQL screen: checks `sql` (one statement) and says what kind it is, nothing run.
    /// - Throws: ``StoreError/sqlRefused(message:offset:)`` in the server's words, or
    ///   ``StoreError/statementNotRun(reason:)`` for more than one statement, or one the screen
    ///   does not run (a transaction's, a setting of one connection), each with the reason.
    func compile(_ sql: String) throws -> SQLStatement

    /// A read statement's result, not run: its columns in order (names as the engine gives
    /// them, base types as ``ColumnDescription/declaredType`` has them, and the table and
    /// column each is taken from unchanged, nil for an expression), and the table whose rows
    /// its rows are, one each, when the engine's plan shows it (nil for a join, a grouping,
    /// a set-returning function: anything that makes or merges rows). Tables are named by
    /// their ``TableSchema/quotedName``.
    func describeResult(of select: String) throws -> (columns: [ResultColumn], rowsOf: String?)

    /// The store's word for `error` when it is the engine's refusal of a statement typed on
    /// the SQL screen (``StoreError/sqlRefused(message:offset:)``) or its cancel
    /// (``StoreError/queryCancelled``); nil for any other error.
    func statementError(_ error: any Error) -> StoreError?

    /// What `:schema` shows of `table` beyond its description: its triggers, the expressions
    /// of its generated columns, its rows (counted) and its size. Other tables' foreign keys
    /// that point at it are the caller's to add.
    func report(on table: TableSchema) throws -> TableReport

    /// Puts the writing connection's settings back after a statement typed on the SQL screen
    /// ran there (it may have changed them, with `set_config`), and ends what it may have
    /// kept (an advisory lock).
    func resetAfterTypedStatement()

    /// Rows an import writes in one transaction when the person names no batch size.
    var importBatchRows: Int { get }

    /// Begins an import into `table` on a connection of the import's own (see
    /// ``EngineImport``); refused rows are named in `file`'s words. Each of its transactions
    /// is journaled as `history` says (nil: not journaled). `creating` makes the table in the
    /// import's first transaction (all of it, with `atomic`): a failed import leaves none. With `stopAtFirst`
    /// (`--on-error abort`) nothing after the first refused row is written.
    /// - Throws: ``StoreError`` when no connection could be opened.
    func beginImport(into table: TableSchema, mode: ImportOptions.Mode, atomic: Bool, stopAtFirst: Bool, file: String, history: HistoryNote?,
                     creating: String?) throws -> any EngineImport

    /// The table `sql` (a `CREATE TABLE` of `--create`) would make, described as the engine
    /// describes its tables, made in a transaction that is rolled back: nothing is left.
    func describe(creating sql: String, table: String) throws -> TableSchema

    /// The engine's own journal of the store's writes, kept from now on by `settings`'
    /// capacity; nil with the reason, in a person's words, when the engine keeps none here.
    func openJournal(_ settings: HistorySettings) -> (journal: (any EngineJournal)?, problem: String?)

    /// Streams the rows of `select` out as CSV the engine writes itself (PostgreSQL's `COPY …
    /// TO STDOUT`), handing the bytes to `chunk` as they come, with the rows they hold. `select`'s columns are the
    /// export's text (``SQLDialect/exportText(_:)``), each named `"__cf_export_<position>"`;
    /// `quoted` says which are quoted (the others go bare), NULL is written as the text `null`, fields
    /// are separated by `delimiter` (a comma or a tab). `isCancelled` is asked after each chunk.
    /// ``BulkExport/unavailable`` when the engine cannot here: the caller reads the rows itself.
    func bulkExport(
        select: String, arguments: [Value], quoted: [Bool], delimiter: UInt8, null: String,
        isCancelled: () -> Bool, _ chunk: ([UInt8], Int) throws -> Void
    ) throws -> BulkExport
}

/// How an engine's own export went (``StoreEngine/bulkExport(select:arguments:quoted:delimiter:null:isCancelled:_:)``).
package enum BulkExport: Equatable {
    /// The engine has no way of its own here.
    case unavailable
    /// Every row written: how many.
    case written(rows: Int)
    /// Stopped when asked, the output cut short.
    case cancelled
}
