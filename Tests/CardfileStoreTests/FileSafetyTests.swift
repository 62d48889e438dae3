import Foundation
import Testing
import CardfileTestSupport
@testable import CardfileStore

/// Files Cardfile writes or opens are destroyed only when the person asked for it.
@Suite("File safety", .timeLimit(.minutes(10)))
struct FileSafetyTests {
    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func anOutputNeverReplacesTheDatabaseOrItsJournalsByAnySpelling() throws {
        let directory = TemporaryDirectory()
        let database = directory.file("db.sqlite")
        try makeDatabase(at: database, "CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        let container = try Container(path: database)   // keeps the WAL and shared memory
        _ = try container.viewContext.insert(into: "t", values: ["x": .integer(2)])
        try container.viewContext.save()
        let link = directory.file("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database)
        let before = bytes(database)
        for spelling in [database, directory.path + "/./db.sqlite", directory.path + "//db.sqlite", link, database + "-wal", database + "-shm"] {
            for replacing in [false, true] {
                let error = storeError { _ = try OutputFile(path: spelling, replacing: replacing, protecting: [database]) }
                #expect(error == .outputRefused(path: spelling, .isTheDatabase), "\(spelling)")
            }
        }
        #expect(bytes(database) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasSuffix(".part") })
    }

    /// A rollback-journal database has no -wal, -shm or -journal file between writes; those
    /// names are refused all the same (a file made there would later be read as its log).
    @Test func aRollbackJournalDatabasesCompanionNamesAreRefusedWhileAbsent() throws {
        let directory = TemporaryDirectory()
        let database = directory.file("db.sqlite")
        try makeDatabase(at: database, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", wal: false)
        let container = try Container(path: database)
        #expect(container.journalMode == .rollback)
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: database + suffix))
            for spelling in [database + suffix, directory.path + "/./db.sqlite" + suffix] {
                let error = storeError { _ = try OutputFile(path: spelling, replacing: true, protecting: [database]) }
                #expect(error == .outputRefused(path: spelling, .isTheDatabase), "\(spelling)")
            }
            #expect(!FileManager.default.fileExists(atPath: database + suffix), "nothing was made")
        }
        // A name that only looks alike is fine.
        let other = try OutputFile(path: directory.file("db.sqlite-wal.csv"), replacing: false, protecting: [database])
        other.discard()
    }

    @Test func anExistingFileIsReplacedOnlyWhenAskedAndOnlyWhenComplete() throws {
        let directory = TemporaryDirectory()
        let target = directory.file("out.csv")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        #expect(storeError { _ = try OutputFile(path: target, replacing: false, protecting: []) } == .outputRefused(path: target, .exists))
        #expect(storeError { _ = try OutputFile(path: directory.path, replacing: true, protecting: []) } == .outputRefused(path: directory.path, .isAFolder))

        // A discarded write (a cancel, a failure) leaves the old bytes and no temporary file.
        let discarded = try OutputFile(path: target, replacing: true, protecting: [])
        try discarded.write(Array("new".utf8))
        discarded.discard()
        #expect(bytes(target) == Data("old".utf8))
        // So does one that is dropped without a word.
        do {
            let dropped = try OutputFile(path: target, replacing: true, protecting: [])
            try dropped.write(Array("newer".utf8))
        }
        #expect(bytes(target) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.csv"])

        let committed = try OutputFile(path: target, replacing: true, protecting: [])
        try committed.write(Array("new".utf8))
        try committed.commit()
        #expect(bytes(target) == Data("new".utf8))

        // A new file needs no permission; a missing folder is said plainly.
        let fresh = try OutputFile(path: directory.file("fresh.csv"), replacing: false, protecting: [])
        try fresh.commit()
        #expect(bytes(directory.file("fresh.csv")) == Data())
        let nowhere = directory.file("no/such/out.csv")
        #expect(storeError { _ = try OutputFile(path: nowhere, replacing: true, protecting: []) } == .outputRefused(path: nowhere, .cannotWrite("no such folder")))
    }

    @Test func aSpecialFileIsWrittenInPlace() throws {
        let null = try OutputFile(path: "/dev/null", replacing: false, protecting: [])
        try null.write(Array("gone".utf8))
        try null.commit()
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func theDemoIsMadeOnlyWhereNothingIsAndReplacesOnlyAnEarlierDemo() throws {
        let directory = TemporaryDirectory()
        // A folder with files, another database, a text file, an empty file: all left alone.
        let folder = directory.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder + "/inside.txt"))
        let other = directory.file("other.sqlite")
        try makeDatabase(at: other, "CREATE TABLE authors (id); CREATE TABLE notes (x); INSERT INTO notes VALUES ('mine');")
        let text = directory.file("notes.txt")
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: text))
        let empty = directory.file("empty.sqlite")
        FileManager.default.createFile(atPath: empty, contents: Data())
        let cases: [(String, OutputRefusal)] = [
            (folder, .isAFolder), (other, .notADemo(what: "another database")),
            (text, .notADemo(what: "a file that is not a database")), (empty, .notADemo(what: "an empty file")),
        ]
        for (path, refusal) in cases {
            let before = bytes(path)
            for replacing in [false, true] {
                #expect(storeError { try DemoDatabase.create(at: path, rows: 10, replacingDemo: replacing) } == .outputRefused(path: path, refusal))
            }
            #expect(bytes(path) == before)
        }
        #expect(bytes(folder + "/inside.txt") == Data("keep".utf8))
        #expect(try readDisk(other, "SELECT x FROM notes") == .text("mine"))

        let demo = directory.file("demo.sqlite")
        #expect(DemoDatabase.target(at: demo) == .free)
        try DemoDatabase.create(at: demo, rows: 20)
        #expect(DemoDatabase.target(at: demo) == .demo)
        #expect(storeError { try DemoDatabase.create(at: demo, rows: 30) } == .outputRefused(path: demo, .exists))
        #expect(try readDisk(demo, "SELECT count(*) FROM books") == .integer(20))
        try DemoDatabase.create(at: demo, rows: 30, replacingDemo: true)
        #expect(try readDisk(demo, "SELECT count(*) FROM books") == .integer(30))
        #expect(try readDisk(demo, "PRAGMA integrity_check") == .text("ok"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasSuffix(".part") })
    }

    @Test func aDemoFromBeforeTheApplicationIDIsKnownByItsTables() throws {
        let directory = TemporaryDirectory()
        let demo = directory.file("old-demo.sqlite")
        try DemoDatabase.create(at: demo, rows: 10)
        _ = try sqlite3(demo, "PRAGMA application_id = 0")
        #expect(DemoDatabase.target(at: demo) == .demo)
        _ = try sqlite3(demo, "CREATE TABLE extra (x)")
        #expect(DemoDatabase.target(at: demo) == .other(.notADemo(what: "another database")))
    }

    @Test func anEmptyOrForeignFileOpensWithAnErrorAndIsLeftAsItWas() throws {
        let directory = TemporaryDirectory()
        let empty = directory.file("empty.db")
        FileManager.default.createFile(atPath: empty, contents: Data())
        for readOnly in [false, true] {
            #expect(storeError { _ = try Container(path: empty, options: StoreOptions(createIfMissing: false, readOnly: readOnly)) } == .emptyFile(path: empty))
        }
        #expect(bytes(empty) == Data())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["empty.db"])
        #expect(StoreError.emptyFile(path: empty).message.contains("--create"))
        // Asked to create, an empty file becomes a database.
        _ = try Container(path: empty, options: StoreOptions(createIfMissing: true))
        #expect(try readDisk(empty, "PRAGMA integrity_check") == .text("ok"))

        let text = directory.file("notes.sqlite")
        let content = Data("SQLite is what this is not\n".utf8)
        try content.write(to: URL(fileURLWithPath: text))
        for create in [false, true] {
            #expect(storeError { _ = try Container(path: text, options: StoreOptions(createIfMissing: create)) } == .notADatabase(path: text))
        }
        #expect(bytes(text) == content)
    }
}
