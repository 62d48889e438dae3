import GRDB
import GRDBSQLite

/// A flag a background job checks to stop early. Set it from any thread.
public final class Cancellation: Sendable {
    private let flag = Locked(false)

    public init() {}

    public var isCancelled: Bool { flag.value }

    public func cancel() { flag.withLock { $0 = true } }

    /// What a job throws when it stopped because it was cancelled (not because it failed).
    package struct Stopped: Error {
        package init() {}
    }

    /// Runs `body` on `db` with SQLite's progress handler asking this flag every few thousand
    /// steps of its virtual machine: once cancelled, the statement running stops within
    /// microseconds with `SQLITE_INTERRUPT`, even inside a sort or a recursive query.
    func interrupting<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        let box = Unmanaged.passRetained(self)
        sqlite3_progress_handler(db.sqliteConnection, 10_000, { context in
            guard let context else { return 0 }
            return Unmanaged<Cancellation>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
        }, box.toOpaque())
        defer {
            sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil)
            box.release()
        }
        return try body()
    }
}
