import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// The history journal: every save recorded by SQLite's pre-update hook, kept across
/// restarts by the file's identity, and `:undo` / redo through the contexts, against the file
/// as another connection reads it.
@Suite("History", .timeLimit(.minutes(10)))
struct HistoryTests {
    /// A database and a history folder of its own; `open()` is a run of the editor.
    struct Fixture {
        let directory = TemporaryDirectory()
        let path: String
        var folder: String { directory.file("state") }

        init(schema: String = peopleSchema) throws {
            path = directory.file("people.sqlite")
            try makeDatabase(at: path, schema)
        }

        func open(capacity: Int = HistorySettings.defaultCapacity) throws -> Container {
            try Container(path: path, options: StoreOptions(history: HistorySettings(folder: folder, capacity: capacity)))
        }
    }

    static func person(_ id: Int64) -> ObjectID { ObjectID(table: "people", rowid: id) }

    /// Saves `values` on a person through an editor and the view context, as a form does.
    static func save(_ container: Container, _ id: Int64, _ values: [String: Value]) throws {
        let editor = container.editorContext(parent: container.viewContext)
        try editor.update(person(id), values: values)
        try editor.save()
        try container.viewContext.save()
    }

    @Test func aFormSaveIsJournaledWithOldAndNewValuesAndKeptAcrossRestarts() throws {
        let fixture = try Fixture()
        do {
            let container = try fixture.open()
            try Self.save(container, 1, ["city": "Paris"])
            try Self.save(container, 1, ["city": "Rome", "age": 37])
            try Self.save(container, 2, ["name": "G"])
            container.history?.flush()
        }
        let container = try fixture.open()
        let versions = try #require(container.history).versions(of: Self.person(1))
        #expect(versions.map(\.entry.source) == [.form, .form])
        #expect(versions.first?.change.fields.sorted { $0.name < $1.name } == [
            .init(name: "age", old: .integer(36), new: .integer(37)), .init(name: "city", old: .text("Paris"), new: .text("Rome")),
        ])
        #expect(versions.last?.change.fields == [.init(name: "city", old: .text("London"), new: .text("Paris"))])
        #expect(versions[0].entry.time >= versions[1].entry.time)
    }

    @Test func undoAfterARestartPutsTheOldValuesBackAndRedoWritesThemAgain() throws {
        let fixture = try Fixture()
        do {
            let container = try fixture.open()
            try Self.save(container, 1, ["city": "Paris"])
            try Self.save(container, 1, ["city": "Rome"])
            container.history?.flush()
        }
        let container = try fixture.open()
        let history = try #require(container.history)
        let undo = try #require(try history.nextUndo(table: "people"))
        #expect(undo.changes == [RecordedChange(id: Self.person(1), kind: .update, fields: [.init(name: "city", old: .text("Rome"), new: .text("Paris"))])])
        #expect(try container.write(undo).written == 1)
        #expect(try readDisk(fixture.path, "SELECT city FROM people WHERE id = 1") == .text("Paris"))
        history.flush()
        #expect(try container.write(try #require(try history.nextUndo(table: "people"))).written == 1)
        #expect(try readDisk(fixture.path, "SELECT city FROM people WHERE id = 1") == .text("London"))
        history.flush()
        #expect(try history.nextUndo(table: "people") == nil, "both saves are undone")
        // Redo goes forward again in order.
        #expect(try container.write(try #require(try history.nextRedo(table: "people"))).written == 1)
        #expect(try readDisk(fixture.path, "SELECT city FROM people WHERE id = 1") == .text("Paris"))
        history.flush()
        // A new save ends what can be redone.
        try Self.save(container, 2, ["city": "Oslo"])
        history.flush()
        #expect(try history.nextRedo(table: "people") == nil)
        #expect(try history.versions(of: Self.person(1)).map(\.entry.source) == [.redo, .undo, .undo, .form, .form])
    }

    @Test func aFieldChangedSinceByAnotherProgramIsAConflictAndNothingIsWritten() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        try Self.save(container, 1, ["city": "Paris", "age": 40])
        container.history?.flush()
        try sqlite3(fixture.path, "UPDATE people SET city = 'Berlin', notes = 'theirs' WHERE id = 1")
        let step = try #require(try container.history?.nextUndo(table: "people"))
        let outcome = try container.write(step)
        let conflict = try #require(outcome.conflicts.first)
        #expect(outcome.conflicts.count == 1 && outcome.written == 0)
        let city = try #require(conflict.fields.first { $0.name == "city" })
        #expect(city.original == .text("Paris") && city.mine == .text("London") && city.theirs == .text("Berlin"))
        #expect(try readDisk(fixture.path, "SELECT city || '/' || age FROM people WHERE id = 1") == .text("Berlin/40"), "nothing was written")
        // Leaving it: the age goes back, the city stays theirs, their other field too.
        let left = try container.write(step, changedSince: .leave)
        #expect(left.written == 0 || left.conflicts.count == 1)
        #expect(try readDisk(fixture.path, "SELECT city || '/' || age || '/' || notes FROM people WHERE id = 1") == .text("Berlin/40/theirs"))
        // Overwriting: mine wins on the contested field, theirs stays where I changed nothing.
        _ = try container.write(step, changedSince: .overwrite)
        #expect(try readDisk(fixture.path, "SELECT city || '/' || age || '/' || notes FROM people WHERE id = 1") == .text("London/36/theirs"))
    }

    @Test func aLargeStepWrittenInBulkAsksLeavesOrOverwritesRecordsChangedSince() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        _ = try container.bulkSet(table: "people", column: "city", to: .text("X"), where: .compare("id", .greater, .integer(0)))
        container.history?.flush()
        try sqlite3(fixture.path, "UPDATE people SET city = 'Theirs' WHERE id = 2; UPDATE people SET notes = 'other field' WHERE id = 3")
        let step = try #require(try container.history?.nextUndo(table: "people"))
        let cities = "SELECT group_concat(city, ',') FROM (SELECT city FROM people ORDER BY id)"
        let asked = try container.write(step, inContextAtMost: 0)
        #expect(asked.changedSince == [Self.person(2)] && asked.written == 0)
        #expect(try readDisk(fixture.path, cities) == .text("X,Theirs,X"), "nothing written when asking")
        let left = try container.write(step, changedSince: .leave, inContextAtMost: 0)
        #expect(left.written == 2 && left.changedSince == [Self.person(2)])
        #expect(try readDisk(fixture.path, cities) == .text("London,Theirs,Helsinki"), "a field changed elsewhere that the step does not touch is no obstacle")
        _ = try container.write(step, changedSince: .overwrite, inContextAtMost: 0)
        #expect(try readDisk(fixture.path, cities) == .text("London,Arlington,Helsinki"))
        container.history?.flush()
        #expect(try container.history?.nextUndo(table: "people") == nil, "the bulk edit counts as undone")
    }

    @Test func aFieldChangedElsewhereThatTheUndoDoesNotTouchIsKept() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        try Self.save(container, 1, ["city": "Paris"])
        container.history?.flush()
        try sqlite3(fixture.path, "UPDATE people SET notes = 'theirs' WHERE id = 1")
        let outcome = try container.write(try #require(try container.history?.nextUndo(table: "people")))
        #expect(outcome.conflicts.isEmpty && outcome.written == 1)
        #expect(try readDisk(fixture.path, "SELECT city || '/' || notes FROM people WHERE id = 1") == .text("London/theirs"))
    }

    @Test func undoBringsADeletedRecordBackAndTakesAnInsertedOneAway() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        let view = container.viewContext
        try view.delete(Self.person(2))
        try view.save()
        let added = try view.insert(into: "people", values: ["id": 9, "name": "Nine"])
        _ = added
        try view.save()
        let history = try #require(container.history)
        history.flush()
        #expect(try container.write(try #require(try history.nextUndo(table: "people"))).written == 1)
        #expect(try readDisk(fixture.path, "SELECT count(*) FROM people WHERE id = 9") == .integer(0))
        history.flush()
        #expect(try container.write(try #require(try history.nextUndo(table: "people"))).written == 1)
        #expect(try readDisk(fixture.path, "SELECT name || '/' || email || '/' || city FROM people WHERE id = 2") == .text("Grace/grace@example.com/Arlington"))
    }

    @Test func aRestoreWhoseKeyIsTakenSinceIsLeftUnlessOverwriting() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        try container.viewContext.delete(Self.person(2))
        try container.viewContext.save()
        container.history?.flush()
        try sqlite3(fixture.path, "INSERT INTO people (id, name) VALUES (2, 'Someone else')")
        let step = try #require(try container.history?.nextUndo(table: "people"))
        #expect(try container.write(step).taken == [Self.person(2)])
        #expect(try readDisk(fixture.path, "SELECT name FROM people WHERE id = 2") == .text("Someone else"))
    }

    @Test func bulkEditsAndImportsAreJournaledWholeAndUndoneWhole() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        _ = try container.bulkSet(table: "people", column: "city", to: .text("X"), where: .compare("id", .greater, .integer(1)))
        let csv = fixture.directory.file("more.csv")
        try (["id,name"] + (10..<30).map { "\($0),n\($0)" }).joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try Importer(container: container, file: csv, options: ImportOptions(table: "people", batchSize: 7)).run()
        let history = try #require(container.history)
        history.flush()
        #expect(try history.entries().map(\.source) == [.import, .import, .import, .bulk])
        let undoImport = try #require(try history.nextUndo(table: "people"))
        #expect(undoImport.entries.count == 3 && undoImport.recordCount == 20)
        #expect(try container.write(undoImport).written == 20)
        #expect(try readDisk(fixture.path, "SELECT count(*) FROM people") == .integer(3))
        history.flush()
        let undoBulk = try #require(try history.nextUndo(table: "people"))
        #expect(undoBulk.source == .bulk)
        _ = try container.write(undoBulk)
        #expect(try readDisk(fixture.path, "SELECT group_concat(city, ',') FROM (SELECT city FROM people ORDER BY id)") == .text("London,Arlington,Helsinki"))
    }

    @Test func aStatementOfTheSQLScreenIsJournaledAsSQLAndUndoneLikeAnyOther() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        #expect(try container.run(try container.compile("UPDATE people SET age = age + 1 WHERE age > 30"), cancellation: Cancellation()) == 2)
        let history = try #require(container.history)
        history.flush()
        #expect(try history.entries().first?.source == .sql)
        #expect(try history.versions(of: Self.person(1)).first?.change.fields == [.init(name: "age", old: .integer(36), new: .integer(37))])
        #expect(try container.write(try #require(try history.nextUndo(table: "people"))).written == 2)
        #expect(try readDisk(fixture.path, "SELECT group_concat(age, ',') FROM (SELECT age FROM people ORDER BY id)") == .text("36,45,28"))
    }

    @Test func anotherFileAtThePathDoesNotInheritTheHistoryButAMovedOneKeepsIt() throws {
        let fixture = try Fixture()
        do {
            let container = try fixture.open()
            try Self.save(container, 1, ["city": "Paris"])
            container.history?.flush()
        }
        // Moved: the same file, its history follows.
        let moved = fixture.directory.file("moved.sqlite")
        try FileManager.default.moveItem(atPath: fixture.path, toPath: moved)
        do {
            let container = try Container(path: moved, options: StoreOptions(history: HistorySettings(folder: fixture.folder)))
            #expect(try container.history?.versions(of: Self.person(1)).count == 1)
        }
        // Another file put at the first path (while the first still exists): nothing inherited.
        let other = fixture.directory.file("other.sqlite")
        try makeDatabase(at: other, peopleSchema)
        try FileManager.default.copyItem(atPath: moved, toPath: fixture.path)
        #expect(rename(other, moved) == 0)
        let container = try Container(path: moved, options: StoreOptions(history: HistorySettings(folder: fixture.folder)))
        #expect(try container.history?.versions(of: Self.person(1)).isEmpty == true)
        #expect(try container.history?.nextUndo(table: "people") == nil)
    }

    @Test func theCapDropsTheOldestAndATooLargeChangeIsListedButNotUndone() throws {
        let fixture = try Fixture()
        let container = try fixture.open(capacity: 2_000)
        for round in 0..<20 { try Self.save(container, 1, ["notes": .text("round \(round)")]) }
        let history = try #require(container.history)
        history.flush()
        let kept = try history.versions(of: Self.person(1))
        #expect(kept.count < 20 && kept.count > 3, "some, not all, were dropped: \(kept.count)")
        #expect(kept.first?.change.fields.first?.new == .text("round 19"), "the newest stays")
        _ = try container.bulkSet(table: "people", column: "notes", to: .text(String(repeating: "x", count: 600)), where: .compare("id", .greater, .integer(0)))
        history.flush()
        let step = try #require(try history.nextUndo(table: "people"))
        #expect(!step.isComplete && step.recordCount == 3)
        #expect(throws: StoreError.historyNotKept(count: 3)) { try container.write(step) }
    }

    @Test func anotherProgramsChangeToARecordShownIsJournaledAsChangedElsewhere() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        _ = try container.viewContext.record(for: Self.person(3))
        try sqlite3(fixture.path, "UPDATE people SET city = 'Espoo' WHERE id = 3")
        try container.checkForExternalChanges()
        _ = try container.viewContext.processPendingChanges()
        container.history?.flush()
        let versions = try #require(container.history).versions(of: Self.person(3))
        #expect(versions.map(\.entry.source) == [.elsewhere])
        #expect(versions.first?.change.fields == [.init(name: "city", old: .text("Helsinki"), new: .text("Espoo"))])
        #expect(try container.history?.nextUndo(table: "people") == nil, "another program's change is not ours to undo")
    }

    @Test func compositeKeysAndGeneratedColumnsAreNamedByTheSchema() throws {
        let fixture = try Fixture(schema: """
            CREATE TABLE pairs (a TEXT, b INTEGER, v TEXT, w INTEGER, PRIMARY KEY (b, a)) WITHOUT ROWID;
            INSERT INTO pairs (a, b, v, w) VALUES ('x', 1, 'one', 5);
            CREATE TABLE computed (id INTEGER PRIMARY KEY, v TEXT, twice TEXT GENERATED ALWAYS AS (v || v) STORED,
                                   shout TEXT GENERATED ALWAYS AS (upper(v)) VIRTUAL, w INTEGER);
            CREATE TABLE nokey (v TEXT);
            INSERT INTO computed (id, v) VALUES (1, 'a');
            """)
        let container = try fixture.open()
        let id = ObjectID(table: "pairs", primaryKey: [.integer(1), .text("x")])
        try container.viewContext.update(id, values: ["w": 6])
        // (The hook gives a virtual column's value last: the fields are still named right.)
        try container.viewContext.update(ObjectID(table: "computed", rowid: 1), values: ["v": "b", "w": 7])
        // (A table without a declared key is not kept: records are named by their key.)
        _ = try container.viewContext.insert(into: "nokey", values: ["v": "x"])
        try container.viewContext.save()
        container.history?.flush()
        let versions = try #require(container.history).versions(of: id)
        #expect(versions.first?.change.fields == [.init(name: "w", old: .integer(5), new: .integer(6))])
        #expect(try container.history?.versions(of: ObjectID(table: "computed", rowid: 1)).first?.change.fields == [
            .init(name: "v", old: .text("a"), new: .text("b")), .init(name: "w", old: .null, new: .integer(7)),
        ], "generated columns are computed, not kept")
        let entries = try #require(container.history).entries()
        #expect(entries.first?.recordCount == 2, "\(entries)")
        #expect(try container.write(try #require(try container.history?.nextUndo(table: "pairs"))).written == 2, "the entry is undone whole")
        #expect(try readDisk(fixture.path, "SELECT w FROM pairs") == .integer(5))
        #expect(try readDisk(fixture.path, "SELECT v || '/' || twice || '/' || shout || '/' || quote(w) FROM computed") == .text("a/aa/A/NULL"))
    }

    /// Random saves (updates, inserts, deletes, edits back) through the contexts, then every
    /// one undone in turn and redone in turn: after each step the file must be as it was
    /// after the matching save, as another connection reads it.
    @Test func undoingAndRedoingEverySaveWalksTheFileBackAndForth() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let fixture = try Fixture()
        let container = try fixture.open()
        let dump = "SELECT group_concat(id || ':' || name || ':' || quote(age) || ':' || quote(city), '|') FROM (SELECT * FROM people ORDER BY id)"
        var states = [try readDisk(fixture.path, dump)]
        let saves = Fuzz.scaled(12)
        var nextID: Int64 = 10
        for _ in 0..<saves {
            let view = container.viewContext
            let ids = try view.fetch(FetchRequest(table: "people")).map(\.id)
            switch random.next(below: 4) {
            case 0 where ids.count > 1:
                try view.delete(ids[random.next(below: ids.count)])
            case 1:
                _ = try view.insert(into: "people", values: ["id": .integer(nextID), "name": .text("n\(nextID)"), "age": .integer(Int64(random.next(below: 90)))])
                nextID += 1
            default:
                let id = ids[random.next(below: ids.count)]
                let cities: [Value] = [.null, .text("A"), .text("B"), .integer(7)]
                try view.update(id, values: ["city": cities[random.next(below: cities.count)], "age": .integer(Int64(random.next(below: 3)))])
            }
            guard view.hasChanges else { continue }
            try view.save()
            // (A save that changed nothing in the file, as an integer 7 written over the
            // text '7' a TEXT column made of it, is no change to undo.)
            let state = try readDisk(fixture.path, dump)
            if state != states.last { states.append(state) }
        }
        let history = try #require(container.history)
        var position = states.count - 1
        while position > 0 {
            history.flush()
            let step = try #require(try history.nextUndo(table: "people"), "seed \(seed): an undo at \(position)")
            // In a context, or in bulk (as a large step is): the same file either way.
            let outcome = try container.write(step, inContextAtMost: random.next(below: 2) == 0 ? 0 : 200)
            position -= 1
            let now = try readDisk(fixture.path, dump)
            #expect(now == states[position], "seed \(seed): after undoing to \(position): \(step.changes) \(outcome)")
            if now != states[position] { break }
        }
        history.flush()
        #expect(try history.nextUndo(table: "people") == nil, "seed \(seed)")
        while position < states.count - 1 {
            history.flush()
            let step = try #require(try history.nextRedo(table: "people"), "seed \(seed): a redo at \(position)")
            _ = try container.write(step, inContextAtMost: random.next(below: 2) == 0 ? 0 : 200)
            position += 1
            #expect(try readDisk(fixture.path, dump) == states[position], "seed \(seed): after redoing to \(position)")
        }
    }
}

/// What an independent review of the journal found, each case as it was met.
@Suite("History: reviewed cases", .timeLimit(.minutes(10)))
struct HistoryReviewedTests {
    typealias Fixture = HistoryTests.Fixture

    @Test func aColumnAddedWithADefaultIsNotTakenForAChangeNorUndoneToNull() throws {
        let fixture = try Fixture()
        try sqlite3(fixture.path, "ALTER TABLE people ADD COLUMN country TEXT NOT NULL DEFAULT 'UK'; ALTER TABLE people ADD COLUMN tag TEXT DEFAULT 'none'")
        let container = try fixture.open()
        try HistoryTests.save(container, 1, ["city": "Paris"])
        let history = try #require(container.history)
        history.flush()
        #expect(try history.versions(of: HistoryTests.person(1)).first?.change.fields == [.init(name: "city", old: .text("London"), new: .text("Paris"))])
        _ = try container.write(try #require(try history.nextUndo(table: "people")))
        #expect(try readDisk(fixture.path, "SELECT city || '/' || country || '/' || tag FROM people WHERE id = 1") == .text("London/UK/none"))
        // A row deleted and brought back takes the default of its NOT NULL column again.
        try container.viewContext.delete(HistoryTests.person(2))
        try container.viewContext.save()
        history.flush()
        _ = try container.write(try #require(try history.nextUndo(table: "people")))
        #expect(try readDisk(fixture.path, "SELECT name || '/' || country FROM people WHERE id = 2") == .text("Grace/UK"))
    }

    @Test func aRecordReplacedUnderItsKeyIsPutBackWhole() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        _ = try container.run(try container.compile("REPLACE INTO people (id, name, city) VALUES (1, 'Someone', 'Oslo')"), cancellation: Cancellation())
        let history = try #require(container.history)
        history.flush()
        for bulk in [false, true] {
            let step = try #require(try history.nextUndo(table: "people"))
            #expect(step.changes.count == 1 && step.changes.first?.kind == .update, "\(step.changes)")
            #expect(try container.write(step, inContextAtMost: bulk ? 0 : 200).written == 1)
            #expect(try readDisk(fixture.path, "SELECT name || '/' || email || '/' || age || '/' || city FROM people WHERE id = 1")
                    == .text("Ada/ada@example.com/36/London"))
            history.flush()
            _ = try container.write(try #require(try history.nextRedo(table: "people")), inContextAtMost: bulk ? 0 : 200)
            #expect(try readDisk(fixture.path, "SELECT name || '/' || quote(email) FROM people WHERE id = 1") == .text("Someone/NULL"))
            history.flush()
        }
    }

    @Test func aLargeUndoOfACascadeIsOneTransactionParentsAndChildrenTogether() throws {
        let fixture = try Fixture(schema: """
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, author INTEGER REFERENCES authors(id) ON DELETE CASCADE);
            INSERT INTO authors VALUES (1, 'Le Guin'), (2, 'Murakami');
            INSERT INTO books VALUES (1, 'Earthsea', 1), (2, 'Dispossessed', 1), (3, 'Kafka', 2);
            """)
        let container = try fixture.open()
        try container.viewContext.delete(ObjectID(table: "authors", rowid: 1))
        try container.viewContext.save()
        #expect(try readDisk(fixture.path, "SELECT count(*) FROM books") == .integer(1))
        let history = try #require(container.history)
        history.flush()
        let step = try #require(try history.nextUndo(table: "authors"))
        #expect(step.changes.count == 3, "the author and the books the cascade deleted")
        #expect(try container.write(step, inContextAtMost: 0).written == 3)
        #expect(try readDisk(fixture.path, "SELECT group_concat(title || ':' || author) FROM (SELECT * FROM books ORDER BY id)") == .text("Earthsea:1,Dispossessed:1,Kafka:2"))
    }

    @Test func aRowAnImportRefusedIsNotInTheHistory() throws {
        let fixture = try Fixture()
        let container = try fixture.open()
        let csv = fixture.directory.file("people.csv")
        // The second row repeats Ada's email (UNIQUE): refused, the others written.
        try "id,name,email\n10,Ten,ten@example.com\n11,Eleven,ada@example.com\n12,Twelve,twelve@example.com\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let summary = try Importer(container: container, file: csv, options: ImportOptions(table: "people")).run()
        #expect(summary.inserted == 2 && summary.rejected == 1)
        let history = try #require(container.history)
        history.flush()
        let step = try #require(try history.nextUndo(table: "people"))
        #expect(Set(step.changes.map(\.id)) == [HistoryTests.person(10), HistoryTests.person(12)])
        #expect(try container.write(step).written == 2)
        #expect(try readDisk(fixture.path, "SELECT count(*) FROM people") == .integer(3))
    }

    @Test func anImportThatMakesItsTableLeavesNoBrokenEntry() throws {
        // (The table it makes has no declared key, so its records are not kept; known as
        // such, not taken for a change too large to keep, also when made in the import's
        // own transaction.)
        for atomic in [false, true] {
            let fixture = try Fixture()
            let container = try fixture.open()
            let csv = fixture.directory.file("pets.csv")
            try "id,name\n1,Rex\n2,Tom\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let options = ImportOptions(table: "pets", atomic: atomic, create: true)
            let creating = try TableCreator.plan(database: fixture.path, file: csv, options: options)
            #expect(try Importer(container: container, file: csv, options: options, creating: creating).run().inserted == 2)
            let history = try #require(container.history)
            history.flush()
            #expect(try history.entries().isEmpty, "atomic: \(atomic)")
            #expect(try history.nextUndo(table: "pets") == nil)
        }
    }

    @Test func anImportTheCapCutsWhileItRunsIsNotUndoneInPart() throws {
        let fixture = try Fixture()
        let container = try fixture.open(capacity: 3_000)
        let csv = fixture.directory.file("many.csv")
        try (["id,name"] + (10..<70).map { "\($0),name number \($0)" }).joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        let history = try #require(container.history)
        // (Each batch written to the journal as it commits, as a slow import's would be.)
        _ = try Importer(container: container, file: csv, options: ImportOptions(table: "people", batchSize: 10)).run(progress: { _ in history.flush() })
        history.flush()
        let step = try #require(try history.nextUndo(table: "people"))
        #expect(step.source == .import && !step.isComplete, "the batches left of a cut import are no whole: \(step.entries)")
        #expect(throws: StoreError.historyNotKept(count: step.recordCount)) { try container.write(step) }
    }

    @Test func theCapDropsAnImportWhole() throws {
        let fixture = try Fixture()
        let container = try fixture.open(capacity: 6_000)
        let csv = fixture.directory.file("more.csv")
        try (["id,name"] + (10..<40).map { "\($0),n\($0)" }).joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try Importer(container: container, file: csv, options: ImportOptions(table: "people", batchSize: 10)).run()
        let history = try #require(container.history)
        var imports: [Int] = []
        for round in 0..<40 {
            try HistoryTests.save(container, 1, ["notes": .text("round \(round) " + String(repeating: "x", count: 40))])
            history.flush()
            imports.append(try history.entries(limit: 1000).filter { $0.source == .import }.count)
        }
        #expect(imports.allSatisfy { $0 == 0 || $0 == 3 }, "\(imports)")
        #expect(imports.last == 0, "the oldest went first")
    }
}

/// `RecordedChange.combined` against a model: random changes to a few records, folded, must
/// lead from the first state to the last, and inverted back.
@Suite("History: folding a step's changes")
struct CombinedChangesTests {
    typealias Rows = [Int64: [String: Value]]

    static func apply(_ changes: [RecordedChange], to rows: Rows) -> Rows {
        var rows = rows
        for change in changes {
            guard case .integer(let key)? = change.id.primaryKeyValues?.first else { continue }
            switch change.kind {
            case .insert: rows[key] = Dictionary(uniqueKeysWithValues: change.fields.map { ($0.name, $0.new ?? .null) })
            case .delete: rows[key] = nil
            case .update: for field in change.fields { rows[key]?[field.name] = field.new ?? .null }
            }
        }
        return rows
    }

    @Test func foldedChangesLeadToTheSameStateAndBack() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(300) {
            let names = ["a", "b", "c"]
            var rows: Rows = [:]
            for key in 1...3 where random.next(below: 2) == 0 {
                rows[Int64(key)] = Dictionary(uniqueKeysWithValues: names.map { ($0, Value.integer(Int64(random.next(below: 3)))) })
            }
            let first = rows
            var changes: [RecordedChange] = []
            for _ in 0..<random.next(below: 8) {
                let key = Int64(1 + random.next(below: 3))
                let id = ObjectID(table: "t", rowid: key)
                if let row = rows[key] {
                    if random.next(below: 3) == 0 {
                        changes.append(RecordedChange(id: id, kind: .delete, fields: names.map { .init(name: $0, old: row[$0], new: nil) }))
                        rows[key] = nil
                    } else {
                        let name = names[random.next(below: 3)]
                        let new = Value.integer(Int64(random.next(below: 3)))
                        guard new != row[name] else { continue }
                        changes.append(RecordedChange(id: id, kind: .update, fields: [.init(name: name, old: row[name], new: new)]))
                        rows[key]?[name] = new
                    }
                } else {
                    let row = Dictionary(uniqueKeysWithValues: names.map { ($0, Value.integer(Int64(random.next(below: 3)))) })
                    changes.append(RecordedChange(id: id, kind: .insert, fields: names.map { .init(name: $0, old: nil, new: row[$0]) }))
                    rows[key] = row
                }
            }
            let folded = RecordedChange.combined(changes)
            #expect(Set(folded.map(\.id)).count == folded.count, "seed \(seed) round \(round): one change a record")
            #expect(Self.apply(folded, to: first) == rows, "seed \(seed) round \(round): \(changes) → \(folded)")
            #expect(Self.apply(folded.reversed().map(\.inverted), to: rows) == first, "seed \(seed) round \(round): back")
        }
    }
}
