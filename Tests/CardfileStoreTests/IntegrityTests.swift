import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// The store-integrity review's cases: ways a change made elsewhere could be hidden or
/// overwritten. Each test failed before its fix.
@Suite("Store integrity", .timeLimit(.minutes(10)))
struct IntegrityTests {
    // MARK: 1. An edit that changes nothing

    @Test func anEditBackIsNoEditAtOnce() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        try view.update(ada, values: ["city": "zzz"])
        #expect(view.hasChanges)
        try view.update(ada, values: ["city": "London"])
        #expect(!view.hasChanges)
        #expect(!view.hasPersistentChanges)
        #expect(try view.saveIfNeeded() == false)
        #expect(!view.hasChanges)
        // Writing a value equal to the stored one is no edit either.
        try view.update(ada, values: ["name": "Ada", "email": "ada@example.com"])
        #expect(!view.hasChanges)
        #expect(view.updatedObjects.isEmpty)
    }

    @Test func anEditBackLetsLaterMergesThroughAndTheSaveKeepsTheirValue() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let grace = fixture.person(2)
        try view.update(grace, values: ["city": "zzz"])
        try view.update(grace, values: ["city": "Arlington", "notes": "mine"])
        try sqlite3(fixture.path, "UPDATE people SET city = 'theirs' WHERE id = 2;")
        #expect(try fixture.container.checkForExternalChanges())
        try view.save()
        #expect(try fixture.disk("SELECT city || '/' || notes FROM people WHERE id = 2") == "theirs/mine")
        let record = try #require(try view.record(for: grace))
        #expect(record["city"] == "theirs")
        #expect(record.changedElsewhere.isEmpty)
        #expect(try view.committedValues(of: grace)?["city"] == "theirs")
        // The next save of another field neither conflicts nor writes the stale value.
        try view.update(grace, values: ["age": 46])
        try view.save()
        #expect(try fixture.disk("SELECT city || '/' || age FROM people WHERE id = 2") == "theirs/46")
    }

    @Test(arguments: [MergePolicy.overwrite, .objectTrump])
    func aNoOpEditIsNeverWrittenOverTheirValue(policy: MergePolicy) throws {
        let fixture = try PeopleFixture(options: StoreOptions(viewContextMergePolicy: policy))
        let view = fixture.view
        let grace = fixture.person(2)
        try view.update(grace, values: ["city": "zzz"])
        try view.update(grace, values: ["city": "Arlington"])
        try sqlite3(fixture.path, "UPDATE people SET city = 'theirs' WHERE id = 2;")
        _ = try fixture.container.checkForExternalChanges()
        try view.update(grace, values: ["notes": "mine"])
        try view.save()
        #expect(try fixture.disk("SELECT city || '/' || notes FROM people WHERE id = 2") == "theirs/mine")
    }

    @Test func aFormWrittenBackWholeThroughAnEditorChangesOnlyWhatWasTyped() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        let editor = fixture.container.editorContext(parent: view)
        let record = try #require(try editor.record(for: ada))
        var form = record.dictionary
        form["notes"] = "typed"
        try editor.update(ada, values: form)
        #expect(try editor.changedValues(of: ada) == ["notes": "typed"])
        try sqlite3(fixture.path, "UPDATE people SET city = 'theirs' WHERE id = 1;")
        _ = try fixture.container.checkForExternalChanges()
        try editor.save()
        try view.save()
        #expect(try fixture.disk("SELECT city || '/' || notes FROM people WHERE id = 1") == "theirs/typed")
        #expect(try view.record(for: ada)?["city"] == "theirs")
    }

    // MARK: 2. Sibling editors

    @Test func aSiblingsSavedEditMakesTheOtherEditorsSaveConflict() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        let a = fixture.container.editorContext(parent: view, name: "A")
        let b = fixture.container.editorContext(parent: view, name: "B")
        try a.update(ada, values: ["city": "from A"])
        try b.update(ada, values: ["city": "from B"])
        try a.save()
        #expect(try b.record(for: ada)?.changedElsewhere == ["city"])

        let conflict = try #require(storeError { try b.save() }?.conflicts?.first)
        #expect(conflict.kind == .updateUpdate)
        let city = try #require(conflict.fields.first { $0.name == "city" })
        #expect(city.original == "London")
        #expect(city.mine == "from B")
        #expect(city.theirs == "from A")
        // Nothing moved up: the view still holds A's edit, and B keeps its own.
        #expect(try view.record(for: ada)?["city"] == "from A")
        #expect(try b.record(for: ada)?["city"] == "from B")
        try view.save()
        #expect(try fixture.disk("SELECT city FROM people WHERE id = 1") == "from A")
    }

    @Test func aSiblingConflictResolvedByPolicyOrChoice() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        let a = fixture.container.editorContext(parent: view, name: "A")
        let b = fixture.container.editorContext(parent: view, name: "B")
        let c = fixture.container.editorContext(parent: view, name: "C")
        try a.update(ada, values: ["city": "from A", "notes": "A's note"])
        try b.update(ada, values: ["city": "from B", "age": 37])
        try c.update(ada, values: ["city": "from C"])
        try a.save()

        // B's policy says its object wins: its city goes up, A's note stays.
        b.mergePolicy = .objectTrump
        try b.save()
        #expect(try view.record(for: ada)?["city"] == "from B")
        #expect(try view.record(for: ada)?["notes"] == "A's note")

        // C takes theirs by choice: its edit is dropped, nothing else changes.
        try c.refresh(ada, mergeChanges: true)
        try c.resolveConflict(of: ada, field: "city", choosing: .theirs)
        try c.save()
        try view.save()
        #expect(try fixture.disk("SELECT city || '/' || notes || '/' || age FROM people WHERE id = 1") == "from B/A's note/37")
    }

    @Test func anEditorMeetsARecordItsSiblingDeleted() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        let a = fixture.container.editorContext(parent: view, name: "A")
        let b = fixture.container.editorContext(parent: view, name: "B")
        try b.update(ada, values: ["city": "from B"])
        try a.delete(ada)
        try a.save()
        #expect(try b.record(for: ada)?.isDeletedElsewhere == true)
        let conflict = try #require(storeError { try b.save() }?.conflicts?.first)
        #expect(conflict.kind == .updateDelete)
        try view.save()
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE id = 1") == 0)
    }

    // MARK: 3. A version column

    static let versioned = """
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, tag TEXT, version INTEGER NOT NULL DEFAULT 1);
        INSERT INTO notes (id, body, tag) VALUES (1, 'first', 'a'), (2, 'second', 'b');
        """

    static func versionedFixture() throws -> PeopleFixture {
        try PeopleFixture(
            options: StoreOptions(entities: [EntityDescription(table: "notes", versionColumn: "version")]),
            schema: versioned)
    }

    @Test func batchUpdatesIncreaseTheVersionAndAFlaggedFieldConflicts() throws {
        let fixture = try Self.versionedFixture()
        let view = fixture.view
        let note = ObjectID(table: "notes", rowid: 1)
        try view.update(note, values: ["body": "mine"])
        try fixture.container.batchUpdate(table: "notes", set: ["body": "batch"])
        #expect(try fixture.disk("SELECT version FROM notes WHERE id = 1") == 2)
        #expect(try view.record(for: note)?.changedElsewhere == ["body"])
        #expect(storeError { try view.save() }?.conflicts?.count == 1)
        #expect(try fixture.disk("SELECT body FROM notes WHERE id = 1") == "batch")
    }

    @Test func aFlaggedFieldConflictsEvenWhenTheVersionDidNotMove() throws {
        let fixture = try Self.versionedFixture()
        let view = fixture.view
        let note = ObjectID(table: "notes", rowid: 1)
        try view.update(note, values: ["body": "mine"])
        // Another program that knows nothing of the version column.
        try sqlite3(fixture.path, "UPDATE notes SET body = 'theirs' WHERE id = 1;")
        _ = try fixture.container.checkForExternalChanges()
        #expect(try view.record(for: note)?.changedElsewhere == ["body"])
        #expect(storeError { try view.save() }?.conflicts?.count == 1)
        #expect(try fixture.disk("SELECT body FROM notes WHERE id = 1") == "theirs")
    }

    @Test func aVersionChangeOnAnotherFieldMergesPerField() throws {
        let fixture = try Self.versionedFixture()
        let view = fixture.view
        let note = ObjectID(table: "notes", rowid: 2)
        try view.update(note, values: ["body": "mine"])
        try sqlite3(fixture.path, "UPDATE notes SET tag = 'theirs', version = version + 1 WHERE id = 2;")
        try view.save()
        #expect(try fixture.disk("SELECT body || '/' || tag || '/' || version FROM notes WHERE id = 2") == "mine/theirs/3")
    }

    // MARK: 4. One notion of equality

    @Test(arguments: [false, true])
    func anIntegerBecomingARealInAnUntypedColumnIsAChangeForFlagAndSave(polled: Bool) throws {
        let fixture = try PeopleFixture(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, x, y TEXT); INSERT INTO t VALUES (1, 0, 'a');")
        let view = fixture.view
        let row = ObjectID(table: "t", rowid: 1)
        try view.update(row, values: ["x": 5])
        try sqlite3(fixture.path, "UPDATE t SET x = 0.0 WHERE id = 1;")
        if polled {
            _ = try fixture.container.checkForExternalChanges()
            #expect(try view.record(for: row)?.changedElsewhere == ["x"])
        }
        let conflict = try #require(storeError { try view.save() }?.conflicts?.first)
        #expect(conflict.fields.first { $0.name == "x" }?.theirs == .real(0))
        #expect(try fixture.disk("SELECT typeof(x) FROM t") == "real")
    }

    @Test func textComparesByItsBytesNotByCanonicalEquivalence() throws {
        let precomposed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(precomposed == decomposed)                     // Swift's String says equal
        #expect(Value.text(precomposed) != Value.text(decomposed))
        #expect(Set([Value.text(precomposed), Value.text(decomposed)]).count == 2)

        let fixture = try PeopleFixture(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, '\(precomposed)');")
        let view = fixture.view
        let row = ObjectID(table: "t", rowid: 1)
        try view.update(row, values: ["name": .text(decomposed)])
        #expect(view.hasPersistentChanges)
        try sqlite3(fixture.path, "UPDATE t SET name = 'other' WHERE id = 1;")
        _ = try fixture.container.checkForExternalChanges()
        #expect(try view.record(for: row)?.changedElsewhere == ["name"])
        #expect(storeError { try view.save() }?.conflicts?.count == 1)
    }

    // MARK: 5. A change to another field, poll or no poll

    @Test(arguments: [false, true])
    func theOutcomeDoesNotDependOnThePoll(polled: Bool) throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        let linus = fixture.person(3)
        try view.update(ada, values: ["name": "Mine"])
        try view.update(linus, values: ["city": "Mine too"])
        try sqlite3(fixture.path, "UPDATE people SET city = 'Theirs' WHERE id = 1; UPDATE people SET city = 'Theirs' WHERE id = 3;")
        if polled { _ = try fixture.container.checkForExternalChanges() }
        let conflicts = try #require(storeError { try view.save() }?.conflicts)
        // Only Linus's city was changed on both sides.
        #expect(conflicts.map(\.objectID) == [linus])
        #expect(conflicts[0].fields.filter(\.isContested).map(\.name) == ["city"])
        #expect(try fixture.disk("SELECT group_concat(name || '/' || city, ';') FROM people WHERE id IN (1, 3)") == "Ada/Theirs;Linus/Theirs")
        // Taking theirs for Linus lets Ada's change through, merged.
        try view.refresh(linus, mergeChanges: true)
        try view.resolveConflict(of: linus, keeping: .theirs)
        try view.save()
        #expect(try fixture.disk("SELECT group_concat(name || '/' || city, ';') FROM people WHERE id IN (1, 3)") == "Mine/Theirs;Linus/Theirs")
    }

    // MARK: Also: busy waits, locks, NaN

    @Test func aSaveWaitsOnlyItsOwnBusyTimeoutAndKeepsEverything() throws {
        // The container would wait 30 s; the context's own 50 ms is what a save must wait.
        let fixture = try PeopleFixture(options: StoreOptions(busyTimeout: 30))
        let view = fixture.view
        view.saveBusyTimeout = .milliseconds(50)
        try view.update(fixture.person(1), values: ["city": "Paris"])
        let session = try SQLite3Session(path: fixture.path)
        defer { session.close() }
        try session.run("BEGIN IMMEDIATE; UPDATE people SET notes = 'locked' WHERE id = 2;")
        let started = ContinuousClock.now
        #expect(storeError { try view.save() } == .busy)
        // Far below the container's wait, far above 50 ms: loose enough for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(try view.changedValues(of: fixture.person(1)) == ["city": "Paris"])
        try session.run("COMMIT;")
        try view.save()
        #expect(try fixture.disk("SELECT city FROM people WHERE id = 1") == "Paris")
    }

    @Test func aTableLockIsNotCalledBusy() {
        let locked = StoreError.working(DatabaseError(resultCode: .SQLITE_LOCKED), path: "x.sqlite")
        let busy = StoreError.working(DatabaseError(resultCode: .SQLITE_BUSY), path: "x.sqlite")
        #expect(locked == .lockedInProcess)
        #expect(busy == .busy)
        #expect(locked.message != busy.message)
        #expect(locked.message.contains("this program"))
    }

    @Test func notANumberIsRefusedWithAMessage() throws {
        let fixture = try PeopleFixture(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, x REAL); INSERT INTO t VALUES (1, 1.5);")
        let view = fixture.view
        let row = ObjectID(table: "t", rowid: 1)
        try view.update(row, values: ["x": .real(.nan)])
        let failure = try #require(storeError { try view.save() }?.failures?.first)
        #expect(failure.rule == .notANumber)
        #expect(failure.message.contains("not a number"))
        #expect(try fixture.disk("SELECT x FROM t") == 1.5)
        #expect(storeError { try fixture.container.batchUpdate(table: "t", set: ["x": .real(.nan)]) }?.failures?.first?.rule == .notANumber)
    }

    // MARK: Found by a second review

    @Test func twoEditorsSavingAtOnceCannotBothWin() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        for round in 0..<200 {
            let one = fixture.container.editorContext(parent: view, name: "one")
            let two = fixture.container.editorContext(parent: view, name: "two")
            try one.update(ada, values: ["city": .text("one \(round)")])
            try two.update(ada, values: ["city": .text("two \(round)")])
            let failures = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if storeError({ try (index == 0 ? one : two).save() })?.conflicts != nil { failures.withLock { $0 += 1 } }
            }
            #expect(failures.withLock { $0 } == 1, "round \(round): exactly one save meets the other's edit")
            view.rollback()
        }
    }

    @Test func typingTheirValueIsNoEditAndNoConflict() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        let a = fixture.container.editorContext(parent: view, name: "A")
        let b = fixture.container.editorContext(parent: view, name: "B")
        try b.update(ada, values: ["city": "B"])
        try a.update(ada, values: ["city": "C"])
        try a.save()
        #expect(try b.record(for: ada)?.changedElsewhere == ["city"])
        try b.update(ada, values: ["city": "C"])                // the person types theirs
        #expect(!b.hasChanges)
        try b.save()
        try view.save()
        #expect(try fixture.disk("SELECT city FROM people WHERE id = 1") == "C")
    }

    @Test func nullSetInAnEditorOfAnUnsavedInsertIsStoredAsNull() throws {
        let fixture = try PeopleFixture(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT DEFAULT 'new');")
        let view = fixture.view
        let id = try view.insert(into: "t")
        let editor = fixture.container.editorContext(parent: view)
        try editor.update(id, values: ["s": .null])
        try editor.save()
        try view.save()
        #expect(try fixture.disk("SELECT s IS NULL FROM t") == 1)
    }

    @Test func aRecordDeletedElsewhereWhoseEditIsTypedBackIsForgotten() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let grace = fixture.person(2)
        try view.update(grace, values: ["city": "Paris"])
        try sqlite3(fixture.path, "DELETE FROM people WHERE id = 2;")
        _ = try fixture.container.checkForExternalChanges()
        #expect(try view.record(for: grace)?.isDeletedElsewhere == true)
        try view.update(grace, values: ["city": "Arlington"])
        #expect(try view.record(for: grace) == nil)
        #expect(!view.hasChanges)
    }
}
