import Foundation
import Testing
@testable import CardfileStore

/// Automatic merging: other commits reach registered objects without hiding conflicts.
@Suite("Merging changes made elsewhere", .timeLimit(.minutes(10)))
struct MergingTests {
    @Test func changeToAnotherFieldMergesSilentlyAndBothReachDisk() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Mine"])

        let other = fixture.container.newBackgroundContext()
        try other.update(fixture.person(1), values: ["city": "Theirs City"])
        try other.save()

        let record = try #require(try view.record(for: fixture.person(1)))
        #expect(record["name"] == "Mine")
        #expect(record["city"] == "Theirs City")
        #expect(record.changedElsewhere.isEmpty)
        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 1") == "Mine/Theirs City")
    }

    @Test func changeToTheSameFieldIsFlaggedAndTheSaveConflicts() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Mine"])

        let other = fixture.container.newBackgroundContext()
        try other.update(fixture.person(1), values: ["name": "Theirs"])
        try other.save()

        let record = try #require(try view.record(for: fixture.person(1)))
        #expect(record["name"] == "Mine")
        #expect(record.changedElsewhere == ["name"])
        #expect(try view.committedValues(of: fixture.person(1))?["name"] == "Theirs")

        let conflict = try #require(storeError { try view.save() }?.conflicts?.first)
        #expect(conflict.fields.first { $0.name == "name" } == .init(name: "name", original: "Ada", mine: "Mine", theirs: "Theirs"))
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 1") == "Theirs")
    }

    @Test func unregisteredAndUneditedObjectsFollowTheStore() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        _ = try view.record(for: fixture.person(2))
        let other = fixture.container.newBackgroundContext()
        try other.update(fixture.person(2), values: ["city": "Boston"])
        try other.delete(fixture.person(3))
        try other.save()
        #expect(try view.record(for: fixture.person(2))?["city"] == "Boston")
        #expect(try view.record(for: fixture.person(2))?.status == .unchanged)
        #expect(try view.record(for: fixture.person(3)) == nil)
    }

    @Test func rowDeletedElsewhereWhileEditedIsFlaggedNotLost() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(3), values: ["notes": "my notes"])
        let other = fixture.container.newBackgroundContext()
        try other.delete(fixture.person(3))
        try other.save()

        let record = try #require(try view.record(for: fixture.person(3)))
        #expect(record.isDeletedElsewhere)
        #expect(record["notes"] == "my notes")
        #expect(storeError { try view.save() }?.conflicts?.first?.kind == .updateDelete)
    }

    @Test func batchUpdateReachesAnotherContextsRegisteredObjects() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        for id in 1...3 { _ = try view.record(for: fixture.person(Int64(id))) }
        try view.update(fixture.person(2), values: ["name": "Edited Grace"])

        let changed = try fixture.container.batchUpdate(table: "people", set: ["city": "Batchville"], where: .compare("age", .greater, 30))
        #expect(changed == [fixture.person(1), fixture.person(2)])

        #expect(try view.record(for: fixture.person(1))?["city"] == "Batchville")
        let grace = try #require(try view.record(for: fixture.person(2)))
        #expect(grace["city"] == "Batchville")
        #expect(grace["name"] == "Edited Grace")
        #expect(try view.record(for: fixture.person(3))?["city"] == "Helsinki")
        // The batch changed a field the view did not edit: the view's save goes through.
        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 2") == "Edited Grace/Batchville")
    }

    @Test func batchDeleteReachesAnotherContext() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        _ = try view.record(for: fixture.person(1))
        let deleted = try fixture.container.batchDelete(from: "people", where: .compare("name", .equal, "Ada"))
        #expect(deleted == [fixture.person(1)])
        #expect(try view.record(for: fixture.person(1)) == nil)
        #expect(!view.registeredObjects.contains(fixture.person(1)))
    }

    @Test func editorSeesItsParentsMergesWithoutHidingConflicts() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let editor = fixture.container.editorContext(parent: view)
        try editor.update(fixture.person(1), values: ["name": "Editor"])

        let other = fixture.container.newBackgroundContext()
        try other.update(fixture.person(1), values: ["name": "Theirs", "city": "Theirs City"])
        try other.save()

        let record = try #require(try editor.record(for: fixture.person(1)))
        #expect(record["city"] == "Theirs City")
        #expect(record["name"] == "Editor")
        #expect(record.changedElsewhere == ["name"])

        // The editor's save meets the change at once (nothing moves up), with the view's
        // value as theirs.
        let conflict = try #require(storeError { try editor.save() }?.conflicts?.first)
        let name = try #require(conflict.fields.first { $0.name == "name" })
        #expect(name.original == "Ada")
        #expect(name.mine == "Editor")
        #expect(name.theirs == "Theirs")
        #expect(name.isContested)
        #expect(!view.hasChanges)

        // Choosing mine lets it through, and on to disk without a second conflict.
        try editor.refresh(fixture.person(1), mergeChanges: true)
        try editor.resolveConflict(of: fixture.person(1), field: "name", choosing: .mine)
        try editor.save()
        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city FROM people WHERE id = 1") == "Editor/Theirs City")
    }

    @Test func editorDeleteOfARowChangedElsewhereConflicts() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let editor = fixture.container.editorContext(parent: view)
        try editor.delete(fixture.person(2))
        try sqlite3(fixture.path, "UPDATE people SET city = 'Moved' WHERE id = 2;")
        try editor.save()
        #expect(storeError { try view.save() }?.conflicts?.first?.kind == .deleteUpdate)
    }

    @Test func contextsWithoutAutomaticMergingKeepTheirSnapshot() throws {
        let fixture = try PeopleFixture()
        let background = fixture.container.newBackgroundContext()
        _ = try background.record(for: fixture.person(1))
        let other = fixture.container.newBackgroundContext()
        try other.update(fixture.person(1), values: ["city": "Elsewhere"])
        try other.save()
        #expect(try background.record(for: fixture.person(1))?["city"] == "London")
        background.automaticallyMergesChanges = true
        try background.refreshAll()
        #expect(try background.record(for: fixture.person(1))?["city"] == "Elsewhere")
    }
    /// A child's explicit NULL on a field of the parent's unsaved insert must reach the INSERT
    /// even after the parent's copy changed (a merge must not mistake it for "no edit").
    @Test func anExplicitNullOnTheParentsInsertSurvivesTheParentChanging() throws {
        let fixture = try PeopleFixture(schema: peopleWithDefaultSchema)
        let view = fixture.view
        let id = try view.insert(into: "people", values: ["name": "New"])
        let editor = fixture.container.editorContext(parent: view)
        try editor.update(id, values: ["city": .null])
        try view.update(id, values: ["name": "Renamed"])       // the parent's copy changes
        #expect(try editor.record(for: id)?["name"] == "Renamed")
        try editor.save()
        try view.save()
        #expect(try fixture.disk("SELECT name FROM people") == "Renamed")
        #expect(try fixture.disk("SELECT city IS NULL FROM people") == 1)
    }
}
