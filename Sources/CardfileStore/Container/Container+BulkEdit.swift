import GRDB

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
        let keys = schema.primaryKey.keyExpressions
        let assignment = assignments.joined(separator: ", ")
        return try bulkWrite(entity: entity) { db, note in
            let before = try Self.readValues(db, schema: schema, columns: [name], where: condition, progress: progress)
            guard let first = before.first else { return BulkChange(table: schema.name, kind: .set(column: name, value: value), columns: [name], records: [:]) }
            let failures = Validator.validateBulkValue(value, field: field, id: first.id, entity: entity)
            if !failures.isEmpty { throw StoreError.validationFailed(failures) }
            // Every record matched is written (the same snapshot, in one transaction). A
            // rowid table's rows are named by SQLite's hook; others are named here.
            let sql = "UPDATE \(schema.quotedName) SET \(assignment) WHERE \(condition.sql)"
            do {
                try db.execute(sql: sql, arguments: ([value] + condition.arguments).statementArguments)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                // Which record breaks it: each is tried alone, and every try is undone.
                let one = "UPDATE \(schema.quotedName) SET \(assignment) WHERE \(schema.keyMatchSQL)"
                for (id, _) in before {
                    do {
                        try db.inSavepoint {
                            try db.execute(sql: one, arguments: ([value] + (id.primaryKeyValues ?? [])).statementArguments)
                            return .rollback
                        }
                    } catch let single as DatabaseError where single.resultCode == .SQLITE_CONSTRAINT {
                        throw StoreError.validationFailed(ConstraintMapper.failures(
                            for: single, id: id, entity: entity, operation: .write(values: Self.row(field, value, width: schema.columns.count)),
                            db: db, schema: core.schema))
                    }
                }
                throw error
            }
            // The same value in the same column is stored alike in every record (its type as
            // the column's affinity makes it): read once, from the first record.
            let stored = try Value(DatabaseValue.fetchOne(
                db, sql: "SELECT \(name.quotedIdentifier) FROM \(schema.quotedName) WHERE \(schema.keyMatchSQL)",
                arguments: (first.id.primaryKeyValues ?? []).statementArguments) ?? .null)
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
        let keys = schema.primaryKey.keyExpressions
        return try bulkWrite(entity: entity) { db, note in
            let before = try Self.readValues(db, schema: schema, columns: columns, where: condition, progress: progress)
            var records: [ObjectID: BulkChange.Sides] = [:]
            records.reserveCapacity(before.count)
            for (id, values) in before { records[id] = BulkChange.Sides(before: values, after: nil) }
            let named = before.count <= naming
            if !named { note.invalidated.insert(schema.name) }
            let sql = "DELETE FROM \(schema.quotedName) WHERE \(condition.sql) RETURNING \(keys.joined(separator: ", "))"
            do {
                for row in try db.makeStatement(sql: sql).fetchValueRows(arguments: condition.arguments) {
                    if named, !schema.primaryKey.isRowid { note.note(deleted: entity.objectID(fromKey: row[...])) }
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                let one = "DELETE FROM \(schema.quotedName) WHERE \(schema.keyMatchSQL)"
                for (id, _) in before {
                    do {
                        try db.inSavepoint {
                            try db.execute(sql: one, arguments: (id.primaryKeyValues ?? []).statementArguments)
                            return .rollback
                        }
                    } catch let single as DatabaseError where single.resultCode == .SQLITE_CONSTRAINT {
                        throw StoreError.validationFailed(ConstraintMapper.failures(
                            for: single, id: id, entity: entity, operation: .delete(key: id.primaryKeyValues ?? []), db: db, schema: core.schema))
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
    /// come back whatever their order. Undo is
    /// `apply(change.reversed)`; redo applies the undo's reverse. `progress` is called with
    /// the number of records dealt with so far.
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
        var plans: [(change: BulkChange, entity: Entity, fields: [Int], update: String, insert: String, delete: String)] = []
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
            let quoted = change.columns.map(\.quotedIdentifier)
            var assignments = quoted.map { "\($0) = ?" }
            if let version = entity.versionColumn, !fields.contains(version) {
                let name = schema.quotedColumnNames[version]
                assignments.append("\(name) = coalesce(\(name), 0) + 1")
            }
            plans.append((change, entity, fields,
                          "UPDATE \(schema.quotedName) SET \(assignments.joined(separator: ", ")) WHERE \(schema.keyMatchSQL)",
                          "INSERT INTO \(schema.quotedName) (\(quoted.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: quoted.count).joined(separator: ", ")))",
                          "DELETE FROM \(schema.quotedName) WHERE \(schema.keyMatchSQL)"))
        }
        return try bulkWrite(entity: try bulkEntity(first.table)) { db, note in
            note.history = history
            // (Undone until the commit, by SQLite: a child may come back before its parent.)
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            var results: [BulkApplication] = []
            var visited = 0
            for (change, entity, fields, update, insert, delete) in plans {
                let schema = entity.table
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
                    for (id, values) in try Self.readValues(db, schema: schema, columns: change.columns, where: condition) { now[id] = values }
                }
                var result = BulkApplication(applied: change.only([]), changedSince: [:])
                let named = change.count <= naming
                if !named { note.invalidated.insert(schema.name) }
                let statements = (update: try db.makeStatement(sql: update), insert: try db.makeStatement(sql: insert), delete: try db.makeStatement(sql: delete))
                let isWholeRows = change.kind == .delete || change.kind == .history(wholeRows: true)
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
                    let key = id.primaryKeyValues ?? []
                    // (Through GRDB, not SQLite's C API directly: that saves a tenth of the time of
                    // an undo of 100,000 records, but GRDB then relays none of SQLite's hook, and
                    // what a trigger or a cascade changes in other tables would go unnamed.)
                    do {
                        switch (current, sides.after) {
                        case (nil, nil): break
                        case (_?, nil):
                            try statements.delete.execute(arguments: key.statementArguments)
                            if named, !schema.primaryKey.isRowid { note.note(deleted: id) }
                        case (nil, let values?):
                            try statements.insert.execute(arguments: values.statementArguments)
                            if named, !schema.primaryKey.isRowid { note.note(inserted: id) }
                        case (_?, let values?):
                            try statements.update.execute(arguments: (values + key).statementArguments)
                            if named, !schema.primaryKey.isRowid { note.note(updated: id) }
                        }
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                        var row = Array(repeating: Value.null, count: schema.columns.count)
                        for (field, value) in zip(fields, sides.after ?? []) where field >= 0 { row[field] = value }
                        throw StoreError.validationFailed(ConstraintMapper.failures(
                            for: error, id: id, entity: entity, operation: sides.after == nil ? .delete(key: key) : .write(values: row),
                            db: db, schema: core.schema))
                    }
                    result.applied.records[id] = BulkChange.Sides(before: current, after: sides.after)
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
    private func bulkWrite<T>(entity: Entity, _ body: (Database, inout WriteAnnotation) throws -> T) throws(StoreError) -> T {
        try storeErrors(path: core.path) {
            do {
                return try core.write(origin: .batch, body)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                let failures = try core.read { db in
                    ConstraintMapper.failures(for: error, id: ObjectID(table: entity.name, primaryKey: []), entity: entity,
                                              operation: .write(values: []), db: db, schema: core.schema)
                }
                throw StoreError.validationFailed(failures)
            }
        }
    }

    /// The values of `columns` of each row matching `condition`, by record, in the table's
    /// key order of reading.
    static func readValues(_ db: Database, schema: TableSchema, columns: [String], where condition: (sql: String, arguments: [Value]),
                                   progress: (Int) -> Void = { _ in }) throws -> [(id: ObjectID, values: [Value])] {
        let keys = schema.primaryKey.keyExpressions
        let sql = "SELECT \((keys + columns.map(\.quotedIdentifier)).joined(separator: ", ")) FROM \(schema.quotedName) WHERE \(condition.sql)"
        var found: [(id: ObjectID, values: [Value])] = []
        let statement = try db.makeStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: condition.arguments.statementArguments)
        let handle = statement.sqliteStatement
        let (width, total) = (CInt(keys.count), CInt(keys.count + columns.count))
        // (Read straight from SQLite's row: a GRDB row's values, boxed, cost twice the time.)
        while try cursor.next() != nil {
            var key: [Value] = []
            key.reserveCapacity(Int(width))
            for index in 0..<width { key.append(Value(statement: handle, index: index)) }
            var values: [Value] = []
            values.reserveCapacity(columns.count)
            for index in width..<total { values.append(Value(statement: handle, index: index)) }
            found.append((ObjectID(table: schema.name, primaryKey: key), values))
            if found.count % progressStep == 0 { progress(found.count) }
        }
        return found
    }

    /// Every column an insert can write back, the rowid first when the table has no declared
    /// key (so a deleted row comes back under its own rowid).
    private static func insertableColumns(of schema: TableSchema) -> [String] {
        let columns = schema.columns.filter(\.isWritable).map(\.name)
        if case .implicitRowid(let accessor) = schema.primaryKey { return [accessor] + columns }
        return columns
    }

    /// A value as a read gives it back: an integer written to a REAL column is stored as a real.
    private static func asStored(_ value: Value, column: ColumnDescription) -> Value {
        if column.affinity == .real, case .integer(let int) = value { return .real(Double(int)) }
        return value
    }

    /// A row of `width` NULLs with `value` at `field` (what a constraint message is read against).
    private static func row(_ field: Int, _ value: Value, width: Int) -> [Value] {
        var row = Array(repeating: Value.null, count: width)
        row[field] = value
        return row
    }
}
