import Foundation
import GRDB

/// Tells whether another process committed to the file since the last check.
///
/// `PRAGMA data_version` changes, on a given connection, whenever *another* connection
/// commits. A dedicated watcher connection sees both our writer's commits and other
/// processes', so a change there alone is ambiguous; the writer connection's own
/// `data_version` changes only for commits made by other connections (our readers never
/// write), so it is exact. A check therefore costs one cheap poll of the watcher, and asks the
/// writer only when something did commit. When the container has no writer (read-only), every
/// commit is another process's.
final class ExternalChangeMonitor: Sendable {
    private struct Versions {
        var watcher: Int64
        var writer: Int64?
    }

    private let watcher: DatabaseQueue
    private let writer: (any DatabaseWriter)?
    /// The store's gate around in-process writes: the writer connection is asked only when
    /// no write of ours holds it, so a check never waits for an import's batch.
    private let gate: WriteGate
    private let versions: Locked<Versions>

    init(path: String, writer: (any DatabaseWriter)?, gate: WriteGate) throws {
        self.gate = gate
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "cardfile.watcher"
        configuration.busyMode = .timeout(1)
        watcher = try DatabaseQueue(path: path, configuration: configuration)
        self.writer = writer
        let initialWatcher = try watcher.inDatabase(Self.dataVersion)
        let initialWriter = try writer?.writeWithoutTransaction(Self.dataVersion)
        versions = Locked(Versions(watcher: initialWatcher, writer: initialWriter))
    }

    /// Returns true when another process has committed since the previous call.
    func check() throws -> Bool {
        try versions.withLock { versions in
            let watched: Int64
            do {
                watched = try watcher.inDatabase(Self.dataVersion)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                // A rollback-journal file while another program writes its commit: that
                // commit is news for the next check, once it is in the file.
                return false
            }
            guard watched != versions.watcher else { return false }
            guard let writer else {
                versions.watcher = watched
                return true
            }
            // One of our writes is under way: ask again at the next check.
            guard gate.tryEnter() else { return false }
            defer { gate.leave() }
            versions.watcher = watched
            let written = try writer.writeWithoutTransaction(Self.dataVersion)
            defer { versions.writer = written }
            return written != versions.writer
        }
    }

    /// Makes the watcher connection close without a checkpoint (the file is gone).
    func closeWithoutCheckpoint() {
        watcher.inDatabase(FileWatch.closeWithoutCheckpoint)
    }

    private static func dataVersion(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }
}
