import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// `cardfile merge` in the store: random edit scripts on two copies of a base, merged, against
/// a model of the rule; the merge is symmetric, and what it writes is the model's result.
@Suite("Merging database files", .timeLimit(.minutes(Fuzz.scaled(10))))
struct MergeFilesTests {
    typealias Rows = [Int64: [Value]]

    static func rows(_ path: String) throws -> Rows {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var rows: Rows = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, a, b FROM t") { rows[row[0]] = [Value(row[1] as DatabaseValue), Value(row[2] as DatabaseValue)] }
            return rows
        }
    }

    /// A random script of edits: updates of one or both fields, deletes, inserts (some with
    /// keys the other side may also insert), no-op updates, and edits back to the base value.
    static func edit(_ path: String, _ random: inout SeededRandom) throws {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in
            for id in Int64(1)...12 {
                switch random.next(below: 8) {
                case 0: try db.execute(sql: "UPDATE t SET a = ? WHERE id = ?", arguments: [random.next(below: 3), id])
                case 1: try db.execute(sql: "UPDATE t SET b = ? WHERE id = ?", arguments: [["x", "y"][random.next(below: 2)], id])
                case 2: try db.execute(sql: "DELETE FROM t WHERE id = ?", arguments: [id])
                case 3: try db.execute(sql: "UPDATE t SET a = a WHERE id = ?", arguments: [id])
                case 4:
                    try db.execute(sql: "UPDATE t SET a = 99 WHERE id = ?", arguments: [id])
                    try db.execute(sql: "UPDATE t SET a = ? WHERE id = ?", arguments: [id % 3, id])   // back
                default: break
                }
            }
            for id in Int64(20)...23 where random.next(below: 2) == 0 {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: [id, random.next(below: 2), "new"])
            }
        }
    }

    /// The rule, written out per record: (merged row or nil, contested).
    static func model(base: [Value]?, ours: [Value]?, theirs: [Value]?) -> (row: [Value]?, contested: Bool) {
        if ours == theirs { return (ours, false) }
        if base == ours { return (theirs, false) }
        if base == theirs { return (ours, false) }
        guard let base, let ours, let theirs else { return (ours, true) }
        var merged = base
        for field in base.indices {
            switch (ours[field] != base[field], theirs[field] != base[field]) {
            case (true, true) where ours[field] != theirs[field]: return (ours, true)
            case (true, _): merged[field] = ours[field]
            case (false, true): merged[field] = theirs[field]
            case (false, false): break
            }
        }
        return (merged, false)
    }

    /// Found in review: a column named rowid, a cascade that would drop a record ours added,
    /// triggers, and keys holding NULL.
    @Test func reviewedCasesMergeRightOrNotAtAll() throws {
        let directory = TemporaryDirectory()
        let base = directory.file("base.sqlite"), ours = directory.file("ours.sqlite"), theirs = directory.file("theirs.sqlite")
        try makeDatabase(at: base, """
            CREATE TABLE odd (rowid TEXT, v); INSERT INTO odd VALUES ('r1', 1), ('r2', 2);
            CREATE TABLE parent (id INTEGER PRIMARY KEY); INSERT INTO parent VALUES (1), (2);
            CREATE TABLE child (id INTEGER PRIMARY KEY, p REFERENCES parent(id) ON DELETE CASCADE); INSERT INTO child VALUES (1, 2);
            CREATE TABLE n (k TEXT PRIMARY KEY, v); INSERT INTO n VALUES (NULL, 1);
            """)
        for path in [ours, theirs] { try FileManager.default.copyItem(atPath: base, toPath: path) }
        func open(_ path: String) throws -> Container { try Container(path: path, options: StoreOptions(createIfMissing: false)) }
        func sql(_ path: String, _ text: String) throws {
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: text) }
            try queue.close()
        }
        try sql(theirs, "UPDATE odd SET v = 20 WHERE _rowid_ = 2; DELETE FROM parent WHERE id = 1")
        try sql(ours, "INSERT INTO child VALUES (10, 1)")
        var plan = try DatabaseMerge.plan(base: try open(base), ours: try open(ours), theirs: try open(theirs))
        #expect(plan.contests.isEmpty)
        #expect(plan.notes.contains { $0.hasPrefix("table odd has no declared key") })
        // Theirs deleted the parent of ours' new child: refused whole, nothing written.
        #expect(throws: StoreError.self) { try DatabaseMerge.apply(plan, to: try open(ours)) }
        #expect(try readDisk(ours, "SELECT count(*) FROM child WHERE id = 10") == .integer(1))
        #expect(try readDisk(ours, "SELECT v FROM odd WHERE _rowid_ = 2") == .integer(2))
        // Without the child: the row of odd is matched by its real rowid.
        try sql(ours, "DELETE FROM child WHERE id = 10")
        plan = try DatabaseMerge.plan(base: try open(base), ours: try open(ours), theirs: try open(theirs))
        try DatabaseMerge.apply(plan, to: try open(ours))
        #expect(try readDisk(ours, "SELECT group_concat(rowid || ':' || v) FROM (SELECT rowid, v FROM odd ORDER BY _rowid_)") == .text("r1:1,r2:20"))
        #expect(try readDisk(ours, "SELECT count(*) FROM parent") == .integer(1))
        // A NULL key on both sides changed: contested, never guessed.
        try sql(ours, "UPDATE n SET v = 5")
        try sql(theirs, "UPDATE n SET v = 6")
        plan = try DatabaseMerge.plan(base: try open(base), ours: try open(ours), theirs: try open(theirs))
        #expect(plan.contests.map(\.reason) == ["its key holds NULL, which tells no record apart"])
        // Triggers: refused.
        try sql(ours, "CREATE TRIGGER t AFTER UPDATE ON n BEGIN SELECT 1; END")
        #expect(DatabaseMerge.schemaProblem(base: try open(base), ours: try open(ours), theirs: try open(theirs))?.contains("triggers") == true)
    }

    /// git reads OURS alone after the driver: a file in WAL mode must hold the merge itself,
    /// not its log.
    @Test func aMergeIntoAWALFileIsInTheFileItself() throws {
        let directory = TemporaryDirectory()
        let base = directory.file("base.sqlite"), ours = directory.file("ours.sqlite"), theirs = directory.file("theirs.sqlite")
        try makeDatabase(at: base, "PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, a); INSERT INTO t VALUES (1, 'base');")
        for path in [ours, theirs] {
            let queue = try DatabaseQueue(path: path)
            try DatabaseQueue(path: base).backup(to: queue)
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
            try queue.close()
        }
        let queue = try DatabaseQueue(path: theirs)
        try queue.write { try $0.execute(sql: "UPDATE t SET a = 'theirs'") }
        try queue.close()
        func open(_ path: String) throws -> Container { try Container(path: path, options: StoreOptions(createIfMissing: false)) }
        let merged = try open(ours)
        try DatabaseMerge.apply(try DatabaseMerge.plan(base: try open(base), ours: merged, theirs: try open(theirs)), to: merged)
        // The main file alone, copied while the container is still open (as git would read it).
        let alone = directory.file("alone.sqlite")
        try FileManager.default.copyItem(atPath: ours, toPath: alone)
        #expect(try readDisk(alone, "SELECT a FROM t") == .text("theirs"))
        withExtendedLifetime(merged) {}
    }

    @Test func randomEditScriptsMergeAsTheRuleSaysAndSymmetrically() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        var merges = 0, contested = 0
        for round in 0..<Fuzz.scaled(30) {
            let directory = TemporaryDirectory()
            let base = directory.file("base.sqlite"), ours = directory.file("ours.sqlite"), theirs = directory.file("theirs.sqlite")
            try makeDatabase(at: base, "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT);"
                + (1...12).map { "INSERT INTO t VALUES (\($0), \($0 % 3), 'b\($0)');" }.joined())
            for path in [ours, theirs] { try FileManager.default.copyItem(atPath: base, toPath: path) }
            try Self.edit(ours, &random)
            try Self.edit(theirs, &random)
            let (baseRows, ourRows, theirRows) = (try Self.rows(base), try Self.rows(ours), try Self.rows(theirs))
            var expected: Rows = [:]
            var expectedContests: Set<Int64> = []
            for id in Set(baseRows.keys).union(ourRows.keys).union(theirRows.keys) {
                let (row, isContested) = Self.model(base: baseRows[id], ours: ourRows[id], theirs: theirRows[id])
                if isContested { expectedContests.insert(id) }
                if let row { expected[id] = row }
            }
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round)"
            let open = { (path: String) in try Container(path: path, options: StoreOptions(createIfMissing: false)) }
            let plan = try DatabaseMerge.plan(base: try open(base), ours: try open(ours), theirs: try open(theirs))
            let mirrored = try DatabaseMerge.plan(base: try open(base), ours: try open(theirs), theirs: try open(ours))
            func keys(_ plan: DatabaseMerge.Plan) -> Set<Int64> {
                Set(plan.contests.map { contest -> Int64 in
                    if case .integer(let id) = contest.key[0] { return id }
                    return -1
                })
            }
            #expect(keys(plan) == expectedContests, "\(context)")
            #expect(keys(mirrored) == expectedContests, "\(context): not symmetric")
            for (contest, other) in zip(plan.contests, mirrored.contests) {
                #expect(contest.mine == other.theirs && contest.theirs == other.mine && contest.contested == other.contested, "\(context)")
            }
            guard plan.contests.isEmpty else { contested += 1; continue }
            merges += 1
            try DatabaseMerge.apply(plan, to: try open(ours))
            try DatabaseMerge.apply(mirrored, to: try open(theirs))
            #expect(try Self.rows(ours) == expected, "\(context)")
            #expect(try Self.rows(theirs) == expected, "\(context): the other way round")
        }
        print("randomEditScriptsMergeAsTheRuleSaysAndSymmetrically: \(merges) merged, \(contested) contested")
    }
}
