import CSQLiteSupport
import Dispatch
import Foundation
import GRDB

/// Where and how much history is kept (see ``StoreOptions/history``).
public struct HistorySettings: Hashable, Sendable {
    /// The folder that holds one journal per database file (`$XDG_STATE_HOME/cardfile/history`).
    public var folder: String
    /// The most the journal keeps, in bytes of values: past it, the oldest entries go first.
    /// A change larger than a quarter of it is listed without its records.
    public var capacity: Int

    public static let defaultCapacity = 64 << 20

    public init(folder: String, capacity: Int = Self.defaultCapacity) {
        self.folder = folder
        self.capacity = capacity
    }
}

/// The saves made to one database file, kept outside it: each write transaction's changes
/// (recorded by SQLite's pre-update hook, see ``ChangeRecorder``), with its time and what made it.
///
/// The journal is a SQLite file of its own, named by the database file's identity (device and
/// inode, and its birth time where the file system keeps one), so a database moved keeps its
/// history and another file put at its path starts afresh. Entries are written on a queue of the journal's own, after the write they record
/// has committed (gathered for a moment, so a burst is one commit): a save waits only for the
/// recording, never for the journal's disk. Reads and ``flush()`` write what waits first, so
/// they see every entry of a save that returned.
public final class HistoryJournal: HistoryKeeping, @unchecked Sendable {
    public let settings: HistorySettings
    /// The journal's file.
    public let file: String
    private let queue = DispatchQueue(label: "cardfile.history")
    private let database: DatabaseQueue
    /// The sum of the entries' sizes (touched on ``queue`` only).
    private var total = 0
    /// Why the last entry could not be written, for the app to say once.
    private let problem = Locked<String?>(nil)

    /// Opens (or makes) the journal of the database file at `databasePath`, which must exist.
    init(settings: HistorySettings, databasePath: String) throws {
        guard let identity = FileIdentity(path: databasePath) else {
            throw StoreError.cannotOpen(path: databasePath, detail: "the file to keep history of is not there")
        }
        self.settings = settings
        try FileManager.default.createDirectory(atPath: settings.folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // (With the file's birth time where the file system keeps it: an inode freed by a
        // deleted file and given to a new one is then another identity too.)
        let born = cf_birth_time(databasePath)
        file = settings.folder + "/\(identity.device)-\(identity.inode)\(born > 0 ? "-\(born)" : "").sqlite3"
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        database = try DatabaseQueue(path: file, configuration: configuration)
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.inTransaction {
                // (A journal of another layout is started afresh.)
                if try Int.fetchOne(db, sql: "PRAGMA user_version") != Self.layout {
                    for table in ["entry", "record", "keyvalue", "field", "dropped"] { try db.execute(sql: "DROP TABLE IF EXISTS \(table)") }
                    try db.execute(sql: "PRAGMA user_version = \(Self.layout)")
                }
                try db.execute(sql: Self.schema)
                try db.execute(sql: "INSERT OR REPLACE INTO about(name, value) VALUES ('path', ?)", arguments: [databasePath])
                return .commit
            }
        }
        total = try database.read { try Int.fetchOne($0, sql: "SELECT coalesce(sum(bytes), 0) FROM entry") ?? 0 }
    }

    /// The journal's layout, in `PRAGMA user_version`.
    private static let layout = 4

    private static let schema = """
        CREATE TABLE IF NOT EXISTS about(name TEXT PRIMARY KEY, value);
        CREATE TABLE IF NOT EXISTS entry(
            id INTEGER PRIMARY KEY, time REAL NOT NULL, source TEXT NOT NULL, grp TEXT,
            undoes TEXT, undone INTEGER NOT NULL DEFAULT 0, complete INTEGER NOT NULL,
            records INTEGER NOT NULL, bytes INTEGER NOT NULL, tables TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS record(
            entry INTEGER NOT NULL, seq INTEGER NOT NULL, tbl TEXT NOT NULL COLLATE NOCASE, rkey TEXT NOT NULL,
            op TEXT NOT NULL, packed BLOB NOT NULL, PRIMARY KEY(entry, seq)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS record_by_key ON record(tbl, rkey);
        CREATE TABLE IF NOT EXISTS dropped(grp TEXT PRIMARY KEY) WITHOUT ROWID;
        """

    /// Why the journal last failed to keep an entry, once (nil afterwards, and when it never did).
    public func takeProblem() -> String? { problem.withLock { value in defer { value = nil }; return value } }

    /// Waits until every entry handed over so far is written.
    public func flush() { queue.sync { drain() } }

    // MARK: - Writing

    /// An entry waiting for the journal's queue: captured bytes to decode, or changes named.
    private struct Pending {
        var captured: CapturedChanges?
        var schema: DatabaseSchema?
        var changes: [RecordedChange]
        var note: HistoryNote
        var time: Date
    }

    /// Entries handed over and not yet written, oldest first.
    private let pending = Locked<[Pending]>([])
    /// The store's schema as it is now (set by the store): the tables a write made itself.
    let currentSchema = Locked<(@Sendable () -> DatabaseSchema)?>(nil)

    /// Journals a committed write's changes, decoded by `schema` (on the journal's queue).
    func append(_ captured: CapturedChanges, schema: DatabaseSchema, note: HistoryNote, time: Date) {
        enqueue(Pending(captured: captured, schema: schema, changes: [], note: note, time: time))
    }

    /// Journals changes the caller names itself (another program's, merged into a record).
    func append(changes: [RecordedChange], note: HistoryNote, time: Date, evenIfEmpty: Bool = false) {
        guard !changes.isEmpty || evenIfEmpty else { return }
        enqueue(Pending(captured: nil, schema: nil, changes: changes, note: note, time: time))
    }

    /// Hands an entry to the queue. Entries that wait while the queue writes are written
    /// together, in one transaction: a burst of saves costs one commit of the journal, not one
    /// each (each was 0.2 ms on the second core, slowing the saves themselves).
    private func enqueue(_ entry: Pending) {
        let first = pending.withLock { waiting in
            waiting.append(entry)
            return waiting.count == 1
        }
        guard first else { return }
        queue.asyncAfter(deadline: .now() + Self.gathering) { [self] in drain() }
    }

    /// How long the first entry of a burst waits for others to be written with it. (A save a
    /// hundred microseconds after the last made the journal commit each time, competing with
    /// the saves on a two-core machine: 1.4 times a save without history, 1.2 with this.)
    private static let gathering: DispatchTimeInterval = .milliseconds(20)

    /// Writes what waits (on ``queue`` only).
    private func drain() {
        let batch = pending.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
        if !batch.isEmpty { write(batch) }
    }

    private func write(_ batch: [Pending]) {
        var written = 0
        do {
            try database.inTransaction { db in
                for entry in batch {
                    var changes = entry.changes
                    var count = changes.count
                    var tables = Set(changes.map(\.id.table))
                    var complete = true
                    if let captured = entry.captured, let schema = entry.schema {
                        let decoded = CaptureDecoder.decode(captured, schema: schema, later: currentSchema.value?())
                        (changes, count, tables, complete) = (decoded.changes, decoded.count, decoded.tables, decoded.complete)
                    }
                    written += try write(note: entry.note, time: entry.time, changes: changes, recordCount: count, tables: tables, complete: complete, db: db)
                }
                return .commit
            }
            total += written
            try dropOldest()
        } catch {
            let words = (error as? DatabaseError).map { StoreError.working($0, path: file).message } ?? String(describing: error)
            problem.withLock { $0 = words }
        }
    }

    /// Writes one entry; returns its size in bytes (0 when there was nothing to keep).
    private func write(note: HistoryNote, time: Date, changes: [RecordedChange], recordCount: Int, tables: Set<String>, complete: Bool,
                       db: Database) throws -> Int {
        guard recordCount > 0 || !note.undoing.isEmpty else { return 0 }
        var bytes = changes.reduce(64) { $0 + $1.byteCount }
        var complete = complete
        var kept = changes
        // (A batch of an import whose first batches the cap dropped: the rest is no whole.)
        let partOfDropped = try note.group.map { try Bool.fetchOne(db, sql: "SELECT 1 FROM dropped WHERE grp = ?", arguments: [$0]) ?? false } ?? false
        if bytes > settings.capacity / 4 || partOfDropped {
            (kept, complete, bytes) = ([], false, 64)
        }
        try db.cachedStatement(sql: "INSERT INTO entry(time, source, grp, undoes, complete, records, bytes, tables) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").execute(
            arguments: [time.timeIntervalSince1970, note.source.rawValue, note.group,
                        note.undoing.isEmpty ? nil : note.undoing.map(String.init).joined(separator: ","),
                        complete, recordCount, bytes, Self.tablesText(tables)])
        let entry = db.lastInsertedRowID
        let record = try db.cachedStatement(sql: "INSERT INTO record(entry, seq, tbl, rkey, op, packed) VALUES (?, ?, ?, ?, ?, ?)")
        for (seq, change) in kept.enumerated() {
            let values = change.id.primaryKeyValues ?? []
            try record.execute(arguments: [entry, seq, change.id.table, Self.keyText(values), change.kind.rawValue,
                                           ChangePacking.pack(key: values, fields: change.fields)])
        }
        // An undo marks what it undid; a redo marks it done again.
        if !note.undoing.isEmpty {
            let undone = note.source == .undo
            for id in note.undoing {
                try db.execute(sql: "UPDATE entry SET undone = ? WHERE id = ?", arguments: [undone, id])
            }
        }
        return bytes
    }

    /// Drops the oldest entries until the journal is within its cap.
    private func dropOldest() throws {
        guard total > settings.capacity else { return }
        var remaining = total
        try database.inTransaction { db in
            let entries = try Row.fetchAll(db, sql: "SELECT id, bytes, grp FROM entry ORDER BY id")
            var dropped: [Int64] = []
            var groups: Set<String> = []
            for row in entries where remaining > settings.capacity {
                dropped.append(row[0])
                remaining -= row[1] as Int
                if let group: String = row[2] { groups.insert(group) }
            }
            // An import's batches go together: half an import is not something to undo.
            for row in entries.dropFirst(dropped.count) {
                guard let group: String = row[2], groups.contains(group) else { continue }
                dropped.append(row[0])
                remaining -= row[1] as Int
            }
            for id in dropped {
                try db.execute(sql: "DELETE FROM record WHERE entry = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM entry WHERE id = ?", arguments: [id])
            }
            // Batches of these groups still to come are kept without their records.
            for group in groups { try db.execute(sql: "INSERT OR IGNORE INTO dropped(grp) VALUES (?)", arguments: [group]) }
            return .commit
        }
        total = remaining
    }

    /// The tables an entry touched, as its `tables` column holds them: lowercased, each on a
    /// line of its own (so one is found by `instr` with the newlines around it).
    static func tablesText(_ tables: Set<String>) -> String {
        "\n" + tables.map { $0.lowercased() }.sorted().joined(separator: "\n") + "\n"
    }

    /// Whether the journal keeps the changes of `table`: a table with a declared key (records
    /// are named by it), and not a WITHOUT ROWID table with virtual generated columns, whose
    /// values this SQLite's pre-update hook gives in one order for an update's new row and
    /// another for the rest.
    public static func keeps(_ table: TableSchema) -> Bool {
        switch table.primaryKey {
        case .implicitRowid, .unidentifiable: return false
        default: return !(table.isWithoutRowid && table.columns.contains { $0.generation == .virtual })
        }
    }

    public func whyNotKept(_ table: TableSchema) -> String? {
        if table.isView { return "a view's changes are kept under its tables" }
        guard !Self.keeps(table) else { return nil }
        switch table.primaryKey {
        case .implicitRowid, .unidentifiable: return "it has no declared primary key, and the history names records by their key"
        default: return "a WITHOUT ROWID table with virtual generated columns, whose changes this SQLite does not give in a steady order"
        }
    }

    /// A record key as the journal looks it up: each value with its storage class, so the
    /// integer 1 and the text "1" are different keys.
    static func keyText(_ values: [Value]) -> String {
        values.map { value in
            switch value {
            case .null: "n"
            case .integer(let number): "i\(number)"
            case .real(let number): "r\(number.bitPattern)"
            case .text(let text): "t\(text.utf8.count):\(text)"
            case .blob(let data): "b" + data.map { String(format: "%02x", $0) }.joined()
            case .decimal(let text): "d\(text.utf8.count):\(text)"
            case .boolean(let flag): flag ? "o1" : "o0"
            }
        }.joined(separator: ";")
    }

    // MARK: - Reading

    /// The versions of a record, newest first: every kept change of it.
    public func versions(of id: ObjectID) throws(StoreError) -> [RecordVersion] {
        guard let key = id.primaryKeyValues else { return [] }
        return try reading { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT e.id, e.time, e.source, e.records, e.complete, r.tbl, r.op, r.packed FROM record r JOIN entry e ON e.id = r.entry
                WHERE r.tbl = ? AND r.rkey = ? ORDER BY e.id DESC, r.seq DESC
                """, arguments: [id.table, Self.keyText(key)])
            return rows.compactMap { row in
                Self.change(table: row[5], kind: row[6], packed: row[7]).map { RecordVersion(entry: Self.entry(row), change: $0) }
            }
        }
    }

    /// The entries (newest first), at most `limit`.
    public func entries(limit: Int) throws(StoreError) -> [HistoryEntry] {
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT id, time, source, records, complete FROM entry ORDER BY id DESC LIMIT ?", arguments: [limit]).map(Self.entry)
        }
    }

    /// What `:undo` in `table`'s list would undo: the newest change of the table made here
    /// (not an undo, not another program's) that is not undone, whole (an import's batches
    /// together), with its changes inverted, newest record first. Nil when there is none.
    public func nextUndo(table: String) throws(StoreError) -> HistoryStep? {
        try reading { db in
            guard let newest = try Self.candidates(db, table: table).first(where: { !$0.undone }) else { return nil }
            let entries = try Self.group(db, of: newest, undone: false)
            let changes = RecordedChange.combined(try entries.flatMap { try Self.changes(db, of: $0) })
            return HistoryStep(entries: entries, changes: changes.reversed().map(\.inverted), isRedo: false)
        }
    }

    /// What Alt-R in `table`'s list would write again: the oldest undone change of the table
    /// when every change made after it is undone too (a change made since an undo ends what
    /// can be redone, as in any editor). Nil when there is none.
    public func nextRedo(table: String) throws(StoreError) -> HistoryStep? {
        try reading { db in
            let candidates = try Self.candidates(db, table: table)
            // The undone entries newer than every entry still in force; the oldest of them.
            let undoneSuffix = candidates.prefix { $0.undone }
            guard let oldestUndone = undoneSuffix.last else { return nil }
            let entries = try Self.group(db, of: oldestUndone, undone: true)
            let changes = RecordedChange.combined(try entries.flatMap { try Self.changes(db, of: $0) })
            return HistoryStep(entries: entries, changes: changes, isRedo: true)
        }
    }

    private struct Candidate {
        let entry: HistoryEntry
        let group: String?
        let undone: Bool
    }

    /// The table's entries that undo and redo work on, newest first.
    private static func candidates(_ db: Database, table: String) throws -> [Candidate] {
        try Row.fetchAll(db, sql: """
            SELECT e.id, e.time, e.source, e.records, e.complete, e.grp, e.undone FROM entry e
            WHERE e.source NOT IN ('undo', 'redo', 'elsewhere')
              AND instr(e.tables, ?) > 0
            ORDER BY e.id DESC
            """, arguments: ["\n" + table.lowercased() + "\n"]).map { row in
            Candidate(entry: entry(row), group: row[5], undone: row[6])
        }
    }

    /// The entry and the others of its group in the same state, oldest first.
    private static func group(_ db: Database, of candidate: Candidate, undone: Bool) throws -> [HistoryEntry] {
        guard let group = candidate.group else { return [candidate.entry] }
        return try Row.fetchAll(db, sql: "SELECT id, time, source, records, complete FROM entry WHERE grp = ? AND undone = ? ORDER BY id",
                                arguments: [group, undone]).map(entry)
    }

    private static func entry(_ row: Row) -> HistoryEntry {
        HistoryEntry(id: row[0], time: Date(timeIntervalSince1970: row[1]), source: HistorySource(rawValue: row[2]) ?? .form,
                     recordCount: row[3], isComplete: row[4])
    }

    /// Every record change of an entry, in the order written.
    private static func changes(_ db: Database, of entry: HistoryEntry) throws -> [RecordedChange] {
        try Row.fetchAll(db, sql: "SELECT tbl, op, packed FROM record WHERE entry = ? ORDER BY seq", arguments: [entry.id]).map { row in
            // (A record the journal cannot read back: the entry cannot be undone whole.)
            guard let change = change(table: row[0], kind: row[1], packed: row[2]) else { throw StoreError.historyNotKept(count: entry.recordCount) }
            return change
        }
    }

    private static func change(table: String, kind: String, packed: Data) -> RecordedChange? {
        guard let (key, fields) = ChangePacking.unpack(packed) else { return nil }
        return RecordedChange(id: ObjectID(table: table, primaryKey: key), kind: RecordedChange.Kind(rawValue: kind) ?? .update, fields: fields)
    }

    private func reading<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        try storeErrors(path: file) {
            try queue.sync {
                drain()
                return try database.read(body)
            }
        }
    }
}
