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

    /// Runs the work (any thread), calling `progress` with the records read so far.
    func run(on container: Container, progress: (Int) -> Void) throws(StoreError) -> BulkApplication {
        switch work {
        case .set(let column, let value, let predicate):
            let change = try container.bulkSet(table: table, column: column, to: value, where: predicate, progress: progress)
            return BulkApplication(applied: change, changedSince: [:])
        case .delete(let predicate):
            let change = try container.bulkDelete(from: table, where: predicate, progress: progress)
            return BulkApplication(applied: change, changedSince: [:])
        case .apply(let change, let overwriting):
            return try container.apply(change, overwriting: overwriting)
        }
    }
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
