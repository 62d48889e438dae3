/// How SQLite keeps a transaction's undo information for a file: the container keeps the mode
/// it found (see ``StoreOptions/switchToWAL``).
public enum JournalMode: Sendable, Equatable {
    /// A write-ahead log beside the file (`-wal`, `-shm`): readers never wait for a writer.
    case wal
    /// A rollback journal (`delete`, `truncate`, `persist` and the like): a reader waits while
    /// a commit is being written, up to the busy timeout.
    case rollback
}
