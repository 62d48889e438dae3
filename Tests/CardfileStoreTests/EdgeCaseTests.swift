import Foundation
import Testing
@testable import CardfileStore

/// Cases found in review: each failed before its fix.
@Suite("Store edge cases", .timeLimit(.minutes(10)))
struct EdgeCaseTests {
    @Test func anEditBackIsDroppedNotFoldedOverAMergedValue() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "B"])
        try view.update(fixture.person(1), values: ["name": "Ada"])       // back to where it started
        let other = fixture.container.newBackgroundContext()
        try other.update(fixture.person(1), values: ["name": "Countess"])
        try other.save()
        // Save something else: the no-op edit must not overwrite the merged snapshot.
        try view.update(fixture.person(2), values: ["city": "Boston"])
        try view.save()
        #expect(try view.committedValues(of: fixture.person(1))?["name"] == "Countess")
        #expect(try view.record(for: fixture.person(1))?["name"] == "Countess")
        // And the next edit of another field does not conflict on it.
        try view.update(fixture.person(1), values: ["city": "Oxford"])
        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 1") == "Countess/Oxford")
    }

    @Test func overwriteStillBumpsTheVersionColumn() throws {
        let options = StoreOptions(entities: [EntityDescription(table: "notes", versionColumn: "version")])
        let fixture = try PeopleFixture(options: options, schema: """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, version INTEGER NOT NULL DEFAULT 1);
            INSERT INTO notes (id, body) VALUES (1, 'first');
            """)
        let note = ObjectID(table: "notes", rowid: 1)
        let a = fixture.container.newBackgroundContext(name: "a")
        let c = fixture.container.newBackgroundContext(name: "c")
        _ = try a.record(for: note)
        _ = try c.record(for: note)
        let b = fixture.container.newBackgroundContext(name: "b")
        try b.update(note, values: ["body": "from b"])
        try b.save()
        #expect(try fixture.disk("SELECT version FROM notes") == 2)
        a.mergePolicy = .overwrite
        try a.update(note, values: ["body": "from a"])
        try a.save()
        #expect(try fixture.disk("SELECT version FROM notes") == 3)
        // C read version 1: its save must conflict, not silently overwrite A and B.
        try c.update(note, values: ["body": "from c"])
        #expect(storeError { try c.save() }?.conflicts?.count == 1)
        #expect(try fixture.disk("SELECT body FROM notes") == "from a")
    }

    @Test func deleteConflictsCanBeResolved() throws {
        // I delete, they update.
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.delete(fixture.person(1))
        try view.delete(fixture.person(2))
        try sqlite3(fixture.path, "UPDATE people SET city = 'Elsewhere' WHERE id IN (1, 2);")
        #expect(storeError { try view.save() }?.conflicts?.count == 2)
        try view.refresh(fixture.person(1), mergeChanges: true)
        try view.refresh(fixture.person(2), mergeChanges: true)
        try view.resolveConflict(of: fixture.person(1), keeping: .mine)     // delete anyway
        try view.resolveConflict(of: fixture.person(2), keeping: .theirs)   // keep their row
        try view.save()
        #expect(try fixture.disk("SELECT group_concat(id) FROM people") == "2,3")
        #expect(try view.record(for: fixture.person(2))?["city"] == "Elsewhere")

        // I update, they delete.
        try view.update(fixture.person(2), values: ["notes": "mine"])
        try view.update(fixture.person(3), values: ["notes": "mine too"])
        try sqlite3(fixture.path, "DELETE FROM people WHERE id IN (2, 3);")
        try view.refresh(fixture.person(2), mergeChanges: true)
        try view.refresh(fixture.person(3), mergeChanges: true)
        #expect(try view.record(for: fixture.person(2))?.isDeletedElsewhere == true)
        try view.resolveConflict(of: fixture.person(2), keeping: .mine)     // bring it back
        try view.resolveConflict(of: fixture.person(3), keeping: .theirs)   // let it go
        try view.save()
        #expect(try fixture.disk("SELECT group_concat(id || ':' || notes) FROM people") == "2:mine")
        #expect(try view.record(for: fixture.person(3)) == nil)
    }

    @Test func anInsertATriggerIgnoresIsReportedNotACrash() throws {
        let fixture = try PeopleFixture(schema: peopleSchema + """
            CREATE TRIGGER no_robots BEFORE INSERT ON people WHEN NEW.name = 'Robot'
            BEGIN SELECT RAISE(IGNORE); END;
            """)
        let view = fixture.view
        try view.insert(into: "people", values: ["name": "Robot"])
        let failure = try #require(storeError { try view.save() }?.failures?.first)
        #expect(failure.rule == .ignoredByDatabase)
        #expect(failure.message.contains("ignored"))
        #expect(view.insertedObjects.count == 1)
    }
}
