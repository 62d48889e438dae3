import Foundation
import Testing
@testable import CardfileStore

@Suite("ContextDidSave events", .timeLimit(.minutes(10)))
struct EventTests {
    @Test func oneEventPerCommitWithEveryChangeAndTheOrigin() throws {
        let fixture = try PeopleFixture()
        let events = EventRecorder(fixture.container)
        let background = fixture.container.newBackgroundContext(name: "worker")
        try background.update(fixture.person(1), values: ["city": "Paris"])
        try background.delete(fixture.person(2))
        let temporary = try background.insert(into: "people", values: ["name": "Eve"])
        try background.save()

        // One event for the save, none after it: the next commit's event comes next.
        let all = try events.eventsBefore { try fixture.container.batchUpdate(table: "people", set: ["notes": "marker"]) }
        #expect(all.count == 1, "\(all)")
        let event = try #require(all.first)
        #expect(event.origin == .context(background.identity))
        #expect(event.updated == [fixture.person(1)])
        #expect(event.deleted == [fixture.person(2)])
        #expect(event.inserted == [fixture.person(4)])
        #expect(event.permanentIDs == [temporary: fixture.person(4)])
        #expect(event.touches(table: "PEOPLE"))
    }

    @Test func observersRunOnTheirQueueAndStopWhenCancelled() throws {
        let fixture = try PeopleFixture()
        let queue = DispatchQueue(label: "test.observer")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "observer queue")
        let seen = Locked<[String?]>([])
        let observation = fixture.container.observeSaves(on: queue) { _ in
            seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
        }
        try fixture.container.batchUpdate(table: "people", set: ["notes": "x"])
        queue.sync {}
        #expect(seen.value == ["observer queue"])
        observation.cancel()
        try fixture.container.batchUpdate(table: "people", set: ["notes": "y"])
        queue.sync {}
        #expect(seen.value.count == 1)
    }

    @Test func cascadesAreNamedAndUnhookedTablesInvalidated() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE books (id INTEGER PRIMARY KEY, author INTEGER REFERENCES authors ON DELETE CASCADE);
            CREATE TABLE labels (author INTEGER REFERENCES authors ON DELETE CASCADE, label TEXT, PRIMARY KEY (author, label)) WITHOUT ROWID;
            INSERT INTO authors VALUES (1, 'A'), (2, 'B');
            INSERT INTO books VALUES (10, 1), (11, 1), (12, 2);
            INSERT INTO labels VALUES (1, 'x'), (2, 'y');
            """)
        let view = fixture.view
        let label = ObjectID(table: "labels", primaryKey: [1, "x"])
        #expect(try view.record(for: label) != nil)
        let events = EventRecorder(fixture.container)
        try fixture.container.batchDelete(from: "authors", where: .compare("id", .equal, 1))
        let event = try #require(events.waitForEvents(1).first)
        #expect(event.origin == .batch)
        #expect(event.deleted == [
            ObjectID(table: "authors", rowid: 1), ObjectID(table: "books", rowid: 10), ObjectID(table: "books", rowid: 11),
        ])
        #expect(event.invalidatedTables == ["labels"])
        // The view re-read the invalidated table's registered objects.
        #expect(try view.record(for: label) == nil)
    }

    @Test func childSavesProduceNoEventOnlyCommitsDo() throws {
        let fixture = try PeopleFixture()
        let events = EventRecorder(fixture.container)
        let editor = fixture.container.editorContext(parent: fixture.view)
        try editor.update(fixture.person(1), values: ["name": "Draft"])
        try editor.save()
        // The parent's save to disk is the marker: the child's save before it sent nothing.
        let before = try events.eventsBefore { try fixture.view.save() }
        #expect(before.isEmpty, "\(before)")
        #expect(events.waitForEvents(1).count == 1)
    }
}
