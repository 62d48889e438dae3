import Foundation
import GRDB
import Testing
@testable import CardfileStore

@Suite("Opening files", .timeLimit(.minutes(10)))
struct OpeningTests {
    @Test func missingDirectory() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("nope/db.sqlite")
        let error = storeError { _ = try Container(path: path) }
        #expect(error == .directoryMissing(path: path))
        #expect(error?.message.contains("does not exist") == true)
    }

    @Test func missingFileWithoutCreate() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("absent.sqlite")
        let error = storeError { _ = try Container(path: path, options: StoreOptions(createIfMissing: false)) }
        #expect(error == .fileNotFound(path: path))
        #expect(error?.message == "There is no database file at \(path). Nothing was created; --create makes a new, empty database there.")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func createsAMissingFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("new.sqlite")
        let container = try Container(path: path)
        #expect(container.schema.tables.isEmpty)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func notADatabase() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("notes.txt")
        try Data("Dear diary, today I opened a text file as a database.\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = storeError { _ = try Container(path: path) }
        #expect(error == .notADatabase(path: path))
        #expect(error?.message == "The file \(path) is not an SQLite database.")
        // Nothing was changed.
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("Dear diary"))
    }

    @Test func corruptDatabase() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("broken.sqlite")
        try makeDatabase(at: path, peopleSchema, wal: false)
        // Scribble over the schema page, after the 100-byte header.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        handle.write(Data(repeating: 0xFF, count: 300))
        try handle.close()
        let error = storeError { _ = try Container(path: path) }
        #expect(error == .corrupt(path: path))
        #expect(error?.message.contains("damaged") == true)
    }

    @Test func readOnlyByRequest() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("ro.sqlite")
        try makeDatabase(at: path, peopleSchema)
        let container = try Container(path: path, options: StoreOptions(readOnly: true))
        #expect(container.readOnlyReason == .requested)
        let view = container.viewContext
        #expect(try view.record(for: ObjectID(table: "people", rowid: 1))?["name"] == "Ada")
        try view.update(ObjectID(table: "people", rowid: 1), values: ["name": "Changed"])
        #expect(storeError { try view.save() } == .readOnly(.requested))
        #expect(view.hasPersistentChanges)
    }

    @Test func readOnlyFileIsOpenedReadOnly() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("locked-down.sqlite")
        try makeDatabase(at: path, peopleSchema, wal: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }

        let container = try Container(path: path)
        #expect(container.readOnlyReason == .fileNotWritable)
        let view = container.viewContext
        try view.update(ObjectID(table: "people", rowid: 2), values: ["name": "Nope"])
        let error = storeError { try view.save() }
        #expect(error == .readOnly(.fileNotWritable))
        #expect(error?.message.contains("not writable") == true)
        #expect(try sqlite3(path, "SELECT name FROM people WHERE id = 2;") == "Grace")
    }

    @Test func lockedAtOpening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("busy.sqlite")
        try makeDatabase(at: path, peopleSchema, wal: false)
        let holder = try SQLite3Session(path: path)
        try holder.run("BEGIN EXCLUSIVE; UPDATE people SET notes = 'mine' WHERE id = 1;")
        let error = storeError { _ = try Container(path: path, options: StoreOptions(busyTimeout: 0.2)) }
        #expect(error == .locked(path: path))
        #expect(error?.message.contains("locked by another program") == true)
        try holder.run("COMMIT;")
        holder.close()
        let container = try Container(path: path)
        #expect(try container.viewContext.record(for: ObjectID(table: "people", rowid: 1))?["notes"] == "mine")
    }

    @Test func everyOpeningErrorHasItsOwnSentence() {
        // Each says what happened and what to do, in the person's words.
        let expected: [(StoreError, String)] = [
            (.directoryMissing(path: "/x/y.db"), "The folder /x does not exist, so the file /x/y.db cannot be created there."),
            (.fileNotFound(path: "/x/y.db"), "There is no database file at /x/y.db. Nothing was created; --create makes a new, empty database there."),
            (.notADatabase(path: "/x/y.db"), "The file /x/y.db is not an SQLite database."),
            (.corrupt(path: "/x/y.db"), "The file /x/y.db is damaged: SQLite reports that its content is malformed. Nothing was changed; restore it from a backup or recover it with `sqlite3 .recover`."),
            (.locked(path: "/x/y.db"), "The file /x/y.db is locked by another program. Close that program's transaction and open it again."),
            (.readOnly(.fileNotWritable), "The database file or its folder is not writable, so it was opened read-only and changes cannot be saved."),
            (.readOnly(.requested), "The database was opened read-only, so changes cannot be saved."),
            (.busy, "The database is busy: another program kept it locked for longer than the wait allows. Nothing was written and your changes are kept; save again to retry."),
            (.emptyFile(path: "/x/y.db"), "The file /x/y.db is empty, not an SQLite database; it was left as it is. Open it with --create to make it a database."),
        ]
        for (error, sentence) in expected {
            #expect(error.message == sentence)
        }
        #expect(Set(expected.map(\.0.message)).count == expected.count)
    }
}
