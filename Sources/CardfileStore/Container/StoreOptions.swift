import Foundation

/// How a ``Container`` opens its file.
public struct StoreOptions: Sendable {
    /// Create the file when it does not exist (its folder must exist).
    public var createIfMissing: Bool
    /// Open read-only even when the file is writable.
    public var readOnly: Bool
    /// How long a write waits for another connection's lock before failing with
    /// ``StoreError/busy``.
    public var busyTimeout: TimeInterval
    /// Transient fields, rules and version columns, per table.
    public var entities: [EntityDescription]
    /// The view context's merge policy.
    public var viewContextMergePolicy: MergePolicy
    /// WAL size, in pages, at which the background checkpointer runs.
    public var checkpointThresholdPages: Int
    /// Switch the file to WAL mode when it is in a rollback-journal mode (`--wal`). Off by
    /// default: the file keeps the journal mode it was found in, and a new file gets SQLite's
    /// default (a rollback journal), so other programs and network file systems never meet a
    /// WAL file they did not ask for. Ignored when read-only.
    public var switchToWAL: Bool
    /// Where to journal every save (see ``HistoryJournal``); nil keeps no history
    /// (`--no-history`). A read-only container keeps none either. On an engine that keeps its
    /// own journal (PostgreSQL's, see ``HistoryKeeping``) only the capacity counts.
    public var history: HistorySettings?

    public init(
        createIfMissing: Bool = true, readOnly: Bool = false, busyTimeout: TimeInterval = 5,
        entities: [EntityDescription] = [], viewContextMergePolicy: MergePolicy = .error,
        checkpointThresholdPages: Int = 1000, switchToWAL: Bool = false, history: HistorySettings? = nil
    ) {
        self.history = history
        self.createIfMissing = createIfMissing
        self.readOnly = readOnly
        self.busyTimeout = busyTimeout
        self.entities = entities
        self.viewContextMergePolicy = viewContextMergePolicy
        self.checkpointThresholdPages = checkpointThresholdPages
        self.switchToWAL = switchToWAL
    }
}
