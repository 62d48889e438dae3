import Foundation

/// History: the journal of this file's saves, and `:undo` / Alt-R, which write a change's
/// values back through a context, so a record changed since meets the three-way rule.
extension Container {
    /// The journal of this file's saves; nil when no history is kept (see
    /// ``StoreOptions/history`` and ``historyProblem``).
    public var history: HistoryJournal? { core.journal }

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
    public func write(_ step: HistoryStep, changedSince: ChangedSince = .ask) throws(StoreError) -> HistoryWrite {
        guard step.isComplete else { throw StoreError.historyNotKept(count: step.recordCount) }
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
        let pending = context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count
        for attempt in 0..<3 {
            do {
                try context.save()
                result.written = pending - (attempt == 0 ? 0 : result.conflicts.count)
                break
            } catch .conflicts(let conflicts) {
                result.conflicts = conflicts
                switch changedSince {
                case .ask: return result
                case .overwrite: for conflict in conflicts { try context.resolveConflict(conflict, by: .overwrite) }
                case .leave: for conflict in conflicts { try context.refresh(conflict.objectID, mergeChanges: false) }
                }
            }
        }
        // Nothing to write (all already as the step leaves them, or left): the entries still
        // count as undone (or redone).
        if pending == 0 || result.written == 0 { core.journal?.append(changes: [], note: note, time: Date(), evenIfEmpty: true) }
        return result
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
