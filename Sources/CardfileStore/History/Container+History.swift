import Foundation

/// History: the journal of this file's saves, and `:undo` / Alt-R, which write a change's
/// values back through a context, so a record changed since meets the three-way rule.
extension Container {
    /// The journal of this file's saves; nil when no history is kept (see
    /// ``StoreOptions/history`` and ``historyProblem``).
    public var history: (any HistoryKeeping)? { core.journal ?? core.engineJournal }

    /// What to do with records that changed since the change being undone or redone.
    public enum ChangedSince: Sendable {
        /// Write nothing, and report them (``HistoryWrite/conflicts``).
        case ask
        /// Write over them.
        case overwrite
        /// Write the others and leave them as they are.
        case leave
    }

    /// What ``write(_:changedSince:)`` did.
    public struct HistoryWrite: Sendable {
        /// Records written.
        public var written: Int = 0
        /// Records changed since, field for field against the change (Original: what the
        /// change wrote; Mine: what undoing it writes; Theirs: what the file holds now). With
        /// ``ChangedSince/ask`` and any of these, nothing was written.
        public var conflicts: [MergeConflict] = []
        /// Records whose fields were to be put back but that were deleted since: left alone.
        public var gone: [ObjectID] = []
        /// Records to bring back whose key another record holds now, with other values:
        /// left alone unless overwriting.
        public var taken: [ObjectID] = []
        /// For a large step (written in bulk, see ``Container/write(_:changedSince:inContextAtMost:)``):
        /// the records changed since, compared field by field with what the step expects.
        /// Nothing was written with ``ChangedSince/ask``.
        public var changedSince: [ObjectID] = []

        /// Every record changed since, whichever way the step was written.
        public var recordsChangedSince: [ObjectID] { conflicts.map(\.objectID) + changedSince }

        public init() {}
    }

    /// Writes a history step (``HistoryJournal/nextUndo(table:)`` or ``HistoryJournal/nextRedo(table:)``)
    /// in one transaction, journaled as an undo or redo of its entries.
    ///
    /// Each record is written only where it still holds what the step expects: a field
    /// changed since to a third value is a conflict (see ``ChangedSince``), a field changed
    /// since that the step does not touch is kept, and a record already as the step would
    /// leave it is not written.
    /// - Throws: ``StoreError/historyNotKept`` for a step whose records were not kept, and
    ///   the store's errors for the write.
    ///
    /// A step of more than `inContextAtMost` records (a bulk edit's, an import's) is written
    /// as bulk changes instead, table by table (see ``apply(_:overwriting:namingAtMost:progress:)``):
    /// a context holding 125,000 records took 8 s where this takes well under one.
    public func write(_ step: HistoryStep, changedSince: ChangedSince = .ask, inContextAtMost: Int = 200) throws(StoreError) -> HistoryWrite {
        guard step.isComplete else { throw StoreError.historyNotKept(count: step.recordCount) }
        if step.changes.count > inContextAtMost || bringsBackNumbers(step) { return try writeInBulk(step, changedSince: changedSince) }
        let context = newBackgroundContext(name: step.isRedo ? "redo" : "undo")
        let note = HistoryNote(source: step.isRedo ? .redo : .undo, undoing: step.entries.map(\.id))
        context.historyNote.withLock { $0 = note }
        var result = HistoryWrite()
        for change in step.changes {
            switch try stage(change, in: context, overwriting: changedSince == .overwrite) {
            case .staged, .alreadyThere: break
            case .gone: result.gone.append(change.id)
            case .taken: result.taken.append(change.id)
            }
        }
        func pending() -> Int { context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count }
        var last: [MergeConflict] = []
        // (A record changed again between two tries meets the next; three tries, then give up.)
        for _ in 0..<3 {
            let writing = pending()
            do {
                try context.save()
            } catch .conflicts(let conflicts) {
                last = conflicts
                switch changedSince {
                case .ask:
                    result.conflicts = conflicts
                    return result
                case .overwrite: for conflict in conflicts { try context.resolveConflict(conflict, by: .overwrite) }
                case .leave:
                    result.conflicts += conflicts
                    for conflict in conflicts { try context.refresh(conflict.objectID, mergeChanges: false) }
                }
                continue
            }
            result.written = writing
            // Nothing was written (all as the step leaves them already, or left): the save
            // journaled nothing, and the entries still count as undone (or redone).
            if writing == 0 { try core.journalWithoutWriting(note) }
            return result
        }
        throw StoreError.conflicts(last)
    }

    /// Whether `step` brings a row back with a number only the database may write (an
    /// identity column `GENERATED ALWAYS`, key or not): a context refuses to set one, and the
    /// bulk write keeps it (`OVERRIDING SYSTEM VALUE`).
    private func bringsBackNumbers(_ step: HistoryStep) -> Bool {
        step.changes.contains { change in
            guard change.kind == .insert, let table = core.schema.table(named: change.id.table) else { return false }
            return change.fields.contains { field in table.column(named: field.name).map { !$0.isWritable && $0.isNumberedByDatabase } ?? false }
        }
    }

    /// A large step as bulk changes, one per table and shape (whole rows; the same fields),
    /// in one transaction, each record written where it still holds what the step expects.
    /// With ``ChangedSince/ask`` and records changed since, nothing is written.
    private func writeInBulk(_ step: HistoryStep, changedSince: ChangedSince) throws(StoreError) -> HistoryWrite {
        var groups: [(key: String, change: BulkChange)] = []
        for change in step.changes {
            let whole = change.kind != .update
            let columns = change.fields.map(\.name)
            let key = "\(change.id.table)\u{1}\(whole)\u{1}\(columns.joined(separator: "\u{1}"))"
            let sides = BulkChange.Sides(before: change.kind == .insert ? nil : change.fields.map { $0.old ?? .null },
                                         after: change.kind == .delete ? nil : change.fields.map { $0.new ?? .null })
            if let index = groups.lastIndex(where: { $0.key == key }) {
                groups[index].change.records[change.id] = sides
            } else {
                groups.append((key, BulkChange(table: change.id.table, kind: .history(wholeRows: whole), columns: columns,
                                               records: [change.id: sides], isUndo: !step.isRedo)))
            }
        }
        var result = HistoryWrite()
        var overwriting: [ObjectID: [Value]?] = [:]
        if changedSince != .leave {
            // Which records changed since, read without writing: asked about, or overwritten
            // as they are now.
            for (_, change) in groups { overwriting.merge(try changedSinceRecords(of: change)) { $1 } }
            if changedSince == .ask, !overwriting.isEmpty {
                result.changedSince = Array(overwriting.keys)
                return result
            }
        }
        let note = HistoryNote(source: step.isRedo ? .redo : .undo, undoing: step.entries.map(\.id))
        // (One transaction, journaled as the undo or redo even when it writes nothing.)
        for done in try apply(groups.map(\.change), overwriting: overwriting, history: note) {
            result.written += done.applied.count
            result.changedSince += done.changedSince.keys
        }
        return result
    }

    /// The records of `change` that hold something other than its `before` now: what
    /// ``apply(_:overwriting:namingAtMost:progress:)`` would leave alone, read without writing.
    private func changedSinceRecords(of change: BulkChange) throws(StoreError) -> [ObjectID: [Value]?] {
        let entity = try core.entity(change.table)
        let schema = entity.table
        let keys = change.records.keys.compactMap(\.primaryKeyValues)
        return try storeErrors(path: core.path) {
            try core.session(for: entity) { session in
                var now: [ObjectID: [Value]] = [:]
                for start in stride(from: 0, to: keys.count, by: Self.keyChunk) {
                    let chunk = Array(keys[start..<min(start + Self.keyChunk, keys.count)])
                    for (id, values) in try Self.readValues(session, schema: schema, columns: change.columns, where: schema.keySetSQL(chunk)) { now[id] = values }
                }
                var changed: [ObjectID: [Value]?] = [:]
                for (id, sides) in change.records where now[id] != sides.before { changed[id] = .some(now[id]) }
                return changed
            }
        }
    }

    /// What ``stage(_:in:overwriting:)`` made of one record's change.
    public enum Staging: Sendable {
        /// Set as edits in the context, for its save to write.
        case staged
        /// The record already is as the change leaves it.
        case alreadyThere
        /// The record to change was deleted since.
        case gone
        /// The record to bring back has its key held by another record now.
        case taken
    }

    /// Sets one record's change (from a ``HistoryStep``, or a version `:history` restores) as
    /// edits in `context`, each starting from the value the change replaces, so the
    /// context's save checks the store against it (see
    /// ``ObjectContext/update(_:values:startingFrom:)``).
    public func stage(_ change: RecordedChange, in context: ObjectContext, overwriting: Bool = false) throws(StoreError) -> Staging {
        let exists = try context.record(for: change.id)
        switch change.kind {
        case .update:
            guard let current = exists, current.status != .deleted else { return .gone }
            var values: [String: Value] = [:]
            var bases: [String: Value] = [:]
            for field in change.fields {
                guard let new = field.new else { continue }
                values[field.name] = new
                bases[field.name] = overwriting ? current[field.name] : field.old
            }
            if values.allSatisfy({ current[$0.key] == $0.value }) { return .alreadyThere }
            try context.update(change.id, values: values, startingFrom: bases)
            return .staged
        case .delete:
            guard exists != nil else { return .alreadyThere }
            var expected: [String: Value] = [:]
            if !overwriting {
                for field in change.fields { if let old = field.old { expected[field.name] = old } }
            }
            try context.delete(change.id, expecting: expected)
            return .staged
        case .insert:
            var values: [String: Value] = [:]
            for field in change.fields { if let new = field.new { values[field.name] = new } }
            if let current = exists {
                if values.allSatisfy({ current[$0.key] == $0.value }) { return .alreadyThere }
                guard overwriting else { return .taken }
                try context.update(change.id, values: values)
                return .staged
            }
            _ = try context.insert(into: change.id.table, values: values)
            return .staged
        }
    }
}
