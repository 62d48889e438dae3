/// Bulk edits that can be undone: one column set on every record a predicate matches, or
/// those records deleted, each in one transaction that first reads what it is about to
/// overwrite; and ``apply(_:overwriting:)``, which writes such a change back (undo) or again
/// (redo) over the records that have not changed since.
///
/// Like the batch operations they are one statement's work, checked as a save is: the
/// entity's field rules, NOT NULL, CHECK and foreign keys; one failure writes nothing and its
/// message names a record and a field. Their commits reach every context as a ``ContextDidSave``
/// naming each record (or, beyond ``recordsNamedAtMost``, the table as invalidated), so lists
/// refresh and an open form meets the change as it would another program's.
extension Container {
    /// Records read between progress reports.
    private static let progressStep = 5_000
    /// Keys bound per statement when records are read back by key.
    static let keyChunk = 500
    /// Beyond this many records, a bulk edit's commit names its table as invalidated rather
    /// than each record (see ``WriteAnnotation/invalidated``). 100,000 names cost the UI's
    /// loop 120–170 ms to take in (the benchmark's `:set` and Alt-U stalls), above its 50 ms.
    public static let recordsNamedAtMost = 1_000

    /// Checks that `value` may be written to `column` of `table` by a bulk edit (writable, not
    /// a key, the right type, NOT NULL, the field's rules) without writing anything.
    /// - Throws: ``StoreError/validationFailed(_:)`` naming no record (the value is the same
    ///   for all), ``StoreError/noSuchField(table:field:)``, or why the table takes no edits.
    public func validateBulkSet(table: String, column: String, to value: Value) throws(StoreError) {
        let entity = try bulkEntity(table)
        guard let field = entity.table.columnIndex(named: column) else { throw StoreError.noSuchField(table: entity.name, field: column) }
        let failures = Validator.validateBulkValue(value, field: field, id: ObjectID(table: entity.name, primaryKey: []), entity: entity)
        if !failures.isEmpty { throw StoreError.validationFailed(failures) }
    }

    /// Sets `column` to `value` on every record of `table` that `predicate` matches, in one
    /// transaction, and returns what each held before and holds after.
    ///
    /// `progress` is called (on this thread) with the number of records read so far, every few
    /// thousand. It runs as a non-urgent writer: the editor's saves go first.
    /// - Throws: ``StoreError/validationFailed(_:)`` naming the first record that fails and the
    ///   field (nothing is written), or another store error.
    public func bulkSet(table: String, column: String, to value: Value, where predicate: Predicate,
                        namingAtMost naming: Int = recordsNamedAtMost, progress: (Int) -> Void = { _ in }) throws(StoreError) -> BulkChange {
        let entity = try bulkEntity(table)
        let schema = entity.table
        guard let field = schema.columnIndex(named: column) else { throw StoreError.noSuchField(table: schema.name, field: column) }
        let name = schema.columns[field].name
        let condition = try predicate.sql(for: schema)
        var assignments = ["\(name.quotedIdentifier) = ?"]
        if let version = entity.versionColumn, version != field {
            let quoted = schema.quotedColumnNames[version]
            assignments.append("\(quoted) = coalesce(\(quoted), 0) + 1")
        }
        let assignment = assignments.joined(separator: ", ")
        return try bulkWrite(entity: entity) { session, note in
            let before = try Self.readValues(session, schema: schema, columns: [name], where: condition, progress: progress)
            guard let first = before.first else { return BulkChange(table: schema.name, kind: .set(column: name, value: value), columns: [name], records: [:]) }
            let failures = Validator.validateBulkValue(value, field: field, id: first.id, entity: entity)
            if !failures.isEmpty { throw StoreError.validationFailed(failures) }
            // Every record matched is written (the same snapshot, in one transaction). A
            // rowid table's rows are named by SQLite's hook; others are named here.
            let sql = "UPDATE \(schema.quotedName) SET \(assignment) WHERE \(condition.sql)"
            let written = Self.row(field, value, width: schema.columns.count)
            do {
                _ = try session.attempt { try session.execute(sql, [value] + condition.arguments) }
            } catch {
                guard session.constraintFailures(for: error, id: first.id, entity: entity, operation: .write(values: written), schema: core.schema) != nil else { throw error }
                // Which record breaks it: each is written in turn, and the first one refused
                // is named (what went before is undone with the transaction).
                let one = "UPDATE \(schema.quotedName) SET \(assignment) WHERE \(schema.keyMatchSQL)"
                for (id, _) in before {
                    do {
                        _ = try session.attempt { try session.execute(one, [value] + (id.primaryKeyValues ?? [])) }
                    } catch {
                        guard let failures = session.constraintFailures(for: error, id: id, entity: entity, operation: .write(values: written), schema: core.schema) else { throw error }
                        throw StoreError.validationFailed(failures)
                    }
                }
                throw error
            }
            // The same value in the same column is stored alike in every record (its type as
            // the column's affinity, or its type's input function, makes it): read once, from
            // the first record.
            let stored = try session.firstRow(
                "SELECT \(schema.dialect.selectExpression(schema.columns[field])) FROM \(schema.quotedName) WHERE \(schema.keyMatchSQL)",
                first.id.primaryKeyValues ?? [])?.first ?? .null
            var records: [ObjectID: BulkChange.Sides] = [:]
            records.reserveCapacity(before.count)
            let named = before.count <= naming
            if !named { note.invalidated.insert(schema.name) }
            for (id, values) in before {
                records[id] = BulkChange.Sides(before: values, after: [stored])
                if named, !schema.primaryKey.isRowid { note.note(updated: id) }
            }
            return BulkChange(table: schema.name, kind: .set(column: name, value: value), columns: [name], records: records)
        }
    }

    /// Deletes every record of `table` that `predicate` matches, in one transaction, and
    /// returns each one's values (every column an insert can write), so that
    /// ``apply(_:overwriting:)`` of its ``BulkChange/reversed`` inserts them again. What the
    /// table's foreign keys delete or change elsewhere with them is not kept.
    public func bulkDelete(from table: String, where predicate: Predicate,
                           namingAtMost naming: Int = recordsNamedAtMost, progress: (Int) -> Void = { _ in }) throws(StoreError) -> BulkChange {
        let entity = try bulkEntity(table)
        let schema = entity.table
        let condition = try predicate.sql(for: schema)
        let columns = Self.insertableColumns(of: schema)
        return try bulkWrite(entity: entity) { session, note in
            let before = try Self.readValues(session, schema: schema, columns: columns, where: condition, progress: progress)
            var records: [ObjectID: BulkChange.Sides] = [:]
            records.reserveCapacity(before.count)
            for (id, values) in before { records[id] = BulkChange.Sides(before: values, after: nil) }
            let named = before.count <= naming
            if !named { note.invalidated.insert(schema.name) }
            let sql = "DELETE FROM \(schema.quotedName) WHERE \(condition.sql) RETURNING \(schema.keyReadExpressions.joined(separator: ", "))"
            do {
                for row in try session.attempt({ try session.rows(sql, condition.arguments) }) {
                    if named, !schema.primaryKey.isRowid { note.note(deleted: entity.objectID(fromKey: row[...])) }
                }
            } catch {
                let none = ObjectID(table: schema.name, primaryKey: [])
                guard session.constraintFailures(for: error, id: none, entity: entity, operation: .delete(key: []), schema: core.schema) != nil else { throw error }
                let one = "DELETE FROM \(schema.quotedName) WHERE \(schema.keyMatchSQL)"
                for (id, _) in before {
                    do {
                        _ = try session.attempt { try session.execute(one, id.primaryKeyValues ?? []) }
                    } catch {
                        guard let failures = session.constraintFailures(for: error, id: id, entity: entity, operation: .delete(key: id.primaryKeyValues ?? []), schema: core.schema) else { throw error }
                        throw StoreError.validationFailed(failures)
                    }
                }
                throw error
            }
            return BulkChange(table: schema.name, kind: .delete, columns: columns, records: records)
        }
    }

    /// Writes `change`'s `after` over each of its records that still holds its `before`, in
    /// one transaction; a record that holds something else now (changed, deleted or added
    /// since) is left alone and reported, unless `overwriting` names it with the values it
    /// held when the person chose to overwrite (changed again since then, it is reported
    /// again; a record deleted since a `:set` is reported and left out all the same: one
    /// column is not a row). Foreign keys are checked at the commit, so records of a tree
    /// come back whatever their order (on PostgreSQL, a key not declared `DEFERRABLE` is
    /// checked at each statement: a record whose parent is still to come is written after
    /// it). Undo is `apply(change.reversed)`; redo applies the undo's reverse. `progress` is
    /// called with the number of records dealt with so far.
    /// - Throws: ``StoreError/validationFailed(_:)`` naming the record (a foreign key whose
    ///   parent has gone since, a key taken since): nothing is written.
    public func apply(_ change: BulkChange, overwriting: [ObjectID: [Value]?] = [:],
                      namingAtMost naming: Int = recordsNamedAtMost, progress: (Int) -> Void = { _ in }) throws(StoreError) -> BulkApplication {
        try apply([change], overwriting: overwriting, namingAtMost: naming, history: nil, progress: progress)[0]
    }

    /// ``apply(_:overwriting:namingAtMost:progress:)`` of several changes in one transaction
    /// (foreign keys checked at its commit: books come back before their authors), journaled
    /// as `history` says (an undo or redo from the history) rather than as a bulk edit.
    func apply(_ changes: [BulkChange], overwriting: [ObjectID: [Value]?] = [:], namingAtMost naming: Int = recordsNamedAtMost,
               history: HistoryNote?, progress: (Int) -> Void = { _ in }) throws(StoreError) -> [BulkApplication] {
        guard let first = changes.first else { return [] }
        var plans: [BulkPlan] = []
        for change in changes {
            let entity = try bulkEntity(change.table)
            let schema = entity.table
            var fields: [Int] = []
            for column in change.columns {
                guard let index = schema.columnIndex(named: column) ?? (schema.primaryKey.keyExpressions == [column] ? -1 : nil) else {
                    throw StoreError.noSuchField(table: schema.name, field: column)
                }
                fields.append(index)
            }
            plans.append(BulkPlan(change: change, entity: entity, fields: fields))
        }
        let dialect = plans[0].entity.table.dialect
        let entity = try bulkEntity(first.table)
        do {
            return try apply(plans, entity: entity, overwriting: overwriting, namingAtMost: naming, history: history, waits: false, progress: progress)
        } catch let refusal where refusal.isForeignKeyRefusal && !dialect.deferForeignKeys.every {
            // A foreign key checked at each statement refused a record whose parent (or, for
            // a delete, whose child) is among the others: again, each record refused by one
            // waiting for the others.
            return try apply(plans, entity: entity, overwriting: overwriting, namingAtMost: naming, history: history, waits: true, progress: progress)
        }
    }

    /// One transaction of ``apply(_:overwriting:namingAtMost:history:progress:)``; `waits`
    /// writes each record in a savepoint of its own, and one a foreign key refuses after the
    /// others, round after round while some go in.
    private func apply(_ plans: [BulkPlan], entity: Entity, overwriting: [ObjectID: [Value]?], namingAtMost naming: Int,
                       history: HistoryNote?, waits: Bool, progress: (Int) -> Void) throws(StoreError) -> [BulkApplication] {
        let dialect = entity.table.dialect
        return try bulkWrite(entity: entity, history: history) { session, note in
            // (Undone until the commit: a child may come back before its parent.)
            _ = try session.execute(dialect.deferForeignKeys.sql, [])
            var results: [BulkApplication] = []
            var visited = 0
            for plan in plans {
                let (change, schema) = (plan.change, plan.entity.table)
                let ids = Array(change.records.keys)
                var now: [ObjectID: [Value]] = [:]
                now.reserveCapacity(ids.count)
                // One read when the keys go as JSON; chunks of bound keys otherwise (blobs).
                let allKeys = ids.compactMap(\.primaryKeyValues)
                let whole = schema.keySetSQL(allKeys)
                let chunk = whole.arguments.count == 1 && allKeys.count > 1 ? allKeys.count : Self.keyChunk
                for start in stride(from: 0, to: allKeys.count, by: chunk) {
                    let keys = Array(allKeys[start..<min(start + chunk, allKeys.count)])
                    let condition = chunk == allKeys.count ? whole : schema.keySetSQL(keys)
                    for (id, values) in try Self.readValues(session, schema: schema, columns: change.columns, where: condition) { now[id] = values }
                }
                var result = BulkApplication(applied: change.only([]), changedSince: [:])
                let named = change.count <= naming
                if !named { note.invalidated.insert(schema.name) }
                let isWholeRows = change.kind == .delete || change.kind == .history(wholeRows: true)
                var waiting: [(write: RecordWrite, refusal: StoreError)] = []
                var grouped: [RecordWrite] = []
                let inGroups = dialect.groupsRowWrites && !schema.keyColumns.contains { $0 == nil }
                func done(_ write: RecordWrite) {
                    plan.name(write, named: named, note: &note)
                    result.applied.records[write.id] = BulkChange.Sides(before: write.current, after: write.after)
                }
                /// Writes `write` in a savepoint; a refusal by a foreign key is returned, to wait.
                func attemptWaiting(_ write: RecordWrite) throws -> StoreError? {
                    do {
                        try session.attempt { try plan.write(write, session: session, schema: core.schema) }
                        done(write)
                        return nil
                    } catch let refusal as StoreError where refusal.isForeignKeyRefusal {
                        return refusal
                    }
                }
                for (id, sides) in change.records {
                    visited += 1
                    if visited % Self.progressStep == 0 { progress(visited) }
                    let current = now[id]
                    // A record deleted since a `:set` has no row to put one column back into: it is
                    // reported, and left out even when overwriting was asked.
                    let isGone = current == nil && sides.before != nil && !isWholeRows
                    guard current == sides.before || (overwriting[id] == .some(current) && !isGone) else {
                        result.changedSince[id] = .some(current)
                        continue
                    }
                    let write = RecordWrite(id: id, current: current, after: sides.after)
                    if inGroups {
                        grouped.append(write)
                    } else if waits {
                        if let refusal = try attemptWaiting(write) { waiting.append((write, refusal)) }
                    } else {
                        try plan.write(write, session: session, schema: core.schema)
                        done(write)
                    }
                }
                if !grouped.isEmpty {
                    waiting += try plan.writeInGroups(grouped, session: session, schema: core.schema, waits: waits, done: done)
                }
                // Again while some go in: each round writes the parents of the next.
                while !waiting.isEmpty {
                    var still: [(write: RecordWrite, refusal: StoreError)] = []
                    for record in waiting {
                        if let refusal = try attemptWaiting(record.write) { still.append((record.write, refusal)) }
                    }
                    if still.count == waiting.count { throw still[0].refusal }
                    waiting = still
                }
                results.append(result)
            }
            return results
        }
    }

    // MARK: - Helpers

    private func bulkEntity(_ table: String) throws(StoreError) -> Entity {
        let entity = try core.entity(table)
        guard entity.table.isIdentifiable else { throw StoreError.tableNotEditable(entity.table.name, isView: entity.table.isView) }
        guard !entity.table.isView else { throw StoreError.viewNotWritable(view: entity.table.name, kind: nil) }
        return entity
    }

    /// One write transaction of a bulk edit, its errors in the store's words.
    private func bulkWrite<T>(entity: Entity, history: HistoryNote? = nil, _ body: (any EngineSession, inout WriteAnnotation) throws -> T) throws(StoreError) -> T {
        try storeErrors(path: core.path) {
            do {
                return try core.transaction(origin: .batch, history: history, body)
            } catch let error as StoreError {
                throw error
            } catch {
                // A foreign key checked at the commit.
                let failures = try core.session(for: entity) { session in
                    session.constraintFailures(for: error, id: ObjectID(table: entity.name, primaryKey: []), entity: entity,
                                               operation: .write(values: []), schema: core.schema)
                }
                guard let failures else { throw error }
                throw StoreError.validationFailed(failures)
            }
        }
    }

    /// The values of `columns` of each row matching `condition`, by record, in the table's
    /// key order of reading.
    static func readValues(_ session: any EngineSession, schema: TableSchema, columns: [String], where condition: (sql: String, arguments: [Value]),
                           progress: (Int) -> Void = { _ in }) throws -> [(id: ObjectID, values: [Value])] {
        let width = schema.keyWidth
        let read = columns.map { name in schema.column(named: name).map(schema.dialect.selectExpression) ?? name.quotedIdentifier }
        let sql = "SELECT \((schema.keyReadExpressions + read).joined(separator: ", ")) FROM \(schema.quotedName) WHERE \(condition.sql)"
        var found: [(id: ObjectID, values: [Value])] = []
        try session.forEachRow(sql, condition.arguments, cancellation: nil) { row in
            found.append((ObjectID(table: schema.name, primaryKey: Array(row[..<width])), Array(row[width...])))
            if found.count % progressStep == 0 { progress(found.count) }
        }
        return found
    }

    /// Every column an insert can write back: the rowid first when the table has no declared
    /// key (so a deleted row comes back under its own rowid), and the columns the database
    /// numbers (identity columns, key or not), so the row comes back with its own numbers.
    private static func insertableColumns(of schema: TableSchema) -> [String] {
        let keys = Set(schema.keyColumnIndexes)
        let columns = schema.columns.indices.filter {
            schema.columns[$0].isWritable || schema.columns[$0].isNumberedByDatabase || keys.contains($0)
        }.map { schema.columns[$0].name }
        if case .implicitRowid(let accessor) = schema.primaryKey { return [accessor] + columns }
        return columns
    }

    /// A row of `width` NULLs with `value` at `field` (what a constraint message is read against).
    private static func row(_ field: Int, _ value: Value, width: Int) -> [Value] {
        var row = Array(repeating: Value.null, count: width)
        row[field] = value
        return row
    }
}

/// How ``Container/apply(_:overwriting:namingAtMost:history:progress:)`` writes one change:
/// the statements for its table, and each record's write and name in the commit's event.
private struct BulkPlan {
    let change: BulkChange
    let entity: Entity
    /// The position of each of the change's columns in the table (-1 for a rowid key).
    let fields: [Int]
    let update: String
    let insert: String
    /// `INSERT INTO t (columns)`, with what keeps a numbered key where one is written.
    let insertHead: String
    let delete: String

    init(change: BulkChange, entity: Entity, fields: [Int]) {
        self.change = change
        self.entity = entity
        self.fields = fields
        let schema = entity.table
        let quoted = change.columns.map(\.quotedIdentifier)
        var assignments = quoted.map { "\($0) = ?" }
        if let version = entity.versionColumn, !fields.contains(version) {
            let name = schema.quotedColumnNames[version]
            assignments.append("\(name) = coalesce(\(name), 0) + 1")
        }
        update = "UPDATE \(schema.quotedName) SET \(assignments.joined(separator: ", ")) WHERE \(schema.keyMatchSQL)"
        let numbered = fields.contains { $0 >= 0 && !schema.columns[$0].isWritable }
        insertHead = "INSERT INTO \(schema.quotedName) (\(quoted.joined(separator: ", ")))\(numbered ? schema.dialect.keepingNumberedValues : "")"
        insert = insertHead + " VALUES (\(Array(repeating: "?", count: quoted.count).joined(separator: ", ")))"
        delete = "DELETE FROM \(schema.quotedName) WHERE \(schema.keyMatchSQL)"
    }

    /// Makes the record hold what `write` says.
    /// - Throws: ``StoreError/validationFailed(_:)`` naming the record when a constraint
    ///   refuses it; the engine's error otherwise.
    func write(_ write: RecordWrite, session: any EngineSession, schema: DatabaseSchema) throws {
        let key = write.id.primaryKeyValues ?? []
        // (On SQLite through GRDB, not SQLite's C API directly: that saves a tenth of the time
        // of an undo of 100,000 records, but GRDB then relays none of SQLite's hook, and what a
        // trigger or a cascade changes in other tables would go unnamed.)
        do {
            switch (write.current, write.after) {
            case (nil, nil): break
            case (_?, nil): _ = try session.execute(delete, key)
            case (nil, let values?): _ = try session.execute(insert, values)
            case (_?, let values?): _ = try session.execute(update, values + key)
            }
        } catch {
            var row = Array(repeating: Value.null, count: entity.table.columns.count)
            for (field, value) in zip(fields, write.after ?? []) where field >= 0 { row[field] = value }
            guard let failures = session.constraintFailures(for: error, id: write.id, entity: entity,
                                                            operation: write.after == nil ? .delete(key: key) : .write(values: row), schema: schema) else { throw error }
            throw StoreError.validationFailed(failures)
        }
    }

    /// Writes `writes` many to a statement (deletes, then updates, then inserts, up to 1,000
    /// rows and 65,535 values a statement): where each statement is a round trip to a server,
    /// 60,000 records written one at a time took minutes. A statement refused is written
    /// again record by record, each in a savepoint, so the refusal names its record; with
    /// `waits`, a record a foreign key refuses is returned, to be written after the others.
    func writeInGroups(_ writes: [RecordWrite], session: any EngineSession, schema: DatabaseSchema, waits: Bool,
                       done: (RecordWrite) -> Void) throws -> [(write: RecordWrite, refusal: StoreError)] {
        let table = entity.table
        let keyWidth = table.keyWidth
        let kinds: [(writes: [RecordWrite], width: Int, statement: ([RecordWrite]) -> (String, [Value]))] = [
            (writes.filter { $0.current != nil && $0.after == nil }, keyWidth, groupedDelete),
            (writes.filter { $0.current != nil && $0.after != nil }, keyWidth + fields.count, groupedUpdate),
            (writes.filter { $0.current == nil && $0.after != nil }, fields.count, groupedInsert),
        ]
        var waiting: [(write: RecordWrite, refusal: StoreError)] = []
        for kind in kinds where !kind.writes.isEmpty {
            let rows = max(1, min(1_000, 65_535 / max(1, kind.width)))
            for start in stride(from: 0, to: kind.writes.count, by: rows) {
                let part = Array(kind.writes[start..<min(start + rows, kind.writes.count)])
                let (sql, arguments) = kind.statement(part)
                do {
                    _ = try session.attempt { try session.execute(sql, arguments) }
                    part.forEach(done)
                } catch {
                    for record in part {
                        do {
                            try session.attempt { try write(record, session: session, schema: schema) }
                            done(record)
                        } catch let refusal as StoreError where waits && refusal.isForeignKeyRefusal {
                            waiting.append((record, refusal))
                        }
                    }
                }
            }
        }
        return waiting
    }

    private func groupedDelete(_ part: [RecordWrite]) -> (String, [Value]) {
        let condition = entity.table.keySetSQL(part.map { $0.id.primaryKeyValues ?? [] })
        return ("DELETE FROM \(entity.table.quotedName) WHERE \(condition.sql)", condition.arguments)
    }

    private func groupedInsert(_ part: [RecordWrite]) -> (String, [Value]) {
        let row = "(" + Array(repeating: "?", count: fields.count).joined(separator: ", ") + ")"
        return (insertHead + " VALUES " + Array(repeating: row, count: part.count).joined(separator: ", "), part.flatMap { $0.after ?? [] })
    }

    /// `UPDATE … FROM (VALUES …)`: each row's key and values, typed by their columns.
    private func groupedUpdate(_ part: [RecordWrite]) -> (String, [Value]) {
        let table = entity.table
        let dialect = table.dialect
        let keyColumns = table.keyColumns
        let typed = keyColumns.map { $0.map(dialect.placeholder(for:)) ?? "?" }
            + fields.map { $0 >= 0 ? dialect.placeholder(for: table.columns[$0]) : "?" }
        let row = "(" + typed.joined(separator: ", ") + ")"
        let keyNames = keyColumns.indices.map { "\"__cf_k\($0)\"" }
        let valueNames = fields.indices.map { "\"__cf_c\($0)\"" }
        var assignments = zip(change.columns, valueNames).map { "\($0.quotedIdentifier) = \"__cf_rows\".\($1)" }
        if let version = entity.versionColumn, !fields.contains(version) {
            let name = table.quotedColumnNames[version]
            assignments.append("\(name) = coalesce(\(name), 0) + 1")
        }
        let target = table.primaryKey.keyExpressions.map { "\"__cf_target\".\($0)" }
        let source = keyNames.map { "\"__cf_rows\".\($0)" }
        let sql = "UPDATE \(table.quotedName) AS \"__cf_target\" SET \(assignments.joined(separator: ", "))"
            + " FROM (VALUES \(Array(repeating: row, count: part.count).joined(separator: ", "))) AS \"__cf_rows\" (\((keyNames + valueNames).joined(separator: ", ")))"
            + " WHERE (\(target.joined(separator: ", "))) = (\(source.joined(separator: ", ")))"
        return (sql, part.flatMap { ($0.id.primaryKeyValues ?? []) + ($0.after ?? []) })
    }

    /// Names the record's write in the commit's event (a rowid table's rows are named by
    /// SQLite's hook).
    func name(_ write: RecordWrite, named: Bool, note: inout WriteAnnotation) {
        guard named, !entity.table.primaryKey.isRowid else { return }
        switch (write.current, write.after) {
        case (nil, nil): break
        case (_?, nil): note.note(deleted: write.id)
        case (nil, _?): note.note(inserted: write.id)
        case (_?, _?): note.note(updated: write.id)
        }
    }
}

/// One record's write in an apply: what it holds now (nil: no row), and what it is to hold
/// (nil: deleted).
private struct RecordWrite {
    let id: ObjectID
    let current: [Value]?
    let after: [Value]?
}

private extension StoreError {
    /// True for a refusal by foreign keys alone: a parent not there (or not yet), or a child
    /// still there (or not gone yet).
    var isForeignKeyRefusal: Bool {
        guard case .validationFailed(let failures) = self, !failures.isEmpty else { return false }
        return failures.allSatisfy { failure in
            switch failure.rule {
            case .foreignKey, .referenced: return true
            default: return false
            }
        }
    }
}
