import Foundation
import Testing
@testable import CardfileStore

@Suite("Locks held by other processes", .timeLimit(.minutes(10)))
struct LockTests {
    @Test func saveMeetingALongLockIsBusyKeepsEverythingAndRetries() throws {
        let fixture = try PeopleFixture(options: StoreOptions(busyTimeout: 0.2))
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Patient"])
        let inserted = try view.insert(into: "people", values: ["name": "Newcomer"])
        try view.delete(fixture.person(3))

        // Another process takes the write lock and keeps it.
        let other = try SQLite3Session(path: fixture.path)
        try other.run("BEGIN IMMEDIATE; UPDATE people SET notes = 'locked' WHERE id = 2;")

        let started = Date()
        #expect(storeError { try view.save() } == .busy)
        #expect(Date().timeIntervalSince(started) >= 0.2)
        // Nothing lost.
        #expect(view.updatedObjects == [fixture.person(1)])
        #expect(view.insertedObjects == [inserted])
        #expect(view.deletedObjects == [fixture.person(3)])
        #expect(StoreError.busy.message.contains("busy"))

        try other.run("COMMIT;")
        other.close()

        try view.save()
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 1") == "Patient")
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE name = 'Newcomer'") == .integer(1))
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE name = 'Linus'") == .integer(0))
        #expect(try fixture.disk("SELECT notes FROM people WHERE id = 2") == "locked")
    }
}
