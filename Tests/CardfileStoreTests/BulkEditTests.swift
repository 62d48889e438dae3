import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// Bulk edits (`:set`, `:delete`) and their undo and redo, against the file as another
/// connection reads it, with a real second connection writing between the steps.
@Suite("Bulk edits", .timeLimit(.minutes(10)))
struct BulkEditTests {
    static let schema = """
        CREATE TABLE parents (id INTEGER PRIMARY KEY);
        INSERT INTO parents VALUES (1), (2);
        CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, p INTEGER REFERENCES parents(id),
                        CHECK (a IS NULL OR a < 100 OR b IS NOT 'small'));
        """

    /// The table's rows as another connection reads them: id → [a, b].
    static func rows(_ path: String) throws -> [Int64: [Value]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var rows: [Int64: [Value]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, a, b FROM t") {
                rows[row["id"]] = [Value(row[1] as DatabaseValue), Value(row[2] as DatabaseValue)]
            }
            return rows
        }
    }

    static func fixture(rows count: Int = 10) throws -> PeopleFixture {
        let fixture = try PeopleFixture(schema: schema)
        let queue = try DatabaseQueue(path: fixture.path)
        try queue.write { db in
            for id in 1...count { try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, 1)", arguments: [id, id % 3, "r\(id)"]) }
        }
        try queue.close()
        return fixture
    }

    static func id(_ row: Int64) -> ObjectID { ObjectID(table: "t", rowid: row) }

    /// Another connection runs `sql` on the file.
    static func outside(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
    }

    @Test func setWritesOneColumnOnTheMatchesAndKeepsWhatWasThere() throws {
        let fixture = try Self.fixture()
        let change = try fixture.container.bulkSet(table: "t", column: "a", to: .integer(9), where: .compare("a", .equal, .integer(1)))
        let rows = try Self.rows(fixture.path)
        #expect(Set(change.records.keys) == Set([1, 4, 7, 10].map { Self.id($0) }))
        for id in [1, 4, 7, 10] as [Int64] {
            #expect(rows[id] == [.integer(9), .text("r\(id)")])
            #expect(change.records[Self.id(id)] == BulkChange.Sides(before: [.integer(1)], after: [.integer(9)]))
        }
        #expect(rows[2] == [.integer(2), .text("r2")], "a record that did not match is untouched")
    }

    @Test func aValueOfTheWrongTypeNamesARecordAndTheFieldAndWritesNothing() throws {
        let fixture = try Self.fixture()
        let before = try Self.rows(fixture.path)
        #expect(throws: StoreError.self) { try fixture.container.validateBulkSet(table: "t", column: "a", to: .text("abc")) }
        do {
            _ = try fixture.container.bulkSet(table: "t", column: "a", to: .text("abc"), where: .sql("1", arguments: []))
            Issue.record("a text in an INTEGER column was written")
        } catch {
            guard case .validationFailed(let failures) = error else { Issue.record("\(error)"); return }
            #expect(failures.first?.field == "a")
            #expect(failures.first?.objectID.primaryKeyValues?.isEmpty == false, "the failure names a record")
            #expect(failures.first?.message.contains("t ") == true, "\(failures.first?.message ?? "")")
        }
        #expect(try Self.rows(fixture.path) == before)
    }

    @Test func aCheckThatOneRecordBreaksNamesThatRecordAndWritesNothing() throws {
        let fixture = try Self.fixture()
        let queue = try DatabaseQueue(path: fixture.path)
        try queue.write { db in try db.execute(sql: "UPDATE t SET b = 'small' WHERE id = 5") }
        try queue.close()
        let before = try Self.rows(fixture.path)
        do {
            _ = try fixture.container.bulkSet(table: "t", column: "a", to: .integer(500), where: .sql("1", arguments: []))
            Issue.record("the CHECK was broken")
        } catch {
            guard case .validationFailed(let failures) = error else { Issue.record("\(error)"); return }
            #expect(failures.first?.objectID == Self.id(5), "\(failures)")
            #expect(failures.first?.message.contains("5") == true, "\(failures.first?.message ?? "")")
        }
        #expect(try Self.rows(fixture.path) == before)
    }

    @Test func aForeignKeyToNothingIsRefused() throws {
        let fixture = try Self.fixture()
        do {
            _ = try fixture.container.bulkSet(table: "t", column: "p", to: .integer(77), where: .compare("a", .equal, .integer(2)))
            Issue.record("a reference to no parent was written")
        } catch {
            guard case .validationFailed(let failures) = error else { Issue.record("\(error)"); return }
            #expect(failures.first?.field == "p", "\(failures)")
            #expect([2, 5, 8].map { Self.id($0) }.contains(failures.first?.objectID ?? Self.id(0)), "\(failures)")
        }
        #expect(try fixture.disk("SELECT count(*) FROM t WHERE p = 77") == .integer(0))
    }

    @Test func undoRestoresAndLeavesWhatChangedSinceUnlessOverwritten() throws {
        let fixture = try Self.fixture()
        let change = try fixture.container.bulkSet(table: "t", column: "b", to: .text("x"), where: .compare("a", .equal, .integer(0)))
        // Another connection changes record 3 after the bulk edit.
        let queue = try DatabaseQueue(path: fixture.path)
        try queue.write { db in try db.execute(sql: "UPDATE t SET b = 'theirs' WHERE id = 3") }
        try queue.close()
        let undo = try fixture.container.apply(change.reversed)
        #expect(undo.changedSince == [Self.id(3): [.text("theirs")]])
        var rows = try Self.rows(fixture.path)
        #expect(rows[6]?[1] == .text("r6") && rows[9]?[1] == .text("r9"))
        #expect(rows[3]?[1] == .text("theirs"), "a record changed since is left alone")
        // Confirmed: that one is restored too, and its undo would give back "theirs".
        let forced = try fixture.container.apply(change.reversed.only([Self.id(3)]), overwriting: [Self.id(3): [.text("theirs")]])
        #expect(forced.changedSince.isEmpty)
        #expect(forced.applied.records[Self.id(3)] == BulkChange.Sides(before: [.text("theirs")], after: [.text("r3")]))
        rows = try Self.rows(fixture.path)
        #expect(rows[3]?[1] == .text("r3"))
        // Redo writes the bulk value again where the undo wrote.
        let redo = try fixture.container.apply(undo.applied.reversed)
        #expect(redo.changedSince.isEmpty)
        rows = try Self.rows(fixture.path)
        #expect(rows[6]?[1] == .text("x") && rows[9]?[1] == .text("x") && rows[3]?[1] == .text("r3"))
    }

    @Test func deleteAndItsUndoGiveBackTheSameRows() throws {
        let fixture = try Self.fixture()
        let before = try Self.rows(fixture.path)
        let change = try fixture.container.bulkDelete(from: "t", where: .compare("a", .equal, .integer(2)))
        #expect(change.count == 3)
        #expect(try Self.rows(fixture.path).count == 7)
        let undo = try fixture.container.apply(change.reversed)
        #expect(undo.changedSince.isEmpty)
        #expect(try Self.rows(fixture.path) == before)
        #expect(try fixture.disk("SELECT group_concat(p) FROM t WHERE id IN (2, 5, 8)") == .text("1,1,1"), "every column comes back")
    }

    @Test func aKeyTakenSinceADeleteIsReportedNotOverwritten() throws {
        let fixture = try Self.fixture()
        let change = try fixture.container.bulkDelete(from: "t", where: .compare("id", .lessOrEqual, .integer(2)))
        let queue = try DatabaseQueue(path: fixture.path)
        try queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2, 50, 'new', 2)") }
        try queue.close()
        let undo = try fixture.container.apply(change.reversed)
        #expect(undo.changedSince == [Self.id(2): [.integer(2), .integer(50), .text("new"), .integer(2)]])
        #expect(try Self.rows(fixture.path)[1] == [.integer(1), .text("r1")])
        #expect(try Self.rows(fixture.path)[2] == [.integer(50), .text("new")])
    }

    @Test func aTableWithoutADeclaredKeyGetsItsRowsBackUnderTheirRowids() throws {
        let fixture = try PeopleFixture(schema: "CREATE TABLE n (v TEXT); INSERT INTO n VALUES ('a'), ('b'), ('c');")
        let change = try fixture.container.bulkDelete(from: "n", where: .compare("v", .notEqual, .text("a")))
        #expect(try fixture.disk("SELECT group_concat(rowid || v) FROM n") == .text("1a"))
        _ = try fixture.container.apply(change.reversed)
        #expect(try fixture.disk("SELECT group_concat(rowid || v) FROM (SELECT rowid, v FROM n ORDER BY rowid)") == .text("1a,2b,3c"))
    }

    @Test func aBulkEditReachesTheContextsAsOneSaveNamingEachRecord() throws {
        let fixture = try Self.fixture()
        let recorder = EventRecorder(fixture.container)
        let change = try fixture.container.bulkSet(table: "t", column: "b", to: .null, where: .compare("a", .equal, .integer(0)))
        let events = try recorder.eventsBefore { try fixture.container.batchUpdate(table: "t", set: ["b": .text("marker")], where: .compare("id", .equal, .integer(1))) }
        #expect(events.count == 1, "\(events)")
        #expect(events.first?.updated == Set(change.records.keys), "\(events)")
    }

    @Test func aLargeBulkEditNamesItsTableAsInvalidatedAndContextsStillSeeIt() throws {
        let fixture = try Self.fixture()
        let view = fixture.view
        #expect(try view.record(for: Self.id(3))?["b"] == .text("r3"))
        let recorder = EventRecorder(fixture.container)
        let change = try fixture.container.bulkSet(table: "t", column: "b", to: .text("many"), where: .compare("a", .equal, .integer(0)), namingAtMost: 2)
        #expect(change.count == 3)
        let events = try recorder.eventsBefore { try fixture.container.batchUpdate(table: "t", set: ["b": .text("marker")], where: .compare("id", .equal, .integer(1))) }
        #expect(events.count == 1 && events.first?.invalidatedTables.contains("t") == true, "\(events)")
        #expect(events.first?.updated.isEmpty == true, "no record is named: \(events)")
        try view.processPendingChanges()
        #expect(try view.record(for: Self.id(3))?["b"] == .text("many"), "the view context re-read the table")
        // The undo of it too.
        let undo = try fixture.container.apply(change.reversed, namingAtMost: 2)
        #expect(undo.changedSince.isEmpty)
        try view.processPendingChanges()
        #expect(try view.record(for: Self.id(3))?["b"] == .text("r3"))
    }

    @Test func anOverwriteLeavesARecordChangedAgainAfterTheQuestion() throws {
        let fixture = try Self.fixture()
        let change = try fixture.container.bulkSet(table: "t", column: "b", to: .text("x"), where: .compare("id", .lessOrEqual, .integer(2)))
        try Self.outside(fixture.path, "UPDATE t SET b = 'theirs' WHERE id <= 2")
        let undo = try fixture.container.apply(change.reversed)
        #expect(Set(undo.changedSince.keys) == [Self.id(1), Self.id(2)])
        // Asked about both; record 2 changes again before the answer.
        try Self.outside(fixture.path, "UPDATE t SET b = 'again' WHERE id = 2")
        let forced = try fixture.container.apply(change.reversed.only(undo.changedSince.keys), overwriting: undo.changedSince)
        #expect(Set(forced.applied.records.keys) == [Self.id(1)])
        #expect(forced.changedSince == [Self.id(2): [.text("again")]])
        #expect(try Self.rows(fixture.path)[2]?[1] == .text("again"), "what the person did not see is not overwritten")
        #expect(try Self.rows(fixture.path)[1]?[1] == .text("r1"))
    }

    @Test func anUndoneDeleteOfATreeComesBackWhateverTheOrder() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE nodes (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES nodes(id));
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40) INSERT INTO nodes SELECT i, nullif(i - 1, 0) FROM c;
            """)
        let change = try fixture.container.bulkDelete(from: "nodes", where: .compare("id", .greaterOrEqual, .integer(2)))
        #expect(change.count == 39)
        // Children and parents come back in the dictionary's order, checked at the commit.
        let undo = try fixture.container.apply(change.reversed)
        #expect(undo.changedSince.isEmpty)
        #expect(try fixture.disk("SELECT count(*) FROM nodes WHERE parent = id - 1") == .integer(39))
        // And go again (a redo), children before or after their parents.
        let redo = try fixture.container.apply(undo.applied.reversed)
        #expect(redo.applied.count == 39)
        #expect(try fixture.disk("SELECT count(*) FROM nodes") == .integer(1))
    }

    @Test func whatATriggerWritesDuringAnUndoIsInTheEvent() throws {
        let fixture = try PeopleFixture(schema: Self.schema + """
            CREATE TABLE audit (n INTEGER PRIMARY KEY, what TEXT);
            CREATE TRIGGER t_audit AFTER UPDATE OF b ON t BEGIN INSERT INTO audit (what) VALUES (new.b); END;
            INSERT INTO t VALUES (1, 1, 'r1', 1), (2, 2, 'r2', 1);
            """)
        let change = try fixture.container.bulkSet(table: "t", column: "b", to: .text("x"), where: .sql("1", arguments: []))
        let recorder = EventRecorder(fixture.container)
        _ = try fixture.container.apply(change.reversed)
        let events = try recorder.eventsBefore { try fixture.container.batchUpdate(table: "t", set: ["a": .integer(5)], where: .compare("id", .equal, .integer(1))) }
        let inserted = events.first?.inserted ?? []
        #expect(inserted.contains(ObjectID(table: "audit", rowid: 3)) && inserted.contains(ObjectID(table: "audit", rowid: 4)), "\(events)")
        #expect(events.first?.updated == [Self.id(1), Self.id(2)], "\(events)")
    }

    // (The random bulk edits against a model run on both engines: BulkEditOnBothEnginesTests.)
}
