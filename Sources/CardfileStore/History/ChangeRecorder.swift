import CSQLiteSupport
import Foundation
import GRDB
import GRDBSQLite

/// Records what one write transaction changes, record by record, through SQLite's pre-update
/// hook (`cf_capture_begin`): each change's table, rowids and the values before and after,
/// copied into one buffer in C.
///
/// (Not SQLite's session extension, which is built on the same hook: a session made, attached
/// and turned into a changeset for each transaction cost a one-record save 24 µs in plain C,
/// a raw commit's own time, because it reads each table's columns and the changed rows again;
/// the save with it was 2.7 times one without, where the goal is 1.2. See the note of issue 23.)
///
/// Made on the writer's connection just after the transaction begins and ended before it
/// commits; ``captured()`` copies the bytes out, and ``CaptureDecoder`` reads them later, off
/// the writer.
final class ChangeRecorder {
    private let db: Database
    private var capture: OpaquePointer?

    /// Starts recording on `db`; past `limit` bytes the changes are counted without their
    /// values. Nil when memory runs out.
    init?(_ db: Database, limit: Int) {
        self.db = db
        guard let made = cf_capture_begin(db.sqliteConnection, limit) else { return nil }
        capture = made
    }

    deinit { end() }

    /// What was recorded so far; nil when nothing was.
    func captured() -> CapturedChanges? {
        guard let capture else { return nil }
        var size = 0
        var overflowed: CInt = 0
        var failed: CInt = 0
        guard let bytes = cf_capture_bytes(capture, &size, &overflowed, &failed), size > 0 else { return nil }
        return CapturedChanges(bytes: Data(bytes: bytes, count: size), overflowed: overflowed != 0, failed: failed != 0)
    }

    /// Where the recording is now: before a statement whose failure the caller catches.
    func mark() -> Int { capture.map { cf_capture_mark($0) } ?? 0 }

    /// Forgets the changes recorded after `mark`: a statement failed, and SQLite undid what
    /// it had written (an import's refused row), while the transaction goes on.
    func rewind(to mark: Int) {
        if let capture { cf_capture_rewind(capture, mark) }
    }

    /// Stops recording (the hook must not outlive the transaction).
    func end() {
        guard let capture else { return }
        cf_capture_end(db.sqliteConnection, capture)
        self.capture = nil
    }
}

/// The bytes a ``ChangeRecorder`` captured.
struct CapturedChanges: Sendable {
    let bytes: Data
    /// True when the transaction changed more than the limit: later changes have no values.
    let overflowed: Bool
    /// True when memory ran out while recording.
    let failed: Bool
}

/// Turns captured bytes into ``RecordedChange``s, by the schema the write was made with.
enum CaptureDecoder {
    struct Decoded {
        var changes: [RecordedChange] = []
        /// Every record change, kept or not.
        var count = 0
        var tables: Set<String> = []
        /// False when some changes could not be kept (past the limit, or of a table unknown to
        /// the schema, or shaped otherwise).
        var complete = true
    }

    /// `later`, when given, names the tables `schema` does not know: one made in the same
    /// transaction as its first rows (an import that creates its table).
    static func decode(_ captured: CapturedChanges, schema: DatabaseSchema, later: DatabaseSchema? = nil) -> Decoded {
        captured.bytes.withUnsafeBytes { raw in decode(raw, failed: captured.failed, schema: schema, later: later) }
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, failed: Bool, schema: DatabaseSchema, later: DatabaseSchema?) -> Decoded {
        var decoded = Decoded()
        decoded.complete = !failed
        var reader = ValueBytes.Reader(raw: raw)
        var tables: [String: TableSchema?] = [:]
        while !reader.isAtEnd {
            guard let op = reader.byte(), let withValues = reader.byte(), let name = reader.string(), let oldRowid = reader.int64(),
                  let newRowid = reader.int64(), let columnCount = reader.int32() else {
                decoded.complete = false
                break
            }
            var old: [Value] = []
            var new: [Value] = []
            if withValues != 0 {
                for _ in 0..<Int(columnCount) {
                    if Int32(op) != SQLITE_INSERT { old.append(reader.value() ?? .null) }
                    if Int32(op) != SQLITE_DELETE { new.append(reader.value() ?? .null) }
                }
            }
            if tables[name] == nil { tables[name] = .some(schema.table(named: name) ?? later?.table(named: name)) }
            let table = tables[name] ?? nil
            // Records are named by their key: a table without one is not kept (by design, not
            // a loss to report).
            if let table, !HistoryJournal.keeps(table) { continue }
            func lost() {
                decoded.count += 1
                decoded.tables.insert(table?.name ?? name)
                decoded.complete = false
            }
            guard withValues != 0 else { lost(); continue }
            guard let table, table.columns.count == Int(columnCount) else { lost(); continue }
            // The hook gives values in storage order: virtual generated columns last (checked by
            // the tests against the SQLite linked; see ``HistoryJournal/keeps(_:)``).
            let stored = table.columns.filter { $0.generation != .virtual } + table.columns.filter { $0.generation == .virtual }
            let names = stored.map(\.name)
            // Generated columns are computed, never written back.
            let writable = stored.indices.filter { stored[$0].generation == .none }
            // A row stored before `ALTER TABLE … ADD COLUMN x DEFAULT d` holds no x: this
            // SQLite's hook then gives NULL as its old value, where the row reads d. In a NOT
            // NULL column that can only be the default: its literal, or unknown (an
            // expression). In a nullable one, NULL → d is taken for the default too (a person
            // setting NULL to exactly d goes unrecorded: the lesser harm).
            var unknown = Set<Int>()
            if !old.isEmpty {
                for column in writable where old[column].isNull {
                    let description = stored[column]
                    guard description.defaultSQL != nil else { continue }
                    let literal = Self.literal(description.defaultSQL).map { Self.stored($0, affinity: description.affinity) }
                    if description.isNotNull {
                        if let literal, !literal.isNull { old[column] = literal } else { unknown.insert(column) }
                    } else if let literal, !literal.isNull, !new.isEmpty, new[column] == literal {
                        unknown.insert(column)
                    }
                }
            }
            func key(_ values: [Value], rowid: Int64) -> [Value]? {
                switch table.primaryKey {
                case .rowidAlias: return [.integer(rowid)]
                case .columns(let keys), .withoutRowid(let keys):
                    let found = keys.compactMap { key in names.firstIndex { $0.caseInsensitiveCompare(key) == .orderedSame }.map { values[$0] } }
                    return found.count == keys.count ? found : nil
                case .implicitRowid, .unidentifiable: return nil
                }
            }
            func whole(_ kind: RecordedChange.Kind, _ values: [Value], rowid: Int64) -> RecordedChange? {
                key(values, rowid: rowid).map { key in
                    // (A deleted row's NOT NULL column read as NULL held its default: left out,
                    // so bringing the row back gives it the default again.)
                    let kept = writable.filter { kind != .delete || !unknown.contains($0) }
                    return RecordedChange(id: ObjectID(table: table.name, primaryKey: key), kind: kind,
                                          fields: kept.map { .init(name: names[$0], old: kind == .delete ? values[$0] : nil, new: kind == .insert ? values[$0] : nil) })
                }
            }
            switch Int32(op) {
            case SQLITE_INSERT:
                if let change = whole(.insert, new, rowid: newRowid) { decoded.changes.append(change) }
            case SQLITE_DELETE:
                if let change = whole(.delete, old, rowid: oldRowid) { decoded.changes.append(change) }
            default:
                guard let oldKey = key(old, rowid: oldRowid), let newKey = key(new, rowid: newRowid) else { continue }
                if oldKey != newKey {
                    // A record whose key changed: the old one deleted, the new one added.
                    if let gone = whole(.delete, old, rowid: oldRowid), let added = whole(.insert, new, rowid: newRowid) {
                        decoded.changes += [gone, added]
                    }
                    continue
                }
                let fields = writable.filter { old[$0] != new[$0] && !unknown.contains($0) }.map { RecordedChange.Field(name: names[$0], old: old[$0], new: new[$0]) }
                if !fields.isEmpty {
                    decoded.changes.append(RecordedChange(id: ObjectID(table: table.name, primaryKey: oldKey), kind: .update, fields: fields))
                }
            }
        }
        decoded.count += decoded.changes.count
        for change in decoded.changes { decoded.tables.insert(change.id.table) }
        return decoded
    }

    /// The value of a default written as a literal (`0`, `-1.5`, `'text'`, `NULL`); nil for an
    /// expression.
    static func literal(_ sql: String?) -> Value? {
        guard var text = sql?.trimmingCharacters(in: .whitespaces) else { return nil }
        while text.hasPrefix("("), text.hasSuffix(")") { text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces) }
        if text.uppercased() == "NULL" { return .null }
        if let number = Int64(text) { return .integer(number) }
        if let number = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return .real(number) }
        if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
            return .text(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
        return nil
    }

    /// A default's literal as a column of `affinity` stores it (`DEFAULT 0` in a REAL column
    /// is the real 0.0).
    static func stored(_ value: Value, affinity: Affinity) -> Value {
        switch (affinity, value) {
        case (.real, .integer(let number)): return .real(Double(number))
        case (.integer, .real(let number)), (.numeric, .real(let number)):
            return number == number.rounded() && abs(number) < 9e15 ? .integer(Int64(number)) : value
        default: return value
        }
    }
}
