import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// `cardfile diff` in the store: random edits of a database compared with the original,
/// against a model of the edits, and the SQL it writes, run on a copy of A, makes B.
@Suite("Database diff", .timeLimit(.minutes(Fuzz.scaled(10))))
struct DiffTests {
    static let schema = """
        CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty, data BLOB);
        CREATE TABLE tags (item INTEGER, tag TEXT COLLATE NOCASE, note TEXT, PRIMARY KEY (item, tag)) WITHOUT ROWID;
        CREATE TABLE loose (a, b);
        """

    static func values(_ random: inout SeededRandom) -> [DatabaseValueConvertible?] {
        let names: [String?] = ["ant", "Bee", "", nil, "it's", "naïve", "a\tb"]
        let prices: [Double?] = [1.5, 2, nil, -0.25, 1e20]
        let quantities: [DatabaseValueConvertible?] = [1, 1.0, "1", nil, 7]
        let blobs: [Data?] = [nil, Data([0, 1, 255]), Data()]
        return [names[random.next(below: names.count)], prices[random.next(below: prices.count)],
                quantities[random.next(below: quantities.count)], blobs[random.next(below: blobs.count)]]
    }

    static func events(_ a: String, _ b: String, deletesFirst: Bool = false) throws -> (events: [DatabaseDiff.Event], summary: DatabaseDiff.Summary) {
        let left = try Container(path: a, options: StoreOptions(createIfMissing: false, readOnly: true))
        let right = try Container(path: b, options: StoreOptions(createIfMissing: false, readOnly: true))
        var events: [DatabaseDiff.Event] = []
        let summary = try DatabaseDiff.run(left, right, deletesFirst: deletesFirst) { events.append($0) }
        return (events, summary)
    }

    /// The SQL `cardfile diff --format sql` would write.
    static func sql(_ events: [DatabaseDiff.Event], _ summary: DatabaseDiff.Summary) -> String {
        var columns: [String] = [], key: [String] = [], hasRowid = true
        var text = DiffText.start(format: .sql)
        for event in events {
            if case .table(_, let names, let keyNames, _, let rowid) = event { (columns, key, hasRowid) = (names, keyNames, rowid) }
            text += DiffText.lines(event, format: .sql, columns: columns, key: key, hasRowid: hasRowid)
        }
        return text + DiffText.end(summary, format: .sql)
    }

    @Test func randomEditsAreFoundExactlyAndTheSQLMakesAIntoB() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(8) {
            let directory = TemporaryDirectory()
            let a = directory.file("a.sqlite"), b = directory.file("b.sqlite"), c = directory.file("c.sqlite")
            let queue = try DatabaseQueue(path: a)
            try queue.write { db in
                try db.execute(sql: Self.schema)
                for id in 1...(5 + random.next(below: 40)) {
                    try db.execute(sql: "INSERT INTO items VALUES (?, ?, ?, ?, ?)", arguments: StatementArguments([id] + Self.values(&random)))
                    if random.next(below: 2) == 0 { try db.execute(sql: "INSERT INTO tags VALUES (?, ?, 'n')", arguments: [id, ["red", "Blue"][random.next(below: 2)]]) }
                    try db.execute(sql: "INSERT INTO loose VALUES (?, ?)", arguments: [id % 4, ["x", "y"][random.next(below: 2)]])
                }
            }
            for path in [b, c] { try queue.backup(to: try DatabaseQueue(path: path)) }
            try queue.close()
            // B: random edits; the model keeps what each record became.
            var expected: [String: String] = [:]        // "items 3" → "changed" / "added" / "deleted"
            let other = try DatabaseQueue(path: b)
            try other.write { db in
                let ids = try Int64.fetchAll(db, sql: "SELECT id FROM items")
                for id in ids where random.next(below: 5) == 0 {
                    switch random.next(below: 4) {
                    case 0:
                        try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [id])
                        expected["items \(id)"] = "deleted"
                    case 1:
                        // Only the storage class: 1 and 1.0 are not the same value to keep.
                        try db.execute(sql: "UPDATE items SET qty = CASE typeof(qty) WHEN 'integer' THEN CAST(qty AS REAL) ELSE 1 END WHERE id = ?", arguments: [id])
                        expected["items \(id)"] = "changed"
                    default:
                        let before = try Row.fetchOne(db, sql: "SELECT name, price, qty, data FROM items WHERE id = ?", arguments: [id])!
                        try db.execute(sql: "UPDATE items SET name = ?, price = ?, qty = ?, data = ? WHERE id = ?", arguments: StatementArguments(Self.values(&random) + [id]))
                        let after = try Row.fetchOne(db, sql: "SELECT name, price, qty, data FROM items WHERE id = ?", arguments: [id])!
                        // (An edit back to the same values is no change; 1 and 1.0 differ.)
                        let same = (0..<4).allSatisfy { Value(before[$0] as DatabaseValue) == Value(after[$0] as DatabaseValue) }
                        if !same { expected["items \(id)"] = "changed" }
                    }
                }
                for id in (1000...(1000 + random.next(below: 5))) where random.next(below: 2) == 0 {
                    try db.execute(sql: "INSERT INTO items VALUES (?, ?, ?, ?, ?)", arguments: StatementArguments([id] + Self.values(&random)))
                    expected["items \(id)"] = "added"
                }
                // The keyless table: rows deleted and added (by rowid, which the SQL must keep).
                for rowid in try Int64.fetchAll(db, sql: "SELECT rowid FROM loose") where random.next(below: 6) == 0 {
                    try db.execute(sql: "DELETE FROM loose WHERE rowid = ?", arguments: [rowid])
                }
                for _ in 0..<random.next(below: 3) { try db.execute(sql: "INSERT INTO loose VALUES (?, 'z')", arguments: [random.next(below: 4)]) }
                // A tag whose case changes is the same record (the key is NOCASE) with a new note.
                if let tagged = try Row.fetchOne(db, sql: "SELECT item, tag FROM tags ORDER BY item LIMIT 1") {
                    try db.execute(sql: "UPDATE tags SET tag = upper(tag), note = 'm' WHERE item = ?", arguments: [tagged[0] as Int64])
                    expected["tags \(tagged[0] as Int64)"] = "changed"
                }
            }
            try other.close()
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round)"
            let (events, summary) = try Self.events(a, b)
            var found: [String: String] = [:]
            for event in events {
                switch event {
                case .added(let table, let key, _) where table != "loose": found["\(table) \(key[0])"] = "added"
                case .deleted(let table, let key, _) where table != "loose": found["\(table) \(key[0])"] = "deleted"
                case .changed(let table, let key, _) where table != "loose": found["\(table) \(key[0])"] = "changed"
                default: break
                }
            }
            #expect(found == expected, "\(context)")
            #expect(summary.isEqual == expected.isEmpty, "\(context)")
            // The SQL (deletes first, as `--format sql` asks) makes a copy of A into B.
            let forSQL = try Self.events(a, b, deletesFirst: true)
            #expect(forSQL.summary == summary, "\(context)")
            let copy = try DatabaseQueue(path: c)
            try copy.writeWithoutTransaction { db in try db.execute(sql: Self.sql(forSQL.events, forSQL.summary)) }
            try copy.close()
            let again = try Self.events(c, b)
            #expect(again.summary.isEqual, "\(context): \(again.events.filter { if case .table = $0 { false } else { true } })")
        }
    }

    /// Found in review: a column named rowid, exact deletes of rows compared whole, keys
    /// holding NULL, and values that could fake a line.
    @Test func reviewedCasesRoundTripAndStayOnTheirLines() throws {
        let directory = TemporaryDirectory()
        let a = directory.file("a.sqlite"), b = directory.file("b.sqlite"), c = directory.file("c.sqlite")
        try makeDatabase(at: a, """
            CREATE TABLE odd (rowid TEXT, v); INSERT INTO odd VALUES ('r1', 1), ('r2', 2);
            CREATE TABLE w (a, b); INSERT INTO w VALUES (1, 'x'), (1.0, 'x');
            CREATE TABLE n (k TEXT PRIMARY KEY, v); INSERT INTO n VALUES (NULL, 1), (NULL, 2), ('a', 3);
            CREATE TABLE u (id INTEGER PRIMARY KEY, code TEXT UNIQUE); INSERT INTO u VALUES (2, 'x');
            """)
        try makeDatabase(at: b, """
            CREATE TABLE odd (rowid TEXT, v); INSERT INTO odd VALUES ('r1', 1), ('r2', 'two\n+ odd 9: fake');
            CREATE TABLE w (a, b, PRIMARY KEY (a, b)) WITHOUT ROWID; INSERT INTO w VALUES (1, 'x');
            CREATE TABLE n (k TEXT PRIMARY KEY, v); INSERT INTO n VALUES (NULL, 1), ('a', 4);
            CREATE TABLE u (id INTEGER PRIMARY KEY, code TEXT UNIQUE); INSERT INTO u VALUES (1, 'x');
            """)
        try FileManager.default.copyItem(atPath: a, toPath: c)
        let (events, summary) = try Self.events(a, b)
        // Text: every difference on a line of its own.
        var columns: [String] = [], key: [String] = [], hasRowid = true
        var text = ""
        for event in events {
            if case .table(_, let names, let keyNames, _, let rowid) = event { (columns, key, hasRowid) = (names, keyNames, rowid) }
            text += DiffText.lines(event, format: .text, columns: columns, key: key, hasRowid: hasRowid)
        }
        #expect(text.contains("~ odd 2: v 2 → “two\\n+ odd 9: fake”"), "\(text)")
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("+ odd 9") })
        // SQL: the odd table by its real rowid, one of the two w rows (1.0 only), the NULL-keyed
        // records left alone with a comment, and u's code freed before it is taken again.
        let sqlEvents = try Self.events(a, b, deletesFirst: true)
        let script = Self.sql(sqlEvents.events, sqlEvents.summary)
        #expect(script.contains("-- not written: a record of n whose key holds NULL"), "\(script)")
        let copy = try DatabaseQueue(path: c)
        try copy.writeWithoutTransaction { db in try db.execute(sql: script) }
        let rows = try copy.read { db in
            (try Row.fetchAll(db, sql: "SELECT _rowid_, rowid, v FROM odd ORDER BY 1").map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as DatabaseValue)" },
             try Row.fetchAll(db, sql: "SELECT typeof(a), b FROM w").map { "\($0[0] as String) \($0[1] as String)" },
             try Int.fetchOne(db, sql: "SELECT count(*) FROM n WHERE k IS NULL"))
        }
        try copy.close()
        #expect(rows.0 == ["1 r1 1", "2 r2 \"two\\n+ odd 9: fake\""], "\(rows.0)")     // (the value's description escapes its line break)
        #expect(rows.1 == ["integer x"], "\(rows.1)")
        #expect(rows.2 == 2, "the NULL-keyed rows are not touched")
        #expect(try readDisk(c, "SELECT id || code FROM u") == .text("1x"))
    }

    @Test func schemaFirstThenKeyChangesAndKeylessTablesByRows() throws {
        let directory = TemporaryDirectory()
        let a = directory.file("a.sqlite"), b = directory.file("b.sqlite")
        try makeDatabase(at: a, """
            CREATE TABLE t (id INTEGER PRIMARY KEY, x); INSERT INTO t VALUES (1, 'a'), (2, 'b');
            CREATE TABLE k (code TEXT PRIMARY KEY, v); INSERT INTO k VALUES ('p', 1), ('q', 2);
            CREATE TABLE only_a (z);
            CREATE TABLE dup (a); INSERT INTO dup VALUES (1), (1), (2);
            """)
        try makeDatabase(at: b, """
            CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT, y); INSERT INTO t VALUES (1, 'a', NULL), (2, 'B', NULL);
            CREATE TABLE k (code TEXT, v PRIMARY KEY); INSERT INTO k VALUES ('p', 1), ('r', 2);
            CREATE TABLE dup (a); INSERT INTO dup VALUES (1), (2), (2);
            """)
        let (events, summary) = try Self.events(a, b)
        let schema = events.prefix { if case .schema = $0 { true } else { false } }
        #expect(schema.map { if case .schema(let s) = $0 { s } else { "" } } == [
            "table only_a is only in A", "t: column y is only in B", "t: column x is untyped in A, TEXT in B",
        ])
        #expect(events.contains(.table(name: "k", columns: ["code", "v"], key: [], note: "the key of k changed (code → v): its rows are compared whole", hasRowid: true)))
        #expect(events.contains(.deleted(table: "k", key: [], values: [.text("q"), .integer(2)])))
        #expect(events.contains(.added(table: "k", key: [], values: [.text("r"), .integer(2)])))
        #expect(events.contains(.changed(table: "t", key: [.integer(2)], fields: [DatabaseDiff.Field(column: "x", old: .text("b"), new: .text("B"))])))
        // dup (rowid, so by rowid): row 2 changed 1 → 2.
        #expect(events.contains(.changed(table: "dup", key: [.integer(2)], fields: [DatabaseDiff.Field(column: "a", old: .integer(1), new: .integer(2))])))
        #expect(summary == DatabaseDiff.Summary(added: 1, deleted: 1, changed: 2, schemaDiffers: true))
    }
}
