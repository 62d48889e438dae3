import GRDB
import GRDBSQLite

/// SQLite's ``EngineSession``: a GRDB connection inside the read or write its owner opened.
package struct SQLiteSession: EngineSession {
    package let db: Database

    package init(_ db: Database) { self.db = db }

    package var dialect: any SQLDialect { SQLiteDialect() }

    package func rows(_ sql: String, _ arguments: [Value]) throws -> [[Value]] {
        try db.cachedStatement(sql: sql).fetchValueRows(arguments: arguments)
    }

    package func forEachRow(_ sql: String, _ arguments: [Value], cancellation: Cancellation?, _ body: ([Value]) throws -> Void) throws {
        if let cancellation {
            try cancellation.interrupting(db) { try scan(sql, arguments, body) }
        } else {
            try scan(sql, arguments, body)
        }
    }

    private func scan(_ sql: String, _ arguments: [Value], _ body: ([Value]) throws -> Void) throws {
        let statement = try db.makeStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: arguments.statementArguments)
        let width = CInt(statement.columnCount)
        let handle = statement.sqliteStatement
        var row: [Value] = []
        row.reserveCapacity(Int(width))
        while try cursor.next() != nil {
            row.removeAll(keepingCapacity: true)
            for index in 0..<width { row.append(Value(statement: handle, index: index)) }
            try body(row)
        }
    }

    package func execute(_ sql: String, _ arguments: [Value]) throws -> Int {
        try db.cachedStatement(sql: sql).execute(arguments: arguments.statementArguments)
        return db.changesCount
    }

    package func execute(_ sql: String, _ arguments: [Value], cancellation: Cancellation) throws -> Int {
        try cancellation.interrupting(db) { try execute(sql, arguments) }
    }

    /// SQLite undoes a failed statement and keeps the transaction.
    package func attempt<T>(_ body: () throws -> T) throws -> T {
        try body()
    }

    package func constraintFailures(for error: any Error, id: ObjectID, entity: Entity, operation: WriteOperation, schema: DatabaseSchema) -> [ValidationFailure]? {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT else { return nil }
        return ConstraintMapper.failures(for: error, id: id, entity: entity, operation: operation, db: db, schema: schema)
    }

    package func isServedByIndex(_ sql: String, _ arguments: [Value]) throws -> Bool {
        // A plan is made from the schema the connection last read, and EXPLAIN reads no table
        // that would make it look again: a read of the schema table does (an index made since,
        // by :index or another program, then counts).
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments.statementArguments)
        return !plan.contains { row in
            let detail: String = row["detail"] ?? ""
            return detail.contains("TEMP B-TREE")
        }
    }
}
