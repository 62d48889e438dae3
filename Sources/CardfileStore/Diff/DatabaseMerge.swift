import GRDB

/// A three-way merge of database files record by record (`cardfile merge BASE OURS THEIRS`,
/// git's merge driver): what each side changed since the base, with the store's per-field
/// rule (``ThreeWayMerge``).
///
/// For each record (by key, or rowid for a table without a declared key):
/// - the same on both sides, or changed on one side only: that side;
/// - changed on both sides: field by field, a field changed on one side takes that side; a
///   field both changed to different values is *contested*;
/// - deleted on one side and changed on the other: contested;
/// - added on both sides with different values: contested.
///
/// ``plan(base:ours:theirs:)`` reads the three files in key order, walked together (memory
/// grows with the changes to make, not with the tables), and ``apply(_:to:)`` writes the
/// writes into OURS in one transaction. Tables and columns must be the same in all three.
public enum DatabaseMerge {
    /// A record the rule cannot settle: its three versions (nil: absent on that side) and,
    /// for a record on all three sides, the contested columns.
    public struct Contest: Sendable, Equatable {
        public let table: String
        public let columns: [String]
        /// The key's columns (the rowid's name for a table without a declared key).
        public let keyColumns: [String]
        public let key: [Value]
        public let original: [Value]?
        public let mine: [Value]?
        public let theirs: [Value]?
        /// Positions in ``columns`` both sides changed to different values (empty when a side
        /// deleted the record, or both added it).
        public let contested: [Int]

        /// What happened, in words: `name changed on both sides`, `deleted here, changed there`.
        public var reason: String {
            if key.contains(where: \.isNull) { return "its key holds NULL, which tells no record apart" }
            return switch (original, mine, theirs) {
            case (_?, nil, _?): "deleted in ours, changed in theirs"
            case (_?, _?, nil): "changed in ours, deleted in theirs"
            case (nil, _?, _?): "added on both sides with different values"
            default: contested.map { columns[$0] }.joined(separator: ", ") + " changed on both sides"
            }
        }
    }

    /// A write that takes the other side's change into OURS.
    public enum Write: Sendable, Equatable {
        case insert(table: String, columns: [String], values: [Value])
        case update(table: String, key: [String], keyValues: [Value], columns: [String], values: [Value])
        case delete(table: String, key: [String], keyValues: [Value])
    }

    public struct Plan: Sendable, Equatable {
        public var writes: [Write] = []
        public var contests: [Contest] = []
        /// Things to know, in words: tables merged by rowid.
        public var notes: [String] = []
    }

    /// Why the files cannot be merged record by record (their schemas differ); nil when they can.
    public static func schemaProblem(base: Container, ours: Container, theirs: Container) -> String? {
        func shape(_ container: Container) -> [String: [String]] {
            Dictionary(uniqueKeysWithValues: container.schema.tables.filter { !$0.isView }.map { table in
                (table.name.lowercased(), table.columns.filter { !$0.isHidden }.map { "\($0.name.lowercased()) \($0.declaredType.uppercased())" }
                    + ["key: " + table.primaryKey.keyExpressions.joined(separator: ",").lowercased()])
            })
        }
        let shapes = [("ours", shape(ours)), ("theirs", shape(theirs))]
        let reference = shape(base)
        for (side, tables) in shapes {
            for name in Set(reference.keys).union(tables.keys).sorted() where reference[name] != tables[name] {
                let what = reference[name] == nil ? "is added in \(side)" : tables[name] == nil ? "is dropped in \(side)" : "has other columns or another key in \(side)"
                return "table \(name) \(what); cardfile merges records, not schemas: merge the schema by hand first. Nothing was written."
            }
        }
        for table in base.schema.tables where !table.isView && !table.isIdentifiable {
            return "table \(table.name) has no key to tell its records apart; cardfile merges records by key. Nothing was written."
        }
        // Writing theirs into ours would fire ours' triggers again (an audit row twice).
        if ours.schema.hasTriggers {
            return "the database has triggers, which writing the merge would fire again; merge it by hand. Nothing was written."
        }
        return nil
    }

    /// What merging `theirs` into `ours` (both from `base`) takes. Call ``schemaProblem(base:ours:theirs:)`` first.
    public static func plan(base: Container, ours: Container, theirs: Container) throws(StoreError) -> Plan {
        var plan = Plan()
        try storeErrors(path: ours.core.path) {
            for table in base.schema.tables where !table.isView {
                if case .implicitRowid = table.primaryKey {
                    plan.notes.append("table \(table.name) has no declared key: its records were matched by rowid, which a rebuilt file (VACUUM) may have renumbered")
                }
                try merge(table, base: base, ours: ours, theirs: theirs, into: &plan)
            }
        }
        return plan
    }

    private static func merge(_ table: TableSchema, base: Container, ours: Container, theirs: Container, into plan: inout Plan) throws {
        let columns = table.columns.filter { !$0.isHidden && $0.generation == .none }.map(\.name)
        let keyExpressions = table.primaryKey.keyExpressions
        // (The rowid as the table reads it: a column may be called rowid.)
        let keyNames = table.primaryKey.columnNames.isEmpty ? keyExpressions : table.primaryKey.columnNames
        let collations = table.primaryKey.columnNames.isEmpty ? [Collation.binary] : keyNames.map { name -> Collation in
            let collation = table.column(named: name)?.collation ?? .binary
            if case .custom = collation { return .binary }       // (one SQLite here does not know)
            return collation
        }
        let order = zip(keyExpressions, collations).map { "\($0) COLLATE \($1.name)" }.joined(separator: ", ")
        let sql = "SELECT \((keyExpressions + columns.map(\.quotedIdentifier)).joined(separator: ", ")) FROM \(table.quotedName) ORDER BY \(order)"
        let width = keyExpressions.count
        try base.core.read { dbBase in
            try ours.core.read { dbOurs in
                try theirs.core.read { dbTheirs in
                    let sides = try [dbBase, dbOurs, dbTheirs].map { db -> (Statement, RowCursor) in
                        let statement = try db.makeStatement(sql: sql)
                        return (statement, try Row.fetchCursor(statement))
                    }
                    func next(_ side: Int) throws -> (key: [Value], values: [Value])? {
                        let (statement, cursor) = sides[side]
                        guard try cursor.next() != nil else { return nil }
                        let handle = statement.sqliteStatement
                        let all = (0..<CInt(width + columns.count)).map { Value(statement: handle, index: $0) }
                        return (Array(all[..<width]), Array(all[width...]))
                    }
                    var rows = [try next(0), try next(1), try next(2)]
                    while let key = rows.compactMap({ $0?.key }).min(by: { DatabaseDiff.compare($0, $1, collations) < 0 }) {
                        var at: [[Value]?] = [nil, nil, nil]
                        for side in 0..<3 where rows[side].map({ DatabaseDiff.compare($0.key, key, collations) == 0 }) == true {
                            at[side] = rows[side]!.values
                            rows[side] = try next(side)
                        }
                        decide(table: table.name, columns: columns, key: keyNames, keyValues: key, base: at[0], ours: at[1], theirs: at[2], into: &plan)
                    }
                }
            }
        }
    }

    /// The rule for one record.
    static func decide(table: String, columns: [String], key: [String], keyValues: [Value],
                       base: [Value]?, ours: [Value]?, theirs: [Value]?, into plan: inout Plan) {
        func contest(_ contested: [Int] = []) {
            plan.contests.append(Contest(table: table, columns: columns, keyColumns: key, key: keyValues, original: base, mine: ours, theirs: theirs, contested: contested))
        }
        if ours == theirs || base == theirs { return }           // nothing of theirs to take
        // A NULL in a key tells no record apart: such a record is never written.
        if keyValues.contains(where: \.isNull) { return contest() }
        if base == ours {                                        // ours unchanged: take theirs
            switch (ours, theirs) {
            case (nil, let theirs?):
                // (A table without a declared key keeps their rowid.)
                let byRowid = !key.allSatisfy(columns.contains)
                plan.writes.append(.insert(table: table, columns: (byRowid ? key : []) + columns, values: (byRowid ? keyValues : []) + theirs))
            case (_?, nil): plan.writes.append(.delete(table: table, key: key, keyValues: keyValues))
            case (let ours?, let theirs?): update(ours, to: theirs)
            case (nil, nil): break
            }
            return
        }
        guard let base, let ours, let theirs else { return contest() }
        let merge = ThreeWayMerge(original: base, mine: ours, theirs: theirs)
        guard merge.contested.isEmpty else { return contest(merge.contested) }
        update(ours, to: merge.merged(contestedTaking: .mine))

        func update(_ from: [Value], to values: [Value]) {
            let changed = columns.indices.filter { from[$0] != values[$0] }
            guard !changed.isEmpty else { return }
            plan.writes.append(.update(table: table, key: key, keyValues: keyValues, columns: changed.map { columns[$0] }, values: changed.map { values[$0] }))
        }
    }

    /// What writes `row` (nil: no record) as the contested record's merge into OURS: a person's
    /// choice in the conflict dialog. Nothing when OURS already holds it.
    public static func resolution(of contest: Contest, as row: [Value]?) -> [Write] {
        // A NULL in a key tells no record apart: such a record is never written.
        guard !contest.key.contains(where: \.isNull) else { return [] }
        switch (contest.mine, row) {
        case (nil, nil): return []
        case (_?, nil): return [.delete(table: contest.table, key: contest.keyColumns, keyValues: contest.key)]
        case (nil, let row?):
            let byRowid = !contest.keyColumns.allSatisfy(contest.columns.contains)
            return [.insert(table: contest.table, columns: (byRowid ? contest.keyColumns : []) + contest.columns, values: (byRowid ? contest.key : []) + row)]
        case (let mine?, let row?):
            let changed = contest.columns.indices.filter { mine[$0] != row[$0] }
            guard !changed.isEmpty else { return [] }
            return [.update(table: contest.table, key: contest.keyColumns, keyValues: contest.key,
                            columns: changed.map { contest.columns[$0] }, values: changed.map { row[$0] })]
        }
    }

    /// Writes `plan`'s writes into `ours` in one transaction. Foreign keys are off while it
    /// runs (a cascade would delete or change records the merge never named) and checked
    /// before it commits: a record left pointing at a missing one (theirs deleted a parent
    /// ours added a child to) rolls it all back (``StoreError/statementNotRun(reason:)``).
    /// Then the log is emptied into the file: git reads the file alone.
    public static func apply(_ plan: Plan, to ours: Container) throws(StoreError) {
        guard !plan.writes.isEmpty else { return }
        guard let writer = ours.core.writer else { throw StoreError.readOnly(ours.core.readOnlyReason ?? .requested) }
        try storeErrors(path: ours.core.path) {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                try db.inTransaction(.immediate) {
                    try write(plan, db: db)
                    let dangling = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                    guard dangling.isEmpty else {
                        let first = dangling[0]
                        throw StoreError.statementNotRun(reason: "the merge would leave \(dangling.count) record\(dangling.count == 1 ? "" : "s") pointing at a missing one (first: \(first["table"] as String? ?? "?") \(first["rowid"] as Int64? ?? 0) → \(first["parent"] as String? ?? "?")), so nothing was written; merge by hand")
                    }
                    return .commit
                }
                _ = try? db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
    }

    private static func write(_ plan: Plan, db: Database) throws {
                for write in plan.writes {
                    switch write {
                    case .insert(let table, let columns, let values):
                        try db.execute(sql: "INSERT INTO \(table.quotedIdentifier) (\(columns.map(DiffText.name).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))",
                                       arguments: values.statementArguments)
                    case .update(let table, let key, let keyValues, let columns, let values):
                        try db.execute(sql: "UPDATE \(table.quotedIdentifier) SET \(columns.map { "\($0.quotedIdentifier) = ?" }.joined(separator: ", ")) WHERE \(Self.match(key))",
                                       arguments: (values + keyValues).statementArguments)
                    case .delete(let table, let key, let keyValues):
                        try db.execute(sql: "DELETE FROM \(table.quotedIdentifier) WHERE \(Self.match(key))", arguments: keyValues.statementArguments)
                    }
                }
    }

    private static func match(_ key: [String]) -> String {
        key.map { "\(DiffText.name($0)) IS ?" }.joined(separator: " AND ")
    }

}

extension DatabaseMerge.Write {
    var table: String {
        switch self {
        case .insert(let table, _, _), .update(let table, _, _, _, _), .delete(let table, _, _): table
        }
    }
}
