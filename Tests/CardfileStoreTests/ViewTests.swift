import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// Views: listed and read like tables, written only through their INSTEAD OF triggers, and
/// every such write checked against the row under the write lock.
@Suite("Views", .timeLimit(.minutes(10)))
struct ViewTests {
    static let schema = peopleSchema + """
        CREATE TABLE orders (id INTEGER PRIMARY KEY, person INTEGER, total REAL);
        INSERT INTO orders (person, total) VALUES (1, 10.5), (1, 4), (3, 7);
        CREATE VIEW adults AS SELECT id, name, age, city FROM people WHERE age >= 30;
        CREATE VIEW named AS SELECT rowid AS rid, name FROM people;
        CREATE VIEW spending AS SELECT p.id, p.name, o.total FROM people p JOIN orders o ON o.person = p.id;
        CREATE VIEW cities AS SELECT city, count(*) AS n FROM people GROUP BY city;
        CREATE VIEW twice AS SELECT name FROM people UNION ALL SELECT name FROM people;
        CREATE VIEW counted AS SELECT id, name, (SELECT count(*) FROM orders WHERE person = people.id) AS n FROM people;
        CREATE VIEW keyless AS SELECT name, age FROM people;
        CREATE VIEW "order lines" AS SELECT o.id, o.total, p.name FROM orders AS o JOIN people p ON p.id = o.person;
        CREATE VIEW by_email AS SELECT o.id, p.city FROM orders o LEFT JOIN people p ON p.email = 'x' || o.id;
        CREATE VIEW same_city AS SELECT p.id, q.name FROM people p JOIN people q ON q.city = p.city;
        CREATE VIEW editable AS SELECT id, name, age, city FROM people;
        CREATE TRIGGER editable_update INSTEAD OF UPDATE ON editable BEGIN
            UPDATE people SET name = NEW.name, age = NEW.age, city = NEW.city WHERE id = OLD.id;
        END;
        CREATE TRIGGER editable_delete INSTEAD OF DELETE ON editable BEGIN
            DELETE FROM people WHERE id = OLD.id;
        END;
        CREATE TRIGGER editable_insert INSTEAD OF INSERT ON editable BEGIN
            INSERT INTO people (id, name, age, city) VALUES (NEW.id, NEW.name, NEW.age, NEW.city);
        END;
        CREATE VIEW renaming AS SELECT id, name, city FROM people;
        CREATE TRIGGER renaming_name INSTEAD OF UPDATE OF name ON renaming BEGIN
            UPDATE people SET name = NEW.name WHERE id = OLD.id;
        END;
        CREATE TRIGGER renaming_delete INSTEAD OF DELETE ON renaming BEGIN
            SELECT 1;
        END;
        CREATE TABLE dropped (x);
        CREATE VIEW broken AS SELECT x FROM dropped;
        DROP TABLE dropped;
        """

    func fixture() throws -> PeopleFixture { try PeopleFixture(schema: Self.schema) }

    // MARK: - Reading

    @Test func viewsAreListedWithTheKeyTheyShowAndWhatTheirTriggersAllow() throws {
        let schema = try fixture().container.schema
        #expect(schema.table(named: "people")?.isView == false)
        #expect(schema.table(named: "adults")?.isView == true)
        // One table's rows, its key shown unchanged: read and written by that key.
        #expect(schema.table(named: "adults")?.primaryKey == .columns(["id"]))
        #expect(schema.table(named: "named")?.primaryKey == .columns(["rid"]))
        #expect(schema.table(named: "counted")?.primaryKey == .columns(["id"]))
        // A join that finds at most one row of the other tables (by their key or a unique
        // index) holds each row of the outer table once, aliases or not.
        #expect(schema.table(named: "order lines")?.primaryKey == .columns(["id"]))
        #expect(schema.table(named: "order lines")?.view?.rowsOf == "orders")
        #expect(schema.table(named: "by_email")?.primaryKey == .columns(["id"]))
        // A join that repeats rows, a grouping, a compound, the outer table's key not shown,
        // or no key column: rows named by their content.
        for name in ["spending", "cities", "twice", "keyless", "same_city"] {
            let table = try #require(schema.table(named: name))
            #expect(table.primaryKey == .unidentifiable(columns: table.columns.map(\.name)), "\(name)")
        }
        #expect(schema.table(named: "adults")?.view == ViewWrites(rowsOf: "people"))
        #expect(schema.table(named: "editable")?.view == ViewWrites(insert: true, update: .all, delete: true, rowsOf: "people"))
        #expect(schema.table(named: "renaming")?.view == ViewWrites(update: .columns(["name"]), delete: true, rowsOf: "people"))
        #expect(schema.table(named: "twice")?.view == ViewWrites())
        // A view whose table is gone cannot be read: it is left out, the file still opens.
        #expect(schema.table(named: "broken") == nil)
        // A view column taken from a table keeps its collation and type.
        #expect(schema.table(named: "adults")?.column(named: "age")?.affinity == .integer)
    }

    @Test func viewsThatCanRepeatTheirTablesKeyGetNone() throws {
        let fixture = try PeopleFixture(schema: peopleSchema + """
            CREATE TABLE codes (code TEXT UNIQUE, label TEXT);
            INSERT INTO codes VALUES ('a', 'A'), (NULL, 'n1'), (NULL, 'n2');
            CREATE VIEW by_in AS SELECT p.id, c.label FROM people p JOIN codes c ON c.code IN (p.city, p.notes);
            CREATE VIEW by_is AS SELECT p.id, c.label FROM people p JOIN codes c ON c.code IS p.notes;
            CREATE VIEW self AS SELECT b.id AS id, a.name FROM people a JOIN people b ON b.id = a.age - 35;
            CREATE VIEW scalar AS SELECT (SELECT max(id) FROM people) AS id, name FROM people;
            CREATE VIEW sorted AS SELECT id, name COLLATE NOCASE AS name FROM people;
            """)
        let schema = fixture.container.schema
        for name in ["by_in", "by_is", "self", "scalar"] {
            #expect(schema.table(named: name)?.isIdentifiable == false, "\(name): \(String(describing: schema.table(named: name)?.primaryKey))")
        }
        #expect(schema.table(named: "sorted")?.primaryKey == .columns(["id"]))
    }

    @Test func aViewColumnsOwnCollationDoesNotConfuseTheOrder() throws {
        let fixture = try PeopleFixture(schema: peopleSchema + """
            INSERT INTO people (name) VALUES ('ada'), ('bob'), ('Zed'), ('zoe'), ('Bea');
            CREATE VIEW sorted AS SELECT id, name COLLATE NOCASE AS name FROM people;
            """)
        let live = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "sorted", sort: [ColumnSort("name")]), height: 1)
        try live.waitForBackgroundWork()
        var names = [live.window.rows.first?.values[1].description ?? ""]
        for _ in 1..<8 {
            try live.pageDown()
            names.append(live.window.rows.first?.values[1].description ?? "")
        }
        // SQLite reports no collation for the column, so Cardfile knows it as BINARY and
        // says so in the SQL: the order it walks is the one its own comparisons use (before,
        // SQL sorted NOCASE while positions and keys compared BINARY). Every row once.
        #expect(names.sorted() == ["Ada", "Bea", "Grace", "Linus", "Zed", "ada", "bob", "zoe"])
        #expect(names == names.sorted(), "\(names)")
    }

    @Test func writesATriggerIgnoresAreReported() throws {
        let fixture = try PeopleFixture(schema: peopleSchema + """
            CREATE VIEW stubborn AS SELECT id, name, city FROM people;
            CREATE TRIGGER stubborn_update INSTEAD OF UPDATE OF name ON stubborn BEGIN SELECT RAISE(IGNORE); END;
            CREATE TRIGGER stubborn_update_city INSTEAD OF UPDATE OF city ON Stubborn BEGIN UPDATE people SET city = NEW.city WHERE 0; END;
            CREATE TRIGGER stubborn_insert INSTEAD OF INSERT ON stubborn BEGIN
                INSERT OR IGNORE INTO people (id, name) VALUES (NEW.id, NEW.name);
            END;
            """)
        let table = try #require(fixture.container.schema.table(named: "stubborn"))
        // The trigger is found whatever case its ON clause spells the view in.
        #expect(table.view?.update == .columns(["name", "city"]))
        let before = try sqlite3(fixture.path, "SELECT quote(name), quote(city) FROM people ORDER BY id;")
        for change: [String: Value] in [["name": "Ignored"], ["city": "Nowhere"]] {
            let id = ObjectID(table: "stubborn", primaryKey: [1])
            try fixture.view.update(id, values: change)
            #expect(storeError { try fixture.view.save() }
                == .validationFailed([ValidationFailure(objectID: id, field: nil, rule: .ignoredByDatabase, value: nil)]), "\(change)")
            fixture.view.rollback()
        }
        // An insert under a key already taken is refused, not handed back as that record.
        let new = try fixture.view.insert(into: "stubborn", values: ["id": 2, "name": "Impostor"])
        #expect(storeError { try fixture.view.save() }
            == .validationFailed([ValidationFailure(objectID: new, field: "id", rule: .unique(columns: ["id"]), value: nil)]))
        #expect(try sqlite3(fixture.path, "SELECT quote(name), quote(city) FROM people ORDER BY id;") == before)
    }

    @Test func keepingAnEditOfARowDeletedElsewhereNeedsTheInsertTrigger() throws {
        let fixture = try fixture()
        let id = ObjectID(table: "renaming", primaryKey: [3])
        try fixture.view.update(id, values: ["name": "Torvalds"])
        try sqlite3(fixture.path, "DELETE FROM people WHERE id = 3;")
        fixture.view.mergePolicy = .objectTrump
        #expect(storeError { try fixture.view.save() }
            == .validationFailed([ValidationFailure(objectID: id, field: nil, rule: .viewNotWritable(.insert), value: nil)]))
        #expect(try fixture.disk("SELECT count(*) FROM people") == 2)
    }

    @Test func theTriggerTextIsReadWithCommentsQuotesAndSeveralUpdateTriggers() {
        var writes = ViewWrites()
        writes.add(triggerSQL: "CREATE TRIGGER \"t\" -- INSTEAD OF DELETE\n instead /* x */ of UPDATE OF \"Name\", [city] ON v BEGIN SELECT 1; END")
        #expect(writes == ViewWrites(update: .columns(["name", "city"])))
        writes.add(triggerSQL: "CREATE TRIGGER t2 INSTEAD OF UPDATE OF age ON v BEGIN SELECT 1; END")
        #expect(writes.canUpdate("AGE") && writes.canUpdate("name") && !writes.canUpdate("id"))
        writes.add(triggerSQL: "CREATE TRIGGER t3 INSTEAD OF UPDATE ON v BEGIN SELECT 'INSTEAD OF INSERT'; END")
        #expect(writes == ViewWrites(update: .all))
        writes.add(triggerSQL: "not a trigger")
        #expect(writes == ViewWrites(update: .all))
    }

    @Test func aliasesAreReadFromTheViewsFromClauses() {
        let sql = """
            CREATE VIEW v AS SELECT a.x, "b b".y, c FROM main.alpha AS a, [beta] "b b" LEFT JOIN gamma ON 1
            JOIN delta d USING (x) WHERE a.x IN (SELECT x FROM epsilon e)
            """
        #expect(ViewPlan.aliases(inViewSQL: sql) == ["a": "alpha", "b b": "beta", "d": "delta", "e": "epsilon"])
    }

    @Test func aKeyedViewReadsLikeItsTable() throws {
        let fixture = try fixture()
        let live = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "adults", sort: [ColumnSort("name")]), height: 10)
        try live.waitForBackgroundWork()
        #expect(live.window.rows.map { $0.values[1] } == ["Ada", "Grace"])
        #expect(live.window.rows.map(\.id) == [ObjectID(table: "adults", primaryKey: [1]), ObjectID(table: "adults", primaryKey: [2])])
        #expect(try fixture.view.record(for: ObjectID(table: "adults", primaryKey: [2]))?["city"] == "Arlington")
    }

    @Test func identicalRowsOfAKeylessViewAreEachShown() throws {
        let fixture = try fixture()
        try sqlite3(fixture.path, "INSERT INTO people (name) VALUES ('Ada'), ('Zed');")
        let live = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "twice", sort: [ColumnSort("name")]), height: 20)
        try live.waitForBackgroundWork()
        let expected = try sqlite3(fixture.path, "SELECT name FROM twice ORDER BY name;").split(separator: "\n").map(String.init)
        #expect(live.window.rows.map { $0.values[0].description } == expected)
        #expect(live.window.count == .exact(10))
        #expect(Set(live.window.rows.map(\.id)).count == 10)
        // Each row is found again by its identity.
        for row in live.window.rows {
            #expect(try fixture.view.record(for: row.id)?["name"] == row.values[0])
        }
    }

    @Test func aTableWhoseRowidIsShadowedListsAndFindsItsRows() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE hopeless (rowid TEXT, _rowid_ TEXT, oid TEXT COLLATE NOCASE);
            INSERT INTO hopeless VALUES ('1', '2', 'a'), ('1', '2', 'a'), ('1', NULL, 'A'), (NULL, NULL, NULL);
            """)
        let live = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "hopeless", sort: [ColumnSort("oid")]), height: 2)
        try live.waitForBackgroundWork()
        var seen: [[Value]] = live.window.rows.map(\.values)
        try live.pageDown()
        seen += live.window.rows.map(\.values)
        #expect(live.window.count == .exact(4))
        #expect(seen.count == 4)
        #expect(seen.filter { $0 == ["1", "2", "a"] }.count == 2)
        #expect(seen.first == [.null, .null, .null])
        let id = try #require(live.window.rows.last?.id)
        #expect(try fixture.view.record(for: id)?["oid"] == live.window.rows.last?.values[2])
    }

    // MARK: - Live

    @Test func aViewFollowsChangesToItsTableFromAnotherProcess() throws {
        let fixture = try fixture()
        let live = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "adults", sort: [ColumnSort("name")]), height: 10)
        try live.waitForBackgroundWork()
        var clock = TestClock()
        try sqlite3(fixture.path, "UPDATE people SET age = 50 WHERE id = 3; UPDATE people SET name = 'Ada L' WHERE id = 1;")
        #expect(try fixture.container.checkForExternalChanges())
        try LiveQueryCursorTests.settle(live, &clock)
        #expect(live.window.rows.map { $0.values[1] } == ["Ada L", "Grace", "Linus"])
    }

    @Test func aViewFollowsASaveToItsTableInThisProgram() throws {
        let fixture = try fixture()
        let live = try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "keyless", sort: [ColumnSort("name")]), height: 10)
        try live.waitForBackgroundWork()
        var clock = TestClock()
        let editor = fixture.container.editorContext(parent: fixture.view, name: "t")
        try editor.update(fixture.person(2), values: ["name": "Hopper"])
        try editor.save()
        try fixture.view.save()
        try LiveQueryCursorTests.settle(live, &clock)
        #expect(live.window.rows.map { $0.values[0] } == ["Ada", "Hopper", "Linus"])
    }

    // MARK: - Writing

    @Test func anUpdateGoesThroughTheTriggerAndIsReadBack() throws {
        let fixture = try fixture()
        let id = ObjectID(table: "editable", primaryKey: [2])
        try fixture.view.update(id, values: ["city": "Boston", "age": 46])
        try fixture.view.save()
        #expect(try fixture.disk("SELECT city || ' ' || age FROM people WHERE id = 2") == "Boston 46")
        #expect(try fixture.view.record(for: id)?["city"] == "Boston")
        #expect(!fixture.view.hasChanges)
    }

    @Test func anUpdateThroughAViewMeetsAChangeMadeElsewhere() throws {
        let fixture = try fixture()
        let id = ObjectID(table: "editable", primaryKey: [1])
        _ = try fixture.view.record(for: id)
        try fixture.view.update(id, values: ["city": "Paris"])
        // Another process changes the same field; the context has not polled.
        try sqlite3(fixture.path, "UPDATE people SET city = 'Rome' WHERE id = 1;")
        let error = storeError { try fixture.view.save() }
        guard case .conflicts(let conflicts)? = error else {
            Issue.record("expected a conflict, got \(String(describing: error))")
            return
        }
        #expect(conflicts.first?.objectID == id)
        #expect(conflicts.first?.fields.first { $0.name == "city" }?.theirs == "Rome")
        #expect(try fixture.disk("SELECT city FROM people WHERE id = 1") == "Rome")
        // A change of another field merges: theirs kept, mine written.
        try fixture.view.refresh(id, mergeChanges: false)
        try fixture.view.update(id, values: ["age": 37])
        try sqlite3(fixture.path, "UPDATE people SET city = 'Oslo' WHERE id = 1;")
        try fixture.view.save()
        #expect(try fixture.disk("SELECT city || ' ' || age FROM people WHERE id = 1") == "Oslo 37")
    }

    @Test func aDeleteGoesThroughTheTriggerUnlessTheRowChanged() throws {
        let fixture = try fixture()
        let id = ObjectID(table: "editable", primaryKey: [3])
        _ = try fixture.view.record(for: id)
        try sqlite3(fixture.path, "UPDATE people SET age = 29 WHERE id = 3;")
        try fixture.view.delete(id)
        guard case .conflicts? = storeError({ try fixture.view.save() }) else {
            Issue.record("a delete of a row changed elsewhere must be a conflict")
            return
        }
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE id = 3") == 1)
        fixture.view.rollback()
        _ = try fixture.view.refresh(id, mergeChanges: false)
        try fixture.view.delete(id)
        try fixture.view.save()
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE id = 3") == 0)
    }

    @Test func aTriggerThatDeletesNothingIsReported() throws {
        let fixture = try fixture()
        let id = ObjectID(table: "renaming", primaryKey: [1])
        try fixture.view.delete(id)
        let error = storeError { try fixture.view.save() }
        #expect(error == .validationFailed([ValidationFailure(objectID: id, field: nil, rule: .ignoredByDatabase, value: nil)]))
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE id = 1") == 1)
    }

    @Test func anInsertNeedsTheKeyAndIsFoundByIt() throws {
        let fixture = try fixture()
        let keyless = try fixture.view.insert(into: "editable", values: ["name": "Nobody"])
        let error = storeError { try fixture.view.save() }
        #expect(error == .validationFailed([ValidationFailure(objectID: keyless, field: "id", rule: .notNull, value: nil)]))
        #expect(try fixture.disk("SELECT count(*) FROM people") == 3)
        fixture.view.rollback()

        let temporary = try fixture.view.insert(into: "editable", values: ["id": 9, "name": "Barbara", "age": 40])
        try fixture.view.save()
        let stored = ObjectID(table: "editable", primaryKey: [9])
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 9") == "Barbara")
        #expect(try fixture.view.record(for: stored)?["age"] == 40)
        #expect(try fixture.view.record(for: temporary) == nil)
    }

    @Test func aViewWithoutTheTriggerRefusesAndWritesNothing() throws {
        let fixture = try fixture()
        let before = try sqlite3(fixture.path, "SELECT quote(name), quote(age), quote(city) FROM people ORDER BY id;")
        #expect(storeError { _ = try fixture.view.insert(into: "adults", values: ["id": 8]) } == .viewNotWritable(view: "adults", kind: .insert))
        #expect(StoreError.viewNotWritable(view: "adults", kind: .insert).message
            == "Cannot add: view “adults” has no INSTEAD OF INSERT trigger.")

        let adult = ObjectID(table: "adults", primaryKey: [1])
        try fixture.view.update(adult, values: ["city": "Paris"])
        #expect(storeError { try fixture.view.save() }
            == .validationFailed([ValidationFailure(objectID: adult, field: "city", rule: .viewNotWritable(.update), value: nil)]))
        fixture.view.rollback()
        try fixture.view.delete(adult)
        #expect(storeError { try fixture.view.save() }
            == .validationFailed([ValidationFailure(objectID: adult, field: nil, rule: .viewNotWritable(.delete), value: nil)]))
        fixture.view.rollback()

        // UPDATE OF name covers name only.
        let renamed = ObjectID(table: "renaming", primaryKey: [2])
        try fixture.view.update(renamed, values: ["city": "Boston", "name": "G. Hopper"])
        #expect(storeError { try fixture.view.save() }
            == .validationFailed([ValidationFailure(objectID: renamed, field: "city", rule: .viewNotWritable(.update), value: nil)]))
        fixture.view.rollback()
        #expect(try sqlite3(fixture.path, "SELECT quote(name), quote(age), quote(city) FROM people ORDER BY id;") == before)
        try fixture.view.update(renamed, values: ["name": "G. Hopper"])
        try fixture.view.save()
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 2") == "G. Hopper")

        // A keyless view cannot be written at all.
        let row = try #require(try LiveQuery(context: fixture.view, spec: LiveQuerySpec(table: "keyless"), height: 3).window.rows.first)
        try fixture.view.update(row.id, values: ["age": 1])
        #expect(storeError { try fixture.view.save() }
            == .validationFailed([ValidationFailure(objectID: row.id, field: nil, rule: .readOnlyTable, value: nil)]))
        #expect(storeError { _ = try fixture.view.insert(into: "keyless") } == .tableNotEditable("keyless", isView: true))
    }

    @Test func importsAndBatchesAreForTablesNotViews() throws {
        let fixture = try fixture()
        let csv = fixture.directory.file("in.csv")
        try Data("id,name,age,city\n9,Barbara,40,Rome\n".utf8).write(to: URL(fileURLWithPath: csv))
        let importer = Importer(container: fixture.container, file: csv, options: ImportOptions(table: "editable"))
        var thrown: ImportError?
        do { _ = try importer.run() } catch { thrown = error }
        guard case .store(.viewNotWritable(view: "editable", kind: nil))? = thrown else {
            Issue.record("expected the view to be refused, got \(String(describing: thrown))")
            return
        }
        #expect(storeError { try fixture.container.batchDelete(from: "editable") } == .viewNotWritable(view: "editable", kind: nil))
        // Asked to create the table, the import finds the view's name taken and refuses too.
        #expect(try TableCreator.plan(database: fixture.path, file: csv, options: ImportOptions(table: "EDITABLE", create: true)) == nil)
        #expect(try fixture.disk("SELECT count(*) FROM people") == 3)
    }

    @Test func aDeleteThroughAViewCountsWhatGoesWithItsRow() throws {
        let fixture = try PeopleFixture(schema: Self.schema + """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, person INTEGER REFERENCES people ON DELETE CASCADE);
            INSERT INTO notes (person) VALUES (1), (1), (2);
            """)
        let effects = try fixture.container.deletionEffects(of: [ObjectID(table: "editable", primaryKey: [1])])
        // The person is the record itself; its notes go with it. Nothing is written.
        #expect(effects.deleted == [DeletionEffects.Deleted(table: "notes", count: 2)])
        #expect(try fixture.disk("SELECT count(*) FROM people") == 3)
    }
}
