import CardfileStore
import Foundation
import NIOConcurrencyHelpers

/// The history of Cardfile's writes to a PostgreSQL database, kept on the server by
/// `cardfile pg-setup`'s triggers (see ``JournalSetup``) and shared by everyone editing it.
///
/// - Entries are written in the same transactions as the changes they record: a save that
///   committed is in the journal, one rolled back is not, whatever happens to the client.
/// - `:history` shows every user's versions of a record, each with its author.
/// - Alt-U and Alt-R work on the changes of the user connected (`session_user`): undoing a
///   teammate's save is done from `:history`, deliberately.
/// - A change's values are read back through `json_populate_record` with the table's row
///   type, then as the engine reads the table's own columns, so a record's versions compare
///   equal to the record as the editor shows it.
final class ServerJournal: EngineJournal, @unchecked Sendable {   // (immutable; the engine is thread-safe)
    private let engine: PostgresEngine
    /// The most records one change (or one import, over its batches) keeps.
    let rowLimit: Int
    var recordLimit: Int { rowLimit }
    /// Why the journal last failed to name a write, for the editor to say once.
    private let problem = NIOLockedValueBox<String?>(nil)

    init(engine: PostgresEngine, rowLimit: Int) {
        self.engine = engine
        self.rowLimit = rowLimit
    }

    private static let schema = "\"\(NotifySetup.schema)\""
    private static let entryColumns = "e.id, extract(epoch FROM e.time)::float8, e.source, e.records, e.complete, e.author, e.grp, e.undone"

    // MARK: - Writing

    /// How long a read of the journal waits for a lock held on it.
    static let readLockWait: Duration = .milliseconds(500)

    /// Names a transaction's entry (see ``JournalSetup/beginFunctionSQL``).
    static let beginSQL = "SELECT \(schema).history_begin(?::text, ?::text, ?::bigint[], ?::boolean, ?::bigint)"

    /// In a savepoint: a journal taken away since the editor opened (`pg-setup --remove`)
    /// or refused fails the history, never the write. The refusal is returned, to be kept for
    /// ``takeProblem()`` (which the editor says once) if the write commits.
    func begin(_ note: HistoryNote, in session: any EngineSession) throws -> String? {
        do {
            _ = try session.attempt { try session.rows(Self.beginSQL, Self.arguments(note, limit: rowLimit)) }
            return nil
        } catch let problem as PostgresProblem {
            if case .refused = problem { return problem.message }
            throw problem
        }
    }

    func keepProblem(_ problem: String) { self.problem.withLockedValue { $0 = problem } }

    /// Fails as the statement does (a lock held longer than `lockWait`, the journal gone):
    /// nothing was saved, so there is no saved change to say was not kept.
    func markWithoutWriting(_ note: HistoryNote, lockWait: Duration) throws {
        try engine.write(lockWait: lockWait, oneStatement: false) { session in
            _ = try session.rows(Self.beginSQL, Self.arguments(note, limit: rowLimit))
        }
    }

    static func arguments(_ note: HistoryNote, limit: Int) -> [Value] {
        let undoing: Value = note.undoing.isEmpty ? .null : .text("{" + note.undoing.map(String.init).joined(separator: ",") + "}")
        return [.text(note.source.rawValue), note.group.map(Value.text) ?? .null, undoing, .boolean(note.source == .undo), .integer(note.keepsRecords ? Int64(limit) : 0)]
    }

    // MARK: - Reading

    func flush() {}

    func takeProblem() -> String? { problem.withLockedValue { value in defer { value = nil }; return value } }

    func whyNotKept(_ table: TableSchema) -> String? {
        if table.isView { return "a view's changes are kept under its tables" }
        guard case .columns = table.primaryKey else { return "it has no primary key, and the history names records by their key" }
        guard engine.isAnnounced(table.name) else {
            return "its triggers are not installed (cardfile pg-setup URL --table \(table.name) installs them, and with them the history)"
        }
        return nil
    }

    func versions(of id: ObjectID) throws(StoreError) -> [RecordVersion] {
        guard let table = engine.tableSchema(named: id.table), let oid = engine.oid(of: id.table), let key = id.primaryKeyValues else { return [] }
        let parts = table.keyColumns.map { column in column.map { "\(Self.schema).history_key(\(table.dialect.placeholder(for: $0)))" } ?? "?" }
        return try reading { session in
            let condition = "c.relid = ?::oid AND c.rkey = jsonb_build_array(\(parts.joined(separator: ", ")))"
            let changes = try Self.changes(session, of: table, oid: oid, where: condition, [.integer(oid)] + key)
            let entries = try Self.entries(session, ids: Set(changes.map(\.entry)))
            return changes.reversed().compactMap { found in entries[found.entry].map { RecordVersion(entry: $0.entry, change: found.change) } }
        }
    }

    func entries(limit: Int) throws(StoreError) -> [HistoryEntry] {
        try reading { session in
            try session.rows("SELECT \(Self.entryColumns) FROM \(Self.schema).history_entry e WHERE e.records > 0 OR e.undoes IS NOT NULL OR NOT e.complete ORDER BY e.id DESC LIMIT ?",
                             [.integer(Int64(limit))]).map { Self.entry($0).entry }
        }
    }

    func nextUndo(table: String) throws(StoreError) -> HistoryStep? {
        try reading { session in
            guard let newest = try candidates(session, table: table).first(where: { !$0.undone }) else { return nil }
            let entries = try Self.group(session, of: newest, undone: false)
            let changes = RecordedChange.combined(try self.changes(session, of: entries))
            return HistoryStep(entries: entries, changes: changes.reversed().map(\.inverted), isRedo: false)
        }
    }

    func nextRedo(table: String) throws(StoreError) -> HistoryStep? {
        try reading { session in
            // The undone entries newer than every entry still in force; the oldest of them.
            guard let oldestUndone = try candidates(session, table: table).prefix(while: \.undone).last else { return nil }
            let entries = try Self.group(session, of: oldestUndone, undone: true)
            let changes = RecordedChange.combined(try self.changes(session, of: entries))
            return HistoryStep(entries: entries, changes: changes, isRedo: true)
        }
    }

    private struct Found {
        let entry: HistoryEntry
        let group: String?
        let undone: Bool
    }

    /// This user's entries that changed `table` and that undo and redo work on, newest first.
    private func candidates(_ session: any EngineSession, table: String) throws -> [Found] {
        guard let oid = engine.oid(of: table) else { return [] }
        return try session.rows("""
            SELECT \(Self.entryColumns) FROM \(Self.schema).history_entry e
            WHERE e.relids @> ARRAY[?::oid] AND e.source NOT IN ('undo', 'redo', 'elsewhere') AND e.author = session_user AND (e.records > 0 OR NOT e.complete)
            ORDER BY e.id DESC LIMIT 1000
            """, [.integer(oid)]).map(Self.entry)
    }

    /// The entry and the others of its group in the same state, oldest first.
    private static func group(_ session: any EngineSession, of found: Found, undone: Bool) throws -> [HistoryEntry] {
        guard let group = found.group else { return [found.entry] }
        // (This user's: a group's name is seen by others, who could name their entries so.)
        return try session.rows("SELECT \(entryColumns) FROM \(schema).history_entry e WHERE e.grp = ? AND e.undone = ? AND e.author = session_user ORDER BY e.id",
                                [.text(group), .boolean(undone)]).map { entry($0).entry }
    }

    private static func text(_ value: Value) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }

    private static func entry(_ row: [Value]) -> Found {
        let entry = HistoryEntry(
            id: Int64(row[0].wholeNumber ?? 0), time: Date(timeIntervalSince1970: row[1].doubleValue ?? 0),
            source: HistorySource(rawValue: text(row[2]) ?? "") ?? .form, recordCount: row[3].wholeNumber ?? 0,
            isComplete: row[4] == .boolean(true), author: text(row[5]))
        return Found(entry: entry, group: text(row[6]), undone: row[7] == .boolean(true))
    }

    private static func entries(_ session: any EngineSession, ids: Set<Int64>) throws -> [Int64: Found] {
        guard !ids.isEmpty else { return [:] }
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        var found: [Int64: Found] = [:]
        for row in try session.rows("SELECT \(entryColumns) FROM \(schema).history_entry e WHERE e.id = ANY(?::bigint[])", [.text(list)]) {
            let entry = entry(row)
            found[entry.entry.id] = entry
        }
        return found
    }

    /// Every record change of `entries`, in the order written, table by table as the engine
    /// knows them. A change of a table no longer there cannot be written back: the step is
    /// then not whole.
    private func changes(_ session: any EngineSession, of entries: [HistoryEntry]) throws -> [RecordedChange] {
        let kept = entries.filter(\.isComplete)
        guard !kept.isEmpty else { return [] }
        let list = Value.text("{" + kept.map { String($0.id) }.joined(separator: ",") + "}")
        var all: [(id: Int64, change: RecordedChange)] = []
        for row in try session.rows("SELECT DISTINCT relid::int8 FROM \(Self.schema).history_change c WHERE c.entry = ANY(?::bigint[])", [list]) {
            let oid = Int64(row[0].wholeNumber ?? 0)
            guard let table = engine.tableSchema(withOID: oid) else {
                throw StoreError.historyNotKept(count: entries.reduce(0) { $0 + $1.recordCount })
            }
            let found = try Self.changes(session, of: table, oid: oid, where: "c.relid = ?::oid AND c.entry = ANY(?::bigint[])", [.integer(oid), list])
            // (A column renamed or dropped since: its values would be written as NULL, or
            // not at all.)
            if found.contains(where: \.outdated) { throw StoreError.historyOutdated(table: table.name) }
            all += found.map { ($0.id, $0.change) }
        }
        return all.sorted { $0.id < $1.id }.map(\.change)
    }

    /// The changes of `table` matching `condition` (on `history_change c`), oldest first, each
    /// with its entry and its own id. Each side of a change is read as the table's row type,
    /// then column by column as the engine reads the table.
    /// A change is `outdated` when it holds a column the table no longer has (renamed or
    /// dropped since); a column added since is left out of it (its default stands).
    private static func changes(_ session: any EngineSession, of table: TableSchema, oid: Int64, where condition: String,
                                _ arguments: [Value]) throws -> [(id: Int64, entry: Int64, change: RecordedChange, outdated: Bool)] {
        // Columns a change writes back: those a person writes, and the numbers the database
        // gives (so a deleted row comes back with its own).
        let keyIndexes = Set(table.keyColumns.compactMap { $0.flatMap { table.columnIndex(named: $0.name) } })
        let columns = table.columns.indices.filter { table.columns[$0].isWritable || table.columns[$0].isNumberedByDatabase || keyIndexes.contains($0) }
        let reads = table.keyReadExpressions + columns.map { table.dialect.selectExpression(table.columns[$0]) }
        func side(_ name: String, _ number: Int) -> String {
            "SELECT c.id AS \"__cf_change\", c.entry AS \"__cf_entry\", \(number) AS \"__cf_side\", "
                + "(SELECT string_agg(k, chr(31)) FROM json_object_keys(c.\(name)) AS k) AS \"__cf_keys\", r.* "
                + "FROM \(schema).history_change c CROSS JOIN LATERAL json_populate_record(NULL::\(table.quotedName), c.\(name)) r "
                + "WHERE c.\(name) IS NOT NULL AND \(condition)"
        }
        let sql = "SELECT \"__cf_change\", \"__cf_entry\", \"__cf_side\", \"__cf_keys\", \(reads.joined(separator: ", ")) FROM ("
            + side("old", 0) + " UNION ALL " + side("new", 1) + ") AS t ORDER BY 1, 3"
        let width = table.keyReadExpressions.count
        struct Sides {
            var entry: Int64
            var key: [Value]
            var old: [Value]?
            var new: [Value]?
            /// The columns the change's sides hold (as its JSON names them).
            var held: Set<String> = []
        }
        var sides: [Int64: Sides] = [:]
        var order: [Int64] = []
        for row in try session.rows(sql, arguments + arguments) {
            let id = Int64(row[0].wholeNumber ?? 0)
            let values = Array(row[(4 + width)...])
            var found = sides[id] ?? Sides(entry: Int64(row[1].wholeNumber ?? 0), key: Array(row[4..<(4 + width)]))
            if sides[id] == nil { order.append(id) }
            if row[2].wholeNumber == 0 { found.old = values } else { found.new = values }
            if case .text(let keys) = row[3] { found.held.formUnion(keys.split(separator: "\u{1F}").map(String.init)) }
            sides[id] = found
        }
        let names = columns.map { table.columns[$0].name }
        let allNames = Set(table.columns.map(\.name))
        return order.compactMap { id in
            guard let found = sides[id] else { return nil }
            let record = ObjectID(table: table.name, primaryKey: found.key)
            let present = names.indices.filter { found.held.contains(names[$0]) }
            let outdated = !found.held.isSubset(of: allNames)
            let fields: [RecordedChange.Field]
            let kind: RecordedChange.Kind
            switch (found.old, found.new) {
            case (let old?, let new?):
                kind = .update
                fields = present.filter { old[$0] != new[$0] }.map { .init(name: names[$0], old: old[$0], new: new[$0]) }
                if fields.isEmpty, !outdated { return nil }
            case (nil, let new?):
                kind = .insert
                fields = present.map { .init(name: names[$0], old: nil, new: new[$0]) }
            case (let old?, nil):
                kind = .delete
                fields = present.map { .init(name: names[$0], old: old[$0], new: nil) }
            case (nil, nil):
                return nil
            }
            return (id, found.entry, RecordedChange(id: record, kind: kind, fields: fields), outdated)
        }
    }

    /// Reads the journal, waiting at most ``readLockWait`` for a lock another session holds on
    /// it (Alt-U and `:history` run on the UI loop: a journal locked whole froze the screen
    /// until it was let go).
    private func reading<T>(_ body: (any EngineSession) throws -> T) throws(StoreError) -> T {
        do {
            return try engine.read(lockWait: Self.readLockWait, body)
        } catch let error as StoreError {
            throw error
        } catch let problem as PostgresProblem {
            throw StoreError.database(code: -1, message: "the history could not be read: " + problem.message)
        } catch {
            throw StoreError.database(code: -1, message: "the history could not be read: \(error)")
        }
    }
}
