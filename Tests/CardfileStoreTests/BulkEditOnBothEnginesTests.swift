import CardfilePostgres
import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// Bulk edits, their undo and redo, marks, and the column panels (`F`, `I`) on SQLite and on
/// PostgreSQL: the same table, the same steps, the same outcome, checked through a second
/// connection of each engine (a real one, never the container's own).
@Suite("Bulk edits and marks on SQLite and PostgreSQL", .timeLimit(.minutes(10)))
struct BulkEditOnBothEnginesTests {
    enum Engine: String, CaseIterable, Sendable { case sqlite, postgres }

    /// SQL both engines read alike.
    static let schema = """
        CREATE TABLE parents (id INTEGER PRIMARY KEY);
        INSERT INTO parents VALUES (1), (2);
        CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, p INTEGER REFERENCES parents(id),
                        CHECK (a IS NULL OR a < 100 OR b IS NULL OR b <> 'small'));
        """

    /// A database on one engine, a container on it, and a second connection of that engine.
    final class Place {
        let engine: Engine
        let container: Container
        /// Runs a statement on the second connection.
        let outside: (String) throws -> Void
        /// Every row of a query on the second connection, as values.
        let read: (String) throws -> [[Value]]
        private let close: () -> Void

        init(_ engine: Engine, _ sql: String) throws {
            self.engine = engine
            switch engine {
            case .sqlite:
                let directory = TemporaryDirectory()
                let path = directory.file("bulk.sqlite")
                try makeDatabase(at: path, sql)
                container = try Container(path: path)
                let queue = try DatabaseQueue(path: path)
                outside = { sql in try queue.write { try $0.execute(sql: sql) } }
                read = { sql in try queue.read { db in try Row.fetchAll(db, sql: sql).map { $0.databaseValues.map(Value.init) } } }
                close = {
                    try? queue.close()
                    _ = directory
                }
            case .postgres:
                let server = try PostgresTestServer.current()
                let database = try server.makeDatabase()
                _ = try server.psql(database, sql)
                let home = TemporaryDirectory()
                let location = try PostgresLocation.resolve(server.url(database: database), environment: [:], homeFolder: home.path, loginName: "x").location
                let ours = try PostgresEngine(location)
                let theirs = try PostgresEngine(location)
                container = try Container(engine: ours, options: StoreOptions())
                outside = { sql in _ = try theirs.write(lockWait: .seconds(5), oneStatement: false) { session in try session.execute(sql, []) } }
                read = { sql in try theirs.read { session in try session.rows(sql, []) } }
                close = {
                    ours.close()
                    theirs.close()
                    server.drop(database)
                }
            }
        }

        deinit { close() }

        /// The rows of `t` by id: [a, b].
        func rows() throws -> [Int64: [Value]] {
            var rows: [Int64: [Value]] = [:]
            for row in try read("SELECT id, a, b FROM t") {
                guard case .integer(let id) = row[0] else { continue }
                rows[id] = [row[1], row[2]]
            }
            return rows
        }

        func count(_ sql: String) throws -> Int { try read(sql).first?.first?.wholeNumber ?? -1 }
    }

    /// `t` with rows 1…`count`: a = id % 3, b = "r<id>", p = 1.
    static func place(_ engine: Engine, rows count: Int = 10, extra: String = "") throws -> Place {
        let values = (1...count).map { "(\($0), \($0 % 3), 'r\($0)', 1)" }.joined(separator: ", ")
        return try Place(engine, schema + "INSERT INTO t VALUES \(values);\n" + extra)
    }

    static func id(_ key: Int64) -> ObjectID { ObjectID(table: "t", primaryKey: [.integer(key)]) }

    // MARK: Bulk edits

    @Test(arguments: Engine.allCases)
    func setAndItsUndoLeaveWhatChangedSince(_ engine: Engine) throws {
        let place = try Self.place(engine)
        let change = try place.container.bulkSet(table: "t", column: "b", to: .text("x"), where: .compare("a", .equal, .integer(1)))
        #expect(Set(change.records.keys) == [Self.id(1), Self.id(4), Self.id(7), Self.id(10)])
        #expect(change.records[Self.id(4)] == BulkChange.Sides(before: [.text("r4")], after: [.text("x")]))
        #expect(try place.rows()[4] == [.integer(1), .text("x")])
        try place.outside("UPDATE t SET b = 'theirs' WHERE id = 7")
        let undo = try place.container.apply(change.reversed)
        #expect(undo.changedSince == [Self.id(7): [.text("theirs")]])
        let rows = try place.rows()
        #expect(rows[4] == [.integer(1), .text("r4")] && rows[7] == [.integer(1), .text("theirs")])
        // Overwritten when asked, with what was seen.
        let forced = try place.container.apply(change.reversed.only([Self.id(7)]), overwriting: undo.changedSince)
        #expect(forced.applied.count == 1 && forced.changedSince.isEmpty)
        #expect(try place.rows()[7] == [.integer(1), .text("r7")])
    }

    @Test(arguments: Engine.allCases)
    func aCheckOneRecordBreaksNamesItAndWritesNothing(_ engine: Engine) throws {
        let place = try Self.place(engine, extra: "UPDATE t SET a = 500 WHERE id = 6;")
        let result = Result { () throws(StoreError) in
            try place.container.bulkSet(table: "t", column: "b", to: .text("small"), where: .compare("id", .lessOrEqual, .integer(8)))
        }
        guard case .failure(.validationFailed(let failures)) = result else {
            Issue.record("a CHECK broken by record 6 was not refused: \(result)")
            return
        }
        #expect(failures.map(\.objectID) == [Self.id(6)], "\(failures)")
        #expect(try place.count("SELECT count(*) FROM t WHERE b = 'small'") == 0)
    }

    @Test(arguments: Engine.allCases)
    func aParentThatIsNotThereAndAValueOfTheWrongTypeAreRefused(_ engine: Engine) throws {
        let place = try Self.place(engine)
        #expect(throws: StoreError.self) { try place.container.bulkSet(table: "t", column: "p", to: .integer(99), where: .compare("id", .lessOrEqual, .integer(3))) }
        #expect(throws: StoreError.self) { try place.container.bulkSet(table: "t", column: "a", to: .text("many"), where: .compare("id", .equal, .integer(1))) }
        #expect(try place.count("SELECT count(*) FROM t WHERE p = 1 AND a = id % 3") == 10)
    }

    @Test(arguments: Engine.allCases)
    func aDeleteAndItsUndoGiveBackTheRowsAndAKeyTakenSinceIsReported(_ engine: Engine) throws {
        let place = try Self.place(engine)
        let before = try place.rows()
        let change = try place.container.bulkDelete(from: "t", where: .compare("a", .equal, .integer(0)))
        let left = try place.rows().count
        #expect(change.count == 3 && left == 7)
        try place.outside("INSERT INTO t VALUES (6, 2, 'theirs', 2)")
        let undo = try place.container.apply(change.reversed)
        #expect(undo.changedSince == [Self.id(6): [.integer(6), .integer(2), .text("theirs"), .integer(2)]])
        var expected = before
        expected[6] = [.integer(2), .text("theirs")]
        #expect(try place.rows() == expected)
    }

    /// A tree deleted and brought back: SQLite checks its foreign key at the commit; on
    /// PostgreSQL a key not declared `DEFERRABLE` is checked at each row, and a child whose
    /// parent is still to come waits for it.
    @Test(arguments: [(Engine.sqlite, ""), (.postgres, ""), (.postgres, " DEFERRABLE")])
    func anUndoneDeleteOfATreeComesBackWhateverTheOrder(_ engine: Engine, deferrable: String) throws {
        let place = try Place(engine, """
            CREATE TABLE nodes (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES nodes(id)\(deferrable));
            INSERT INTO nodes VALUES \((1...40).map { "(\($0), \($0 == 1 ? "NULL" : String($0 - 1)))" }.joined(separator: ", "));
            """)
        let change = try place.container.bulkDelete(from: "nodes", where: .compare("id", .greaterOrEqual, .integer(2)))
        #expect(change.count == 39)
        let undo = try place.container.apply(change.reversed)
        #expect(undo.changedSince.isEmpty && undo.applied.count == 39)
        #expect(try place.count("SELECT count(*) FROM nodes WHERE parent = id - 1") == 39)
        let redo = try place.container.apply(undo.applied.reversed)
        #expect(redo.applied.count == 39)
        #expect(try place.count("SELECT count(*) FROM nodes") == 1)
        // A child whose parent is gone for good is named, and nothing is written.
        try place.outside("DELETE FROM nodes")
        let orphan = redo.applied.reversed.only([ObjectID(table: "nodes", primaryKey: [.integer(5)])])
        #expect(throws: StoreError.self) { try place.container.apply(orphan) }
        #expect(try place.count("SELECT count(*) FROM nodes") == 0)
    }

    /// Columns whose names differ only in case are each their own (PostgreSQL keeps both):
    /// a `:set` writes the one named, a delete's undo gives each its own values back.
    @Test func columnsThatDifferOnlyInCaseKeepTheirOwnValues() throws {
        let place = try Place(.postgres, """
            CREATE TABLE cs (id int PRIMARY KEY, "Name" text, name text);
            INSERT INTO cs VALUES (1, 'Alice', 'alice'), (2, 'Bob', 'bob');
            """)
        let all = CardfileStore.Predicate.compare("id", .greaterOrEqual, .integer(1))
        let set = try place.container.bulkSet(table: "cs", column: "Name", to: .text("ZED"), where: all)
        #expect(set.columns == ["Name"])
        #expect(try place.read("SELECT \"Name\", name FROM cs ORDER BY id") == [[.text("ZED"), .text("alice")], [.text("ZED"), .text("bob")]])
        _ = try place.container.apply(set.reversed)
        let deleted = try place.container.bulkDelete(from: "cs", where: all)
        _ = try place.container.apply(deleted.reversed)
        #expect(try place.read("SELECT \"Name\", name FROM cs ORDER BY id") == [[.text("Alice"), .text("alice")], [.text("Bob"), .text("bob")]])
    }

    /// Identity columns that are not the key come back with their numbers too.
    @Test func identityColumnsBesideTheKeyComeBackUnderTheirNumbers() throws {
        let place = try Place(.postgres, """
            CREATE TABLE ig (id text PRIMARY KEY, seq int GENERATED ALWAYS AS IDENTITY, seq2 bigint GENERATED BY DEFAULT AS IDENTITY, v int);
            INSERT INTO ig (id, v) SELECT 'k' || i, i FROM generate_series(1, 5) AS i;
            """)
        let before = try place.read("SELECT id, seq, seq2 FROM ig ORDER BY id")
        let deleted = try place.container.bulkDelete(from: "ig", where: .compare("v", .greaterOrEqual, .integer(1)))
        _ = try place.container.apply(deleted.reversed)
        #expect(try place.read("SELECT id, seq, seq2 FROM ig ORDER BY id") == before)
    }

    /// A key the server numbers (an identity column) comes back as it was, not renumbered.
    @Test func anIdentityKeyComesBackUnderItsOwnNumber() throws {
        let place = try Place(.postgres, """
            CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text);
            INSERT INTO notes (body) SELECT 'n' || i FROM generate_series(1, 5) AS i;
            """)
        let change = try place.container.bulkDelete(from: "notes", where: .compare("id", .greaterOrEqual, .integer(3)))
        #expect(change.count == 3)
        _ = try place.container.apply(change.reversed)
        #expect(try place.read("SELECT id, body FROM notes ORDER BY id").map { $0[1] } == ["n1", "n2", "n3", "n4", "n5"].map(Value.text))
        #expect(try place.count("SELECT count(*) FROM notes WHERE body = 'n' || id") == 5)
    }

    @Test(arguments: Engine.allCases)
    func aBulkEditReachesTheContextsNamingEachRecord(_ engine: Engine) throws {
        let place = try Self.place(engine)
        let context = place.container.viewContext
        let record = try #require(try context.record(for: Self.id(2)))
        #expect(record["b"] == .text("r2"))
        let recorder = EventRecorder(place.container)
        _ = try place.container.bulkSet(table: "t", column: "b", to: .text("y"), where: .compare("a", .equal, .integer(2)))
        // (The batch update is the marker: every event before its own has come.)
        let events = try recorder.eventsBefore { try place.container.batchUpdate(table: "t", set: ["b": .text("marker")], where: .compare("id", .equal, .integer(1))) }
        #expect(events.count == 1, "\(events)")
        #expect(events.first?.updated == [Self.id(2), Self.id(5), Self.id(8)], "\(events)")
        try context.refreshAll()
        #expect(try context.record(for: Self.id(2))?["b"] == .text("y"))
    }

    // MARK: Marks

    @Test(arguments: Engine.allCases)
    func marksAreCountedSummedAndFoundOnEitherEngine(_ engine: Engine) throws {
        let place = try Self.place(engine, rows: 600)
        let schema = try #require(place.container.schema.table(named: "t"))
        var marks = MarkSet()
        marks.set(matching: .compare("id", .lessOrEqual, .integer(300)), marked: false)
        marks.set(matching: .compare("a", .equal, .integer(2)), marked: true)
        // More than 200 records named one by one: they go as one JSON argument.
        for key in 301...600 { marks.set(Self.id(Int64(key)), marked: false) }
        marks.set(Self.id(3), marked: true)
        let counted = try place.container.countMarked(marks, table: "t", summing: "id")
        let expected = (1...300).filter { $0 % 3 == 2 } + [3]
        #expect(counted.count == expected.count)
        #expect(counted.numbers == expected.count)
        #expect(counted.sum == .integer(Int64(expected.reduce(0, +))))
        #expect(counted.mean == Double(expected.reduce(0, +)) / Double(expected.count))
        let text = try place.container.countMarked(marks, table: "t", summing: "b")
        #expect(text.count == expected.count && text.numbers == 0 && text.sum == .null)
        let records = try place.container.records(marked: marks, table: "t", columns: ["id", "b"], limit: 3)
        #expect(records == [[.integer(2), .text("r2")], [.integer(3), .text("r3")], [.integer(5), .text("r5")]])
        let among = try place.container.marked(marks, table: "t", among: (1...6).map(Self.id) + [Self.id(302)])
        #expect(among == [Self.id(2), Self.id(3), Self.id(5)])
        let predicate = try marks.predicate(for: schema)
        let change = try place.container.bulkSet(table: "t", column: "b", to: .text("marked"), where: predicate)
        #expect(change.count == expected.count)
        #expect(try place.count("SELECT count(*) FROM t WHERE b = 'marked'") == expected.count)
    }

    /// Marks naming more records than PostgreSQL takes values in one statement (65,535): the
    /// keys go as one JSON argument, so a count, a set and its undo all work.
    @Test func seventyThousandRecordsNamedOneByOneOnPostgres() throws {
        let place = try Place(.postgres, Self.schema + "INSERT INTO t SELECT i, i % 3, 'r' || i, 1 FROM generate_series(1, 70000) AS i;")
        var marks = MarkSet()
        for key in 1...70_000 where key % 7 != 0 { marks.set(Self.id(Int64(key)), marked: true) }
        let schema = try #require(place.container.schema.table(named: "t"))
        #expect(try place.container.countMarked(marks, table: "t") == 60_000)
        let change = try place.container.bulkSet(table: "t", column: "a", to: .integer(9), where: marks.predicate(for: schema))
        #expect(change.count == 60_000)
        #expect(try place.count("SELECT count(*) FROM t WHERE a = 9") == 60_000)
        let undo = try place.container.apply(change.reversed)
        #expect(undo.applied.count == 60_000 && undo.changedSince.isEmpty)
        #expect(try place.count("SELECT count(*) FROM t WHERE a = 9") == 0)
    }

    /// A sum beyond 64 bits: SQLite's total is a real, PostgreSQL's `numeric` sum exact.
    @Test(arguments: Engine.allCases)
    func aSumBeyondSixtyFourBits(_ engine: Engine) throws {
        let place = try Place(engine, """
            CREATE TABLE big (id INTEGER PRIMARY KEY, n BIGINT);
            INSERT INTO big VALUES (1, 9223372036854775807), (2, 9223372036854775807), (3, NULL);
            """)
        var marks = MarkSet()
        marks.set(matching: .compare("id", .greaterOrEqual, .integer(1)), marked: true)
        let counted = try place.container.countMarked(marks, table: "big", summing: "n")
        #expect(counted.count == 3 && counted.numbers == 2)
        switch engine {
        case .sqlite: #expect(counted.sum == .real(0x1p64))   // (the double nearest 2 × (2^63 − 1))
        case .postgres: #expect(counted.sum == .decimal("18446744073709551614"))
        }
    }

    // MARK: F and I

    @Test(arguments: Engine.allCases)
    func frequenciesAndStatisticsOnEitherEngine(_ engine: Engine) throws {
        let place = try Self.place(engine, rows: 9, extra: "UPDATE t SET b = NULL WHERE id = 9; UPDATE t SET b = '' WHERE id = 8; UPDATE t SET b = 'longest one' WHERE id = 7;")
        let frequencies = try place.container.frequencies(of: "a", table: "t")
        #expect(frequencies.values.map(\.value) == [.integer(0), .integer(1), .integer(2)])
        #expect(frequencies.values.map(\.count) == [3, 3, 3] && frequencies.rows == 9 && frequencies.distinct == 3)
        let some = try place.container.frequencies(of: "a", table: "t", where: .compare("id", .lessOrEqual, .integer(4)), limit: 1)
        #expect(some.values.map(\.value) == [.integer(1)] && some.rows == 4 && some.distinct == nil)
        #expect(try place.container.distinctValues(of: "a", table: "t", where: .compare("id", .lessOrEqual, .integer(4))) == 3)
        let numbers = try place.container.statistics(of: "a", table: "t")
        #expect(numbers.rows == 9 && numbers.nulls == 0 && numbers.distinct == 3)
        #expect(numbers.minimum == .integer(0) && numbers.maximum == .integer(2))
        #expect(numbers.numbers == 9 && numbers.mean == 1)
        let texts = try place.container.statistics(of: "b", table: "t")
        #expect(texts.nulls == 1 && texts.emptyTexts == 1 && texts.distinct == 8)
        #expect(texts.minimum == .text("") && texts.maximum == .text("r6"))
        #expect(texts.shortestText == "" && texts.longestText == "longest one")
        #expect(texts.numbers == 0 && texts.mean == nil)
        #expect(texts.mostCommon.first?.count == 1)
    }

    /// Types PostgreSQL has no `min` or equality for: read by ordering, grouped by their text.
    @Test func typesWithoutMinOrEqualityOnPostgres() throws {
        let place = try Place(.postgres, """
            CREATE TABLE odd (id int PRIMARY KEY, flag boolean, tag uuid, doc json, at date, docs json[]);
            INSERT INTO odd VALUES
              (1, true, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"k": 1}', '2026-01-02', ARRAY['{"a": 1}'::json]),
              (2, false, '00000000-0000-0000-0000-000000000001', '{"k": 1}', '2025-12-31', ARRAY['[]'::json]),
              (3, NULL, NULL, '[1, 2]', NULL, NULL);
            """)
        let flag = try place.container.statistics(of: "flag", table: "odd")
        #expect(flag.minimum == .boolean(false) && flag.maximum == .boolean(true) && flag.nulls == 1)
        let tag = try place.container.statistics(of: "tag", table: "odd")
        #expect(tag.minimum == .text("00000000-0000-0000-0000-000000000001") && tag.distinct == 2)
        let doc = try place.container.frequencies(of: "doc", table: "odd")
        #expect(doc.values.first?.value == .text("{\"k\": 1}") && doc.values.first?.count == 2)
        // Enter on a value filters by it: compared as text, json having no equality.
        let same = try place.container.frequencies(of: "id", table: "odd", where: .compare("doc", .equal, .text("{\"k\": 1}")))
        #expect(same.rows == 2)
        let docs = try place.container.statistics(of: "docs", table: "odd")
        #expect(docs.distinct == 2 && docs.nulls == 1, "\(docs)")
        let at = try place.container.statistics(of: "at", table: "odd")
        #expect(at.minimum == .text("2025-12-31") && at.maximum == .text("2026-01-02"))
        #expect(at.shortestText == nil && at.numbers == 0)
    }

    // MARK: Random

    /// Random bulk sets and deletes, undos and redos, and the second connection's writes
    /// between them, against a model of the table: after every step the table holds what the
    /// model holds, and an undo or redo leaves alone exactly the records the model says changed.
    @Test(arguments: Engine.allCases)
    func randomBulkEditsAgainstAModel(_ engine: Engine) throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(engine == .sqlite ? 8 : 3) {
            let place = try Self.place(engine, rows: 30)
            var model = try place.rows()
            var undos: [BulkChange] = []
            var redos: [BulkChange] = []
            for step in 0..<40 {
                let context = "\(engine), seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), step \(step)"
                func held(_ id: ObjectID, _ change: BulkChange) -> [Value]? {
                    guard case .integer(let key)? = id.primaryKeyValues?.first, let values = model[key] else { return nil }
                    switch change.kind {
                    case .set(let column, _): return [column == "a" ? values[0] : values[1]]
                    case .delete: return [.integer(key), values[0], values[1], .integer(1)]
                    case .history: return nil
                    }
                }
                func write(_ id: ObjectID, _ change: BulkChange, _ after: [Value]?) {
                    guard case .integer(let key)? = id.primaryKeyValues?.first else { return }
                    switch (change.kind, after) {
                    case (_, nil): model[key] = nil
                    case (.set(let column, _), let values?): model[key, default: [.null, .null]][column == "a" ? 0 : 1] = values[0]
                    case (.delete, let values?): model[key] = [values[1], values[2]]
                    case (.history, _?): break
                    }
                }
                /// Undo or redo `change`; checks the changed-since list against the model, and
                /// sometimes overwrites those records too (all but the ones a `:set` lost).
                func replay(_ change: BulkChange) throws -> BulkChange {
                    let expectedLeft = Set(change.records.filter { held($0.key, change) != $0.value.before }.keys)
                    let result = try place.container.apply(change)
                    #expect(Set(result.changedSince.keys) == expectedLeft, "\(context)")
                    for (id, sides) in result.applied.records { write(id, change, sides.after) }
                    var applied = result.applied
                    if !expectedLeft.isEmpty, random.next(below: 2) == 0 {
                        let lost = Set(expectedLeft.filter { change.kind != .delete && held($0, change) == nil })
                        let seen = Dictionary(uniqueKeysWithValues: expectedLeft.map { ($0, held($0, change)) })
                        let forced = try place.container.apply(change.only(expectedLeft), overwriting: seen)
                        #expect(Set(forced.changedSince.keys) == lost, "\(context): only records deleted since a :set are left")
                        for (id, sides) in forced.applied.records {
                            #expect(sides.before == held(id, change), "\(context)")
                            write(id, change, sides.after)
                        }
                        applied.records.merge(forced.applied.records) { _, new in new }
                    }
                    return applied
                }
                let predicate: CardfileStore.Predicate = random.next(below: 2) == 0
                    ? .compare("a", .equal, .integer(Int64(random.next(below: 4))))
                    : .compare("id", .lessOrEqual, .integer(Int64(random.next(below: 40))))
                switch random.next(below: 6) {
                case 0:
                    let column = random.next(below: 2) == 0 ? "a" : "b"
                    let value: Value = column == "a" ? .integer(Int64(random.next(below: 4))) : [.text("x"), .text("y"), .null][random.next(below: 3)]
                    let change = try place.container.bulkSet(table: "t", column: column, to: value, where: predicate)
                    for (id, sides) in change.records {
                        #expect(held(id, change) == sides.before, "\(context)")
                        write(id, change, sides.after)
                    }
                    undos.append(change)
                    redos = []
                case 1:
                    let change = try place.container.bulkDelete(from: "t", where: predicate)
                    for (id, sides) in change.records {
                        #expect(held(id, change) == sides.before, "\(context)")
                        write(id, change, nil)
                    }
                    undos.append(change)
                    redos = []
                case 2:
                    guard let last = undos.popLast() else { continue }
                    redos.append(try replay(last.reversed))
                case 3:
                    guard let last = redos.popLast() else { continue }
                    undos.append(try replay(last.reversed))
                default:
                    let key = Int64(1 + random.next(below: 35))
                    switch random.next(below: 3) {
                    case 0:
                        let value = Int64(random.next(below: 4))
                        try place.outside("UPDATE t SET a = \(value) WHERE id = \(key)")
                        if model[key] != nil { model[key]![0] = .integer(value) }
                    case 1:
                        try place.outside("DELETE FROM t WHERE id = \(key)")
                        model[key] = nil
                    default:
                        try place.outside("DELETE FROM t WHERE id = \(key)")
                        try place.outside("INSERT INTO t VALUES (\(key), 1, 'outside', 1)")
                        model[key] = [.integer(1), .text("outside")]
                    }
                }
                let rows = try place.rows()
                #expect(rows == model, "\(context)")
                if rows != model { return }
            }
        }
    }
}
