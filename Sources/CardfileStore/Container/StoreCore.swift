import Foundation
import GRDB
import GRDBSQLite

/// What every context of one container shares: the connections, the schema, the event bus.
/// Contexts hold the core strongly; the core holds contexts only weakly (through the bus).
final class StoreCore: Sendable {
    let path: String
    /// Whether the path still names the file opened (writes stop when it does not); nil on
    /// another engine.
    let watch: FileWatch?
    /// The engine the records are in, when it is not SQLite's own connections below (which
    /// are then nil).
    let engine: (any StoreEngine)?
    /// The connection that writes (a pool in WAL mode, a queue in a rollback-journal mode);
    /// nil when the container is read-only.
    let writer: (any DatabaseWriter)?
    /// Where reads go: the pool, or a read-only queue.
    let reader: (any DatabaseReader)?
    let readOnlyReason: ReadOnlyReason?
    /// The tables and views as last read: at open, and again by ``reloadSchema()`` after a
    /// statement of the SQL screen changed them.
    var schema: DatabaseSchema { described.value.schema }
    let bus = EventBus()
    let monitor: ExternalChangeMonitor?
    let checkpointer: Checkpointer?
    let journalMode: JournalMode
    /// The schema and an entity for each table, swapped whole by ``reloadSchema()``.
    private let described: Locked<(schema: DatabaseSchema, entities: [String: Entity], version: Int?)>
    private let descriptions: [String: EntityDescription]
    /// The results of queries open on the SQL screen, by name (see ``Container/openQuery(_:)``).
    private let queryEntities = Locked<[String: Entity]>([:])
    /// Where results are kept, made when the first query runs.
    private let resultStore = Locked<ResultStore?>(nil)
    private let commitObserver: CommitObserver?
    /// Names an import's journal group apart from another run's.
    private let startTime = Int(Date().timeIntervalSince1970)
    private let counters = Locked((tempID: UInt64(0), context: UInt64(0), insert: UInt64(0)))
    /// Taken around every write of this process (see ``write(origin:busyTimeout:bulkTables:_:)``).
    let writeGate = WriteGate()
    /// The container's wait for another connection's lock.
    let defaultBusyTimeout: Duration
    /// Where every write is journaled; nil with `--no-history`, read-only, or when the
    /// journal could not be opened.
    let journal: HistoryJournal?
    /// The engine's own journal, written in the same transactions as the writes it records;
    /// nil on SQLite, and when the engine keeps none.
    let engineJournal: (any EngineJournal)?

    init(
        path: String, watch: FileWatch, writer: (any DatabaseWriter)?, reader: any DatabaseReader, readOnlyReason: ReadOnlyReason?,
        schema: DatabaseSchema, descriptions: [EntityDescription], checkpointer: Checkpointer?, journalMode: JournalMode,
        busyTimeout: TimeInterval, openPath: String? = nil, journal: HistoryJournal? = nil
    ) throws {
        self.path = path
        self.journal = journal
        engineJournal = nil
        self.watch = watch
        self.engine = nil
        self.defaultBusyTimeout = .milliseconds(Int64(busyTimeout * 1000))
        self.writer = writer
        self.reader = reader
        self.readOnlyReason = readOnlyReason
        self.checkpointer = checkpointer
        self.journalMode = journalMode
        (self.descriptions, self.described) = try Self.describe(schema, descriptions)
        let schemas = self.described
        journal?.currentSchema.withLock { $0 = { schemas.value.schema } }
        // What SQLite opens: the path, or the URI of an immutable snapshot.
        monitor = try ExternalChangeMonitor(path: openPath ?? path, writer: writer, gate: writeGate)
        if let writer {
            let (bus, described) = (self.bus, self.described)
            let observer = CommitObserver(schema: { described.value.schema }) { bus.publish($0) }
            writer.add(transactionObserver: observer, extent: .observerLifetime)
            commitObserver = observer
        } else {
            commitObserver = nil
        }
    }

    /// A core on `engine`: its schema, the engine's journal when it keeps one, no file to watch.
    init(engine: any StoreEngine, schema: DatabaseSchema, descriptions: [EntityDescription], busyTimeout: TimeInterval, readOnly: Bool = false,
         journal engineJournal: (any EngineJournal)? = nil) throws {
        path = engine.location
        self.engine = engine
        journal = nil
        self.engineJournal = engineJournal
        watch = nil
        writer = nil
        reader = nil
        readOnlyReason = readOnly ? .requested : nil
        checkpointer = nil
        journalMode = .rollback
        monitor = nil
        commitObserver = nil
        defaultBusyTimeout = .milliseconds(Int64(busyTimeout * 1000))
        (self.descriptions, self.described) = try Self.describe(schema, descriptions)
    }

    /// The descriptions by lowercased table name (each must name a table of `schema`), and the
    /// schema with an entity for each table.
    private static func describe(_ schema: DatabaseSchema, _ descriptions: [EntityDescription]) throws
        -> ([String: EntityDescription], Locked<(schema: DatabaseSchema, entities: [String: Entity], version: Int?)>) {
        let described = Dictionary(descriptions.map { ($0.table.lowercased(), $0) }, uniquingKeysWith: { $1 })
        for name in described.keys where schema.table(named: name) == nil {
            throw StoreError.noSuchTable(described[name]!.table)
        }
        return (described, Locked((schema, try entities(of: schema, descriptions: described, reusing: [:]), nil)))
    }

    /// The entity for a table, found case-insensitively.
    func entity(_ table: String) throws(StoreError) -> Entity {
        // A query's result first: a table made later under its name must not take over the
        // result's records (a record merged in another shape would not fit).
        if let entity = queryEntities.withLock({ $0[table.lowercased()] }) { return entity }
        let entities = described.value.entities
        if let entity = entities[table] { return entity }
        guard let entity = entities[table.lowercased()] else { throw StoreError.noSuchTable(table) }
        return entity
    }

    /// An entity for each table of `schema`, keyed by the exact name (what ObjectIDs carry)
    /// and the lowercased one (for callers); a table whose schema is unchanged keeps its entity.
    private static func entities(of schema: DatabaseSchema, descriptions: [String: EntityDescription], reusing old: [String: Entity]) throws(StoreError) -> [String: Entity] {
        var entities: [String: Entity] = [:]
        for table in schema.tables {
            let entity: Entity
            if let kept = old[table.name], kept.table == table {
                entity = kept
            } else {
                entity = try Entity(table: table, description: descriptions[table.name.lowercased()])
            }
            entities[table.name] = entity
            entities[table.name.lowercased()] = entity
        }
        return entities
    }

    /// Reads the tables and views again (a statement created or dropped some): a new one is
    /// listed and can be opened at once, a dropped one is no longer listed. A table already
    /// known keeps its columns and key as they were (a column added or dropped shows once the
    /// file is opened again): contexts hold its records in that shape, and a record merged in
    /// another shape would not fit. What else changed of it (foreign keys, indexes, triggers)
    /// is taken. A dropped table's entity stays, so what still names it fails with SQLite's
    /// message rather than an unknown name; made again under its name, it keeps the shape it had.
    ///
    /// Reads made concurrently apply in the order of SQLite's `schema_version`, never an older
    /// one over a newer. Returns the version read.
    @discardableResult
    func reloadSchema() throws -> Int {
        // (An engine numbers no schema versions: each read is taken as the newest.)
        let (fresh, version): (DatabaseSchema, Int?) = try engine.map { (try $0.readSchema(), nil) }
            ?? read { db in (try SchemaReader.read(db), try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0) }
        try described.withLock { described in
            if let known = described.version, let version, known > version { return }
            let tables = fresh.tables.map { table -> TableSchema in
                guard let old = (described.entities[table.name] ?? described.entities[table.name.lowercased()])?.table else { return table }
                return old.columns == table.columns && old.primaryKey == table.primaryKey ? table : old
            }
            let schema = DatabaseSchema(tables: tables, hasTriggers: fresh.hasTriggers || described.schema.hasTriggers)
            let kept = descriptions.filter { schema.table(named: $0.key) != nil }
            var entities = described.entities
            for (name, entity) in try Self.entities(of: schema, descriptions: kept, reusing: described.entities) { entities[name] = entity }
            described = (schema, entities, version)
        }
        return version ?? 0
    }

    /// The `schema_version` the schema was read at (nil until first asked).
    var schemaVersion: Int? { described.value.version }

    /// Notes the `schema_version` the schema read at open was read at.
    func noteSchemaVersion(_ version: Int) {
        described.withLock { $0.version = version }
    }

    /// The store of query results, made on first use.
    func results() throws -> ResultStore {
        try resultStore.withLock { store in
            if let store { return store }
            let made = try ResultStore()
            store = made
            return made
        }
    }

    /// Removes the copies of query results (see ``ResultStore/removeFiles()``).
    func removeResults() {
        resultStore.withLock { store in
            store?.removeFiles()
            store = nil
        }
    }

    /// Runs `body` in a read transaction where `entity`'s rows are: the person's database, or
    /// for a query's result, the ``ResultStore``.
    func read<T>(for entity: Entity, _ body: (Database) throws -> T) throws -> T {
        guard let reader = entity.reader else { return try read(body) }
        return try reader.read(body)
    }

    /// Runs `body` with a session of the engine in a read transaction where `entity`'s rows are
    /// (see ``read(for:_:)``).
    func session<T>(for entity: Entity, _ body: (any EngineSession) throws -> T) throws -> T {
        if let engine, entity.reader == nil { return try engine.read(body) }
        return try read(for: entity) { db in try body(SQLiteSession(db)) }
    }

    /// Makes a query's result readable as `entity.name` (replacing an earlier one of that name).
    func register(query entity: Entity) {
        queryEntities.withLock { $0[entity.name.lowercased()] = entity }
    }

    /// A new temporary object ID.
    func temporaryID(table: String) -> ObjectID {
        let number = counters.withLock { counters -> UInt64 in
            counters.tempID += 1
            return counters.tempID
        }
        return ObjectID(table: table, key: .temporary(number))
    }

    /// A number ordering inserts across contexts.
    func nextInsertSequence() -> UInt64 {
        counters.withLock { counters in
            counters.insert += 1
            return counters.insert
        }
    }

    func makeIdentity(name: String, role: ContextIdentity.Role) -> ContextIdentity {
        let number = counters.withLock { counters -> UInt64 in
            counters.context += 1
            return counters.context
        }
        return ContextIdentity(number: number, name: name, role: role)
    }

    /// Runs `body` in one write transaction. What `body` notes in the annotation becomes part
    /// of the commit's ``ContextDidSave``.
    ///
    /// `busyTimeout`, when given, replaces the container's wait for another connection's lock
    /// for this transaction only (a UI loop waits tens of milliseconds, not seconds).
    ///
    /// `bulkTables` are tables the transaction writes in bulk (an import): their rows are not
    /// named one by one in the commit's event, which names the tables as invalidated instead.
    func write<T>(origin: SaveOrigin, busyTimeout: Duration? = nil, bulkTables: Set<String> = [], _ body: (Database, inout WriteAnnotation) throws -> T) throws -> T {
        if let engine { throw StoreError.notOnEngine(feature: "This kind of change", engine: engine.name) }
        guard let writer, let commitObserver else {
            throw StoreError.readOnly(readOnlyReason ?? .requested)
        }
        // Writers of this process queue for the one connection; a write with a short
        // busy timeout (the UI's save) goes first and waits no longer for its turn than it
        // would for another program's lock, so an import's batch delays it by one batch at
        // most, and an atomic import's one long transaction makes it report busy instead of
        // freezing the screen.
        let deadline = busyTimeout.map { Date(timeIntervalSinceNow: Double(Self.milliseconds($0)) / 1000) }
        guard writeGate.enter(urgentUntil: deadline) else {
            throw StoreError.busy
        }
        defer { writeGate.leave() }
        // The path may name another file by now: never write through it.
        if let gone = watch?.check() {
            sealGoneFile(holdingTheGate: true)
            throw StoreError.fileGone(path: path, gone)
        }
        return try writer.writeWithoutTransaction { db in
            if let busyTimeout {
                sqlite3_busy_timeout(db.sqliteConnection, Self.milliseconds(busyTimeout))
            }
            defer {
                if busyTimeout != nil { sqlite3_busy_timeout(db.sqliteConnection, Self.milliseconds(defaultBusyTimeout)) }
            }
            var result: T?
            var recorded: (changes: CapturedChanges, note: HistoryNote, schema: DatabaseSchema)?
            try db.inTransaction(.immediate) {
                commitObserver.bulkTables = bulkTables
                var note = WriteAnnotation(origin: origin)
                // (Begun inside the transaction: what it records is exactly what commits.)
                let recorder = journal.flatMap { ChangeRecorder(db, limit: $0.settings.capacity) }
                defer { recorder?.end() }
                note.recorder = recorder
                result = try body(db, &note)
                note.recorder = nil
                if let recorder, let changes = recorder.captured() ?? (note.history?.undoing.isEmpty == false ? CapturedChanges(bytes: Data(), overflowed: false, failed: false) : nil) {
                    recorded = (changes, historyNote(for: note), schema)
                }
                commitObserver.annotation = note
                return .commit
            }
            if let journal, let recorded {
                journal.append(recorded.changes, schema: recorded.schema, note: recorded.note, time: Date())
            }
            return result!
        }
    }

    /// ``write(origin:busyTimeout:bulkTables:_:)`` with a session of the engine;
    /// `oneStatement` as ``StoreEngine/write(lockWait:oneStatement:_:)`` has it. `history`
    /// names the write in the journal when its origin does not say enough (an undo, a
    /// statement of the SQL screen).
    func transaction<T>(origin: SaveOrigin, busyTimeout: Duration? = nil, oneStatement: Bool = false, history: HistoryNote? = nil,
                        _ body: (any EngineSession, inout WriteAnnotation) throws -> T) throws -> T {
        guard let engine else {
            return try write(origin: origin, busyTimeout: busyTimeout) { db, note in
                if let history { note.history = history }
                return try body(SQLiteSession(db), &note)
            }
        }
        if let readOnlyReason { throw StoreError.readOnly(readOnlyReason) }
        guard writeGate.enter(urgentUntil: busyTimeout.map { Date(timeIntervalSinceNow: Double(Self.milliseconds($0)) / 1000) }) else {
            throw StoreError.busy
        }
        defer { writeGate.leave() }
        var note = WriteAnnotation(origin: origin)
        note.history = history
        // A write other than a form's save is named in the journal first (its entry), so it
        // is a transaction even when it is one statement.
        let journaled = engineJournal.map { ($0, historyNote(for: note)) }.flatMap { $0.1.isDefault ? nil : $0 }
        var unkept: String?
        let result = try engine.write(lockWait: busyTimeout ?? defaultBusyTimeout, oneStatement: oneStatement && journaled == nil) { session in
            if let (journal, named) = journaled { unkept = try journal.begin(named, in: session) }
            return try body(session, &note)
        }
        // (Said only of a write that committed: a failed one says its own failure.)
        if let unkept, let journal = engineJournal { journal.keepProblem(unkept) }
        // No hook names what the engine's triggers or cascades changed: the event is what the
        // code wrote (the change feed brings the rest).
        if let event = CommitObserver.event(
            origin: note.origin, inserted: note.inserted, updated: note.updated, deleted: note.deleted, permanentIDs: note.permanentIDs,
            invalidated: note.invalidated, touched: Set(note.rowChanges.keys).union(note.invalidated), schema: schema) {
            bus.publish(event)
        }
        return result
    }

    /// How the journal names a write: as its code said, or by its origin (a form's save goes
    /// through the view context; an import's batches through the importer's, one group).
    /// Journals an undo or redo that wrote nothing: its entries count as undone (or redone)
    /// all the same.
    /// `busyTimeout`, when given, replaces the container's wait for a lock, as for a write: a
    /// UI loop's context waits tens of milliseconds.
    func journalWithoutWriting(_ note: HistoryNote, busyTimeout: Duration? = nil) throws(StoreError) {
        if let journal { journal.append(changes: [], note: note, time: Date(), evenIfEmpty: true) }
        if let engineJournal {
            try storeErrors(path: path) { try engineJournal.markWithoutWriting(note, lockWait: busyTimeout ?? defaultBusyTimeout) }
        }
    }

    func historyNote(for note: WriteAnnotation) -> HistoryNote {
        if let history = note.history { return history }
        switch note.origin {
        case .context(let identity) where identity.role == .importer:
            return HistoryNote(source: .import, group: "import-\(ProcessInfo.processInfo.processIdentifier)-\(identity.number)-\(startTime)")
        case .context: return HistoryNote(source: .form)
        case .batch, .external: return HistoryNote(source: .bulk)
        }
    }

    /// Runs `body` in a write transaction that is always rolled back: to learn what a write
    /// would do (see ``Container/deletionEffects(of:busyTimeout:)``) without doing it. It
    /// queues and waits like ``write(origin:busyTimeout:bulkTables:_:)``; no event follows.
    func rehearse<T>(busyTimeout: Duration? = nil, _ body: (Database) throws -> T) throws -> T {
        if let engine { throw StoreError.notOnEngine(feature: "Rehearsing a change", engine: engine.name) }
        guard let writer else { throw StoreError.readOnly(readOnlyReason ?? .requested) }
        let deadline = busyTimeout.map { Date(timeIntervalSinceNow: Double(Self.milliseconds($0)) / 1000) }
        guard writeGate.enter(urgentUntil: deadline) else { throw StoreError.busy }
        defer { writeGate.leave() }
        if let gone = watch?.check() { throw StoreError.fileGone(path: path, gone) }
        return try writer.writeWithoutTransaction { db in
            if let busyTimeout { sqlite3_busy_timeout(db.sqliteConnection, Self.milliseconds(busyTimeout)) }
            defer {
                if busyTimeout != nil { sqlite3_busy_timeout(db.sqliteConnection, Self.milliseconds(defaultBusyTimeout)) }
            }
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return .rollback
            }
            return result!
        }
    }

    /// ``rehearse(busyTimeout:_:)`` on the engine: `body` runs in a write transaction that is
    /// always rolled back.
    func rehearse<T>(busyTimeout: Duration? = nil, _ body: (any EngineSession) throws -> T) throws -> T {
        guard let engine else { return try rehearse(busyTimeout: busyTimeout) { db in try body(SQLiteSession(db)) } }
        if let readOnlyReason { throw StoreError.readOnly(readOnlyReason) }
        let deadline = busyTimeout.map { Date(timeIntervalSinceNow: Double(Self.milliseconds($0)) / 1000) }
        guard writeGate.enter(urgentUntil: deadline) else { throw StoreError.busy }
        defer { writeGate.leave() }
        var result: T?
        do {
            _ = try engine.write(lockWait: busyTimeout ?? defaultBusyTimeout, oneStatement: false) { session -> Int in
                result = try body(session)
                throw RehearsalOver()
            }
        } catch is RehearsalOver {}
        guard let result else { throw StoreError.statementNotRun(reason: "The rehearsal ended without an answer.") }
        return result
    }

    /// Once the file is gone: empties the log into the opened file through the writer and
    /// makes every connection of ours close without a checkpoint (see ``FileWatch``). Done
    /// once; a reader holding the log makes it wait for the next call.
    func sealGoneFile(holdingTheGate: Bool = false) {
        guard let watch, let monitor, watch.check() != nil, !watch.isSealed else { return }
        monitor.closeWithoutCheckpoint()
        guard let writer else { return }
        if !holdingTheGate {
            guard writeGate.enter(urgentUntil: Date(timeIntervalSinceNow: 0.05)) else { return }
        }
        defer { if !holdingTheGate { writeGate.leave() } }
        // Readers already open go on reading the opened file; new ones are refused.
        _ = writer.writeWithoutTransaction { watch.seal($0) }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }

    /// Runs `body` in a read transaction. In a rollback journal, a read that waited out the
    /// busy timeout for another program's commit fails with ``StoreError/busyReading``.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard let reader else { throw StoreError.notOnEngine(feature: "This feature", engine: engine?.name ?? "this engine") }
        do {
            return try reader.read(body)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw StoreError.busyReading
        } catch StoreError.busy {
            throw StoreError.busyReading
        }
    }
}

/// Thrown at the end of a rehearsal on an engine: the engine rolls back what it did.
private struct RehearsalOver: Error {}
