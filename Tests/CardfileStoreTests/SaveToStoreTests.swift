import Foundation
import Testing
@testable import CardfileStore

/// `saveToStore()`: an editor's changes reach the disk in one step, or nothing moves.
@Suite("Saving through the parents", .timeLimit(.minutes(10)))
struct SaveToStoreTests {
    @Test func anEditorsChangesReachTheDiskInOneStep() throws {
        let fixture = try PeopleFixture()
        let editor = fixture.container.editorContext(parent: fixture.view)
        try editor.update(fixture.person(1), values: ["city": "Paris"])
        let inserted = try editor.insert(into: "people", values: ["name": "Hedy"])
        let permanent = try editor.saveToStore()
        #expect(try fixture.disk("SELECT city FROM people WHERE id = 1") == "Paris")
        let newID = try #require(permanent[inserted])
        #expect(try editor.record(for: newID)?["name"] == "Hedy")
        #expect(!editor.hasChanges)
        #expect(!fixture.view.hasChanges)
    }

    @Test func aConflictAtTheRootLeavesTheParentAsItWasAndTheEditorWithItsEdits() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let editor = fixture.container.editorContext(parent: view)
        _ = try view.record(for: fixture.person(1))
        try editor.update(fixture.person(1), values: ["city": "Mine"])
        try sqlite3(fixture.path, "UPDATE people SET city = 'Theirs' WHERE id = 1;")   // not polled
        let conflict = try #require(storeError { try editor.saveToStore() }?.conflicts?.first)
        #expect(conflict.fields.first { $0.name == "city" }?.isContested == true)
        #expect(!view.hasChanges)
        #expect(try editor.changedValues(of: fixture.person(1)) == ["city": "Mine"])
        #expect(try view.record(for: fixture.person(1))?["city"] == "Theirs")
        // The editor now sees their value under its edit: the field is flagged.
        #expect(try editor.record(for: fixture.person(1))?.changedElsewhere == ["city"])
        #expect(try fixture.disk("SELECT city FROM people WHERE id = 1") == "Theirs")
    }

    @Test func aBusyDatabaseKeepsEverythingForTheRetry() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        view.saveBusyTimeout = .milliseconds(30)
        let editor = fixture.container.editorContext(parent: view)
        try editor.update(fixture.person(2), values: ["notes": "typed"])
        let session = try SQLite3Session(path: fixture.path)
        defer { session.close() }
        try session.run("BEGIN IMMEDIATE; UPDATE people SET age = 50 WHERE id = 3;")
        #expect(storeError { try editor.saveToStore() } == .busy)
        #expect(!view.hasChanges)
        #expect(editor.hasPersistentChanges)
        try session.run("COMMIT;")
        try editor.saveToStore()
        #expect(try fixture.disk("SELECT notes FROM people WHERE id = 2") == "typed")
    }
}
