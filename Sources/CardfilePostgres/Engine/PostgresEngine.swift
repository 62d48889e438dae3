import CardfileStore
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// PostgreSQL as a container's engine: a few connections to one database, the search path's
/// tables and views as the store's schema, reads and write transactions on sessions of their
/// own.
///
/// - Writes go one at a time through one connection, each a transaction.
/// - Reads take a free connection of their own (opening one more, up to ``maxReaders``), so a
///   long scan in the background never holds up a page on the screen or a save.
package final class PostgresEngine: StoreEngine, @unchecked Sendable {  // (`writer` is touched only under `writing`.)
    package let location: String
    package var name: String { "PostgreSQL" }
    package static let maxReaders = 3

    private let place: PostgresLocation
    /// Relations named outside the search path (`--table schema.name`), as SQL names them,
    /// listed with the path's own (under their `schema.name`).
    private let included: [String]
    /// The writing connection; opened again when it was lost (a write then starts afresh).
    private var writer: PostgresSession
    /// The `lock_timeout` set on the writer, in milliseconds (set again only when it changes).
    private var writerLockWait: Int?
    private let writing = NSLock()
    private let readers: NSCondition
    private let pool: Pool
    /// Commits, announced by `cardfile pg-setup`'s triggers (nothing is announced without
    /// them): other connections' and ours, which names what our writes' cascades and triggers
    /// changed too. Opened again when its connection was lost.
    private let feed: NIOLockedValueBox<PostgresChangeFeed?>
    /// The store's names of the tables, by schema and name (made by ``readSchema()``).
    private let names = NIOLockedValueBox([PendingChanges.QualifiedName: String]())
    /// The tables whose commits the feed announces (`cardfile pg-setup`'s triggers are on
    /// them), by the store's names; the others are polled.
    private let announced = NIOLockedValueBox(Set<String>())
    /// Whether the server answers, and when to try again when it does not.
    private let reconnection = NIOLockedValueBox(Reconnection())
    /// Polling for the tables without triggers (see ``changedElsewhere()``).
    private let polling = NIOLockedValueBox(Polling())

    /// How often the tables nothing announces are looked at again.
    package static let pollInterval: Duration = .seconds(1)

    /// The server's snapshot at the last poll, and when polled tables were last reported.
    private struct Polling {
        var snapshot: String?
        /// A write committed since the polled tables were last reported: they are reported at
        /// the next poll ``pollInterval`` after the last report.
        var due = false
        var reportedAt: ContinuousClock.Instant?
    }

    /// The reading connections: the free ones, those in use, and how many there are in all.
    private final class Pool: @unchecked Sendable {
        var free: [PostgresSession] = []
        var inUse: [ObjectIdentifier: PostgresSession] = [:]
        var count = 0
    }

    /// The writer as last opened, for closing it from another thread when the server stops
    /// answering (``abandonConnections()``); `writer` itself is touched only under `writing`.
    private let currentWriter: NIOLockedValueBox<PostgresSession?>
    /// The connections of imports and exports running, ended with the others when the server
    /// stops answering.
    private let transfers = NIOLockedValueBox<[ObjectIdentifier: PostgresSession]>([:])
    /// The tables (by their names in the schema) that take `COPY`, partitioned or not (views
    /// do not), and which.
    private let copyable = NIOLockedValueBox<[String: PostgresRelation.Kind]>([:])
    /// The tables of the schema by object id, and each one's id by its store name (made by
    /// ``readSchema()``): the history journal names tables by id.
    private let relationIDs = NIOLockedValueBox((tables: [Int64: TableSchema](), ids: [String: Int64]()))
    /// The most records one change keeps in the history journal, set on the writer as
    /// `cardfile.capture` (nil: no history is kept); touched under `writing`.
    private var captureLimit: Int?
    /// Whether the writer's session has `cardfile.capture` set (touched under `writing`).
    private var writerCaptures = false

    /// Set by ``close()``: a feed put back after it is closed instead.
    private let closed = NIOLockedValueBox(false)

    /// How long the feed's poll and the heartbeat wait for the server's answer before they
    /// take the server for gone (a trivial statement: a healthy server answers in milliseconds).
    static let feedAnswerWithin: Duration = .seconds(5)
    /// How often the heartbeat asks whether the server answers.
    static let heartbeatEvery: Duration = .seconds(1)

    /// Connects (the writer at once; readers when first needed). `including` names relations
    /// as SQL reads a name (`"Odd s"."Up"`: quoted where it must be) that the schema lists
    /// too when the search path does not reach them.
    package init(_ place: PostgresLocation, including: [String] = []) throws(PostgresProblem) {
        self.place = place
        included = including
        location = place.description
        writer = try PostgresSession.open(place)
        currentWriter = NIOLockedValueBox(writer)
        readers = NSCondition()
        pool = Pool()
        do {
            let listening = try PostgresChangeFeed(location: place, answerWithin: Self.feedAnswerWithin) {}
            feed = NIOLockedValueBox(listening)
            // Polling compares with the snapshot from before the first read.
            polling.withLockedValue { $0.snapshot = try? listening.catchUp() }
        } catch {
            writer.close()
            throw error
        }
        let weakly = WeakEngine(self)
        Thread.detachNewThread { Self.beat(weakly) }
    }

    /// The engine as the heartbeat holds it: not kept alive by it.
    private final class WeakEngine: @unchecked Sendable {
        weak var engine: PostgresEngine?
        init(_ engine: PostgresEngine) { self.engine = engine }
    }

    /// The heartbeat, on a thread of its own: every ``heartbeatEvery`` it asks the server for
    /// a trivial answer on a connection of its own, within ``feedAnswerWithin``. A server
    /// that stops answering (paused, or cut off by the network, its connections left open) is
    /// so found even while the UI's loop waits on it, and every connection is ended, which
    /// ends that wait. Until the engine is closed or released.
    private static func beat(_ weakly: WeakEngine) {
        var session: PostgresSession?
        defer { session?.close() }
        while true {
            Thread.sleep(forTimeInterval: Double(heartbeatEvery.components.seconds))
            guard let engine = weakly.engine, !engine.closed.withLockedValue({ $0 }) else { return }
            // (While it is known unreachable, the poll's probe finds when it answers.)
            guard !engine.isUnreachable else {
                session?.close()
                session = nil
                continue
            }
            do {
                let asking = try session ?? engine.opening { () throws(PostgresProblem) in
                    try PostgresSession.open(engine.place, answerWithin: feedAnswerWithin)
                }
                session = asking
                try engine.answering { () throws(PostgresProblem) in try asking.run("SELECT 1") }
            } catch {
                session?.close()
                session = nil
                if engine.isUnreachable { engine.abandonConnections() }
            }
        }
    }

    /// True since the server was last found unreachable (a connection failed or was lost),
    /// until a connection works again.
    package var isUnreachable: Bool { reconnection.withLockedValue { $0.isUnreachable } }

    /// True when the feed announces `table`'s commits; false when it is polled.
    package func isAnnounced(_ table: String) -> Bool {
        announced.withLockedValue { $0.contains(table) }
    }

    /// While the server is known to be unreachable, a read or a write fails at once (even on
    /// a connection that looks open: a server that stopped answering leaves it so); the poll
    /// finds when it answers again.
    private func failIfUnreachable() throws {
        if let reason = reconnection.withLockedValue({ $0.reason }) {
            throw StoreError.serverUnreachable(server: place.serverName, reason: reason)
        }
    }

    /// Opens a connection with `open`. While the server is unreachable this fails at once,
    /// except for a `probe` at the pace ``Reconnection`` allows: only ``changedElsewhere()``
    /// probes, off the UI's loop, so a save or a page never waits on a server that does not
    /// answer (a connect may take the whole `connect_timeout`). The first probe that connects
    /// ends the outage for every caller.
    private func opening<T>(probe: Bool = false, _ open: () throws(PostgresProblem) -> T) throws -> T {
        let now = ContinuousClock.now
        if let reason = reconnection.withLockedValue({ $0.isUnreachable && !(probe && $0.mayTry(at: now)) ? $0.reason : nil }) {
            throw StoreError.serverUnreachable(server: place.serverName, reason: reason)
        }
        do {
            let opened = try open()
            reconnection.withLockedValue { $0.answered() }
            return opened
        } catch {
            // Any failure to connect is paced: a login refused, too many clients, a server
            // starting up are each asked again later, not every time a poll comes.
            throw unreachable(Self.unreachableReason(error) ?? error.message)
        }
    }

    /// Runs `body`; see ``noted(_:)`` for what it throws.
    private func answering<T>(_ body: () throws(PostgresProblem) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw noted(error)
        }
    }

    /// `error`, or the store's ``StoreError/serverUnreachable(server:reason:)`` (which a save
    /// retries) when it says the server is gone. That is noted: the status says so until a
    /// connection works again, and a connection is tried again later each time one fails.
    /// (Connections that end while an outage is known change nothing.)
    private func noted(_ error: any Error) -> any Error {
        guard let reason = Self.unreachableReason(error) else { return error }
        return unreachable(reason)
    }

    /// Notes that the server did not answer, for `reason`, and returns the store's error for
    /// it. A failure while an outage is known and its wait not over changes nothing.
    private func unreachable(_ reason: String) -> StoreError {
        let now = ContinuousClock.now
        reconnection.withLockedValue { if !$0.isUnreachable || $0.mayTry(at: now) { $0.failed(reason, at: now) } }
        return StoreError.serverUnreachable(server: place.serverName, reason: reason)
    }

    /// Why `error` says the server cannot be reached now; nil for any other refusal. A server
    /// shutting down, crashing or still starting up (class 57P) counts, as does a connection
    /// exception (class 08).
    static func unreachableReason(_ error: any Error) -> String? {
        switch error as? PostgresProblem {
        case .unreachable(_, let reason)?, .connectionLost(_, let reason)?:
            return reason
        case .refused(let message, _, let state)? where state.hasPrefix("57P") || state.hasPrefix("08"):
            return message
        default:
            return nil
        }
    }

    /// Closes every connection.
    package func close() {
        closed.withLockedValue { $0 = true }
        readers.lock()
        let open = pool.free
        pool.free = []
        readers.unlock()
        for session in open { session.close() }
        feed.withLockedValue { feed in
            feed?.close()
            feed = nil
        }
        writing.lock()
        writer.close()
        writing.unlock()
    }

    /// Ends every connection at once, those in use too, without waiting for any: the server
    /// stopped answering, and a read or a save waiting on it (perhaps on the UI's loop) must
    /// not wait any longer. Each fails as a lost connection; new ones are opened once the
    /// server answers again.
    private func abandonConnections() {
        readers.lock()
        let open = pool.free + Array(pool.inUse.values)
        readers.unlock()
        for session in open + [currentWriter.withLockedValue { $0 }].compactMap({ $0 }) + transfers.withLockedValue({ Array($0.values) }) {
            let connection = session.connection
            connection.close().whenComplete { _ in _ = connection }
        }
    }

    /// 50,000: a million rows went in at 0.95–1.03 times the speed of `psql`'s `\copy`, against
    /// 0.81–0.94 with 10,000 (each batch is a transaction and a round trip of its own).
    package var importBatchRows: Int { 50_000 }

    /// An import on a connection of its own (``PostgresImport``), ended with the others when
    /// the server stops answering (``abandonConnections()``).
    package func beginImport(into table: TableSchema, mode: ImportOptions.Mode, atomic: Bool, stopAtFirst: Bool, file: String, history: HistoryNote?,
                             creating: String?) throws -> any EngineImport {
        try failIfUnreachable()
        let kind = creating != nil ? .table : copyable.withLockedValue { $0[table.name] }
        if kind == nil, mode == .upsert || mode == .replace {
            // (ON CONFLICT needs the relation's own unique index.)
            throw StoreError.notOnEngine(feature: "An upsert or replace into a view (insert or ignore into the view, or upsert into its table)", engine: name)
        }
        do {
            let session = try PostgresSession.open(place)
            let id = ObjectIdentifier(session)
            transfers.withLockedValue { $0[id] = session }
            return try PostgresImport(
                session: session, table: table, byCopy: kind != nil, plainTable: kind == .table, mode: mode, atomic: atomic,
                stopAtFirst: stopAtFirst, file: file, journal: journalBegin(history), creating: creating, closed: { [transfers] in _ = transfers.withLockedValue { $0.removeValue(forKey: id) } })
        } catch {
            throw PostgresImport.storeError(error, server: place.serverName)
        }
    }

    /// `COPY (select) TO STDOUT` on a connection of its own (``PostgresCopyOut``), its values
    /// written into the statement (a `COPY` takes no parameters).
    package func bulkExport(
        select: String, arguments: [Value], quoted: [Bool], delimiter: UInt8, null: String,
        isCancelled: () -> Bool, _ chunk: ([UInt8], Int) throws -> Void
    ) throws -> BulkExport {
        // (COPY refuses a NULL text holding a quote, the delimiter or a line break, and a
        // backslash would be read as its escape: such an export reads the values itself.)
        let refused: Set<UInt8> = [0x22, delimiter, 0x0A, 0x0D, 0x5C]
        let awkward = null.utf8.contains { refused.contains($0) }
        guard PostgresCopyOut.isPossible(for: place), !awkward else { return .unavailable }
        try failIfUnreachable()
        let forced = quoted.indices.filter { quoted[$0] }.map { "\"__cf_export_\($0)\"" }
        let copy = "COPY (\(PostgresValues.inlined(select, arguments))) TO STDOUT WITH (FORMAT csv, DELIMITER "
            + (delimiter == 0x09 ? "E'\\t'" : "','") + ", NULL " + PostgresValues.literal(.text(null))
            + (forced.isEmpty ? "" : ", FORCE_QUOTE (\(forced.joined(separator: ", ")))") + ")"
        let rows: Int?
        do {
            let transfers = self.transfers
            rows = try PostgresCopyOut.run(copy, at: place, isCancelled: isCancelled, opened: { session in
                transfers.withLockedValue { $0[ObjectIdentifier(session)] = session }
            }, closing: { session in
                _ = transfers.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(session)) }
            }) { buffer, rows in
                try chunk(Array(buffer.readableBytesView), rows)
            }
        } catch let problem as PostgresProblem {
            throw noted(problem)
        }
        return rows.map { .written(rows: $0) } ?? .cancelled
    }

    /// Has the server parse `sql` on a reading connection, running nothing (see
    /// ``PostgresSession/parse(_:)``).
    func parseOnly(_ sql: String) throws {
        let session = try takeReader()
        defer { giveBack(session) }
        try answering { () throws(PostgresProblem) in try session.parse(sql) }
    }

    /// Makes the table in a transaction on a reading connection, describes it as
    /// ``readSchema()`` would, and rolls back.
    package func describe(creating sql: String, table: String) throws -> TableSchema {
        let session = try takeReader()
        defer { giveBack(session) }
        return try answering { () throws(PostgresProblem) in
            try session.run("BEGIN")
            defer { try? session.run("ROLLBACK") }
            try session.run(PostgresQuery(unsafeSQL: sql))
            let catalog = PostgresCatalog(session: session)
            guard let relation = try catalog.relation(named: table) else {
                throw PostgresProblem.refused(message: "the table made for the import is not in the search path", detail: nil, sqlState: "")
            }
            let constraints = try catalog.constraints(of: [relation])
            return try catalog.describe(relation).tableSchema(constraints[relation.oid] ?? PostgresConstraints())
        }
    }

    // MARK: - History

    /// The journal `cardfile pg-setup` installs on the server (see ``JournalSetup``); none
    /// when it is not installed, or this user may not write it. From now on the writer's
    /// transactions are recorded, each change keeping at most `settings.capacity / 640`
    /// records (100,000 by default, about the quarter of the capacity a file's journal keeps
    /// whole). The journal is pruned to the capacity its owner set, in the background.
    package func openJournal(_ settings: HistorySettings) -> (journal: (any EngineJournal)?, problem: String?) {
        let installed: Bool
        do {
            installed = try read { session in
                try session.firstRow("""
                    SELECT to_regclass('\(NotifySetup.schema).history_change') IS NOT NULL
                       AND to_regprocedure('\(NotifySetup.schema).history_begin(text, text, bigint[], boolean, bigint)') IS NOT NULL
                       AND to_regprocedure('\(NotifySetup.schema).history_prune()') IS NOT NULL
                       AND to_regprocedure('\(NotifySetup.schema).history_keep(oid[], bigint, text[], jsonb[], json[], json[])') IS NOT NULL
                    """, [])?.first == .boolean(true)
            }
        } catch {
            return (nil, "the history journal could not be looked for: \(error)")
        }
        guard installed else {
            return (nil, "this database has no history journal yet (cardfile pg-setup URL installs it, with the triggers)")
        }
        let limit = max(1, settings.capacity / 640)
        writing.lock()
        captureLimit = limit
        writerCaptures = false
        writing.unlock()
        let journal = ServerJournal(engine: self, rowLimit: limit)
        Thread.detachNewThread { [self] in try? prune() }
        return (journal, nil)
    }

    /// The statement and values that begin a journaled transaction of an import (nil when
    /// no history is kept).
    private func journalBegin(_ note: HistoryNote?) -> PostgresQuery? {
        guard let note, let limit = writing.withLock({ captureLimit }) else { return nil }
        return try? PostgresEngineSession.query(ServerJournal.beginSQL, ServerJournal.arguments(note, limit: limit))
    }

    /// Drops the oldest entries while the journal's changes take more than the capacity its
    /// owner set (`cardfile.history_settings`, 64 MiB unless changed). Summed only when the
    /// table itself is larger (a cheap check): a table emptied by pruning stays large until
    /// vacuumed, and is then summed once a start.
    private func prune() throws {
        // (As the journal's owner, to the capacity it set: every table's changes count,
        // whoever opens.)
        try write(lockWait: .seconds(1), oneStatement: false) { session in
            _ = try session.rows("SELECT \"\(NotifySetup.schema)\".history_prune()", [])
        }
    }

    /// Every table and view of the search path (in path order, as the catalog lists them),
    /// and those named when the engine was made, each described; a table the user may not
    /// read is not listed.
    package func readSchema() throws -> DatabaseSchema {
        let session = try takeReader()
        defer { giveBack(session) }
        let catalog = PostgresCatalog(session: session)
        var tables: [TableSchema] = []
        var named: [PendingChanges.QualifiedName: String] = [:]
        var heard = Set<String>()
        var takesCopy: [String: PostgresRelation.Kind] = [:]
        var byOID: [Int64: TableSchema] = [:]
        var idOf: [String: Int64] = [:]
        try answering { () throws(PostgresProblem) in
            var relations = try catalog.relations()
            for name in included {
                if let relation = try catalog.relation(named: name), !relations.contains(where: { $0.oid == relation.oid }) {
                    relations.append(relation)
                }
            }
            let withTriggers = try NotifySetup(session: session).announcedTables(also: relations.filter { !$0.isVisible }.map(\.oid))
            let constraints = try catalog.constraints(of: relations)
            let descriptions = try catalog.describe(relations)
            for relation in relations {
                guard let description = descriptions[relation.oid] else { continue }
                let table = try description.tableSchema(constraints[relation.oid] ?? PostgresConstraints())
                tables.append(table)
                if relation.kind == .table || relation.kind == .partitionedTable { takesCopy[table.name] = relation.kind }
                named[PendingChanges.QualifiedName(schema: relation.schema, table: relation.name)] = table.name
                byOID[relation.oid] = table
                idOf[table.name] = relation.oid
                if withTriggers.contains(relation.oid) { heard.insert(table.name) }
            }
        }
        names.withLockedValue { $0 = named }
        announced.withLockedValue { $0 = heard }
        copyable.withLockedValue { $0 = takesCopy }
        relationIDs.withLockedValue { $0 = (byOID, idOf) }
        return DatabaseSchema(tables: tables)
    }

    /// The table of the last schema read with object id `oid`.
    func tableSchema(withOID oid: Int64) -> TableSchema? { relationIDs.withLockedValue { $0.tables[oid] } }

    /// The table of the last schema read named `name` (its store name).
    func tableSchema(named name: String) -> TableSchema? { oid(of: name).flatMap(tableSchema(withOID:)) }

    /// The object id of the table the store names `name`.
    func oid(of name: String) -> Int64? { relationIDs.withLockedValue { $0.ids[name] } }

    /// What other connections (and our own writes' cascades) committed since the last call,
    /// by table:
    /// - the tables the feed announced;
    /// - the tables nothing announces (no triggers; views), every ``pollInterval`` at most,
    ///   when the server's snapshot shows that some transaction wrote since the last look
    ///   (`txid_current_snapshot()`: a writing transaction that ends either leaves its list
    ///   of running writers or, begun since, moves its upper bound);
    /// - every table once the server answers again after the feed's connection was lost
    ///   (what was committed meanwhile was not announced).
    ///
    /// While the server cannot be reached this throws ``StoreError/serverUnreachable(server:reason:)``
    /// at once, trying to connect again at the pace ``Reconnection`` allows.
    package func changedElsewhere() throws -> Set<String> {
        let known = names.withLockedValue { $0 }
        // The feed is taken out while it is used: connecting again may take the whole
        // connect_timeout, and ``close()`` must not wait for that.
        var current = feed.withLockedValue { feed in
            defer { feed = nil }
            return feed
        }
        defer {
            let keep = current
            let kept = feed.withLockedValue { feed in
                guard feed == nil, !closed.withLockedValue({ $0 }) else { return false }
                feed = keep
                return true
            }
            if !kept { keep?.close() }
        }
        var heard: (changes: PendingChanges, snapshot: String, everything: Bool)?
        if let listening = current {
            do {
                let snapshot = try answering { () throws(PostgresProblem) in try listening.catchUp() }
                // (The server answers: a connection lost elsewhere may be opened again.)
                reconnection.withLockedValue { $0.answered() }
                let changes = listening.drain()
                if !changes.connectionLost { heard = (changes, snapshot, false) }
            } catch StoreError.serverUnreachable {
                // A server that answers nothing fails every read and save waiting on it now,
                // rather than when each one's own wait ends. (Opened again below, at once the
                // first time.)
                if listening.session.timedOut { abandonConnections() }
            }
            if heard == nil {
                listening.close()
                current = nil
            }
        }
        if heard == nil {
            do {
                let fresh = try opening(probe: true) { () throws(PostgresProblem) in
                    try PostgresChangeFeed(location: place, answerWithin: Self.feedAnswerWithin) {}
                }
                current = fresh
                heard = (PendingChanges(), try answering { () throws(PostgresProblem) in try fresh.catchUp() }, true)
            } catch {
                abandonConnections()
                throw error
            }
        }
        guard let heard else { return [] }
        if heard.everything {
            polling.withLockedValue { $0 = Polling(snapshot: heard.snapshot, due: false, reportedAt: .now) }
            return Set(known.values)
        }
        var tables = Set(heard.changes.tables.keys.compactMap { known[$0] })
        let now = ContinuousClock.now
        let pollNow = polling.withLockedValue { polling in
            if polling.snapshot != heard.snapshot { polling.due = true }
            polling.snapshot = heard.snapshot
            guard polling.due, polling.reportedAt.map({ now >= $0 + Self.pollInterval }) ?? true else { return false }
            polling.due = false
            polling.reportedAt = now
            return true
        }
        if pollNow {
            let withTriggers = announced.withLockedValue { $0 }
            tables.formUnion(known.values.filter { !withTriggers.contains($0) })
        }
        return tables
    }

    /// A read whose connection turns out to have been ended before it (one kept in the pool
    /// through an outage or a restart) is read again on a new one, once: only a second loss
    /// says the server is gone.
    package func read<T>(_ body: (any EngineSession) throws -> T) throws -> T {
        try read(lockWait: nil, body)
    }

    /// `duration` in whole milliseconds, at least 1 (0 would mean no limit to the server).
    static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000))
    }

    /// ``read(_:)`` that waits at most `lockWait` for a lock another session holds on what it
    /// reads (a table locked whole: `LOCK TABLE`), then fails; nil waits as long as it takes.
    package func read<T>(lockWait: Duration?, _ body: (any EngineSession) throws -> T) throws -> T {
        var retried = false
        while true {
            let session = try takeReader()
            defer { giveBack(session) }
            do {
                if let lockWait {
                    try session.run(PostgresQuery(unsafeSQL: "SET lock_timeout = \(Self.milliseconds(lockWait))"))
                }
                defer { if lockWait != nil { try? session.run("SET lock_timeout = 0") } }
                return try body(PostgresEngineSession(session))
            } catch {
                if !retried, Self.unreachableReason(error) != nil, session.connection.isClosed {
                    retried = true
                    continue
                }
                throw noted(error)
            }
        }
    }


    /// One transaction on the writing connection, opened again first when it was lost. A row
    /// lock held elsewhere is waited for `lockWait` (`lock_timeout`), then the write fails as
    /// busy.
    package func write<T>(lockWait: Duration, oneStatement: Bool, _ body: (any EngineSession) throws -> T) throws -> T {
        writing.lock()
        defer { writing.unlock() }
        try failIfUnreachable()
        if writer.connection.isClosed { try reopenWriter() }
        let milliseconds = Self.milliseconds(lockWait)
        // (A writer ended since its last write, without its end noticed yet, is opened again
        // once: nothing of this write was sent on it.)
        for attempt in 0..<2 {
            do {
                if writerLockWait != milliseconds {
                    try writer.run(PostgresQuery(unsafeSQL: "SET lock_timeout = \(milliseconds)"))
                    writerLockWait = milliseconds
                }
                // Cardfile's writes are journaled by the triggers (see ``ServerJournal``).
                if let captureLimit, !writerCaptures {
                    try writer.run(PostgresQuery(unsafeSQL: "SET cardfile.capture = '\(captureLimit)'"))
                    writerCaptures = true
                }
                if !oneStatement { try writer.run("BEGIN") }
                break
            } catch {
                guard attempt == 0, Self.unreachableReason(error) != nil, writer.connection.isClosed else { throw noted(error) }
                try reopenWriter()
            }
        }
        // (With `oneStatement`, the session begins the transaction if a second statement comes.)
        let deferred = oneStatement ? DeferredBegin() : nil
        let begun = { deferred?.begun ?? true }
        let written = WriteLog()
        do {
            let result = try body(PostgresEngineSession(writer, deferred: deferred, written: written))
            guard begun() else { return result }
            // An insert's transaction is named first: if the answer to COMMIT is lost, the
            // server is asked whether it committed.
            let transaction = written.inserted ? try writer.rows("SELECT txid_current()::text").first?.decode(String.self) : nil
            do {
                try writer.run("COMMIT")
            } catch {
                guard let transaction, Self.unreachableReason(error) != nil else { throw error }
                let lost = noted(error)
                if try committed(transaction) { return result }
                throw lost
            }
            return result
        } catch PostgresProblem.refused(_, _, "55P03") {
            if begun() { try? writer.run("ROLLBACK") }
            throw StoreError.busy
        } catch {
            // (On a lost connection the server rolled back already, or, for an update or a
            // delete whose COMMIT went unanswered, committed: a save tried again then finds its
            // own values and writes nothing twice. An insert's is asked about above.)
            if begun() { try? writer.run("ROLLBACK") }
            throw noted(error)
        }
    }

    /// `RESET ALL` goes back to the connection's defaults (cardfile sets its `lock_timeout`
    /// again at the next write); a session-level advisory lock is let go.
    package func resetAfterTypedStatement() {
        writing.lock()
        defer { writing.unlock() }
        guard !writer.connection.isClosed else { return }
        try? writer.run("RESET ALL")
        try? writer.run("SELECT pg_advisory_unlock_all()")
        writerLockWait = nil
        writerCaptures = false
    }

    /// Opens the writing connection again (under `writing`).
    private func reopenWriter() throws {
        writer = try opening { () throws(PostgresProblem) in try PostgresSession.open(place) }
        currentWriter.withLockedValue { $0 = writer }
        writerLockWait = nil
        writerCaptures = false
    }

    /// Whether `transaction` (a `txid_current()`) committed, asked on a connection of its own
    /// after the answer to its COMMIT was lost. Throws ``StoreError/saveOutcomeUnknown(server:)``
    /// when the server cannot be asked now.
    private func committed(_ transaction: String) throws -> Bool {
        var status: String?
        do {
            let asking = try PostgresSession.open(place, answerWithin: Self.feedAnswerWithin, connectWithin: Self.feedAnswerWithin)
            defer { asking.close() }
            // (It answers: only that connection was lost.)
            reconnection.withLockedValue { $0.answered() }
            // (A transaction whose connection was lost ends soon: "in progress" is asked
            // again for a moment.)
            for attempt in 0..<20 {
                if attempt > 0 { Thread.sleep(forTimeInterval: 0.1) }
                status = try asking.rows(PostgresQuery(unsafeSQL: "SELECT txid_status(\(Int64(transaction) ?? 0))")).first?.decode(String?.self)
                if status != "in progress" { break }
            }
        } catch {
            throw StoreError.saveOutcomeUnknown(server: place.serverName)
        }
        switch status {
        case "committed": return true
        case "aborted": return false
        default: throw StoreError.saveOutcomeUnknown(server: place.serverName)
        }
    }

    func takeReader() throws -> PostgresSession {
        try failIfUnreachable()
        readers.lock()
        while pool.free.isEmpty && pool.count >= Self.maxReaders { readers.wait() }
        // (A connection the server ended is dropped: the next one, or a new one, serves.)
        while let session = pool.free.popLast() {
            if session.connection.isClosed {
                pool.count -= 1
                continue
            }
            pool.inUse[ObjectIdentifier(session)] = session
            readers.unlock()
            return session
        }
        pool.count += 1
        readers.unlock()
        do {
            let session = try opening { () throws(PostgresProblem) in try PostgresSession.open(place) }
            readers.lock()
            pool.inUse[ObjectIdentifier(session)] = session
            readers.unlock()
            return session
        } catch {
            readers.lock()
            pool.count -= 1
            readers.signal()
            readers.unlock()
            throw error
        }
    }

    /// Returns a reading connection to the pool; one that was lost is dropped (the next read
    /// opens another).
    func giveBack(_ session: PostgresSession) {
        readers.lock()
        pool.inUse[ObjectIdentifier(session)] = nil
        if session.connection.isClosed { pool.count -= 1 } else { pool.free.append(session) }
        readers.signal()
        readers.unlock()
    }
}
