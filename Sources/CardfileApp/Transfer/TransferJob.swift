import CardfileStore
import Foundation

/// How far a background import or export has come, as the status bar shows it.
public struct TransferProgress: Hashable, Sendable {
    public var rows: Int
    /// Done so far, 0…1; nil when unknown.
    public var fraction: Double?
    public var rowsPerSecond: Double
    public var secondsLeft: Double?
}

/// How a background import or export ended.
public enum TransferResult: Hashable, Sendable {
    case imported(ImportSummary)
    /// `cancelled`: stopped before the end (`rows` read by then, 0 when the read failed after
    /// the cancel); the file was not written.
    case exported(rows: Int, path: String, cancelled: Bool)
    /// It could not run (or could not go on): the message says why.
    case failed(String)
}

/// What a transfer reports to the loop, through the ``Inbox``.
public enum TransferUpdate: Sendable {
    case progress(job: UUID, TransferProgress)
    case finished(job: UUID, TransferResult)
}

/// The import or export the app runs, as the app keeps it.
struct RunningTransfer {
    let job: TransferJob
    /// How far it has come; nil until the first report.
    var progress: TransferProgress?
    /// Set when the person quit while it ran: it was asked to stop, and the app quits when
    /// its last batch is in (``TransferUpdate/finished(job:_:)``) or at `deadline`, whichever
    /// comes first. The screen keeps drawing meanwhile.
    var quitting: (force: Bool, deadline: ContinuousClock.Instant)?

    init(_ job: TransferJob) {
        self.job = job
    }
}

/// An import or export running on a thread of its own while the person keeps browsing and
/// editing. It reports to the loop through the inbox (progress at most ten times a second,
/// then the result); ``cancel()`` asks it to stop after the batch or chunk it is writing.
final class TransferJob: @unchecked Sendable {
    enum Kind: Sendable {
        case importing(table: String, atomic: Bool)
        case exporting(table: String)
    }

    /// Tells this job's messages from those of any other (an app restarted on the same
    /// inbox, as the tests do, may meet a finished job's last message).
    let id = UUID()
    let kind: Kind
    /// The file's name (without its folder), for the status bar.
    let fileName: String
    private let lock = NSLock()
    private var cancelRequested = false
    private let done = DispatchSemaphore(value: 0)

    private init(kind: Kind, path: String) {
        self.kind = kind
        fileName = PathText.name(of: path)
    }

    var isCancelled: Bool { lock.withLock { cancelRequested } }

    /// Asks the work to stop at its next check (between batches or chunks).
    func cancel() {
        lock.withLock { cancelRequested = true }
    }

    /// Waits until the thread has finished (after ``cancel()``, one batch at most).
    /// Returns false when `timeout` passed first.
    @discardableResult
    func waitUntilDone(timeout: Duration) -> Bool {
        guard done.wait(timeout: .now() + timeout.seconds) == .success else { return false }
        done.signal()   // later waits return at once
        return true
    }

    /// Starts importing `path` as `options` say.
    static func startImport(container: Container, path: String, options: ImportOptions, inbox: Inbox, clock: any AppClock) -> TransferJob {
        let job = TransferJob(kind: .importing(table: options.table, atomic: options.atomic), path: path)
        job.start(inbox: inbox, clock: clock) { report in
            do throws(ImportError) {
                let summary = try Importer(container: container, file: path, options: options).run(
                    progress: { progress in
                        report(TransferProgress(rows: progress.rows, fraction: progress.totalBytes > 0 ? progress.fraction : nil,
                                                rowsPerSecond: progress.rowsPerSecond, secondsLeft: progress.secondsLeft))
                    },
                    isCancelled: { job.isCancelled })
                return .imported(summary)
            } catch {
                return .failed(error.description)
            }
        }
        return job
    }

    /// Starts writing `table`'s rows (filtered and sorted like the list) to `output`, which
    /// takes its path's place only when complete: a failed or cancelled export leaves
    /// whatever was there before. `expectedRows` (the list's count) gives the progress a
    /// fraction.
    static func startExport(
        container: Container, table: String, filter: String, sort: [ColumnSort], marks: MarkSet = MarkSet(), format: Exporter.Format, null: String,
        output: OutputFile, expectedRows: Int?, inbox: Inbox, clock: any AppClock
    ) -> TransferJob {
        let path = output.path
        let job = TransferJob(kind: .exporting(table: table), path: path)
        job.start(inbox: inbox, clock: clock) { report in
            let started = clock.now
            let exporter = Exporter(container: container, table: table, filter: filter, sort: sort, marks: marks, format: format, null: null)
            do throws(StoreError) {
                let rows = try exporter.run(
                    progress: { rows in
                        let seconds = (clock.now - started).seconds
                        let fraction = expectedRows.map { $0 > 0 ? min(1, Double(rows) / Double($0)) : 1 }
                        let pace = seconds > 0 ? Double(rows) / seconds : 0
                        let left = expectedRows.flatMap { total in pace > 0 && seconds > 0.2 ? Double(max(0, total - rows)) / pace : nil }
                        report(TransferProgress(rows: rows, fraction: fraction, rowsPerSecond: pace, secondsLeft: left))
                    },
                    isCancelled: { job.isCancelled },
                    { bytes in try output.write(bytes) })
                if job.isCancelled {
                    output.discard()
                    return .exported(rows: rows, path: path, cancelled: true)
                }
                try output.commit()
                return .exported(rows: rows, path: path, cancelled: false)
            } catch {
                output.discard()
                // Asked to stop, it stopped: the read that failed meanwhile (a lock held past
                // the busy wait) changes nothing the person needs to hear.
                if job.isCancelled { return .exported(rows: 0, path: path, cancelled: true) }
                return .failed(error.message)
            }
        }
        return job
    }

    /// Runs `work` on a thread of its own; what it reports reaches the inbox at most ten times
    /// a second, its result once.
    private func start(inbox: Inbox, clock: any AppClock, _ work: @escaping @Sendable (_ report: (TransferProgress) -> Void) -> TransferResult) {
        let id = self.id
        let thread = Thread { [done] in
            var lastReport = clock.now - .seconds(1)
            let result = work { progress in
                let now = clock.now
                guard now - lastReport >= .milliseconds(100) else { return }
                lastReport = now
                inbox.post(.transfer(.progress(job: id, progress)))
            }
            inbox.post(.transfer(.finished(job: id, result)))
            done.signal()
        }
        thread.name = "cardfile transfer"
        thread.start()
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
