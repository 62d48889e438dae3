import Foundation
import GRDB
import Testing
import CardfileTestSupport
@testable import CardfileStore

/// What a delete takes with it is counted before it happens: cascades through children and
/// grandchildren, SET NULL and SET DEFAULT, self-references and cycles. Counting writes
/// nothing.
@Suite("Deletion effects", .timeLimit(.minutes(Fuzz.scaled(10))))
struct DeletionEffectsTests {
    static let family = """
        CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent ON DELETE CASCADE);
        CREATE TABLE grandchild (id INTEGER PRIMARY KEY, child_id INTEGER REFERENCES child ON DELETE CASCADE);
        CREATE TABLE note (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent ON DELETE SET NULL);
        CREATE TABLE tag (id INTEGER PRIMARY KEY, child_id INTEGER DEFAULT 0 REFERENCES child ON DELETE SET DEFAULT);
        CREATE TABLE keeper (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent);
        INSERT INTO parent VALUES (1, 'one'), (2, 'two'), (3, 'three');
        INSERT INTO child VALUES (10, 1), (11, 1), (12, 2);
        INSERT INTO grandchild VALUES (100, 10), (101, 11), (102, 12);
        INSERT INTO note VALUES (1, 1), (2, 1), (3, 1), (4, 2);
        INSERT INTO child VALUES (0, 3);
        INSERT INTO tag VALUES (1, 10), (2, 12);
        INSERT INTO keeper VALUES (1, 2);
        """

    @Test func aCascadeIsCountedThroughChildrenAndGrandchildrenAndNothingIsWritten() throws {
        let fixture = try PeopleFixture(schema: Self.family)
        let digest = "SELECT (SELECT group_concat(id) FROM parent) || '|' || (SELECT group_concat(id) FROM child) || '|' || (SELECT group_concat(id) FROM grandchild) || '|' || (SELECT group_concat(quote(parent_id)) FROM note) || '|' || (SELECT group_concat(child_id) FROM tag)"
        let before = try fixture.disk(digest)
        let effects = try fixture.container.deletionEffects(of: [ObjectID(table: "parent", rowid: 1)])
        #expect(effects.deleted == [.init(table: "child", count: 2), .init(table: "grandchild", count: 2)])
        #expect(effects.changed == [
            .init(table: "note", count: 3, columns: ["parent_id"], action: .setNull),
            .init(table: "tag", count: 1, columns: ["child_id"], action: .setDefault),
        ])
        #expect(try fixture.disk(digest) == before, "counting deletes nothing")
        // The lock is free again: another process writes at once.
        let other = try SQLite3Session(path: fixture.path)
        try other.run("PRAGMA busy_timeout = 0; UPDATE parent SET name = 'uno' WHERE id = 1;")
        other.close()
        #expect(try fixture.disk("SELECT name FROM parent WHERE id = 1") == "uno")
        // And the real delete does what was counted.
        try fixture.view.delete(ObjectID(table: "parent", rowid: 1))
        try fixture.view.save()
        #expect(try fixture.disk("SELECT count(*) FROM child") == 2 && fixture.disk("SELECT count(*) FROM grandchild") == 1)
        #expect(try fixture.disk("SELECT count(*) FROM note WHERE parent_id IS NULL") == 3)
    }

    @Test func aRecordNothingCascadesFromHasNoEffectsAndARefusedDeleteSaysWhy() throws {
        let fixture = try PeopleFixture(schema: Self.family)
        #expect(try fixture.container.deletionEffects(of: [ObjectID(table: "grandchild", rowid: 100)]).isEmpty)
        #expect(try fixture.container.deletionEffects(of: [ObjectID(table: "parent", rowid: 3)]).deleted == [.init(table: "child", count: 1)])
        // keeper refers to parent 2 without an action: the delete would be refused.
        let error = storeError { _ = try fixture.container.deletionEffects(of: [ObjectID(table: "parent", rowid: 2)]) }
        #expect(error?.failures?.first?.rule == .referenced(by: "keeper"), "\(String(describing: error))")
    }

    /// What `:delete` on several marked records will ask: the effects of all of them, each
    /// row counted once, and a named record never counted as something that goes with another.
    @Test func severalRecordsAreCountedTogether() throws {
        let fixture = try PeopleFixture(schema: Self.family)
        let effects = try fixture.container.deletionEffects(of: [
            ObjectID(table: "parent", rowid: 1), ObjectID(table: "child", rowid: 12), ObjectID(table: "child", rowid: 10),
        ])
        // Child 11 goes with parent 1 (10 is named itself); every grandchild goes; both tags
        // fall back to child 0.
        #expect(effects.deleted == [.init(table: "child", count: 1), .init(table: "grandchild", count: 3)])
        #expect(effects.changed == [
            .init(table: "note", count: 3, columns: ["parent_id"], action: .setNull),
            .init(table: "tag", count: 2, columns: ["child_id"], action: .setDefault),
        ])
        #expect(try fixture.disk("SELECT count(*) FROM child") == 4)
    }

    @Test func selfReferencesAndCyclesAreCountedOncePerRow() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE staff (id INTEGER PRIMARY KEY, boss INTEGER REFERENCES staff ON DELETE CASCADE);
            INSERT INTO staff VALUES (1, NULL), (2, 1), (3, 2), (4, 2), (5, NULL);
            CREATE TABLE a (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b ON DELETE CASCADE);
            CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a ON DELETE CASCADE);
            INSERT INTO a VALUES (1, NULL); INSERT INTO b VALUES (1, 1); UPDATE a SET b_id = 1;
            INSERT INTO a VALUES (2, 1);
            """)
        #expect(try fixture.container.deletionEffects(of: [ObjectID(table: "staff", rowid: 1)]).deleted == [.init(table: "staff", count: 3)])
        let cycle = try fixture.container.deletionEffects(of: [ObjectID(table: "a", rowid: 1)])
        #expect(cycle.deleted == [.init(table: "a", count: 1), .init(table: "b", count: 1)], "\(cycle)")
    }

    @Test func aLockHeldElsewhereIsBusyWithinTheTimeout() throws {
        let fixture = try PeopleFixture(schema: Self.family)
        let other = try SQLite3Session(path: fixture.path)
        try other.run("BEGIN IMMEDIATE; UPDATE parent SET name = 'held' WHERE id = 3;")
        let error = storeError { _ = try fixture.container.deletionEffects(of: [ObjectID(table: "parent", rowid: 1)], busyTimeout: .milliseconds(50)) }
        #expect(error == .busy)
        try other.run("COMMIT;")
        other.close()
        #expect(try fixture.container.deletionEffects(of: [ObjectID(table: "parent", rowid: 1)]).deleted.count == 2)
    }

    /// Random schemas of four tables linked by random foreign keys (cascade, set null, set
    /// default, none; self-references and cycles included) with random rows: the counts
    /// equal what really happens when a second connection deletes the row on a copy of
    /// the file, found by comparing every table's rows before and after.
    @Test func countsMatchWhatTheDeleteReallyDoes() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let actions = ["CASCADE", "SET NULL", "SET DEFAULT", "CASCADE"]
        for round in 0..<Fuzz.scaled(25) {
            var schema = ""
            var links: [(table: Int, parent: Int)] = []
            for table in 0..<4 {
                var columns = ["id INTEGER PRIMARY KEY"]
                for parent in 0..<4 where random.next(below: 3) == 0 {
                    columns.append("r\(parent) INTEGER DEFAULT NULL REFERENCES t\(parent) ON DELETE \(actions[random.next(below: actions.count)])")
                    links.append((table, parent))
                }
                schema += "CREATE TABLE t\(table) (\(columns.joined(separator: ", ")));\n"
            }
            for table in 0..<4 {
                for id in 1...8 { schema += "INSERT INTO t\(table) (id) VALUES (\(id));\n" }
            }
            // Links are set after every row exists, so cycles can close.
            for link in links {
                for id in 1...8 where random.next(below: 3) != 0 {
                    schema += "UPDATE t\(link.table) SET r\(link.parent) = \(1 + random.next(below: 8)) WHERE id = \(id);\n"
                }
            }
            let fixture = try PeopleFixture(schema: schema)
            let target = (table: random.next(below: 4), id: 1 + random.next(below: 8))
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), deleting t\(target.table) \(target.id)\n\(schema)"
            var refusal: StoreError?
            var effects = DeletionEffects()
            do {
                effects = try fixture.container.deletionEffects(of: [ObjectID(table: "t\(target.table)", rowid: Int64(target.id))])
            } catch {
                refusal = error
            }

            // The oracle: a plain connection deletes on a copy; compare the rows.
            let copy = fixture.directory.file("copy-\(round).sqlite")
            try fixture.container.saveCopy(to: copy, replacing: false, with: [])
            let queue = try DatabaseQueue(path: copy, configuration: { var c = Configuration(); c.foreignKeysEnabled = true; return c }())
            func snapshot() throws -> [[Int64: String]] {
                try queue.read { db in
                    try (0..<4).map { table in
                        Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT * FROM t\(table)").map { ($0["id"] as Int64, "\($0)") })
                    }
                }
            }
            let before = try snapshot()
            do {
                try queue.write { try $0.execute(sql: "DELETE FROM t\(target.table) WHERE id = \(target.id)") }
            } catch let error as DatabaseError {
                // A refused delete (SET DEFAULT to a value no parent has) is refused by both.
                #expect(error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY && refusal?.failures != nil, "\(context): \(error)")
                try queue.close()
                continue
            }
            #expect(refusal == nil, "\(context): \(String(describing: refusal?.failures))")
            let after = try snapshot()
            try queue.close()
            var deleted: [String: Int] = [:]
            var changed: [String: Int] = [:]
            for table in 0..<4 {
                let gone = before[table].keys.filter { after[table][$0] == nil }.count - (table == target.table ? 1 : 0)
                let altered = before[table].filter { id, row in after[table][id].map { $0 != row } ?? false }.count
                if gone > 0 { deleted["t\(table)"] = gone }
                if altered > 0 { changed["t\(table)"] = altered }
            }
            #expect(Dictionary(uniqueKeysWithValues: effects.deleted.map { ($0.table, $0.count) }) == deleted, "\(context)")
            #expect(Dictionary(uniqueKeysWithValues: effects.changed.map { ($0.table, $0.count) }) == changed, "\(context)")
        }
    }
}
