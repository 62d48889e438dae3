import Foundation
import Testing
@testable import CardfileStore

@Suite("Contexts: editing, child contexts, saving", .timeLimit(.minutes(10)))
struct ContextTests {
    @Test func editorDiscardLeavesParentAndDiskUntouched() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        _ = try view.record(for: fixture.person(1))

        // Given an editor with an edit, an insert and a delete
        var editor: ObjectContext? = fixture.container.editorContext(parent: view)
        try editor!.update(fixture.person(1), values: ["name": "Countess"])
        try editor!.insert(into: "people", values: ["name": "Alan"])
        try editor!.delete(fixture.person(2))
        #expect(editor!.hasChanges)

        // When it is discarded
        editor = nil

        // Then the parent and the disk are exactly as before
        #expect(!view.hasChanges)
        #expect(try view.record(for: fixture.person(1))?["name"] == "Ada")
        #expect(try view.record(for: fixture.person(2))?.status == .unchanged)
        #expect(try fixture.disk("SELECT count(*) FROM people") == .integer(3))
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 1") == "Ada")
    }

    @Test func editorSaveGoesToParentOnlyThenToDisk() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let editor = fixture.container.editorContext(parent: view)
        try editor.update(fixture.person(1), values: ["name": "Countess Lovelace"])
        try editor.delete(fixture.person(3))

        try editor.save()

        // The parent has the changes, the disk does not yet.
        #expect(try view.record(for: fixture.person(1))?["name"] == "Countess Lovelace")
        #expect(view.updatedObjects == [fixture.person(1)])
        #expect(view.deletedObjects == [fixture.person(3)])
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 1") == "Ada")
        #expect(try fixture.disk("SELECT count(*) FROM people") == .integer(3))

        try view.save()

        #expect(try fixture.disk("SELECT name FROM people WHERE id = 1") == "Countess Lovelace")
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE id = 3") == .integer(0))
        #expect(!view.hasChanges)
        #expect(!editor.hasChanges)
    }

    @Test func nestedEditorsSaveUpTheChain() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let outer = fixture.container.editorContext(parent: view, name: "outer")
        let inner = fixture.container.editorContext(parent: outer, name: "inner")

        // The inner editor sees the outer editor's pending value.
        try outer.update(fixture.person(2), values: ["city": "New York"])
        #expect(try inner.record(for: fixture.person(2))?["city"] == "New York")

        try inner.update(fixture.person(2), values: ["notes": "admiral"])
        try inner.save()
        #expect(try outer.record(for: fixture.person(2))?["notes"] == "admiral")
        #expect(try view.record(for: fixture.person(2))?["notes"] == .null)

        try outer.save()
        #expect(try view.record(for: fixture.person(2))?["notes"] == "admiral")
        #expect(try view.record(for: fixture.person(2))?["city"] == "New York")
        #expect(try fixture.disk("SELECT notes FROM people WHERE id = 2") == .null)

        try view.save()
        #expect(try fixture.disk("SELECT notes || '/' || city FROM people WHERE id = 2") == "admiral/New York")
    }

    @Test func discardingAnInnerEditorKeepsTheOuterOne() throws {
        let fixture = try PeopleFixture()
        let outer = fixture.container.editorContext(parent: fixture.view)
        try outer.update(fixture.person(1), values: ["city": "Paris"])
        do {
            let inner = fixture.container.editorContext(parent: outer)
            try inner.update(fixture.person(1), values: ["city": "Rome"])
        }
        #expect(try outer.record(for: fixture.person(1))?["city"] == "Paris")
        #expect(try fixture.view.record(for: fixture.person(1))?["city"] == "London")
    }

    @Test func insertInChildGetsPermanentIDAfterRootSave() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let editor = fixture.container.editorContext(parent: view)
        let events = EventRecorder(fixture.container)

        let temporary = try editor.insert(into: "people", values: ["name": "Alan", "age": 41])
        #expect(temporary.isTemporary)
        try editor.save()
        #expect(view.insertedObjects == [temporary])
        #expect(try view.record(for: temporary)?["name"] == "Alan")

        try view.save()

        let event = try #require(events.waitForEvents(1).first)
        let permanent = try #require(event.permanentIDs[temporary])
        #expect(!permanent.isTemporary)
        #expect(event.inserted == [permanent])
        #expect(permanent == fixture.person(4))
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 4") == "Alan")
        // Both contexts now know the object by its permanent ID only.
        #expect(try view.record(for: permanent)?["age"] == 41)
        #expect(view.registeredObjects.contains(permanent) && !view.registeredObjects.contains(temporary))
        #expect(try editor.record(for: permanent)?["name"] == "Alan")
        #expect(!editor.registeredObjects.contains(temporary))
    }

    @Test func hasPersistentChangesIgnoresTransientFieldsAndEditsBack() throws {
        let options = StoreOptions(entities: [EntityDescription(table: "people", transientFields: ["selected"])])
        let fixture = try PeopleFixture(options: options)
        let view = fixture.view

        try view.update(fixture.person(1), values: ["selected": true])
        #expect(view.hasChanges)
        #expect(!view.hasPersistentChanges)
        #expect(try view.changedValues(of: fixture.person(1)) == ["selected": 1])

        try view.update(fixture.person(2), values: ["city": "Paris"])
        #expect(view.hasPersistentChanges)
        try view.update(fixture.person(2), values: ["city": "Arlington"])
        #expect(view.hasChanges)
        #expect(!view.hasPersistentChanges)
        #expect(try view.changedValues(of: fixture.person(2)).isEmpty)
        #expect(try view.committedValues(of: fixture.person(2))?["city"] == "Arlington")
    }

    @Test func saveIfNeededWritesNothingWhenClean() throws {
        let options = StoreOptions(entities: [EntityDescription(table: "people", transientFields: ["selected"])])
        let fixture = try PeopleFixture(options: options)
        let view = fixture.view
        view.saveBusyTimeout = .milliseconds(50)
        let events = EventRecorder(fixture.container)
        // Another program holds the write lock: any write transaction would fail as busy.
        let session = try SQLite3Session(path: fixture.path)
        defer { session.close() }
        try session.run("BEGIN IMMEDIATE; UPDATE people SET notes = 'locked' WHERE id = 2;")

        try view.update(fixture.person(1), values: ["selected": true])
        try view.update(fixture.person(3), values: ["name": "Linus"]) // edited back to itself
        #expect(try view.saveIfNeeded() == false, "no transaction begun, so the lock was never met")
        // The transient value is still there, still a change.
        #expect(try view.record(for: fixture.person(1))?["selected"] == 1)

        try view.update(fixture.person(3), values: ["name": "Linus T."])
        #expect(storeError { try view.saveIfNeeded() } == .busy, "a real change does begin one")
        try session.run("COMMIT;")
        // The save that does write is the marker: the clean one before it sent no event.
        var wrote = false
        let earlier = try events.eventsBefore { wrote = try view.saveIfNeeded() }
        #expect(wrote)
        #expect(earlier.isEmpty, "a save with nothing to write commits nothing: \(earlier)")
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 3") == "Linus T.")
    }

    @Test func transientFieldsAreNeverWritten() throws {
        let options = StoreOptions(entities: [EntityDescription(table: "people", transientFields: ["draft"])])
        let fixture = try PeopleFixture(options: options)
        let view = fixture.view
        try view.update(fixture.person(1), values: ["draft": "unsent", "city": "Oxford"])
        try view.save()
        #expect(try fixture.disk("SELECT city FROM people WHERE id = 1") == "Oxford")
        // The transient value stays in memory after the save.
        #expect(try view.record(for: fixture.person(1))?["draft"] == "unsent")
        #expect(!view.hasChanges)
    }

    @Test func fetchByIDReusesTheRegisteredObject() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Edited"])
        // Another connection changes the row; the registered object is not re-read by a fetch.
        try sqlite3(fixture.path, "UPDATE people SET city = 'Elsewhere' WHERE id = 1;")
        let record = try #require(try view.record(for: fixture.person(1)))
        #expect(record["name"] == "Edited")
        #expect(record["city"] == "London")
        #expect(view.registeredObjects.count == 1)
    }

    @Test func fetchRequestShowsPendingChanges() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(3), values: ["age": 99])
        try view.insert(into: "people", values: ["name": "Zed", "age": 50])
        try view.delete(fixture.person(2))

        let request = FetchRequest(table: "people", predicate: .compare("age", .greaterOrEqual, 30), sort: [ColumnSort("age", ascending: false)])
        let names = try view.fetch(request).compactMap { $0["name"] }
        #expect(names == ["Linus", "Zed", "Ada"])
        #expect(try view.count(for: request) == 3)

        var withDeletes = request
        withDeletes.includesPendingDeletes = true
        let statuses = try view.fetch(withDeletes).map { "\($0["name"]!):\($0.status)" }
        #expect(statuses == ["Linus:updated", "Zed:inserted", "Grace:deleted", "Ada:unchanged"])

        // An editor sees the chain's pending changes and its own.
        let editor = fixture.container.editorContext(parent: view)
        try editor.update(fixture.person(1), values: ["age": 10])
        let editorNames = try editor.fetch(request).compactMap { $0["name"] }
        #expect(editorNames == ["Linus", "Zed"])
    }

    @Test func fetchWithLimitAndOffsetPages() throws {
        let fixture = try PeopleFixture()
        let page = try fixture.view.fetch(FetchRequest(table: "people", sort: [ColumnSort("name")], limit: 2, offset: 1))
        #expect(page.map { $0["name"] } == ["Grace", "Linus"])
    }

    @Test func rollbackAndResetDiscardPendingWork() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "X"])
        let inserted = try view.insert(into: "people", values: ["name": "Y"])
        try view.delete(fixture.person(2))
        view.rollback()
        #expect(!view.hasChanges)
        #expect(try view.record(for: fixture.person(1))?["name"] == "Ada")
        #expect(try view.record(for: inserted) == nil)
        #expect(try view.record(for: fixture.person(2))?.status == .unchanged)

        try view.update(fixture.person(1), values: ["name": "X"])
        view.reset()
        #expect(view.registeredObjects.isEmpty)
        #expect(try view.record(for: fixture.person(1))?["name"] == "Ada")
    }

    @Test func refreshWithoutMergeDropsEditsAndReloads() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "X"])
        try sqlite3(fixture.path, "UPDATE people SET city = 'Cambridge' WHERE id = 1;")

        try view.refresh(fixture.person(1), mergeChanges: true)
        var record = try #require(try view.record(for: fixture.person(1)))
        #expect(record["name"] == "X")
        #expect(record["city"] == "Cambridge")

        try view.refresh(fixture.person(1), mergeChanges: false)
        record = try #require(try view.record(for: fixture.person(1)))
        #expect(record["name"] == "Ada")
        #expect(record.status == .unchanged)
    }

    @Test func temporaryContextRefusesToSave() throws {
        let fixture = try PeopleFixture()
        let scratch = fixture.container.temporaryContext()
        try scratch.update(fixture.person(1), values: ["name": "Scratch"])
        #expect(try scratch.record(for: fixture.person(1))?["name"] == "Scratch")
        let error = storeError { try scratch.save() }
        guard case .saveNotAllowed = error else {
            Issue.record("expected saveNotAllowed, got \(String(describing: error))")
            return
        }
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 1") == "Ada")
    }

    @Test func performRunsOnTheContextQueue() async throws {
        let fixture = try PeopleFixture()
        let background = fixture.container.newBackgroundContext()
        // The queue is marked, so the work can tell where it runs.
        let key = DispatchSpecificKey<Int>()
        background.queue.setSpecific(key: key, value: 7)
        let (name, onQueue) = try await background.perform { context -> (String, Bool) in
            try context.update(ObjectID(table: "people", rowid: 2), values: ["name": "Amazing Grace"])
            try context.save()
            return (try context.record(for: ObjectID(table: "people", rowid: 2))?["name"]?.description ?? "", DispatchQueue.getSpecific(key: key) == 7)
        }
        #expect(onQueue, "the work ran on the context's queue")
        #expect(DispatchQueue.getSpecific(key: key) == nil, "and the caller is not on it")
        #expect(name == "Amazing Grace")
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 2") == "Amazing Grace")

        // Two performs started together never overlap: the second starts after the first ends.
        let inside = Locked(0)
        let most = Locked(0)
        @Sendable func work(_ context: ObjectContext) -> Int {
            let now = inside.withLock { $0 += 1; return $0 }
            most.withLock { $0 = max($0, now) }
            Thread.sleep(forTimeInterval: 0.02)
            inside.withLock { $0 -= 1 }
            return now
        }
        async let first = background.perform(work)
        async let second = background.perform(work)
        let both = try await [first, second]
        #expect(both == [1, 1], "each ran alone")
        #expect(most.withLock { $0 } == 1)
    }

    @Test func unknownTablesAndFieldsAreErrors() throws {
        let fixture = try PeopleFixture()
        #expect(storeError { _ = try fixture.view.insert(into: "nobody") } == .noSuchTable("nobody"))
        #expect(storeError { try fixture.view.update(fixture.person(1), values: ["nope": 1]) } == .noSuchField(table: "people", field: "nope"))
        #expect(storeError { try fixture.view.update(fixture.person(99), values: ["name": "x"]) } == .noSuchObject(fixture.person(99)))
        // Table names are matched case-insensitively.
        #expect(try fixture.view.record(for: ObjectID(table: "PEOPLE", rowid: 1))?.id == fixture.person(1))
    }
}

/// Collects the container's save events on a queue of its own.
final class EventRecorder: @unchecked Sendable {
    private let events = Locked<[ContextDidSave]>([])
    private var observation: SaveObservation?
    private let queue = DispatchQueue(label: "test.events")

    init(_ container: Container) {
        observation = container.observeSaves(on: queue) { [events] event in
            events.withLock { $0.append(event) }
        }
    }

    /// Waits until at least `count` events arrived (or the timeout passes) and returns them all.
    func waitForEvents(_ count: Int, timeout: TimeInterval = 5) -> [ContextDidSave] {
        precondition(count > 0, "to show that nothing arrives, use eventsBefore(marker:)")
        let deadline = Date().addingTimeInterval(timeout)
        while events.value.count < count, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        queue.sync {}
        return events.value
    }

    /// Every event recorded before the marker's: `marker` commits once, and its event (each
    /// commit's event is delivered in commit order, on one queue) is the sign that any event
    /// of an earlier commit would have come by then. Waiting for nothing to happen would
    /// only say that nothing happened yet. Fails the test when the marker's event never comes.
    func eventsBefore(marker: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws -> [ContextDidSave] {
        let before = events.value.count
        try marker()
        let all = waitForEvents(before + 1)
        guard all.count > before else {
            Issue.record("the marker's commit never reported", sourceLocation: sourceLocation)
            return all
        }
        return Array(all.dropLast())
    }
}
