import CardfileStore
import Foundation

/// A bulk edit asked for in a list (`:set`, `:delete`, Alt-U, Alt-R), ready to run off the loop.
struct BulkRequest: Sendable {
    enum Work: Sendable {
        case set(column: String, value: Value, where: CardfileStore.Predicate)
        case delete(where: CardfileStore.Predicate)
        /// Undo (`isUndo`) or redo: `change` written over the records unchanged since, and over
        /// `overwriting` (records changed since that the person chose to overwrite).
        case apply(BulkChange, overwriting: Set<ObjectID>)
    }

    let table: String
    let work: Work
    /// What is being done, as the status bar says it while it runs: `setting qty`.
    let activity: String
    /// How many records it is expected to read (the progress's whole), when known.
    let expected: Int?
    /// The marks it was made on (they become the records written).
    let marks: UUID?

    /// Runs the work (any thread), calling `progress` with the records read so far. What the
    /// loop will keep of it (the reverse, the marks) is made here too: over 100,000 records
    /// that is tens of milliseconds the loop must not spend.
    func run(on container: Container, progress: (Int) -> Void) throws(StoreError) -> BulkOutcome {
        let application: BulkApplication
        switch work {
        case .set(let column, let value, let predicate):
            let change = try container.bulkSet(table: table, column: column, to: value, where: predicate, progress: progress)
            application = BulkApplication(applied: change, changedSince: [:])
        case .delete(let predicate):
            let change = try container.bulkDelete(from: table, where: predicate, progress: progress)
            application = BulkApplication(applied: change, changedSince: [:])
        case .apply(let change, let overwriting):
            application = try container.apply(change, overwriting: overwriting, progress: progress)
        }
        var written: MarkSet?
        if case .set = work, marks != nil {
            written = MarkSet()
            written?.replace(withKeysOf: application.applied.records)
        }
        return BulkOutcome(application: application, reverse: application.applied.reversed, written: written)
    }
}

/// What a bulk edit did, with what the loop keeps of it.
struct BulkOutcome: Sendable {
    let application: BulkApplication
    /// What undoes the part written (or, after an undo, redoes it).
    let reverse: BulkChange
    /// After `:set` on marks: marks naming exactly the records written.
    let written: MarkSet?
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
