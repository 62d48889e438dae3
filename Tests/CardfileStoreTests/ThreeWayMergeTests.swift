import Foundation
import Testing
@testable import CardfileStore

/// The one conflict rule: its properties over random fields, and the paths that call it
/// agreeing with it.
@Suite("Three-way merge", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ThreeWayMergeTests {
    /// Few distinct values, so sides often agree; 0 and 0.0 and "a" and "A" are different values.
    static let pool: [Value] = [.null, .integer(0), .real(0), .integer(1), .text("a"), .text("A"), .blob(Data([0]))]

    static func randomVersions(_ random: inout SeededRandom) -> (original: [Value], mine: [Value], theirs: [Value]) {
        let count = 1 + random.next(below: 6)
        let original = (0..<count).map { _ in pool[random.next(below: pool.count)] }
        // Each side keeps a field or changes it, at random.
        func side(_ random: inout SeededRandom) -> [Value] {
            original.map { random.next(below: 2) == 0 ? $0 : pool[random.next(below: pool.count)] }
        }
        let mine = side(&random)
        let theirs = side(&random)
        return (original, mine, theirs)
    }

    @Test func itsPropertiesHoldForRandomFields() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(3000) {
            let (original, mine, theirs) = Self.randomVersions(&random)
            let merge = ThreeWayMerge(original: original, mine: mine, theirs: theirs)
            let context = "seed \(seed) round \(round): \(original) / \(mine) / \(theirs)"
            for field in original.indices {
                let contested = merge.contested.contains(field)
                if mine[field] == original[field] || theirs[field] == original[field] {
                    #expect(!contested, "changed on one side only is never contested; \(context)")
                }
                if mine[field] == theirs[field] { #expect(!contested, "mine == theirs is never contested; \(context)") }
                // An independent statement of the rule, field by field.
                let expected: Value = mine[field] == original[field] ? theirs[field] : mine[field]
                if !contested { #expect(merge.merged(contestedTaking: .theirs)[field] == expected, "\(context)") }
            }
            let swapped = ThreeWayMerge(original: original, mine: theirs, theirs: mine)
            #expect(swapped.contested == merge.contested, "swapping the sides contests the same fields; \(context)")
            #expect(swapped.merged(contestedTaking: .theirs) == merge.merged(contestedTaking: .mine), "\(context)")
            #expect(swapped.merged(contestedTaking: .original) == merge.merged(contestedTaking: .original), "\(context)")
            #expect(ThreeWayMerge(original: original, mine: original, theirs: theirs).merged(contestedTaking: .mine) == theirs,
                    "my no-op leaves theirs; \(context)")
            #expect(ThreeWayMerge(original: original, mine: mine, theirs: original).merged(contestedTaking: .theirs) == mine,
                    "their no-op leaves mine; \(context)")
            // The policies differ only where a field is contested.
            let policies: [MergePolicy] = [.error, .objectTrump, .storeTrump, .overwrite, .rollback]
            for policy in policies {
                let resolved = merge.resolved(by: policy)
                if merge.contested.isEmpty {
                    #expect(resolved == merge.merged(contestedTaking: .mine), "\(policy); \(context)")
                } else {
                    let expected: [Value]? = switch policy {
                    case .error: nil
                    case .objectTrump: merge.merged(contestedTaking: .mine)
                    case .storeTrump: merge.merged(contestedTaking: .theirs)
                    case .overwrite: mine
                    case .rollback: theirs
                    }
                    #expect(resolved == expected, "\(policy); \(context)")
                }
            }
        }
    }

    @Test func fieldsLeftOutOfTheComparisonTakeTheirs() {
        let merge = ThreeWayMerge(original: ["a", "a", "a"], mine: ["b", "b", "b"], theirs: ["c", "a", "c"], fields: [1, 2])
        #expect(merge.contested == [2])
        #expect(merge.merged(contestedTaking: .mine) == ["c", "b", "b"])
        #expect(merge.changedByMine == [1, 2] && merge.changedByTheirs == [2])
    }

    /// The flag a form shows and the save's verdict are the same rule: a field flagged as
    /// changed elsewhere is exactly a field the save reports as contested.
    @Test func theFlagAndTheSaveAgree() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let cities = ["London", "Paris", "Rome"]
        for round in 0..<Fuzz.scaled(40) {
            let fixture = try PeopleFixture()
            let view = fixture.view
            let ada = fixture.person(1)
            var mine: [String: String] = [:]
            var theirs: [String: String] = [:]
            for field in ["city", "notes"] {
                if random.next(below: 2) == 0 { mine[field] = cities[random.next(below: cities.count)] }
                if random.next(below: 2) == 0 { theirs[field] = cities[random.next(below: cities.count)] }
            }
            try view.update(ada, values: mine.mapValues { Value.text($0) })
            if !theirs.isEmpty {
                let sets = theirs.map { "\($0.key) = '\($0.value)'" }.joined(separator: ", ")
                try sqlite3(fixture.path, "UPDATE people SET \(sets) WHERE id = 1")
            }
            try fixture.container.checkForExternalChanges()
            let flagged = try #require(try view.record(for: ada)).changedElsewhere
            let context = "seed \(seed) round \(round): mine \(mine), theirs \(theirs)"
            if let error = storeError({ try view.save() }) {
                let contested = Set(error.conflicts?.first?.fields.filter(\.isContested).map(\.name) ?? [])
                #expect(!contested.isEmpty && contested == flagged, "\(context)")
            } else {
                #expect(flagged.isEmpty, "\(context)")
                // Mine where I changed the field, else theirs where they did.
                let original = ["city": "London", "notes": "first"]
                let changedByMe = mine.filter { original[$0.key] != $0.value }
                for (field, value) in theirs.merging(changedByMe, uniquingKeysWith: { _, mine in mine }) {
                    #expect(try fixture.disk("SELECT \(field) FROM people WHERE id = 1") == .text(value), "\(context)")
                }
            }
        }
    }

    /// A delete meets a change only while their row differs from the one deleted, whether
    /// or not a poll saw the change in between.
    @Test func aDeleteOverARowChangedAndChangedBackGoesThrough() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        _ = try view.record(for: fixture.person(1))
        try view.delete(fixture.person(1))
        try sqlite3(fixture.path, "UPDATE people SET city = 'Paris' WHERE id = 1")
        try fixture.container.checkForExternalChanges()
        try sqlite3(fixture.path, "UPDATE people SET city = 'London' WHERE id = 1")
        try view.save()
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE id = 1") == 0)
    }

    // MARK: - Answers to a reported conflict

    /// A person's answer is applied against theirs *as reported*: a field only they changed,
    /// moved again since, keeps its newest value, and a field only I changed that they changed
    /// after the report conflicts again instead of being overwritten.
    @Test func anAnswerNeverOverwritesWhatMovedAfterTheReport() throws {
        let fixture = try PeopleFixture()
        let view = fixture.view
        let ada = fixture.person(1)
        try view.update(ada, values: ["name": "Mine", "notes": "my notes"])
        try sqlite3(fixture.path, "UPDATE people SET name = 'Theirs', city = 'T1' WHERE id = 1")
        let conflict = try #require(storeError { try view.save() }?.conflicts?.first)
        try sqlite3(fixture.path, "UPDATE people SET city = 'T2', notes = 'their notes' WHERE id = 1")
        try view.refresh(ada, mergeChanges: true)
        try view.resolveConflict(conflict, by: .objectTrump)
        let again = try #require(storeError { try view.save() }?.conflicts?.first)
        #expect(again.fields.filter(\.isContested).map(\.name) == ["notes"])
        #expect(try fixture.disk("SELECT name || '/' || city || '/' || notes FROM people WHERE id = 1") == "Theirs/T2/their notes")
        // Answered again, now against what is there: my name, their city, my notes.
        try view.refresh(ada, mergeChanges: true)
        try view.resolveConflict(again, by: .objectTrump)
        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || city || '/' || notes FROM people WHERE id = 1") == "Mine/T2/my notes")
    }

    /// Keeping my whole record over a table with a version column still moves the version on,
    /// so a save that read the old version cannot pass its check afterwards.
    @Test func keepingMineOverAVersionedRowMovesTheVersionOn() throws {
        let options = StoreOptions(entities: [EntityDescription(table: "notes", versionColumn: "version")])
        let fixture = try PeopleFixture(options: options, schema: """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, tag TEXT, version INTEGER NOT NULL DEFAULT 0);
            INSERT INTO notes (id, body, tag) VALUES (1, 'first', 'a');
            """)
        let view = fixture.view
        let note = ObjectID(table: "notes", rowid: 1)
        let stale = fixture.container.newBackgroundContext()
        _ = try stale.record(for: note)
        try view.update(note, values: ["body": "mine"])
        try sqlite3(fixture.path, "UPDATE notes SET body = 'theirs', tag = 'b', version = version + 1 WHERE id = 1")
        let conflict = try #require(storeError { try view.save() }?.conflicts?.first)
        try view.refresh(note, mergeChanges: true)
        try view.resolveConflict(conflict, by: .overwrite)
        try view.save()
        #expect(try fixture.disk("SELECT body || '/' || tag || '/' || version FROM notes") == "mine/a/2")
        try stale.update(note, values: ["body": "stale"])
        #expect(storeError { try stale.save() }?.conflicts != nil)
    }

    /// A child resolving a contested field of its parent's unsaved insert sends up that field,
    /// not an explicit NULL for every column the parent never set.
    @Test func aChildsResolvedConflictOnAnUnsavedInsertKeepsColumnDefaults() throws {
        let fixture = try PeopleFixture(schema: peopleWithDefaultSchema)
        let view = fixture.view
        let id = try view.insert(into: "people", values: ["name": "New"])
        let editor = fixture.container.editorContext(parent: view)
        editor.mergePolicy = .objectTrump
        try editor.update(id, values: ["name": "Child"])
        try view.update(id, values: ["name": "Parent"])
        try editor.save()
        try view.save()
        #expect(try fixture.disk("SELECT name || '/' || ifnull(city, 'NULL') FROM people") == "Child/Nowhere")
    }

    /// A delete that a trigger ignores is reported, not taken for done.
    @Test func aDeleteATriggerIgnoresIsReported() throws {
        let fixture = try PeopleFixture()
        try sqlite3(fixture.path, "CREATE TRIGGER keep BEFORE DELETE ON people BEGIN SELECT RAISE(IGNORE); END;")
        let view = fixture.view
        try view.delete(fixture.person(1))
        let error = try #require(storeError { try view.save() })
        #expect(error == .validationFailed([ValidationFailure(objectID: fixture.person(1), field: nil, rule: .ignoredByDatabase, value: nil)]))
        #expect(try fixture.disk("SELECT count(*) FROM people WHERE id = 1") == 1)
    }
}
