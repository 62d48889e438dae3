import CardfileStore
import Foundation
import NIOCore
import PostgresNIO

/// An import's rows into a PostgreSQL table (``EngineImport``), on a connection of its own.
///
/// - Insert mode into a table sends each batch with `COPY … FROM STDIN` in its text format,
///   as `psql`'s `\copy` does: the server's input functions read every field. A refused row
///   is named by the server (`COPY t, line 5, column year`) and checked alone: it is reported,
///   the rows before it are sent again, and the copy goes on after it, a few rows at a time
///   until rows go in again.
/// - Ignore, upsert and replace (and insert into a view) send `INSERT … ON CONFLICT` with many
///   rows a statement. A refused statement is split in halves, each tried again, down to the
///   rows it refuses: one bad row among 1,000 costs about 20 more tries.
/// - Each batch is a transaction (atomic: a savepoint in the import's one transaction).
/// - With `stopAtFirst` (`--on-error abort`) nothing after the first refused row is written.
final class PostgresImport: EngineImport {
    private let session: PostgresSession
    private let executor: ThreadExecutor
    private let table: TableSchema
    private let mode: ImportOptions.Mode
    private let atomic: Bool
    private let stopAtFirst: Bool
    /// The relation takes `COPY` (a table; a view does not).
    private let byCopy: Bool
    /// A table that is not partitioned (its rows can return `xmax`).
    private let plainTable: Bool
    private let file: String
    /// Looked up once: NOT NULL by column index.
    private let notNull: [Bool]
    private var inTransaction = false
    /// A refused row was met with `stopAtFirst`: nothing more is written.
    private var stopped = false
    private let closed: () -> Void
    /// The statement that names each of the import's transactions in the history journal
    /// (see ``ServerJournal``); nil when no history is kept.
    private let journal: PostgresQuery?
    /// The `CREATE TABLE` of `--create` of an atomic import, run in its transaction (a
    /// batched import makes the table first, in a transaction of its own).
    private var creating: String?

    /// An import on `session` (opened for it; closed by ``close()``, which then calls `closed`).
    init(session: PostgresSession, table: TableSchema, byCopy: Bool, plainTable: Bool, mode: ImportOptions.Mode, atomic: Bool, stopAtFirst: Bool,
         file: String, journal: PostgresQuery? = nil, creating: String? = nil, closed: @escaping () -> Void) throws(PostgresProblem) {
        self.session = session
        executor = ThreadExecutor(name: "cardfile import")
        self.table = table
        self.byCopy = byCopy
        self.plainTable = plainTable
        self.mode = mode
        self.atomic = atomic
        self.stopAtFirst = stopAtFirst
        self.file = file
        self.closed = closed
        self.journal = journal
        self.creating = creating
        notNull = table.columns.map(\.isNotNull)
        do {
            if atomic {
                try begin()
            } else if let creating {
                // Batch by batch, the table is made first, as on SQLite: it is there even when
                // no row goes in (and `Created table` says so truly).
                try session.run("BEGIN")
                inTransaction = true
                try session.run(PostgresQuery(unsafeSQL: creating))
                try session.run("COMMIT")
                inTransaction = false
                self.creating = nil
            }
        } catch {
            close()
            throw error
        }
    }

    func write(_ rows: [Importer.PendingRow]) throws -> ImportBatchOutcome {
        var outcome = ImportBatchOutcome()
        guard !stopped else { return outcome }
        do {
            if !atomic { try begin() }
            // Rows of a delimited file all go to the same columns; a JSON file's may not.
            var start = rows.startIndex
            while start < rows.endIndex, !stopped {
                let columns = rows[start].columns
                var end = start + 1
                while end < rows.endIndex, rows[end].columns == columns { end += 1 }
                try put(rows[start..<end], columns: columns, into: &outcome)
                start = end
            }
            if !atomic {
                try session.run("COMMIT")
                inTransaction = false
                creating = nil
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
        closed()
    }

    /// Begins a transaction. (Deferred constraints stay deferred: a file may refer to rows it
    /// holds further on. One a batch breaks fails its `COMMIT`, naming the key.)
    private func begin() throws(PostgresProblem) {
        try session.run("BEGIN")
        inTransaction = true
        if let creating { try session.run(PostgresQuery(unsafeSQL: creating)) }
        if let journal { try session.run(journal) }
    }

    /// The store's error for a failure that ends the import (not a row's refusal).
    static func storeError(_ error: PostgresProblem, server: String) -> StoreError {
        if let reason = PostgresEngine.unreachableReason(error) {
            return .serverUnreachable(server: server, reason: reason)
        }
        if case .refused(_, let detail?, _) = error, !detail.isEmpty {
            return .database(code: -1, message: error.message + " (" + detail + ")")
        }
        return .database(code: -1, message: error.message)
    }

    // MARK: - One run of rows with the same columns

    /// Writes `rows`; a NULL in a NOT NULL column is refused first, as on SQLite, with the
    /// hint about empty fields.
    private func put(_ rows: ArraySlice<Importer.PendingRow>, columns: [Int], into outcome: inout ImportBatchOutcome) throws {
        var kept: [Importer.PendingRow] = []
        kept.reserveCapacity(rows.count)
        // (Looked up once for the run: the columns each field goes to that must have a value.)
        let required = columns.map { notNull[$0] }
        let anyRequired = required.contains(true)
        for row in rows {
            let refused: Int?
            if let text = row.copyText {
                refused = anyRequired ? CopyTextRow.firstNull(in: text, required: required).map { columns[$0] } : nil
            } else {
                refused = zip(row.columns, row.values).first(where: { notNull[$0.0] && $0.1.isNull })?.0
            }
            guard let index = refused else {
                kept.append(row)
                continue
            }
            let error = ImportRowError(file: file, line: row.line, column: table.columns[index].name, reason: ImportRowError.emptyNeedsValue)
            if stopAtFirst {
                // The rows before it go in, unless one of them is refused first.
                try putChecked(kept[...], columns: columns, into: &outcome)
                if !stopped { outcome.reject(error) }
                stopped = true
                return
            }
            outcome.reject(error)
        }
        try putChecked(kept[...], columns: columns, into: &outcome)
    }

    /// Writes rows that passed the checks made here.
    private func putChecked(_ rows: ArraySlice<Importer.PendingRow>, columns: [Int], into outcome: inout ImportBatchOutcome) throws {
        guard !rows.isEmpty else { return }
        let target = table.importConflictTarget(for: columns)
        if mode == .upsert, target == nil {
            for row in rows where !stopped {
                outcome.reject(ImportRowError(file: file, line: row.line, column: nil, reason: "an upsert needs the primary key or a unique column in the row"))
                stopped = stopAtFirst
            }
            return
        }
        let statement = ImportStatement(table: table, columns: columns, mode: mode, target: target, plainTable: plainTable)
        if mode == .insert, byCopy, !columns.isEmpty {
            try copyAll(rows, statement, into: &outcome)
        } else {
            try attempt(rows, statement, into: &outcome)
        }
    }

    // MARK: - COPY, guided by the line the server names

    /// Copies `rows`. When the server refuses one and says which (and it is refused alone
    /// too), it is reported, the rows before it sent again as statements, and the rest tried a
    /// few at a time (doubling while they go in): a file of many bad rows costs a few round
    /// trips a bad row, not a copy of the rest each.
    private func copyAll(_ rows: ArraySlice<Importer.PendingRow>, _ statement: ImportStatement, into outcome: inout ImportBatchOutcome) throws {
        var pending = rows
        var window = pending.count
        while !pending.isEmpty, !stopped {
            let tried = pending.prefix(window)
            try session.run("SAVEPOINT cardfile_import")
            guard let refusal = try copy(tried, statement) else {
                try session.run("RELEASE SAVEPOINT cardfile_import")
                outcome.inserted += tried.count
                pending = pending.dropFirst(tried.count)
                window = min(pending.count, window * 2)
                continue
            }
            try session.run("ROLLBACK TO SAVEPOINT cardfile_import")
            try session.run("RELEASE SAVEPOINT cardfile_import")
            guard let line = refusal.line, line >= 1, line <= tried.count else {
                // The server named no row: halves, as for statements.
                try attempt(tried, statement, into: &outcome)
                pending = pending.dropFirst(tried.count)
                window = max(1, pending.count)
                continue
            }
            let bad = tried.index(tried.startIndex, offsetBy: line - 1)
            // The named row is refused on its own too, or the server's pointer is not trusted
            // (a trigger that counts rows, say): then halves decide.
            try session.run("SAVEPOINT cardfile_import")
            let alone = try copy(tried[bad...bad], statement)
            try session.run("ROLLBACK TO SAVEPOINT cardfile_import")
            try session.run("RELEASE SAVEPOINT cardfile_import")
            guard alone != nil else {
                try attempt(tried, statement, into: &outcome)
                pending = pending.dropFirst(tried.count)
                window = max(1, pending.count)
                continue
            }
            if bad > tried.startIndex {
                // The rows before it went in and were undone with it: they go again, as
                // statements split in halves (should one's fate depend on a row after it).
                try attempt(tried[..<bad], statement, into: &outcome)
                if stopped { return }
            }
            reject(tried[bad], refusal, into: &outcome)
            pending = pending.dropFirst(line)
            window = min(pending.count, Self.afterRefusal)
        }
    }

    /// Rows tried after a refused one, doubling while they go in.
    static let afterRefusal = 64

    /// A row the server refused, and what it said (with the row's place in the copy and its
    /// column, when it named them).
    struct Refusal {
        var message: String
        var detail: String?
        var sqlState: String
        var line: Int?
        var column: String?
    }

    /// One `COPY` of `rows`, in the text format, sent in pieces of ``copyPiece`` rows as they
    /// are made: the server reads one while the next is made (one buffer for the whole batch
    /// made the import wait for the server and the server for the import, a third slower).
    /// nil when it went in; the server's refusal of a row; a lost connection or any other
    /// failure is thrown.
    private func copy(_ rows: ArraySlice<Importer.PendingRow>, _ statement: ImportStatement) throws -> Refusal? {
        let connection = session.connection
        let logger = session.logger
        let (target, names) = (statement.copyTable, statement.copyColumns)
        let batch = Array(rows)
        let piece = Self.copyPiece
        do {
            try executor.wait {
                try await connection.copyFrom(table: target, columns: names, logger: logger) { writer in
                    var start = 0
                    while start < batch.count {
                        let end = min(batch.count, start + piece)
                        var text: [UInt8] = []
                        text.reserveCapacity((end - start) * 16 * max(1, names.count))
                        for index in start..<end {
                            if let row = batch[index].copyText {
                                text.append(contentsOf: row)
                            } else {
                                CopyText.append(batch[index].values, to: &text)
                            }
                        }
                        try await writer.write(ByteBuffer(bytes: text))
                        start = end
                    }
                }
            }
            return nil
        } catch {
            let problem = (error as? PostgresProblem) ?? PostgresProblem(running: error, on: session.location)
            guard case .refused(let message, let detail, let state) = problem, Self.refusesRows(state) else { throw problem }
            // `COPY t, line 5, column year: "x"`: where the copy was (the context's last entry
            // beginning so; a trigger's or a function's entries come before it).
            let context = (error as? PSQLError)?.serverInfo?[.locationContext] ?? ""
            let entry = context.split(separator: "\n").last { $0.hasPrefix("COPY ") }.map(String.init) ?? ""
            return Refusal(message: message, detail: detail, sqlState: state, line: Self.copyLine(in: entry), column: Self.copyColumn(in: entry))
        }
    }

    /// Rows a piece of a `COPY` holds.
    static let copyPiece = 2_000

    /// N of `COPY t, line N…` (the last `, line N` of the entry: a table may be named
    /// `line 3`).
    static func copyLine(in entry: String) -> Int? {
        guard let range = entry.range(of: ", line ", options: .backwards) else { return nil }
        return Int(entry[range.upperBound...].prefix { $0.isNumber })
    }

    /// C of `COPY t, line N, column C: …` (a name with `: ` in it is cut there).
    static func copyColumn(in entry: String) -> String? {
        guard let line = entry.range(of: ", line ", options: .backwards),
              let range = entry.range(of: ", column ", range: line.upperBound..<entry.endIndex) else { return nil }
        let rest = entry[range.upperBound...]
        let name = String(rest[..<(rest.range(of: ": ")?.lowerBound ?? rest.endIndex)])
        return name.isEmpty ? nil : name
    }

    // MARK: - Statements, split in halves

    /// Tries `rows` under a savepoint; when the server refuses one of them, tries each half
    /// again, down to the single rows it refuses.
    private func attempt(_ rows: ArraySlice<Importer.PendingRow>, _ statement: ImportStatement, into outcome: inout ImportBatchOutcome) throws {
        guard !rows.isEmpty, !stopped else { return }
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
                reject(rows[rows.startIndex], Refusal(message: message, detail: detail, sqlState: state), into: &outcome)
                return
            }
            let half = rows.startIndex + rows.count / 2
            try attempt(rows[..<half], statement, into: &outcome)
            try attempt(rows[half...], statement, into: &outcome)
        }
    }

    /// SQLSTATE classes one row's values can cause (and another row's not): a value its type
    /// refuses (22), a constraint (23) or a view's check option (44), a trigger's or a
    /// routine's refusal (27, 2F, 38, 39, P0), an upsert meeting a row twice (21), a value
    /// too large for an index (54). Anything else (no right to the table, the server gone, a
    /// feature a view lacks) is every row's, and ends the import.
    static func refusesRows(_ state: String) -> Bool {
        ["21", "22", "23", "27", "2F", "38", "39", "44", "54", "P0"].contains(String(state.prefix(2)))
    }

    /// Rows inserted and updated; the rest of `rows` changed nothing.
    private func send(_ rows: ArraySlice<Importer.PendingRow>, _ statement: ImportStatement) throws -> (inserted: Int, updated: Int) {
        var inserted = 0
        var updated = 0
        var start = rows.startIndex
        while start < rows.endIndex {
            let end = min(rows.endIndex, start + statement.rowsPerStatement)
            let chunk = rows[start..<end]
            var values: [Value] = []
            values.reserveCapacity(chunk.count * statement.columns.count)
            for row in chunk { values += row.values }
            switch statement.counting {
            case .returnedAreInserted:
                let returned = try session.rows(PostgresEngineSession.query(statement.sql(rows: chunk.count), values)).count
                // An insert that was not refused went in, whatever it returned (a view's
                // INSTEAD OF trigger may return nothing).
                inserted += mode == .insert ? chunk.count : returned
            case .returnedSayWhich:
                for answer in try session.rows(PostgresEngineSession.query(statement.sql(rows: chunk.count), values)) {
                    if (try? answer.decode(Bool.self)) == true { inserted += 1 } else { updated += 1 }
                }
            case .keyLookedUpFirst:
                // (One row: ``ImportStatement/rowsPerStatement``.)
                let row = chunk[chunk.startIndex]
                let key = statement.target.map { row.values[row.columns.firstIndex(of: $0)!] }
                let there = try session.rows(PostgresEngineSession.query(statement.existsSQL ?? "", key)).first.flatMap { try? $0.decode(Int.self) } ?? 0
                let returned = try session.rows(PostgresEngineSession.query(statement.sql(rows: 1), values)).count
                if there > 0 { updated += returned } else { inserted += returned }
            }
            start = end
        }
        return (inserted, updated)
    }

    // MARK: - A refused row in a person's words

    /// Reports `row` as refused, and stops there with `stopAtFirst`.
    private func reject(_ row: Importer.PendingRow, _ refusal: Refusal, into outcome: inout ImportBatchOutcome) {
        let (column, reason) = words(refusal, row: row)
        outcome.reject(ImportRowError(file: file, line: row.line, column: column, reason: reason))
        if stopAtFirst { stopped = true }
    }

    /// The column (when known) and the reason the server refused `row`.
    private func words(_ refusal: Refusal, row: Importer.PendingRow) -> (String?, String) {
        let (message, detail) = (refusal.message, refusal.detail ?? "")
        switch refusal.sqlState {
        case "23502":
            return (PostgresConstraintFailures.quoted(in: message).first, "needs a value")
        case "23505":
            let columns = PostgresConstraintFailures.keyColumns(in: detail)
            let fix = mode == .insert ? " (--mode upsert, ignore or replace decide what to do with it)" : ""
            return (columns.first, "another row already has this value" + fix)
        case "23503":
            return (PostgresConstraintFailures.keyColumns(in: detail).first, "refers to a row of another table that does not exist")
        case "23514" where message.hasPrefix("no partition"):
            return (nil, message)
        case "23514":
            return (nil, "breaks the table's rule \(PostgresConstraintFailures.quoted(in: message).last ?? message)")
        case let state where state.hasPrefix("22"):
            return (refusal.column ?? refusedColumn(of: row), message)
        default:
            return (refusal.column, message)
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
