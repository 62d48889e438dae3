import CardfileStore
import PostgresNIO

/// A record of a PostgreSQL table as read: its values in the table's column order, and its row
/// version (`xmin`, as text: it is only ever compared for equality, since it wraps around).
public struct PostgresRecord: Sendable, Equatable {
    public var values: [Value]
    public var version: String

    public init(values: [Value], version: String) {
        self.values = values
        self.version = version
    }
}

/// Reads and writes single records of one table, never overwriting a change made elsewhere
/// unseen: every update and delete names the row version it started from
/// (`… WHERE key AND xmin = $v::text::xid`), and when the row has moved on it is read again
/// and the one three-way rule (``ThreeWayMerge``) decides, as for SQLite:
/// - fields changed on different sides merge, and the merge is written (against the version
///   just read, again, until it lands);
/// - a change elsewhere that moved the version but no value (a no-op `UPDATE`, a trigger's
///   touch) is no conflict at all;
/// - the same field changed on both sides is a conflict: nothing is written, and the caller
///   gets original, mine and theirs;
/// - a row deleted elsewhere is said so, for the caller to offer restoring it.
///
/// Each call is one statement (or a few, when it must read again); a caller that saves several
/// records in one transaction wraps the calls in `BEGIN`/`COMMIT` on the same session.
public struct PostgresRecordWriter: Sendable {
    public let session: PostgresSession
    public let table: PostgresTableDescription
    /// How many times a merge is written against a version that moves again before the record
    /// is reported as changing under the save.
    public static let attempts = 8

    public init(session: PostgresSession, table: PostgresTableDescription) {
        self.session = session
        self.table = table
    }

    public enum UpdateOutcome: Sendable, Equatable {
        /// Written; the record as stored now.
        case saved(PostgresRecord)
        /// Both sides changed the same field: nothing written. `merge.contested` names them.
        case conflict(ThreeWayMerge, theirs: PostgresRecord)
        /// The row is gone.
        case deletedElsewhere
    }

    public enum DeleteOutcome: Sendable, Equatable {
        case deleted
        /// Its values changed since it was read: not deleted (a person decides).
        case changedElsewhere(PostgresRecord)
        case alreadyGone
    }

    /// The record whose key is `key` (the primary key's values in key order), or nil.
    public func read(key: [Value]) throws(PostgresProblem) -> PostgresRecord? {
        var bindings = PostgresBindings()
        let condition = keyCondition(key, into: &bindings)
        let rows = try session.rows(PostgresQuery(
            unsafeSQL: "SELECT \(selectList) FROM \(table.relation.quotedName) WHERE \(condition)", binds: bindings))
        return try rows.first.map { row throws(PostgresProblem) in try record(row) }
    }

    /// Inserts a record with `values` for the columns at `columns` (others take their defaults);
    /// returns it as stored.
    public func insert(_ values: [Value], columns: [Int]) throws(PostgresProblem) -> PostgresRecord {
        var bindings = PostgresBindings()
        let names = columns.map { PostgresName.quoted(table.columns[$0].name) }
        let placeholders = zip(columns, values).map { PostgresValues.placeholder($1, for: table.columns[$0], into: &bindings) }
        let sql = columns.isEmpty
            ? "INSERT INTO \(table.relation.quotedName) DEFAULT VALUES RETURNING \(selectList)"
            : "INSERT INTO \(table.relation.quotedName) (\(names.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", "))) RETURNING \(selectList)"
        let rows = try session.rows(PostgresQuery(unsafeSQL: sql, binds: bindings))
        guard let row = rows.first else { throw .refused(message: "the insert returned no row (a rule or trigger dropped it)", detail: nil, sqlState: "") }
        return try record(row)
    }

    /// Writes `mine` (all of the record's values) over `original`, as described above.
    /// `policy` settles contested fields (`.error`, the default, leaves them to a person).
    public func update(original: PostgresRecord, mine: [Value], policy: MergePolicy = .error) throws(PostgresProblem) -> UpdateOutcome {
        let fields = writableFields
        var base = original
        var wanted = mine
        for _ in 0..<Self.attempts {
            let changed = fields.filter { wanted[$0] != base.values[$0] }
            if changed.isEmpty {
                // Nothing of mine to write: the record as it is now (after a merge, the row
                // just read; before one, read it, since it may have moved on).
                if base != original { return .saved(base) }
                guard let current = try read(key: keyValues(original.values)) else { return .deletedElsewhere }
                return .saved(current)
            }
            if let stored = try write(changed.map { ($0, wanted[$0]) }, over: base, key: keyValues(original.values)) {
                return .saved(stored)
            }
            // The row moved on: read it again (by the key it had) and merge.
            guard let theirs = try read(key: keyValues(original.values)) else { return .deletedElsewhere }
            let merge = ThreeWayMerge(original: original.values, mine: mine, theirs: theirs.values, fields: fields)
            guard let resolved = merge.resolved(by: policy) else { return .conflict(merge, theirs: theirs) }
            base = theirs
            wanted = resolved
        }
        let theirs = try read(key: keyValues(original.values))
        guard let theirs else { return .deletedElsewhere }
        return .conflict(ThreeWayMerge(original: original.values, mine: mine, theirs: theirs.values, fields: fields), theirs: theirs)
    }

    /// Deletes the record if it is still as read; a change elsewhere that moved only its version
    /// does not keep it.
    public func delete(original: PostgresRecord) throws(PostgresProblem) -> DeleteOutcome {
        var base = original
        for _ in 0..<Self.attempts {
            var bindings = PostgresBindings()
            let condition = keyCondition(keyValues(original.values), into: &bindings)
            bindings.append(base.version)
            let rows = try session.rows(PostgresQuery(
                unsafeSQL: "DELETE FROM \(table.relation.quotedName) WHERE \(condition) AND xmin = $\(bindings.count)::text::xid RETURNING 1",
                binds: bindings))
            if !rows.isEmpty { return .deleted }
            guard let theirs = try read(key: keyValues(original.values)) else { return .alreadyGone }
            if writableFieldsDiffer(theirs.values, original.values) { return .changedElsewhere(theirs) }
            base = theirs
        }
        return .changedElsewhere(try read(key: keyValues(original.values)) ?? base)
    }

    // MARK: The statements

    /// The columns an edit may change: not identity or generated ones.
    var writableFields: [Int] {
        table.columns.indices.filter { table.columns[$0].readOnlyReason == nil }
    }

    private func writableFieldsDiffer(_ a: [Value], _ b: [Value]) -> Bool {
        writableFields.contains { a[$0] != b[$0] }
    }

    /// `UPDATE … SET … WHERE key AND xmin = version RETURNING …`: the record as stored, or nil
    /// when no row is at that version any more.
    private func write(_ assignments: [(Int, Value)], over base: PostgresRecord, key: [Value]) throws(PostgresProblem) -> PostgresRecord? {
        var bindings = PostgresBindings()
        let sets = assignments.map { field, value in
            "\(PostgresName.quoted(table.columns[field].name)) = \(PostgresValues.placeholder(value, for: table.columns[field], into: &bindings))"
        }
        let condition = keyCondition(key, into: &bindings)
        bindings.append(base.version)
        let sql = "UPDATE \(table.relation.quotedName) SET \(sets.joined(separator: ", ")) WHERE \(condition) AND xmin = $\(bindings.count)::text::xid RETURNING \(selectList)"
        let rows = try session.rows(PostgresQuery(unsafeSQL: sql, binds: bindings))
        return try rows.first.map { row throws(PostgresProblem) in try record(row) }
    }

    /// The select list: every column as ``PostgresValues`` reads it, then `xmin::text`.
    private var selectList: String {
        (table.columns.map(PostgresValues.selectExpression) + ["xmin::text"]).joined(separator: ", ")
    }

    private func record(_ row: PostgresRow) throws(PostgresProblem) -> PostgresRecord {
        let cells = Array(row)
        guard cells.count == table.columns.count + 1 else {
            throw .refused(message: "a row of \(table.relation.displayName) came back with \(cells.count) values", detail: nil, sqlState: "")
        }
        var values: [Value] = []
        for (cell, column) in zip(cells, table.columns) { values.append(try PostgresValues.value(cell, column: column)) }
        guard let version = try? cells[table.columns.count].decode(String.self) else {
            throw .refused(message: "a row of \(table.relation.displayName) came back without its version", detail: nil, sqlState: "")
        }
        return PostgresRecord(values: values, version: version)
    }

    private func keyValues(_ values: [Value]) -> [Value] {
        table.primaryKey.compactMap { name in table.columns.firstIndex { $0.name == name }.map { values[$0] } }
    }

    private func keyCondition(_ key: [Value], into bindings: inout PostgresBindings) -> String {
        zip(table.primaryKey, key).map { name, value in
            let column = table.columns.first { $0.name == name }!
            return "\(PostgresName.quoted(name)) = \(PostgresValues.placeholder(value, for: column, into: &bindings))"
        }.joined(separator: " AND ")
    }
}
