import CardfileStore
import Foundation

/// Work the app sends off the loop, and the results it waits for: the check of the file
/// (``OutsideWatch``), the names of referenced records beside a form's fields, and writing the
/// remembered columns.
///
/// Each errand is counted from ``begin()`` until the app has taken its result (or it finished
/// with nothing to say), so a test can wait until every errand's result is in the inbox
/// (``waitUntilReported()``); the loop itself never waits.
final class Errands: @unchecked Sendable {
    private let inbox: Inbox
    private let condition = NSCondition()
    /// Errands begun and not yet finished.
    private var running = 0
    /// Results posted and not yet taken by the app.
    private var undelivered = 0
    /// A serial queue for errands that must keep their order (file writes, checks).
    let queue = DispatchQueue(label: "cardfile.errands", qos: .userInitiated)
    /// A queue for reads that may take long (a count over a million rows), so they never hold
    /// up the quick errands behind them.
    private let slowQueue = DispatchQueue(label: "cardfile.errands.slow", qos: .utility)
    /// Where statements typed on the SQL screen run: one may run for ever until cancelled,
    /// holding up nothing else.
    private let statementQueue = DispatchQueue(label: "cardfile.errands.statements", qos: .userInitiated)

    init(inbox: Inbox) {
        self.inbox = inbox
    }

    /// Counts an errand that is about to start. Call ``finish(_:)`` once when it ends.
    func begin() {
        condition.withLock { running += 1 }
    }

    /// Ends an errand, posting its result (nil: nothing to tell the app). Any thread.
    func finish(_ kind: ErrandResult.Kind?) {
        condition.withLock {
            if kind != nil { undelivered += 1 }
        }
        if let kind { inbox.post(.errand(ErrandResult(kind: kind, errands: self))) }
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }

    /// Runs `work` as an errand: on ``queue``, or on a queue of its own when it is `slow`.
    func run(slow: Bool = false, _ work: @escaping @Sendable () -> ErrandResult.Kind?) {
        begin()
        (slow ? slowQueue : queue).async { [self] in finish(work()) }
    }

    /// Runs a statement of the SQL screen on a queue of its own. It is not waited for by
    /// ``waitUntilReported()`` while it runs (it may never end until cancelled); its result is,
    /// once posted.
    func runStatement(_ work: @escaping @Sendable () -> ErrandResult.Kind) {
        statementQueue.async { [self] in report(work()) }
    }

    /// Posts news of an errand still running (its progress); it ends with ``finish(_:)``.
    func report(_ kind: ErrandResult.Kind) {
        condition.withLock { undelivered += 1 }
        inbox.post(.errand(ErrandResult(kind: kind, errands: self)))
    }

    /// Lets go of `value` on the slow queue, a moment from now, so that if it is the last
    /// reference, freeing it (a bulk change of 100,000 records: tens of milliseconds) happens
    /// there rather than on the loop that hands it over.
    func release<T: Sendable>(_ value: T) {
        slowQueue.asyncAfter(deadline: .now() + .milliseconds(500)) { withExtendedLifetime(value) {} }
    }

    /// The app took a result from the inbox.
    func delivered() {
        condition.withLock { undelivered -= 1 }
    }

    /// Blocks until every running errand has posted its result (tests and benchmarks).
    /// Returns false when none was running and no result waits for the app: then the app has
    /// seen everything its errands found.
    func waitUntilReported() -> Bool {
        condition.withLock {
            guard running > 0 || undelivered > 0 else { return false }
            while running > 0 { condition.wait() }
            return true
        }
    }
}

/// What an errand found, for the loop (``Message/errand(_:)``).
public struct ErrandResult: Sendable {
    enum Kind: Sendable {
        /// The check of the file (``OutsideWatch``).
        case outside(OutsideReport)
        /// The name of the record a form's field references, looked up for `value` (the form
        /// is named by its editor context).
        case label(form: ContextIdentity, field: String, value: Value, label: Reference.Label?)
        /// Remembering a list's columns failed: why.
        case columnsNotRemembered(String)
        /// How many records a list's marks (named by their id) mark, counted for `token`;
        /// nil when the count failed.
        case marked(marks: UUID, count: MarkedCount?, token: Int)
        /// A column's statistics (`I`) over `scope`, in words.
        case statistics(table: String, column: String, scope: String, fingerprint: String, Result<ColumnStatistics, StoreError>)
        /// A column's frequency table (`F`) over `scope`, in words.
        case frequencies(table: String, column: String, scope: String, fingerprint: String, Result<ColumnFrequencies, StoreError>)
        /// The number of distinct values of a frequency table that left some out (nil: the
        /// count failed).
        case distinctValues(table: String, column: String, count: Int?)
        /// The marked records `Y` copies (the list's columns), as TSV or JSON lines.
        case markedRecords(columns: [String], json: Bool, Result<[[Value]], StoreError>)
        /// A table's report (`:schema`).
        case tableReport(Result<TableReport, StoreError>)
        /// A bulk edit has read this many records.
        case bulkProgress(read: Int)
        /// A bulk edit ended.
        case bulkDone(BulkRequest, Result<BulkOutcome, StoreError>)
        /// A statement of the SQL screen was compiled and counted: a result, or a write to ask about.
        case statement(Result<StatementOutcome, StoreError>)
        /// A write of the SQL screen ran: the rows it changed (nil: a schema statement).
        case statementWritten(SQLStatement, Result<Int?, StoreError>)
        /// The SQL screen's history could not be written: why.
        case historyNotKept(String)
        /// `:index` ended: the index's name, and how long it took.
        case indexCreated(table: String, column: String, Result<String, StoreError>, Duration)
    }

    let kind: Kind
    /// Whose errand this was.
    let errands: Errands
}
