import Foundation

/// The turn to use the writer connection, among this process's writers.
///
/// GRDB's writer queue would make a UI save wait behind an import for as long as the import
/// holds it, with no timeout; and a plain lock lets an importer that releases and retakes it
/// between batches win every time. So: an urgent writer (one with a short busy timeout: the
/// editor's save) waits at most until its deadline and goes before every writer that is not
/// urgent; those wait until no urgent writer does.
final class WriteGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var taken = false
    private var urgentWaiting = 0

    /// Waits for the turn. With a deadline, the wait is urgent and gives up at the deadline
    /// (returns false).
    func enter(urgentUntil deadline: Date?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let deadline else {
            while taken || urgentWaiting > 0 { condition.wait() }
            taken = true
            return true
        }
        urgentWaiting += 1
        defer {
            urgentWaiting -= 1
            condition.broadcast()   // writers held back for this one may go
        }
        while taken {
            if !condition.wait(until: deadline), taken { return false }
        }
        taken = true
        return true
    }

    /// Takes the turn only when it is free and nobody urgent waits; returns whether it did.
    func tryEnter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !taken, urgentWaiting == 0 else { return false }
        taken = true
        return true
    }

    func leave() {
        condition.lock()
        taken = false
        condition.broadcast()
        condition.unlock()
    }
}
