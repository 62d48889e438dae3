import CSQLiteSupport
import Foundation
import GRDB

/// Notices when the path of an open database no longer names the file the container opened:
/// another file moved over it (`mv other.sqlite db.sqlite`), or it was deleted.
///
/// SQLite opens the WAL and shared-memory files by path, beside whatever file the path names
/// now. A writer that went on would leave frames in a log the newcomer then reads as its own
/// (corrupting it or mixing two databases), or in an orphan log a later file of the same
/// name picks up. So once the file is gone, nothing more is written: the store refuses writes,
/// moves the log into the file it opened (which still exists for as long as it is open) and
/// empties it, and its connections close without touching the log again. Every pending change
/// stays in the contexts, to be saved elsewhere.
final class FileWatch: Sendable {
    private struct State {
        var opened: FileIdentity?
        var gone: FileGone?
        /// The log has been emptied into the opened file and closing is made harmless.
        var sealed = false
    }

    let path: String
    private let state = Locked(State())

    init(path: String) {
        self.path = path
    }

    /// Records the file the path names now: the one the container has just opened.
    func recordOpenedFile() {
        let identity = FileIdentity(path: path)
        state.withLock { $0.opened = identity }
    }

    /// What happened to the file, once it happened (it stays so), else nil. Costs one `stat`.
    func check() -> FileGone? {
        state.withLock { state in
            if let gone = state.gone { return gone }
            guard let opened = state.opened else { return nil }
            switch FileIdentity(path: path) {
            case opened?: return nil
            case nil: state.gone = .deleted
            case _?: state.gone = .replaced
            }
            return state.gone
        }
    }

    /// The error a write (or a new connection) meets once the file is gone.
    func refuseIfGone() throws(StoreError) {
        if let gone = check() { throw StoreError.fileGone(path: path, gone) }
    }

    var isSealed: Bool { state.withLock { $0.sealed } }

    /// On the connection that opened the file (the writer): moves the log into the opened
    /// file, empties it, and makes the connection close without a checkpoint. Returns false
    /// when a reader held the log and it could not be emptied (try again later).
    @discardableResult
    func seal(_ db: Database) -> Bool {
        guard check() != nil, !isSealed else { return true }
        cf_sqlite_no_checkpoint_on_close(db.sqliteConnection)
        // (busy, frames in the log, frames moved); busy 0 means the log is now empty.
        guard let row = try? Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)"), row[0] as Int? == 0 else { return false }
        state.withLock { $0.sealed = true }
        return true
    }

    /// Makes another connection of ours (a reader, the watcher) close without a checkpoint.
    static func closeWithoutCheckpoint(_ db: Database) {
        cf_sqlite_no_checkpoint_on_close(db.sqliteConnection)
    }
}
