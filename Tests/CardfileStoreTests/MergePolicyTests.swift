import Foundation
import Testing
@testable import CardfileStore

/// Every merge policy against every kind of conflict. "Mine" is a background context that does
/// not merge automatically, so the change made elsewhere (by another context of the same
/// container) reaches its save as a conflict.
@Suite("Merge policies", .timeLimit(.minutes(10)))
struct MergePolicyTests {
    struct Expected: Sendable, CustomStringConvertible {
        let policy: MergePolicy
        /// name, age, city on disk afterwards; nil when the row must be gone.
        let disk: [Value]?
        var description: String { "\(policy)" }
    }

    /// I change name and age; they change name and city.
    @Test(arguments: [
        Expected(policy: .error, disk: ["Theirs", 36, "Theirs City"]),
        Expected(policy: .objectTrump, disk: ["Mine", 40, "Theirs City"]),
        Expected(policy: .storeTrump, disk: ["Theirs", 40, "Theirs City"]),
        Expected(policy: .overwrite, disk: ["Mine", 40, "London"]),
        Expected(policy: .rollback, disk: ["Theirs", 36, "Theirs City"]),
    ])
    func updateUpdate(_ expected: Expected) throws {
        let fixture = try PeopleFixture()
        let mine = fixture.container.newBackgroundContext(name: "mine")
        mine.mergePolicy = expected.policy
        try mine.update(fixture.person(1), values: ["name": "Mine", "age": 40])

        let theirs = fixture.container.newBackgroundContext(name: "theirs")
        try theirs.update(fixture.person(1), values: ["name": "Theirs", "city": "Theirs City"])
        try theirs.save()

        let error = storeError { try mine.save() }
        #expect(try diskRow(fixture) == expected.disk)

        if expected.policy == .error {
            let conflict = try #require(error?.conflicts?.first)
            #expect(error?.conflicts?.count == 1)
            #expect(conflict.kind == .updateUpdate)
            #expect(conflict.objectID == fixture.person(1))
            #expect(conflict.fields == [
                .init(name: "name", original: "Ada", mine: "Mine", theirs: "Theirs"),
                .init(name: "age", original: 36, mine: 40, theirs: 36),
                .init(name: "city", original: "London", mine: "London", theirs: "Theirs City"),
            ])
            // Nothing written, nothing lost: the edits are still pending.
            #expect(try mine.changedValues(of: fixture.person(1)) == ["name": "Mine", "age": 40])
        } else {
            #expect(error == nil)
            #expect(!mine.hasChanges)
            // After a resolved save the snapshot is the row as written.
            let committed = try #require(try mine.committedValues(of: fixture.person(1)))
            let written: [Value] = [committed["name"] ?? .null, committed["age"] ?? .null, committed["city"] ?? .null]
            #expect(written == expected.disk)
        }
    }

    /// I change the row; they delete it.
    @Test(arguments: [
        Expected(policy: .error, disk: nil),
        Expected(policy: .objectTrump, disk: ["Mine", 40, "London"]),
        Expected(policy: .storeTrump, disk: nil),
        Expected(policy: .overwrite, disk: ["Mine", 40, "London"]),
        Expected(policy: .rollback, disk: nil),
    ])
    func updateDelete(_ expected: Expected) throws {
        let fixture = try PeopleFixture()
        let mine = fixture.container.newBackgroundContext(name: "mine")
        mine.mergePolicy = expected.policy
        try mine.update(fixture.person(1), values: ["name": "Mine", "age": 40])

        let theirs = fixture.container.newBackgroundContext(name: "theirs")
        try theirs.delete(fixture.person(1))
        try theirs.save()

        let error = storeError { try mine.save() }
        #expect(try diskRow(fixture) == expected.disk)
        if expected.policy == .error {
            let conflict = try #require(error?.conflicts?.first)
            #expect(conflict.kind == .updateDelete)
            #expect(conflict.fields.allSatisfy { $0.theirs == nil })
            #expect(conflict.fields.first { $0.name == "name" }?.mine == "Mine")
            #expect(mine.hasPersistentChanges)
        } else {
            #expect(error == nil)
            #expect(!mine.hasChanges)
            let record = try mine.record(for: fixture.person(1))
            #expect(record?["name"] == expected.disk?[0])
        }
    }

    /// I delete the row; they change it.
    @Test(arguments: [
        Expected(policy: .error, disk: ["Theirs", 36, "London"]),
        Expected(policy: .objectTrump, disk: nil),
        Expected(policy: .storeTrump, disk: ["Theirs", 36, "London"]),
        Expected(policy: .overwrite, disk: nil),
        Expected(policy: .rollback, disk: ["Theirs", 36, "London"]),
    ])
    func deleteUpdate(_ expected: Expected) throws {
        let fixture = try PeopleFixture()
        let mine = fixture.container.newBackgroundContext(name: "mine")
        mine.mergePolicy = expected.policy
        try mine.delete(fixture.person(1))

        let theirs = fixture.container.newBackgroundContext(name: "theirs")
        try theirs.update(fixture.person(1), values: ["name": "Theirs"])
        try theirs.save()

        let error = storeError { try mine.save() }
        #expect(try diskRow(fixture) == expected.disk)
        if expected.policy == .error {
            let conflict = try #require(error?.conflicts?.first)
            #expect(conflict.kind == .deleteUpdate)
            #expect(conflict.fields == [.init(name: "name", original: "Ada", mine: "Ada", theirs: "Theirs")])
            #expect(mine.deletedObjects == [fixture.person(1)])
        } else {
            #expect(error == nil)
            #expect(!mine.hasChanges)
            #expect(try mine.record(for: fixture.person(1))?["name"] == expected.disk?[0])
        }
    }

    @Test func errorPolicyWritesNothingEvenForObjectsWithoutConflict() throws {
        let fixture = try PeopleFixture()
        let mine = fixture.container.newBackgroundContext()
        try mine.update(fixture.person(1), values: ["name": "Mine"])
        try mine.update(fixture.person(2), values: ["name": "Unconflicted"])
        try mine.insert(into: "people", values: ["name": "New"])
        try sqlite3(fixture.path, "UPDATE people SET name = 'Theirs' WHERE id = 1;")

        let error = storeError { try mine.save() }
        #expect(error?.conflicts?.map(\.objectID) == [fixture.person(1)])
        #expect(try fixture.disk("SELECT name FROM people WHERE id = 2") == "Grace")
        #expect(try fixture.disk("SELECT count(*) FROM people") == .integer(3))
        #expect(mine.insertedObjects.count == 1)
    }

    @Test func resolvingAConflictLetsTheNextSaveThrough() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        try view.update(fixture.person(1), values: ["name": "Mine", "city": "Mine City"])
        try sqlite3(fixture.path, "UPDATE people SET name = 'Theirs', city = 'Theirs City' WHERE id = 1;")
        #expect(storeError { try view.save() }?.conflicts?.count == 1)

        // The person looks at Original / Mine / Theirs and chooses per field.
        try view.refresh(fixture.person(1), mergeChanges: true)
        #expect(try view.record(for: fixture.person(1))?.changedElsewhere == ["name", "city"])
        try view.resolveConflict(of: fixture.person(1), field: "name", choosing: .mine)
        try view.resolveConflict(of: fixture.person(1), field: "city", choosing: .theirs)
        #expect(try view.record(for: fixture.person(1))?.changedElsewhere == [])
        try view.save()
        #expect(try diskRow(fixture) == ["Mine", 36, "Theirs City"])
    }

    private func diskRow(_ fixture: PeopleFixture) throws -> [Value]? {
        guard try fixture.disk("SELECT count(*) FROM people WHERE id = 1") == .integer(1) else { return nil }
        return [
            try fixture.disk("SELECT name FROM people WHERE id = 1"),
            try fixture.disk("SELECT age FROM people WHERE id = 1"),
            try fixture.disk("SELECT city FROM people WHERE id = 1"),
        ]
    }
}
