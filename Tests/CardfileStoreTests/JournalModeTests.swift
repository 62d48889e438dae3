import Foundation
import GRDB
import Testing
import CardfileTestSupport
@testable import CardfileStore

/// A database keeps the journal mode it was found in: opening and reading it change nothing
/// on disk, saves and another program's commits work in a rollback journal as in WAL, and
/// only `switchToWAL` (`--wal`) switches.
@Suite("Journal mode", .timeLimit(.minutes(10)))
struct JournalModeTests {
    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
    private func companions(_ path: String) -> [String] {
        ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
    }

    /// Opening, reading records, a live list and the outside-change poll, then closing: the
    /// file's bytes and journal mode are what they were, and no log appears beside it (a
    /// `persist` journal's leftover file stays as it was).
    @Test(arguments: ["delete", "truncate", "persist"]) func openingAndReadingLeaveARollbackJournalFileAsFound(mode: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("people.sqlite")
        try makeDatabase(at: path, "PRAGMA journal_mode = \(mode);" + peopleSchema, wal: false)
        let before = try #require(bytes(path))
        let companionsBefore = companions(path)
        do {
            let container = try Container(path: path)
            #expect(container.journalMode == .rollback)
            #expect(try container.viewContext.record(for: ObjectID(table: "people", rowid: 2))?["name"] == "Grace")
            let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: "people", sort: [ColumnSort("name")]), height: 5)
            try live.waitForBackgroundWork()
            #expect(live.window.rows.map { $0.values[1] } == ["Ada", "Grace", "Linus"])
            #expect(try container.checkForExternalChanges() == false)
            #expect(companions(path) == companionsBefore, "nothing beside the file while it is open")
        }
        #expect(bytes(path) == before, "the file is byte for byte as found")
        #expect(companions(path) == companionsBefore)
        // Only WAL is kept in the file; the other modes are each connection's own, so a new
        // connection reports SQLite's default.
        #expect(try sqlite3(path, "PRAGMA journal_mode") == "delete")
    }

    /// A save reaches the disk, another program's commit is noticed and merged, and the file is
    /// still in its rollback journal afterwards.
    @Test func savesAndOutsideCommitsWorkInARollbackJournal() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("people.sqlite")
        try makeDatabase(at: path, peopleSchema, wal: false)
        let container = try Container(path: path)
        let view = container.viewContext
        let ada = ObjectID(table: "people", rowid: 1)
        try view.update(ada, values: ["city": "Paris"])
        try view.save()
        #expect(try readDisk(path, "SELECT city FROM people WHERE id = 1") == "Paris")

        try sqlite3(path, "UPDATE people SET city = 'Oslo' WHERE id = 1;")
        #expect(try container.checkForExternalChanges())
        #expect(try view.record(for: ada)?["city"] == "Oslo")
        #expect(try container.checkForExternalChanges() == false, "our own commit is not taken for another program's")
        try view.update(ada, values: ["notes": "mine"])
        try view.save()
        #expect(try container.checkForExternalChanges() == false)
        #expect(try sqlite3(path, "PRAGMA journal_mode") == "delete")
        #expect(companions(path).isEmpty)
        #expect(try sqlite3(path, "PRAGMA integrity_check") == "ok")
    }

    /// In a rollback journal a reader holds the file against commits: a save waits for its
    /// busy timeout, fails with `busy` keeping its changes, and goes through once the reader is
    /// done. A program holding an exclusive lock makes reads wait and fail the same way.
    @Test func aReaderOrAnExclusiveLockElsewhereMakesUsBusyNotBroken() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("people.sqlite")
        try makeDatabase(at: path, peopleSchema, wal: false)
        let container = try Container(path: path, options: StoreOptions(busyTimeout: 0.2))
        let view = container.viewContext
        let grace = ObjectID(table: "people", rowid: 2)
        #expect(try view.record(for: grace)?["name"] == "Grace")

        let reader = try SQLite3Session(path: path)
        defer { reader.close() }
        try reader.run("BEGIN; SELECT count(*) FROM people;")
        try view.update(grace, values: ["city": "Boston"])
        #expect(storeError { try view.save() } == .busy)
        #expect(view.hasPersistentChanges, "the change is kept")
        #expect(try readDisk(path, "SELECT city FROM people WHERE id = 2") == "Arlington")
        try reader.run("COMMIT;")
        try view.save()
        #expect(try readDisk(path, "SELECT city FROM people WHERE id = 2") == "Boston")

        try reader.run("BEGIN EXCLUSIVE; UPDATE people SET notes = 'theirs' WHERE id = 3;")
        let error = storeError { _ = try view.record(for: ObjectID(table: "people", rowid: 3)) }
        #expect(error == .busyReading)
        try reader.run("COMMIT;")
        #expect(try container.checkForExternalChanges())
        #expect(try view.record(for: ObjectID(table: "people", rowid: 3))?["notes"] == "theirs")
        #expect(try sqlite3(path, "PRAGMA integrity_check") == "ok")
    }

    /// `switchToWAL` switches a rollback-journal file; a WAL file stays WAL without it.
    @Test func onlySwitchToWALSwitches() throws {
        let directory = TemporaryDirectory()
        let rollback = directory.file("rollback.sqlite")
        try makeDatabase(at: rollback, peopleSchema, wal: false)
        let switched = try Container(path: rollback, options: StoreOptions(switchToWAL: true))
        #expect(switched.journalMode == .wal)
        #expect(try sqlite3(rollback, "PRAGMA journal_mode") == "wal")

        let wal = directory.file("wal.sqlite")
        try makeDatabase(at: wal, "PRAGMA journal_mode = WAL;" + peopleSchema, wal: false)   // WAL whatever CARDFILE_TEST_JOURNAL says
        let kept = try Container(path: wal)
        #expect(kept.journalMode == .wal)
        try kept.viewContext.update(ObjectID(table: "people", rowid: 1), values: ["city": "Rome"])
        try kept.viewContext.save()
        #expect(try sqlite3(wal, "PRAGMA journal_mode") == "wal")
    }

    /// A file the store creates gets SQLite's default journal, unless WAL is asked for.
    @Test func aNewFileGetsSQLitesDefaultJournal() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("new.sqlite")
        let container = try Container(path: path, options: StoreOptions(createIfMissing: true))
        #expect(container.journalMode == .rollback)
        let asked = directory.file("asked.sqlite")
        let walContainer = try Container(path: asked, options: StoreOptions(createIfMissing: true, switchToWAL: true))
        #expect(walContainer.journalMode == .wal)
        #expect(try sqlite3(path, "PRAGMA journal_mode") == "delete")
        #expect(try sqlite3(asked, "PRAGMA journal_mode") == "wal")
    }

    /// A read-only open never switches, even when asked.
    @Test func readOnlyNeverSwitches() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("people.sqlite")
        try makeDatabase(at: path, peopleSchema, wal: false)
        let before = try #require(bytes(path))
        do {
            let container = try Container(path: path, options: StoreOptions(readOnly: true, switchToWAL: true))
            #expect(container.journalMode == .rollback)
            #expect(try container.viewContext.record(for: ObjectID(table: "people", rowid: 1))?["name"] == "Ada")
        }
        #expect(bytes(path) == before)
        #expect(try sqlite3(path, "PRAGMA journal_mode") == "delete")
    }
}
