import CardfileStore
import Foundation

/// A bulk edit asked for in a list (`:set`, `:delete`, Alt-U, Alt-R), ready to run off the loop.
struct BulkRequest: Sendable {
    enum Work: Sendable {
        /// `:set` on the records `marks` mark (the marked ones, or the selected one).
        case set(column: String, value: Value, marks: MarkSet)
        case delete(marks: MarkSet)
        /// Undo (`isUndo`) or redo: `change` written over the records unchanged since. With
        /// `overwriting`, only over those records, each still holding what it held when the
        /// person chose to overwrite it.
        case apply(BulkChange, overwriting: [ObjectID: [Value]?])
        /// Alt-U / Alt-R with history kept: a journaled change written back (or again),
        /// doing as `changedSince` says with records changed since.
        case history(HistoryStep, changedSince: Container.ChangedSince)
    }

    let table: String
    let work: Work
    /// What is being done, as the status bar says it while it runs: `setting qty`.
    let activity: String
    /// How many records it is expected to read (the progress's whole), when known.
    let expected: Int?
    /// The list's marks it was made on, and their version then: they become the records
    /// written, unless they were changed meanwhile.
    var marks: (id: UUID, version: Int)?
    /// For an overwrite: the undo or redo it completes made a history entry to add to (false:
    /// it wrote nothing, so the overwrite makes its own).
    var extendsLastEntry = false

    /// Runs the work (any thread), calling `progress` with the records read so far. What the
    /// loop keeps of it (the reverse, the marks, the records to offer to overwrite) is made
    /// here too, as are the marks' conditions: over 100,000 records each is tens of
    /// milliseconds the loop must not spend.
    func run(on container: Container, progress: (Int) -> Void) throws(StoreError) -> BulkOutcome {
        let application: BulkApplication
        guard let schema = container.schema.table(named: table) else { throw StoreError.noSuchTable(table) }
        switch work {
        case .set(let column, let value, let marks):
            let change = try container.bulkSet(table: table, column: column, to: value, where: marks.predicate(for: schema), progress: progress)
            application = BulkApplication(applied: change, changedSince: [:])
        case .delete(let marks):
            let change = try container.bulkDelete(from: table, where: marks.predicate(for: schema), progress: progress)
            application = BulkApplication(applied: change, changedSince: [:])
        case .apply(let change, let overwriting):
            let narrowed = overwriting.isEmpty ? change : change.only(overwriting.keys)
            application = try container.apply(narrowed, overwriting: overwriting, progress: progress)
        case .history(let step, let changedSince):
            // (Written through a context, record by record: no bulk change to keep.)
            let written = try container.write(step, changedSince: changedSince)
            let none = BulkChange(table: table, kind: .delete, columns: [], records: [:])
            return BulkOutcome(application: BulkApplication(applied: none, changedSince: [:]), reverse: none, written: nil, offered: [:], history: written)
        }
        var written: MarkSet?
        if case .set = work, marks != nil, MarkSet.canName(application.applied.records.keys, in: schema) {
            written = MarkSet()
            written?.replace(withKeysOf: application.applied.records)
        }
        // What can be overwritten of what changed since: not a record a `:set` lost.
        let offered = application.applied.kind == .delete ? application.changedSince : application.changedSince.filter { $0.value != nil }
        return BulkOutcome(application: application, reverse: application.applied.reversed, written: written, offered: offered, history: nil)
    }
}

/// What a bulk edit did, with what the loop keeps of it.
struct BulkOutcome: Sendable {
    let application: BulkApplication
    /// What undoes the part written (or, after an undo, redoes it).
    let reverse: BulkChange
    /// After `:set` on marks: marks naming exactly the records written (nil when they cannot
    /// be named, as a hundred thousand blob keys cannot).
    let written: MarkSet?
    /// The records changed since that can be overwritten, with what they hold now.
    let offered: [ObjectID: [Value]?]
    /// For ``BulkRequest/Work/history(_:changedSince:)``: what the history's write did.
    let history: Container.HistoryWrite?
}

/// The bulk edit running now.
struct RunningBulk {
    let request: BulkRequest
    /// Records read so far.
    var read = 0

    /// The status bar's words: `setting qty 45%`.
    var statusText: String {
        guard let expected = request.expected, expected > 0, read > 0 else { return "\(request.activity)…" }
        return "\(request.activity) \(min(99, read * 100 / expected))%"
    }
}
