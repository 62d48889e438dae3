import GRDB

/// Statements typed on the SQL screen: compiled and classified, a SELECT's result described
/// and made readable as a table for a live list, and writes counted in a transaction rolled
/// back before they run through the store (so every list and form hears of them).
extension Container {
    /// Compiles `sql` (one statement) and says what kind it is. Nothing runs.
    /// - Throws: ``StoreError/sqlRefused(message:offset:)`` with SQLite's message and position;
    ///   ``StoreError/statementNotRun(reason:)`` for a statement the screen does not run.
    public func compile(_ sql: String) throws(StoreError) -> SQLStatement {
        if let engine = core.engine {
            return try statementErrors { try engine.compile(sql) }
        }
        return try storeErrors(path: core.path) {
            try core.read { db in
                do throws(StoreError) { return try SQLStatement.compile(sql, db: db) } catch { throw error }
            }
        }
    }

    /// Describes a read statement's result. Cheap: the query is compiled and planned, not
    /// run; ``load(_:cancellation:)`` runs it.
    public func openQuery(_ statement: SQLStatement) throws(StoreError) -> QueryResult {
        guard statement.kind == .read else { throw StoreError.statementNotRun(reason: "Only a statement that reads has a result to show.") }
        let schema = core.schema
        if let engine = core.engine {
            return try statementErrors {
                var described = try engine.describeResult(of: statement.text)
                guard !described.columns.isEmpty else { throw StoreError.statementNotRun(reason: "The statement selects no columns: there is nothing to show.") }
                // (The engine names tables as it quotes them; the schema, as the lists do.)
                let names = Dictionary(schema.tables.map { ($0.quotedName, $0.name) }, uniquingKeysWith: { first, _ in first })
                described.rowsOf = described.rowsOf.flatMap { names[$0] }
                described.columns = described.columns.map { column in
                    ResultColumn(name: column.name, declaredType: column.declaredType, table: column.table.flatMap { names[$0] }, column: column.column)
                }
                let named = QueryReader.namedTables((try? SQLTokenizer.tokenize(statement.text)) ?? [], schema: schema)
                // (A view's rows are edited in its own list, as on SQLite.)
                let key = named.contains(where: \.isView) ? nil : described.rowsOf.flatMap { QueryReader.key(of: $0, in: described.columns, schema: schema) }
                return QueryReader.describe(statement, columns: described.columns, key: key, schema: schema)
            }
        }
        return try storeErrors(path: core.path) {
            try core.read { db in try QueryReader.describe(statement, db: db, schema: schema) }
        }
    }

    /// Runs the result's query and keeps its rows (in the ``ResultStore``), readable under
    /// `result.table.name` by a ``LiveQuery`` and every read that takes a table's name; an
    /// earlier result of that name is replaced. From then on, a commit to a table the query
    /// names runs it again in the background, and its lists follow. Returns the number of
    /// rows. Meant for the background: `cancellation` stops it within microseconds
    /// (``StoreError/queryCancelled``), and then nothing is replaced.
    public func load(_ result: QueryResult, cancellation: Cancellation) throws(StoreError) -> Int {
        let core = self.core
        return try statementErrors {
            let store = try core.results()
            let generation = store.newGeneration(for: result.table.name)
            let count = try store.fill(result, generation: generation, from: core, cancellation: cancellation)
            core.register(query: try Entity(table: result.table, description: nil, watching: [result.table.name.lowercased()], reader: store.pool))
            let refresher = QueryRefresher(result: result, generation: generation, core: core, store: store)
            core.bus.register(refresher)
            store.keep(refresher, for: result.table.name)
            return count
        }
    }

    /// Runs a write statement in a transaction that is rolled back, and returns how many rows
    /// it changes (SQLite's `changes()`: the statement's own rows, not those its triggers or
    /// cascades change); nil for a schema statement. Nothing is written.
    public func rehearse(_ statement: SQLStatement, cancellation: Cancellation) throws(StoreError) -> Int? {
        guard statement.kind != .read else { throw StoreError.statementNotRun(reason: "A statement that reads changes nothing.") }
        if let engine = core.engine {
            defer { engine.resetAfterTypedStatement() }
            return try statementErrors {
                try core.rehearse { (session: any EngineSession) -> Int? in
                    if cancellation.isCancelled { throw StoreError.queryCancelled }
                    let changed = try session.execute(statement.text, [], cancellation: cancellation)
                    if case .rows = statement.kind { return changed }
                    return nil
                }
            }
        }
        return try statementErrors {
            try core.rehearse { db in
                if cancellation.isCancelled { throw StoreError.queryCancelled }
                return try cancellation.interrupting(db) {
                    try db.execute(sql: statement.text)
                    if case .rows = statement.kind { return db.changesCount }
                    return nil
                }
            }
        }
    }

    /// Runs a write statement in one transaction through the store: its commit reaches every
    /// list and form like any other. Returns the rows it changed (nil for a schema statement).
    /// After a schema statement the tables and views are read again (``schema``): what opens
    /// next sees them; lists and forms open already keep the table as they knew it.
    public func run(_ statement: SQLStatement, cancellation: Cancellation) throws(StoreError) -> Int? {
        guard statement.kind != .read else { throw StoreError.statementNotRun(reason: "A statement that reads changes nothing.") }
        // Its rows go unnamed (the tables it names are invalidated instead): an UPDATE of a
        // million rows must not hand the screen a million names to sift.
        let named = QueryReader.namedTables((try? SQLTokenizer.tokenize(statement.text)) ?? [], schema: core.schema)
        let bulk = Set(named.filter { !$0.isView }.map(\.name))
        if let engine = core.engine {
            defer { engine.resetAfterTypedStatement() }
            return try statementErrors {
                let changed = try core.transaction(origin: .batch, history: HistoryNote(source: .sql)) { session, note -> Int? in
                    // (No hook names what the statement changed: its tables are invalidated.)
                    note.invalidated.formUnion(named.map(\.name))
                    if cancellation.isCancelled { throw StoreError.queryCancelled }
                    let changed = try session.execute(statement.text, [], cancellation: cancellation)
                    if case .rows = statement.kind { return changed }
                    return nil
                }
                if case .schema = statement.kind { _ = try? core.reloadSchema() }
                return changed
            }
        }
        return try statementErrors {
            let changed = try core.write(origin: .batch, bulkTables: bulk) { db, note -> Int? in
                note.history = HistoryNote(source: .sql)
                // (A write that waited its turn after Esc is not begun.)
                if cancellation.isCancelled { throw StoreError.queryCancelled }
                return try cancellation.interrupting(db) {
                    try db.execute(sql: statement.text)
                    if case .rows = statement.kind { return db.changesCount }
                    return nil
                }
            }
            // (The statement committed: a schema read that fails now is tried again at the next
            // check of the file, and is not this statement's failure.)
            if case .schema = statement.kind { _ = try? core.reloadSchema() }
            return changed
        }
    }

    /// Stops following the tables `result` reads (its list was closed): its query is no
    /// longer run again at their commits.
    public func closeQuery(_ result: QueryResult) {
        (try? core.results())?.stopRefreshing(result.table.name)
    }

    /// Removes the copies of query results and their folder: call it when the editor ends
    /// (the process may end without freeing the container). A result is not read afterwards.
    public func removeQueryResults() {
        core.removeResults()
    }

    /// The record a row of an editable result is (`id` from the result's list); nil for a
    /// read-only result or a row without a whole key.
    public func recordID(of id: ObjectID, in result: QueryResult) -> ObjectID? {
        guard let records = result.records, let key = id.primaryKeyValues, key.count == records.keyColumns.count,
              !key.contains(where: \.isNull), let table = core.schema.table(named: records.table) else { return nil }
        return ObjectID(table: table.name, primaryKey: key)
    }

    /// Store errors, with the engine's refusal of the statement itself said as such and an
    /// interrupt as a cancel.
    private func statementErrors<T>(_ body: () throws -> T) throws(StoreError) -> T {
        let engine = core.engine
        return try storeErrors(path: core.path) {
            do {
                return try body()
            } catch let error as StoreError {
                throw error
            } catch is Cancellation.Stopped {
                throw StoreError.queryCancelled
            } catch let error where !(error is DatabaseError) {
                throw engine?.statementError(error) ?? error
            } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
                throw StoreError.queryCancelled
            } catch let error as DatabaseError where [.SQLITE_ERROR, .SQLITE_CONSTRAINT, .SQLITE_MISMATCH, .SQLITE_RANGE, .SQLITE_TOOBIG].contains(error.resultCode) {
                throw StoreError.sqlRefused(message: error.message ?? "error \(error.resultCode.rawValue)", offset: nil)
            }
        }
    }
}
