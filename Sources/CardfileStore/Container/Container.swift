import Foundation
import GRDB
import GRDBSQLite

/// One SQLite file, open for the life of the process, and the contexts that work on it.
///
/// The container keeps the file's journal mode as found (see ``StoreOptions/switchToWAL``). A
/// WAL file is opened as a GRDB `DatabasePool`, so reads never wait for writes; a
/// rollback-journal file gets one writing connection and a pool of readers. It hands out
/// contexts:
/// - ``viewContext``: the context the UI loop reads and edits through;
/// - ``newBackgroundContext(name:)`` and ``importerContext()``: root contexts for work off
///   the UI loop;
/// - ``editorContext(parent:name:)``: a child whose save goes to its parent only;
/// - ``temporaryContext()``: scratch, whose save is refused.
///
/// ```swift
/// let container = try Container(path: "/tmp/cards.sqlite")
/// let editor = container.editorContext(parent: container.viewContext)
/// try editor.update(id, values: ["name": "Ada"])
/// try editor.save()                  // into the view context
/// try container.viewContext.save()   // to disk
/// ```
///
/// Every commit produces one ``ContextDidSave``; observe them with
/// ``observeSaves(on:_:)``. Another process's commits are noticed by
/// ``checkForExternalChanges()``.
public final class Container: Sendable {
    let core: StoreCore
    /// The root context for the UI loop. It merges every other commit automatically and
    /// uses the merge policy given in ``StoreOptions`` (`.error` by default).
    public let viewContext: ObjectContext
    /// Why no history is kept although it was asked for (the journal's folder cannot be
    /// written, say); nil when it is kept or was not asked for.
    public let historyProblem: String?

    /// Opens (or creates) the database file at `path`.
    ///
    /// - Throws: ``StoreError/directoryMissing(path:)``, ``StoreError/fileNotFound(path:)``,
    ///   ``StoreError/notADatabase(path:)``, ``StoreError/corrupt(path:)``,
    ///   ``StoreError/locked(path:)`` and ``StoreError/cannotOpen(path:detail:)``, each with a
    ///   sentence for a person in ``StoreError/message``.
    public init(path: String, options: StoreOptions = StoreOptions()) throws(StoreError) {
        let path = (path as NSString).standardizingPath
        let folder = PathText.folder(of: path)
        let files = FileManager.default
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw StoreError.directoryMissing(path: path)
        }
        let exists = files.fileExists(atPath: path)
        if !exists, !options.createIfMissing || options.readOnly {
            throw StoreError.fileNotFound(path: path)
        }

        if exists { try Self.checkHeader(path: path, mayInitialize: options.createIfMissing && !options.readOnly) }

        var journalProblem: String?
        var readOnlyReason: ReadOnlyReason?
        if options.readOnly {
            readOnlyReason = .requested
        } else if exists, !Self.isWritable(file: path, folder: folder) {
            readOnlyReason = .fileNotWritable
        }

        let watch = FileWatch(path: path)
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(options.busyTimeout)
            configuration.foreignKeysEnabled = true
            let writer: (any DatabaseWriter)?
            let reader: any DatabaseReader
            var openPath = path
            var checkpointer: Checkpointer?
            let foundWAL = exists && Self.headerSaysWAL(path: path)
            if readOnlyReason == nil, options.switchToWAL || foundWAL {
                let walCheckpointer = Checkpointer(path: path, thresholdPages: options.checkpointThresholdPages, watch: watch)
                configuration.prepareDatabase { db in
                    // A connection opened once the file is gone would open whatever the path
                    // names now.
                    try watch.refuseIfGone()
                    guard !db.configuration.readonly else { return }
                    try db.execute(sql: "PRAGMA synchronous = NORMAL")
                    try walCheckpointer.install(on: db)
                }
                // A pool puts the file in WAL mode (it already is, or `--wal` asked for it).
                let pool = try DatabasePool(path: path, configuration: configuration)
                writer = pool
                reader = pool
                checkpointer = walCheckpointer
            } else if readOnlyReason == nil {
                // A rollback-journal file stays one: one connection writes, and a pool of
                // read-only connections reads (they wait for a commit in progress, up to the
                // busy timeout, where WAL readers would not). Writes keep SQLite's default
                // `synchronous = FULL`, which this mode needs to survive a power cut.
                let readerWait = Int32(clamping: Int(options.busyTimeout * 1000))
                configuration.prepareDatabase { db in
                    try watch.refuseIfGone()
                    // GRDB gives a pool's readers a 10 s wait of their own; they wait as long
                    // as a write does.
                    if db.configuration.readonly { sqlite3_busy_timeout(db.sqliteConnection, readerWait) }
                }
                writer = try DatabaseQueue(path: path, configuration: configuration)
                var readers = configuration
                readers.readonly = true
                reader = try DatabasePool(path: path, configuration: readers)
            } else {
                configuration.readonly = true
                writer = nil
                // SQLite reads a WAL-mode file only with a shared-memory file beside it; in a
                // folder where none can be made, the file is read as an immutable snapshot.
                if exists, try Self.needsSnapshot(path: path, folder: folder) {
                    openPath = Self.immutableURI(path)
                    readOnlyReason = .snapshotInReadOnlyFolder
                }
                reader = try DatabaseQueue(path: openPath, configuration: configuration)
            }
            let schema = try reader.read(SchemaReader.read)
            watch.recordOpenedFile()
            // History is a help, not a condition: a journal that cannot be opened is said, and
            // the file is edited without one.
            var journal: HistoryJournal?
            if writer != nil, let settings = options.history {
                do {
                    journal = try HistoryJournal(settings: settings, databasePath: path)
                } catch {
                    journalProblem = "No history is kept for this file: \(error)"
                }
            }
            core = try StoreCore(
                path: path, watch: watch, writer: writer, reader: reader, readOnlyReason: readOnlyReason,
                schema: schema, descriptions: options.entities, checkpointer: checkpointer,
                journalMode: checkpointer != nil || foundWAL ? .wal : .rollback,
                busyTimeout: options.busyTimeout, openPath: openPath, journal: journal)
            // (Read again with its version in one transaction: DDL between them is not missed.)
            try core.reloadSchema()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.opening(error, path: path)
        } catch {
            throw StoreError.cannotOpen(path: path, detail: String(describing: error))
        }
        historyProblem = journalProblem
        viewContext = ObjectContext(
            core: core, parent: nil, identity: core.makeIdentity(name: "view context", role: .view),
            mergePolicy: options.viewContextMergePolicy, automaticallyMergesChanges: true)
    }

    /// A container on `engine` (PostgreSQL): its tables as the engine describes them, a view
    /// context that merges every commit, the engine's own journal when `options` asks for
    /// history and the engine keeps one (``historyProblem`` says why not), and no file to watch.
    package init(engine: any StoreEngine, options: StoreOptions = StoreOptions()) throws(StoreError) {
        let schema: DatabaseSchema
        var journalProblem: String?
        do {
            schema = try engine.readSchema()
            // (Kept only when asked for, and never read-only: nothing is written then.)
            var journal: (journal: (any EngineJournal)?, problem: String?) = (nil, nil)
            if let settings = options.history, !options.readOnly { journal = engine.openJournal(settings) }
            journalProblem = journal.problem
            core = try StoreCore(engine: engine, schema: schema, descriptions: options.entities, busyTimeout: options.busyTimeout, readOnly: options.readOnly,
                                 journal: journal.journal)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.cannotOpen(path: engine.location, detail: String(describing: error))
        }
        historyProblem = journalProblem
        viewContext = ObjectContext(
            core: core, parent: nil, identity: core.makeIdentity(name: "view context", role: .view),
            mergePolicy: options.viewContextMergePolicy, automaticallyMergesChanges: true)
    }

    /// Refuses, before SQLite touches it, a file that is not an SQLite database: SQLite would
    /// turn an empty file into a database on its first write, and a file of another kind must
    /// be left exactly as it is. An empty file is made a database only when the caller asked
    /// to create one (`--create`).
    private static func checkHeader(path: String, mayInitialize: Bool) throws(StoreError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }   // SQLite says why
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty {
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { throw StoreError.cannotOpen(path: path, detail: "it is a folder") }
            if mayInitialize { return }
            throw StoreError.emptyFile(path: path)
        }
        guard header == Data("SQLite format 3\u{0}".utf8) else { throw StoreError.notADatabase(path: path) }
    }

    /// True when the file's header says it is in WAL mode (byte 18, the write version, is 2).
    private static func headerSaysWAL(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 20)) ?? Data())
        return header.count == 20 && header[18] == 2
    }

    /// True when `path` is in WAL mode (header byte 18 is 2), has no shared-memory file and
    /// its folder cannot hold one. A log with changes not yet in the file would be missed by
    /// a snapshot: that is an error saying so.
    private static func needsSnapshot(path: String, folder: String) throws(StoreError) -> Bool {
        guard headerSaysWAL(path: path) else { return false }
        let files = FileManager.default
        guard !files.fileExists(atPath: path + "-shm"), access(folder, W_OK) != 0 || isReadOnlyMount(folder) else { return false }
        var info = stat()
        if stat(path + "-wal", &info) == 0, info.st_size > 0 {
            throw StoreError.cannotOpen(path: path, detail: "it is in WAL mode, its folder is read-only, and its log (\(PathText.name(of: path))-wal) holds changes not yet in the file, which only a writable folder lets SQLite read; copy the file and its -wal file to a writable folder")
        }
        return true
    }

    /// True when the file system holding `folder` is mounted read-only (root may write
    /// anywhere else, so `access` alone does not tell).
    private static func isReadOnlyMount(_ folder: String) -> Bool {
        var info = statvfs()
        return statvfs(folder, &info) == 0 && info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// `file:` URI opening `path` immutable (the system's SQLite reads URIs as file names).
    private static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
    }

    /// A file is writable when its mode allows writing for someone (a file marked read-only
    /// is honoured even for root) and both it and its folder (which holds the WAL) are
    /// writable by this process.
    private static func isWritable(file: String, folder: String) -> Bool {
        var info = stat()
        guard stat(file, &info) == 0 else { return false }
        if info.st_mode & 0o222 == 0 { return false }
        return access(file, W_OK) == 0 && access(folder, W_OK) == 0
    }

    /// The database file's path.
    public var path: String { core.path }

    /// How a list of `table` hears other connections' commits; nil for a SQLite file, whose
    /// every commit is seen (the file is watched).
    public func liveRefresh(of table: String) -> LiveRefresh? {
        guard let engine = core.engine else { return nil }
        if engine.isUnreachable { return .unreachable }
        return engine.isAnnounced(table) ? .announced : .polled
    }

    /// True while the database server cannot be reached (never for a SQLite file): saves and
    /// reads fail with ``StoreError/serverUnreachable(server:reason:)`` until it answers.
    public var isServerUnreachable: Bool { core.engine?.isUnreachable ?? false }

    /// The user tables, as read when the file was opened and again when a statement (here or
    /// in another program) changed them (see ``run(_:cancellation:)``).
    public var schema: DatabaseSchema { core.schema }

    /// Why the container cannot write, or nil when it can.
    public var readOnlyReason: ReadOnlyReason? { core.readOnlyReason }

    /// The journal mode of the file as this container writes it.
    public var journalMode: JournalMode { core.journalMode }

    /// True when saves are refused.
    public var isReadOnly: Bool { core.readOnlyReason != nil }

    /// A new root context with its own queue, for work off the UI loop. It does not merge
    /// other commits unless told to, and its merge policy is `.error` unless changed.
    public func newBackgroundContext(name: String = "background context") -> ObjectContext {
        ObjectContext(
            core: core, parent: nil, identity: core.makeIdentity(name: name, role: .background),
            mergePolicy: .error, automaticallyMergesChanges: false)
    }

    /// A root context for imports: its own queue, and `.objectTrump` so imported values win
    /// over concurrent edits field by field.
    public func importerContext() -> ObjectContext {
        ObjectContext(
            core: core, parent: nil, identity: core.makeIdentity(name: "importer", role: .importer),
            mergePolicy: .objectTrump, automaticallyMergesChanges: false)
    }

    /// A child of `parent`: it reads the parent's current values, and its ``ObjectContext/save()``
    /// moves its changes into the parent only. Discarding it leaves the parent as it was.
    public func editorContext(parent: ObjectContext, name: String = "editor") -> ObjectContext {
        ObjectContext(
            core: core, parent: parent, identity: core.makeIdentity(name: name, role: .editor),
            mergePolicy: parent.mergePolicy, automaticallyMergesChanges: true)
    }

    /// A scratch context that reads the store and can be edited freely; its save is refused
    /// with ``StoreError/saveNotAllowed(_:)``.
    public func temporaryContext(name: String = "scratch context") -> ObjectContext {
        ObjectContext(
            core: core, parent: nil, identity: core.makeIdentity(name: name, role: .temporary),
            mergePolicy: .rollback, automaticallyMergesChanges: false)
    }

    /// Calls `handler` on `queue` with the event of every commit, from any context, batch
    /// operation or other process (once noticed). Keep the returned observation: delivery stops
    /// when it is cancelled or released.
    ///
    /// Pass a real dispatch queue: the UI loop blocks on input, so the main actor would never
    /// run the handler.
    public func observeSaves(on queue: DispatchQueue, _ handler: @escaping @Sendable (ContextDidSave) -> Void) -> SaveObservation {
        let bus = core.bus
        let id = bus.addObserver(queue: queue, handler: handler)
        return SaveObservation { bus.removeObserver(id) }
    }

    /// What happened to the file the container opened: nil while its path still names it,
    /// else ``FileGone/replaced`` or ``FileGone/deleted`` (for good). Costs one `stat`.
    ///
    /// The first calls after it happened also make the store safe: the write-ahead log is
    /// moved into the opened file and emptied, so the file now at the path (or a later one
    /// of the same name) never reads our frames, and our connections close without touching
    /// the log. Every save from then on fails with ``StoreError/fileGone(path:_:)``, keeping
    /// its changes; reads go on from the file as it was, through the connections already open.
    public func checkFile() -> FileGone? {
        guard let gone = core.watch?.check() else { return nil }
        core.sealGoneFile()
        return gone
    }

    /// Returns true when another process committed to the file since the previous call, and
    /// then publishes a ``ContextDidSave`` with origin `.external` naming every table as
    /// invalidated, so automatically merging contexts re-read their registered objects and live
    /// queries re-run. Our own commits are never reported.
    ///
    /// Cheap enough to call several times a second: when nothing committed it costs one
    /// `PRAGMA data_version` on a dedicated connection.
    @discardableResult
    public func checkForExternalChanges() throws(StoreError) -> Bool {
        // Once the file is gone, nothing that happens at its path is this database's.
        guard checkFile() == nil else { return false }
        if let engine = core.engine {
            let tables = try storeErrors(path: core.path) { try engine.changedElsewhere() }
            guard !tables.isEmpty else { return false }
            core.bus.publish(ContextDidSave(origin: .external, invalidatedTables: tables))
            return true
        }
        guard let monitor = core.monitor else { return false }
        let changed = try storeErrors(path: core.path) { try monitor.check() }
        if changed {
            // Whatever happens to the schema, the commit reaches lists and forms: the tables
            // known before and after it.
            var names = Set(core.schema.tables.map(\.name))
            defer {
                names.formUnion(core.schema.tables.map(\.name))
                core.bus.publish(ContextDidSave(origin: .external, invalidatedTables: names))
            }
            // A table made or dropped by another program is listed (or not) from now on. (A
            // read that fails leaves the version as it was: the next commit tries again.)
            try storeErrors(path: core.path) {
                let version = try core.read { db in try Int.fetchOne(db, sql: "PRAGMA schema_version") }
                if let version, core.schemaVersion.map({ $0 != version }) ?? true { try core.reloadSchema() }
            }
        }
        return changed
    }
}
