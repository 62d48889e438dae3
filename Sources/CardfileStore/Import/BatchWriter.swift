import GRDB

/// Writes one batch of imported rows inside the caller's transaction, each row on its own:
/// a row a constraint refuses is reported and the others go in.
struct BatchWriter {
    let entity: Entity
    let mode: ImportOptions.Mode
    /// `--on-error abort`: nothing after the first refused row is written.
    let stopAtFirst: Bool
    let core: StoreCore
    let file: String

    typealias Outcome = ImportBatchOutcome

    private var table: TableSchema { entity.table }

    func conflictTarget(for columns: [Int]) -> [Int]? { table.importConflictTarget(for: columns) }

    /// The statements for one set of columns, built once per batch.
    private struct Plan {
        let sql: String
        let target: [Int]?
        let existsSQL: String?
    }

    private func plan(for columns: [Int]) -> Plan {
        let names = columns.map { table.quotedColumnNames[$0] }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let into = columns.isEmpty ? "\(table.quotedName) DEFAULT VALUES" : "\(table.quotedName) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
        let target = mode == .upsert || mode == .replace ? conflictTarget(for: columns) : nil
        let existsSQL = target.map { target in
            "SELECT 1 FROM \(table.quotedName) WHERE " + target.map { "\(table.quotedColumnNames[$0]) IS ?" }.joined(separator: " AND ")
        }
        let sql: String
        switch mode {
        case .insert: sql = "INSERT INTO \(into)"
        // ON CONFLICT (the upsert clause) covers only uniqueness: a NOT NULL or CHECK failure
        // is still an error, where OR IGNORE would skip the row without a word.
        case .ignore: sql = "INSERT INTO \(into) ON CONFLICT DO NOTHING"
        case .replace: sql = "INSERT OR REPLACE INTO \(into)"
        case .upsert:
            guard let target else { return Plan(sql: "", target: nil, existsSQL: nil) }
            let others = columns.filter { !target.contains($0) }.map { table.quotedColumnNames[$0] }
            let targetNames = target.map { table.quotedColumnNames[$0] }.joined(separator: ", ")
            if others.isEmpty {
                sql = "INSERT INTO \(into) ON CONFLICT (\(targetNames)) DO NOTHING"
            } else {
                let sets = others.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
                let changed = others.map { "\($0) IS NOT excluded.\($0)" }.joined(separator: " OR ")
                sql = "INSERT INTO \(into) ON CONFLICT (\(targetNames)) DO UPDATE SET \(sets) WHERE \(changed)"
            }
        }
        return Plan(sql: sql, target: target, existsSQL: existsSQL)
    }

    func write(_ rows: [Importer.PendingRow], db: Database, recorder: ChangeRecorder? = nil) throws -> Outcome {
        var outcome = Outcome()
        // Looked up once: reading `table.columns[i]` in the row loop copies a column's
        // description (retains and releases) for every field.
        let notNull = table.columns.map(\.isNotNull)
        var plans: [[Int]: Plan] = [:]
        // Rows of a delimited file all have the same columns: the last plan and statement are
        // kept at hand (a dictionary lookup and GRDB's statement cache hash per row otherwise).
        var last: (columns: [Int], plan: Plan, statement: Statement)?
        for row in rows where !(stopAtFirst && outcome.rejected > 0) {
            // NULL for a NOT NULL column is refused here: OR REPLACE would quietly put the
            // column's default in its place.
            if let index = zip(row.columns, row.values).first(where: { notNull[$0.0] && $0.1.isNull })?.0 {
                reject(&outcome, line: row.line, column: table.columns[index].name, reason: ImportRowError.emptyNeedsValue)
                continue
            }
            let plan: Plan
            let statement: Statement
            if let last, last.columns == row.columns {
                plan = last.plan
                statement = last.statement
            } else {
                if let known = plans[row.columns] { plan = known } else { plan = self.plan(for: row.columns); plans[row.columns] = plan }
                statement = try db.cachedStatement(sql: plan.sql.isEmpty ? "SELECT 1" : plan.sql)
                last = (row.columns, plan, statement)
            }
            if mode == .upsert, plan.target == nil {
                reject(&outcome, line: row.line, column: nil, reason: "an upsert needs the primary key or a unique column in the row")
                continue
            }
            var existed = false
            if let target = plan.target, let existsSQL = plan.existsSQL {
                let values = target.map { row.values[row.columns.firstIndex(of: $0)!] }
                existed = try Row.fetchOne(db.cachedStatement(sql: existsSQL), arguments: values.statementArguments) != nil
            }
            // (A refused row was undone by SQLite; the journal forgets it too.)
            let mark = recorder?.mark()
            do {
                try statement.executeBulk(binding: row.values, db: db)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT || error.resultCode == .SQLITE_MISMATCH {
                if let mark { recorder?.rewind(to: mark) }
                reject(&outcome, line: row.line, column: Self.column(in: error), reason: Self.reason(for: error, row: row, table: table))
                continue
            }
            let changed = db.changesCount > 0
            switch (mode, existed, changed) {
            case (.ignore, _, false): outcome.skipped += 1
            case (.upsert, true, false): outcome.unchanged += 1
            case (_, true, _): outcome.updated += 1
            default: outcome.inserted += 1
            }
        }
        return outcome
    }

    private func reject(_ outcome: inout Outcome, line: Int, column: String?, reason: String) {
        outcome.reject(ImportRowError(file: file, line: line, column: column, reason: reason))
    }

    /// The column SQLite names in a NOT NULL or UNIQUE failure (`… failed: table.column`).
    static func column(in error: DatabaseError) -> String? {
        guard let message = error.message, let colon = message.lastIndex(of: ":") else { return nil }
        let names = message[message.index(after: colon)...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = names.first, let dot = first.lastIndex(of: ".") else { return nil }
        return String(first[first.index(after: dot)...])
    }

    static func reason(for error: DatabaseError, row: Importer.PendingRow, table: TableSchema) -> String {
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_NOTNULL:
            let column = column(in: error)
            let wasEmpty = column.flatMap { name in table.columnIndex(named: name) }.flatMap { row.columns.firstIndex(of: $0) }.map { row.values[$0].isNull } ?? false
            return wasEmpty ? ImportRowError.emptyNeedsValue : "needs a value"
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
            return "another row already has this value (--mode upsert, ignore or replace decide what to do with it)"
        case .SQLITE_CONSTRAINT_CHECK:
            return "breaks the table's rule \(error.message?.components(separatedBy: "CHECK constraint failed: ").last ?? "")"
        case .SQLITE_CONSTRAINT_FOREIGNKEY:
            return "refers to a row of another table that does not exist"
        default:
            return error.message ?? "refused by the database"
        }
    }
}

extension TableSchema {
    /// The columns an imported row finds an existing row by (upsert, replace): the primary
    /// key when `columns` (the row's) hold it, else the first unique index they hold.
    package func importConflictTarget(for columns: [Int]) -> [Int]? {
        let present = Set(columns)
        let key = keyColumnIndexes
        if !key.isEmpty, key.allSatisfy(present.contains) { return key }
        for index in uniqueIndexes where !index.isPartial {
            let positions = index.columns.compactMap { columnIndex(named: $0) }
            if positions.count == index.columns.count, positions.allSatisfy(present.contains) { return positions }
        }
        return nil
    }
}
