import CardfileStore
import Dispatch
import Foundation

/// Asks the store, off the loop, whether the database file was replaced or another process
/// committed, merges such a commit into the view context there, and reports back to the loop
/// as a ``Message/outside(_:)``.
///
/// The loop decides when to ask (its poll deadline, on the app's clock) and never waits for
/// the answer; a check still running when the next one falls due is not doubled. Nothing is
/// posted when nothing happened, so an idle check costs the loop one dispatch.
///
/// The merge runs on the watch's queue while the loop goes on drawing. The view context is
/// internally synchronised: a loop call that needs it meanwhile waits for the merge, and one
/// that reaches it first (a live query hearing the commit) merges it itself, exactly once.
final class OutsideWatch: @unchecked Sendable {
    private let container: Container
    private let view: ObjectContext
    private let inbox: Inbox
    /// Where checks run, one at a time (internal: a test holds it to stand for a stuck check).
    let queue = DispatchQueue(label: "cardfile.outside-watch", qos: .userInitiated)
    private let lock = NSLock()
    private var running = false
    /// Reports posted and not yet taken by the app (``delivered()``).
    private var undelivered = 0
    /// Set once the file is gone: nothing at its path is this database's any more.
    private var stopped = false

    init(container: Container, view: ObjectContext, inbox: Inbox) {
        self.container = container
        self.view = view
        self.inbox = inbox
    }

    /// Starts a check unless one is running or the file is gone. Returns at once.
    func check() {
        let start = lock.withLock {
            guard !running, !stopped else { return false }
            running = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            // The report is posted before `running` clears: whoever sees the check ended
            // finds its report in the inbox.
            if let report = work() {
                lock.withLock { undelivered += 1 }
                inbox.post(.outside(report))
            }
            lock.withLock { running = false }
        }
    }

    /// The app took a report from the inbox.
    func delivered() {
        lock.withLock { undelivered -= 1 }
    }

    /// True while a check runs or its report waits in the inbox.
    var isBusy: Bool { lock.withLock { running || undelivered > 0 } }

    /// Blocks until the running check, if any, has posted its report (tests and benchmarks:
    /// the loop never waits). Returns false when no check ran and no report waits for the app.
    func waitUntilIdle() -> Bool {
        guard isBusy else { return false }
        queue.sync {}
        return true
    }

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
public enum OutsideReport: Sendable {
    /// Another process committed; the view context has merged it.
    case changed
    /// The file at the database's path was replaced or deleted (reported once).
    case fileGone(FileGone)
    /// The check or the merge failed (a corrupt page, an I/O error).
    case failed(StoreError)
}
