import CardfileStore
import Foundation

/// Asks the store, off the loop, whether the database file was replaced or another process
/// committed, merges such a commit into the view context there, and reports back to the loop
/// as an errand's result (``ErrandResult``).
///
/// The loop asks when a check is due (every `interval` on the app's clock, see ``nextCheck``)
/// and never waits for the answer; a check still running when the next one falls due is not
/// doubled, and none runs once the file is gone. Nothing is posted when nothing happened, so
/// an idle check costs the loop one dispatch.
///
/// The merge usually runs on the errands' queue while the loop goes on drawing. The view
/// context is internally synchronised: a loop call that needs it meanwhile waits for the
/// merge, and one that reaches it first merges it itself, exactly once. (That happens often:
/// the live list hears the commit while it is published, before this merge starts, and its
/// refresh reads the view context.)
final class OutsideWatch: @unchecked Sendable {
    private let container: Container
    private let view: ObjectContext
    private let errands: Errands
    private let lock = NSLock()
    private var checking = false
    private let interval: Duration
    private var next: ContinuousClock.Instant
    /// Set once the file is gone: nothing at its path is this database's any more.
    private var stopped = false

    init(container: Container, view: ObjectContext, errands: Errands, interval: Duration, firstCheck: ContinuousClock.Instant) {
        self.container = container
        self.view = view
        self.errands = errands
        self.interval = interval
        self.next = firstCheck
    }

    /// When the loop should call ``checkIfDue(now:)`` next; nil once the file is gone.
    var nextCheck: ContinuousClock.Instant? {
        lock.withLock { stopped ? nil : next }
    }

    /// Starts a check when one is due, unless one is running or the file is gone. Returns at
    /// once.
    func checkIfDue(now: ContinuousClock.Instant) {
        let start = lock.withLock {
            guard !stopped, now >= next else { return false }
            next = now + interval
            guard !checking else { return false }
            checking = true
            return true
        }
        guard start else { return }
        errands.run { [self] in
            defer { lock.withLock { checking = false } }
            return work().map { .outside($0) }
        }
    }

    /// True while a check runs.
    var isChecking: Bool { lock.withLock { checking } }

    private func work() -> OutsideReport? {
        if let gone = container.checkFile() {
            lock.withLock { stopped = true }
            return .fileGone(gone)
        }
        do {
            guard try container.checkForExternalChanges() else { return nil }
            try view.processPendingChanges()
            return .changed
        } catch {
            return .failed(error)
        }
    }
}

/// What a check of the file found (``OutsideWatch``).
enum OutsideReport: Sendable {
    /// Another process committed; the view context has merged it.
    case changed
    /// The file at the database's path was replaced or deleted (reported once).
    case fileGone(FileGone)
    /// The check or the merge failed (a corrupt page, an I/O error).
    case failed(StoreError)
}
