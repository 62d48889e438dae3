import Foundation
import Testing
@testable import CardfileStore

/// Another process (the `sqlite3` tool) writing the same file.
@Suite("Other processes", .timeLimit(.minutes(10)))
struct ExternalProcessTests {
    @Test func anotherProcessesChangeToTheSameFieldMakesTheNextSaveConflictUnderError() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Mine"])
        try sqlite3(fixture.path, "UPDATE people SET name = 'Theirs', city = 'Theirs City' WHERE id = 1;")

        let conflict = try #require(storeError { try view.save() }?.conflicts?.first)
        #expect(conflict.kind == .updateUpdate)
        #expect(conflict.fields.first { $0.name == "name" }?.isContested == true)
        #expect(conflict.fields.first { $0.name == "city" }?.theirs == "Theirs City")
        #expect(conflict.fields.first { $0.name == "city" }?.isContested == false)
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 1") == "Theirs/Theirs City")
        #expect(view.hasPersistentChanges)
    }

    @Test func anotherProcessesChangeToAnotherFieldMergesAtSaveEvenUnpolled() throws {
        // Before store-integrity case 5 this conflicted on the whole record.
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Mine"])
        try sqlite3(fixture.path, "UPDATE people SET city = 'Theirs City' WHERE id = 1;")

        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 1") == "Mine/Theirs City")
        #expect(try view.record(for: fixture.person(1))?["city"] == "Theirs City")
        #expect(!view.hasChanges)
    }

    @Test func anotherProcessesChangeMergesUnderObjectTrump() throws {
        let fixture = try PeopleFixture(options: StoreOptions(viewContextMergePolicy: .objectTrump))
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Mine"])
        try sqlite3(fixture.path, "UPDATE people SET name = 'Theirs', city = 'Theirs City' WHERE id = 1;")

        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 1") == "Mine/Theirs City")
        #expect(try view.record(for: fixture.person(1))?["city"] == "Theirs City")
    }

    @Test func checkForExternalChangesSeesTheOtherProcessAndNotUs() throws {
        let fixture = try PeopleFixture()
        let container = fixture.container
        let view = fixture.view
        #expect(try container.checkForExternalChanges() == false)

        try view.update(fixture.person(1), values: ["name": "Ours"])
        try view.save()
        #expect(try container.checkForExternalChanges() == false)

        try sqlite3(fixture.path, "UPDATE people SET notes = 'theirs' WHERE id = 2;")
        #expect(try container.checkForExternalChanges() == true)
        #expect(try container.checkForExternalChanges() == false)

        // Our commit, then theirs, then ours again: theirs is still seen.
        try view.update(fixture.person(1), values: ["name": "Ours 2"])
        try view.save()
        try sqlite3(fixture.path, "UPDATE people SET notes = 'theirs 2' WHERE id = 2;")
        try view.update(fixture.person(1), values: ["name": "Ours 3"])
        try view.save()
        #expect(try container.checkForExternalChanges() == true)
        #expect(try container.checkForExternalChanges() == false)
    }

    @Test func externalChangeIsMergedIntoEditedObjects() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Mine"])
        _ = try view.record(for: fixture.person(2))
        try view.update(fixture.person(3), values: ["notes": "mine"])
        try sqlite3(fixture.path, """
            UPDATE people SET city = 'Theirs City' WHERE id = 1;
            UPDATE people SET city = 'Boston' WHERE id = 2;
            UPDATE people SET notes = 'theirs' WHERE id = 3;
            """)
        let events = EventRecorder(fixture.container)
        #expect(try fixture.container.checkForExternalChanges())
        #expect(events.waitForEvents(1).first?.origin == .external)

        // Unedited and other-field changes merged; same-field change flagged.
        #expect(try view.record(for: fixture.person(2))?["city"] == "Boston")
        let ada = try #require(try view.record(for: fixture.person(1)))
        #expect(ada["city"] == "Theirs City" && ada["name"] == "Mine" && ada.changedElsewhere.isEmpty)
        #expect(try view.record(for: fixture.person(3))?.changedElsewhere == ["notes"])

        let error = storeError { try view.save() }
        #expect(error?.conflicts?.map(\.objectID) == [fixture.person(3)])
        view.mergePolicy = .objectTrump
        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 1") == "Mine/Theirs City")
        #expect(try fixture.disk("SELECT notes FROM people WHERE id = 3") == "mine")
    }

    @Test func readOnlyContainerSeesOtherProcessesToo() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("ro.sqlite")
        try makeDatabase(at: path, peopleSchema)
        let container = try Container(path: path, options: StoreOptions(readOnly: true))
        _ = try container.viewContext.record(for: ObjectID(table: "people", rowid: 1))
        #expect(try container.checkForExternalChanges() == false)
        try sqlite3(path, "UPDATE people SET name = 'Changed' WHERE id = 1;")
        #expect(try container.checkForExternalChanges() == true)
        #expect(try container.viewContext.record(for: ObjectID(table: "people", rowid: 1))?["name"] == "Changed")
    }
}
