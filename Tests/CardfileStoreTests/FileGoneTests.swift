import Foundation
import Testing
@testable import CardfileStore

/// The database file replaced or deleted under an open container: nothing more is written
/// through its path, the file now there is never touched, and pending edits can be saved in
/// a copy elsewhere. The other side is a real `sqlite3` process.
@Suite("File replaced or deleted under the store", .timeLimit(.minutes(Fuzz.scaled(10))))
struct FileGoneTests {
    /// The people database, open with one saved edit still in the write-ahead log (the
    /// checkpointer's threshold is out of reach) and one pending edit in an editor.
    private struct Scene {
        let fixture: PeopleFixture
        let editor: ObjectContext

        init(saved: String = "Saved", pending: String = "Pending") throws {
            fixture = try PeopleFixture(options: StoreOptions(checkpointThresholdPages: 1_000_000))
            try fixture.view.update(fixture.person(1), values: ["name": .text(saved)])
            try fixture.view.save()
            editor = fixture.container.editorContext(parent: fixture.view)
            try editor.update(fixture.person(2), values: ["name": .text(pending)])
        }
    }

    private func other(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("other.sqlite")
        _ = try sqlite3(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('theirs'), ('also theirs');")
        return path
    }

    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func aFileMovedOverTheDatabaseIsNeverWrittenAndTheEditsGoToACopy() throws {
        let scene = try Scene()
        let path = scene.fixture.path
        let newcomer = try other(in: scene.fixture.directory)
        let newcomerBytes = try #require(bytes(newcomer))
        #expect(scene.fixture.container.checkFile() == nil)
        #expect(rename(newcomer, path) == 0)

        #expect(scene.fixture.container.checkFile() == .replaced)
        let error = storeError { try scene.editor.saveToStore() }
        #expect(error == .fileGone(path: path, .replaced))
        #expect(error?.message.contains("The file was replaced") == true)
        #expect(try scene.editor.changedValues(of: scene.fixture.person(2)) == ["name": .text("Pending")])

        // Another program sees the newcomer whole, with none of our frames.
        #expect(try sqlite3(path, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite3(path, "SELECT group_concat(body, '|') FROM notes") == "theirs|also theirs")
        #expect(try sqlite3(path, "SELECT count(*) FROM sqlite_master WHERE name = 'people'") == "0")

        let copy = scene.fixture.directory.file("rescued.sqlite")
        #expect(try scene.fixture.container.saveCopy(to: copy, replacing: false, with: [scene.editor]) == 1)
        #expect(try sqlite3(copy, "SELECT group_concat(name, '|') FROM people ORDER BY id") == "Saved|Pending|Linus")
        #expect(try sqlite3(copy, "PRAGMA integrity_check") == "ok")
        // The copy never goes over the newcomer, nor over an existing file unasked.
        #expect(storeError { try scene.fixture.container.saveCopy(to: copy, replacing: false, with: []) } == .outputRefused(path: copy, .exists))
        #expect(bytes(newcomer) == nil)
        #expect(bytes(path) == newcomerBytes)
    }

    @Test func closingAfterwardsLeavesTheNewcomerAsItWas() throws {
        let directory: TemporaryDirectory
        let path: String
        let newcomerBytes: Data
        do {
            let scene = try Scene()
            directory = scene.fixture.directory
            path = scene.fixture.path
            let newcomer = try other(in: directory)
            newcomerBytes = try #require(bytes(newcomer))
            #expect(rename(newcomer, path) == 0)
            // A save before the poll noticed is refused all the same.
            #expect(storeError { try scene.editor.saveToStore() } == .fileGone(path: path, .replaced))
            _ = try scene.fixture.container.viewContext.fetch(FetchRequest(table: "people"))
        }
        // Every connection of the container is closed now.
        #expect(bytes(path) == newcomerBytes)
        #expect(try sqlite3(path, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite3(path, "SELECT count(*) FROM notes") == "2")
    }

    @Test func aDeletedFileLeavesNoLogForALaterFileOfTheSameName() throws {
        let scene = try Scene()
        let path = scene.fixture.path
        #expect(unlink(path) == 0)
        #expect(scene.fixture.container.checkFile() == .deleted)
        #expect(storeError { try scene.editor.saveToStore() } == .fileGone(path: path, .deleted))
        // A new database of the same name, made by another program while the editor is open.
        _ = try sqlite3(path, "CREATE TABLE fresh (x); INSERT INTO fresh VALUES (42);")
        #expect(try sqlite3(path, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite3(path, "SELECT group_concat(name) FROM sqlite_master") == "fresh")
        #expect(try sqlite3(path, "SELECT x FROM fresh") == "42")
        // The deleted database, with the saved and the pending edit, can still be rescued.
        let copy = scene.fixture.directory.file("rescued.sqlite")
        try scene.fixture.container.saveCopy(to: copy, replacing: false, with: [scene.editor])
        #expect(try sqlite3(copy, "SELECT group_concat(name, '|') FROM people ORDER BY id") == "Saved|Pending|Linus")
    }

    /// Random saves before and pending changes after a random replacement or deletion: the
    /// file at the path is only ever what the other program made, and the copy holds exactly
    /// what was saved plus what was pending (an SQL oracle on the copy).
    @Test func randomEditsAroundAFileGoneKeepEveryFileWhole() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(4) {
            let fixture = try PeopleFixture(options: StoreOptions(checkpointThresholdPages: 1 + random.next(below: 3) * 1000))
            var expected: [Int64: String] = [1: "Ada", 2: "Grace", 3: "Linus"]
            for step in 0..<random.next(below: 6) {
                let id = Int64(1 + random.next(below: 3))
                expected[id] = "saved \(step)"
                try fixture.view.update(fixture.person(id), values: ["name": .text("saved \(step)")])
                try fixture.view.save()
            }
            let editor = fixture.container.editorContext(parent: fixture.view)
            for step in 0..<random.next(below: 4) {
                if random.next(below: 3) == 0 {
                    let id = try editor.insert(into: "people", values: ["name": .text("new \(step)")])
                    _ = id
                    expected[Int64(100 + step)] = "new \(step)"
                } else {
                    let id = Int64(1 + random.next(below: 3))
                    expected[id] = "pending \(step)"
                    try editor.update(fixture.person(id), values: ["name": .text("pending \(step)")])
                }
            }
            let replaced = random.next(below: 2) == 0
            var newcomerBytes: Data?
            if replaced {
                let newcomer = try other(in: fixture.directory)
                newcomerBytes = bytes(newcomer)
                #expect(rename(newcomer, fixture.path) == 0)
            } else {
                #expect(unlink(fixture.path) == 0)
            }
            if random.next(below: 2) == 0 { _ = fixture.container.checkFile() }
            // (With nothing pending, a save writes nothing and has nothing to refuse.)
            let refusal: StoreError? = editor.hasPersistentChanges ? .fileGone(path: fixture.path, replaced ? .replaced : .deleted) : nil
            #expect(storeError { try editor.saveToStore() } == refusal, "seed \(seed) round \(round)")
            let copy = fixture.directory.file("copy.sqlite")
            try fixture.container.saveCopy(to: copy, replacing: false, with: [editor])
            let names = try sqlite3(copy, "SELECT group_concat(name, '|') FROM (SELECT name FROM people ORDER BY name)")
            #expect(names == expected.values.sorted().joined(separator: "|"), "seed \(seed) round \(round)")
            if replaced {
                #expect(bytes(fixture.path) == newcomerBytes, "seed \(seed) round \(round)")
                #expect(try sqlite3(fixture.path, "PRAGMA integrity_check") == "ok", "seed \(seed) round \(round)")
            }
        }
    }
}
