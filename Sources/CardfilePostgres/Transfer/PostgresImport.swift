import CardfileStore
import Foundation
import NIOCore
import PostgresNIO

/// An import's rows into a PostgreSQL table (``EngineImport``), on a connection of its own.
///
/// - Insert mode sends each batch with `COPY … FROM STDIN` in its text format, as `psql`'s
///   `\copy` does: the server's input functions read every field.
/// - Ignore, upsert and replace send `INSERT … ON CONFLICT` with many rows a statement.
/// - Each batch is a transaction (atomic: a savepoint in the import's one transaction). A
///   batch the server refuses is split in halves, each tried again under a savepoint, until
///   each refused row stands alone: it is reported by its line with the server's reason, and
///   the others go in. One bad row among 50,000 costs about 32 more tries, not 50,000.
final class PostgresImport: EngineImport {
    private let session: PostgresSession
    private let executor: ThreadExecutor
    private let table: TableSchema
    private let mode: ImportOptions.Mode
    private let atomic: Bool
    private let file: String
    /// Looked up once: NOT NULL by column index.
    private let notNull: [Bool]
    private var inTransaction = false

    init(location: PostgresLocation, table: TableSchema, mode: ImportOptions.Mode, atomic: Bool, file: String) throws(PostgresProblem) {
        session = try PostgresSession.open(location)
        executor = ThreadExecutor(name: "cardfile import")
        self.table = table
        self.mode = mode
        self.atomic = atomic
        self.file = file
        notNull = table.columns.map(\.isNotNull)
        if atomic {
            do {
                try session.run("BEGIN")
                inTransaction = true
            } catch {
                close()
                throw error
            }
        }
    }

    func write(_ rows: [Importer.PendingRow]) throws -> ImportBatchOutcome {
        var outcome = ImportBatchOutcome()
        do {
            if !atomic {
                try session.run("BEGIN")
                inTransaction = true
            }
            // Rows of a delimited file all go to the same columns; a JSON file's may not.
            var start = rows.startIndex
            while start < rows.endIndex {
                let columns = rows[start].columns
                var end = start + 1
                while end < rows.endIndex, rows[end].columns == columns { end += 1 }
                try put(Array(rows[start..<end]), columns: columns, into: &outcome)
                start = end
            }
            if !atomic {
                try session.run("COMMIT")
                inTransaction = false
            }
        } catch let problem as PostgresProblem {
            throw Self.storeError(problem, server: session.location.serverName)
        }
        return outcome
    }

    func commit() throws {
        do {
            try session.run("COMMIT")
            inTransaction = false
        } catch {
            throw Self.storeError(error, server: session.location.serverName)
        }
    }

    func close() {
        if inTransaction { try? session.run("ROLLBACK") }
        inTransaction = false
        session.close()
        executor.end()
    }

    /// The store's error for a failure that ends the import (not a row's refusal).
    static func storeError(_ error: PostgresProblem, server: String) -> StoreError {
        if let reason = PostgresEngine.unreachableReason(error) {
            return .serverUnreachable(server: server, reason: reason)
        }
        return .database(code: -1, message: error.message)
    }

    // MARK: - One run of rows with the same columns

    /// Writes `rows` (each row's NULL in a NOT NULL column refused first, as on SQLite, with
    /// the hint about empty fields).
    private func put(_ rows: [Importer.PendingRow], columns: [Int], into outcome: inout ImportBatchOutcome) throws {
        var kept: [Importer.PendingRow] = []
        kept.reserveCapacity(rows.count)
        for row in rows {
            if let index = zip(row.columns, row.values).first(where: { notNull[$0.0] && $0.1.isNull })?.0 {
                outcome.reject(ImportRowError(file: file, line: row.line, column: table.columns[index].name,
                                              reason: "needs a value (an empty unquoted field is NULL; --empty-as-text reads it as the empty string)"))
                continue
            }
            kept.append(row)
        }
        guard !kept.isEmpty else { return }
        let target = table.importConflictTarget(for: columns)
        if mode == .upsert, target == nil {
            for row in kept {
                outcome.reject(ImportRowError(file: file, line: row.line, column: nil, reason: "an upsert needs the primary key or a unique column in the row"))
            }
            return
        }
        let statement = ImportStatement(table: table, columns: columns, mode: mode, target: target)
        try attempt(kept[...], statement, into: &outcome)
    }

    /// Tries `rows` under a savepoint; when the server refuses one of them, tries each half
    /// again, down to the single rows it refuses.
    private func attempt(_ rows: ArraySlice<Importer.PendingRow>, _ statement: ImportStatement, into outcome: inout ImportBatchOutcome) throws {
        try session.run("SAVEPOINT cardfile_import")
        do {
            let counts = try send(rows, statement)
            try session.run("RELEASE SAVEPOINT cardfile_import")
            outcome.inserted += counts.inserted
            outcome.updated += counts.updated
            switch mode {
            case .ignore: outcome.skipped += rows.count - counts.inserted - counts.updated
            default: outcome.unchanged += rows.count - counts.inserted - counts.updated
            }
        } catch let problem as PostgresProblem {
            guard case .refused(let message, let detail, let state) = problem, Self.refusesRows(state) else { throw problem }
            try session.run("ROLLBACK TO SAVEPOINT cardfile_import")
            try session.run("RELEASE SAVEPOINT cardfile_import")
            if rows.count == 1 {
                let row = rows[rows.startIndex]
                let (column, reason) = refusal(message: message, detail: detail, sqlState: state, row: row)
                outcome.reject(ImportRowError(file: file, line: row.line, column: column, reason: reason))
                return
            }
            let half = rows.startIndex + rows.count / 2
            try attempt(rows[..<half], statement, into: &outcome)
            try attempt(rows[half...], statement, into: &outcome)
        }
    }

    /// SQLSTATEs that one row's values cause (and another row may not): a value its type
    /// refuses (22), a constraint (23), a trigger's refusal (P0001), one upsert meeting a row
    /// twice (21000). Anything else (no right to the table, the server gone) ends the import.
    static func refusesRows(_ state: String) -> Bool {
        state.hasPrefix("22") || state.hasPrefix("23") || state == "P0001" || state == "21000"
    }

    /// Rows inserted and updated; the rest of `rows` changed nothing.
    private func send(_ rows: ArraySlice<Importer.PendingRow>, _ statement: ImportStatement) throws -> (inserted: Int, updated: Int) {
        if mode == .insert, !statement.columns.isEmpty {
            try copy(rows, statement)
            return (rows.count, 0)
        }
        var inserted = 0
        var updated = 0
        var start = rows.startIndex
        while start < rows.endIndex {
            let end = min(rows.endIndex, start + statement.rowsPerStatement)
            let chunk = rows[start..<end]
            var values: [Value] = []
            values.reserveCapacity(chunk.count * statement.columns.count)
            for row in chunk { values += row.values }
            for answer in try session.rows(PostgresEngineSession.query(statement.sql(rows: chunk.count), values)) {
                if (try? answer.decode(Bool.self)) == true { inserted += 1 } else { updated += 1 }
            }
            start = end
        }
        return (inserted, updated)
    }

    /// One `COPY` of `rows`, in the text format, sent in pieces of ``copyPiece`` rows as they
    /// are made: the server reads one while the next is made (one buffer for the whole batch
    /// made the import wait for the server and the server for the import, a third slower).
    private func copy(_ rows: ArraySlice<Importer.PendingRow>, _ statement: ImportStatement) throws {
        let connection = session.connection
        let logger = session.logger
        let (target, names) = (statement.copyTable, statement.copyColumns)
        let location = session.location
        let batch = Array(rows)
        let piece = Self.copyPiece
        do {
            try executor.wait {
                try await connection.copyFrom(table: target, columns: names, logger: logger) { writer in
                    var start = 0
                    while start < batch.count {
                        let end = min(batch.count, start + piece)
                        var payload = ByteBuffer()
                        payload.reserveCapacity((end - start) * 16 * max(1, names.count))
                        for index in start..<end { CopyText.append(batch[index].values, to: &payload) }
                        try await writer.write(payload)
                        start = end
                    }
                }
            }
        } catch let problem as PostgresProblem {
            throw problem
        } catch {
            throw PostgresProblem(running: error, on: location)
        }
    }

    /// Rows a piece of a `COPY` holds.
    static let copyPiece = 2_000

    // MARK: - A refused row in a person's words

    /// The column (when known) and the reason the server refused `row`.
    private func refusal(message: String, detail: String?, sqlState: String, row: Importer.PendingRow) -> (String?, String) {
        switch sqlState {
        case "23502":
            return (PostgresConstraintFailures.quoted(in: message).first, "needs a value")
        case "23505":
            let columns = PostgresConstraintFailures.keyColumns(in: detail ?? "")
            return (columns.first, "another row already has this value (--mode upsert, ignore or replace decide what to do with it)")
        case "23503":
            return (PostgresConstraintFailures.keyColumns(in: detail ?? "").first, "refers to a row of another table that does not exist")
        case "23514":
            return (nil, "breaks the table's rule \(PostgresConstraintFailures.quoted(in: message).last ?? message)")
        case let state where state.hasPrefix("22"):
            return (refusedColumn(of: row), message)
        default:
            return (nil, message)
        }
    }

    /// The first column whose value its type refuses on its own (each cast under a savepoint).
    private func refusedColumn(of row: Importer.PendingRow) -> String? {
        let session = PostgresEngineSession(self.session, inTransaction: true)
        for (index, value) in zip(row.columns, row.values) where !value.isNull {
            let column = table.columns[index]
            do {
                _ = try session.attempt { try session.rows("SELECT (\(PostgresDialect().placeholder(for: column)))::text", [value]) }
            } catch PostgresProblem.refused {
                return column.name
            } catch {
                return nil
            }
        }
        return nil
    }
}
