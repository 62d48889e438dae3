import Dispatch
import GRDB
import GRDBSQLite

/// Moves the write-ahead log into the database file from a background connection.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses the threshold, making
/// that one commit take tens of milliseconds; with a person waiting on a save that is a
/// visible stall. The writer's automatic checkpoint is turned off and its WAL hook asks this
/// checkpointer to run a PASSIVE checkpoint on its own connection and queue instead, which
/// never blocks the writer.
final class Checkpointer: @unchecked Sendable {
    private let path: String
    private let threshold: Int32
    private let queue = DispatchQueue(label: "cardfile.checkpointer", qos: .utility)
    // Touched only on `queue`.
    private var connection: DatabaseQueue?
    private let pending = Locked((inFlight: false, lastScheduled: Int32(0)))

    /// Tells whether the path still names the file the container opened: a checkpoint through
    /// a path that names another file would write our log into it.
    private let watch: FileWatch

    init(path: String, thresholdPages: Int, watch: FileWatch) {
        self.path = path
        self.watch = watch
        self.threshold = Int32(max(1, thresholdPages))
    }

    /// Installs the hook on the writer connection (called from `prepareDatabase`).
    func install(on db: Database) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        // The hook's context must stay valid for as long as the connection may call it, which
        // can be after the container is gone: it is a small box, retained for good, that holds
        // the checkpointer weakly.
        let context = Unmanaged.passRetained(HookTarget(self)).toOpaque()
        sqlite3_wal_hook(db.sqliteConnection, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            Unmanaged<HookTarget>.fromOpaque(context).takeUnretainedValue().checkpointer?.walDidGrow(to: frames)
            return SQLITE_OK
        }, context)
    }

    private final class HookTarget {
        weak var checkpointer: Checkpointer?
        init(_ checkpointer: Checkpointer) { self.checkpointer = checkpointer }
    }

    private func walDidGrow(to frames: Int32) {
        let schedule = pending.withLock { state -> Bool in
            if frames < state.lastScheduled { state.lastScheduled = 0 }
            guard !state.inFlight, frames >= state.lastScheduled + threshold else { return false }
            state.inFlight = true
            state.lastScheduled = frames
            return true
        }
        guard schedule else { return }
        queue.async { [self] in
            checkpoint()
            pending.withLock { $0.inFlight = false }
        }
    }

    /// Runs one passive checkpoint on the checkpointer's queue. Errors are ignored: a failed
    /// checkpoint leaves the log as it was, and the next one catches up.
    private func checkpoint() {
        if watch.check() != nil {
            // The writer empties the log into the opened file; this connection must not
            // checkpoint on close.
            try? connection?.inDatabase(FileWatch.closeWithoutCheckpoint)
            return
        }
        do {
            if connection == nil {
                var configuration = Configuration()
                configuration.label = "cardfile.checkpointer"
                configuration.busyMode = .timeout(1)
                let watch = self.watch   // (not self: the connection must not keep its owner alive)
                configuration.prepareDatabase { _ in try watch.refuseIfGone() }
                connection = try DatabaseQueue(path: path, configuration: configuration)
            }
            try connection?.writeWithoutTransaction { db in
                _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
            }
        } catch {
            return
        }
    }
}
