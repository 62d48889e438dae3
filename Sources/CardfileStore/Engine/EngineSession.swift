/// One connection of an engine, inside a transaction its owner opened: what the store's
/// engine-free code (live queries, loading, saving) runs its statements through.
///
/// Statements are the store's own, built for ``dialect`` with `?` for each value; the values
/// are the engine-neutral ``Value``s, and rows come back as ``Value``s in select-list order.
/// Errors are the engine's own; the caller turns them into a ``StoreError`` in one place.
package protocol EngineSession {
    var dialect: any SQLDialect { get }

    /// Every row of `sql` with `arguments` bound. For statements run again and again (a
    /// page of a list): an engine may keep the prepared statement.
    func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]]

    /// Hands each row of `sql` to `body` as it is read, for scans too large to hold (every
    /// key of a table). Once `cancellation` is set, the scan stops with an error soon after:
    /// SQLite's even inside its own sort, PostgreSQL's between batches.
    func forEachRow(_ sql: String, _ arguments: [Value], cancellation: Cancellation?, _ body: ([Value]) throws -> Void) throws

    /// Runs a statement that returns no rows; returns how many rows it changed (not counting
    /// what triggers or cascades changed).
    func execute(_ sql: String, _ arguments: [Value]) throws -> Int

    /// ``execute(_:_:)``, stopped soon after `cancellation` is set (the statement then fails
    /// with the engine's cancel): for a statement typed on the SQL screen.
    func execute(_ sql: String, _ arguments: [Value], cancellation: Cancellation) throws -> Int

    /// Runs `body`, whose statements, when one of them fails, are undone as one and leave the
    /// transaction usable: a save goes on to find every refused record. (SQLite undoes a failed
    /// statement by itself; PostgreSQL aborts the whole transaction, so it takes a savepoint.)
    func attempt<T>(_ body: () throws -> T) throws -> T

    /// The failures a statement's refusal means when `error` is a constraint's (NOT NULL,
    /// UNIQUE, CHECK, FOREIGN KEY), naming fields and rules; nil for any other error.
    func constraintFailures(for error: any Error, id: ObjectID, entity: Entity, operation: WriteOperation, schema: DatabaseSchema) -> [ValidationFailure]?

    /// True when the engine answers `sql` (a page of an order) from an index without sorting:
    /// walking that order by key is then cheap. Asked of the engine's planner.
    func isServedByIndex(_ sql: String, _ arguments: [Value]) throws -> Bool
}

extension EngineSession {
    /// The first row of `sql`, or nil.
    package func firstRow(_ sql: String, _ arguments: [Value]) throws -> [Value]? {
        try rows(sql, arguments).first
    }

    /// The first value of the first row, read as an integer (a count), or nil.
    package func integer(_ sql: String, _ arguments: [Value]) throws -> Int? {
        try firstRow(sql, arguments)?.first?.wholeNumber
    }
}
