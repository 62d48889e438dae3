import Foundation
import Testing
@testable import CardfileStore

@Suite("Demo database", .timeLimit(.minutes(10)))
struct DemoDatabaseTests {
    @Test func createdOnceWithItsFolderAndOpenable() throws {
        let directory = TemporaryDirectory()
        let path = DemoDatabase.defaultPath(environment: ["XDG_DATA_HOME": directory.path])
        #expect(path == directory.path + "/cardfile/demo.sqlite")
        #expect(try DemoDatabase.ensure(at: path))
        #expect(try DemoDatabase.ensure(at: path) == false)

        let container = try Container(path: path, options: StoreOptions(createIfMissing: false))
        #expect(container.schema.tables.map(\.name) == ["authors", "books", "loans", "members"])
        #expect(try container.viewContext.count(for: FetchRequest(table: "books")) == 3000, "the README's number")
        #expect(try container.viewContext.count(for: FetchRequest(table: "loans")) > 1000)
        let book = try #require(try container.viewContext.fetch(FetchRequest(table: "books", predicate: .contains(["notes"], "bell"))).first)
        #expect(book["notes"]?.description.contains("\u{07}") == true)
    }

    @Test func recreatedWithTheRowsAskedForAndSound() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("demo.sqlite")
        try DemoDatabase.create(at: path, rows: 500)
        try DemoDatabase.create(at: path, rows: 200, replacingDemo: true)
        let container = try Container(path: path, options: StoreOptions(createIfMissing: false))
        #expect(try container.viewContext.count(for: FetchRequest(table: "books")) == 200)
        #expect(try readDisk(path, "PRAGMA foreign_key_check") == .null)
        #expect(try readDisk(path, "PRAGMA integrity_check") == "ok")
        #expect(try readDisk(path, "SELECT count(*) FROM books WHERE notes LIKE '%' || char(10) || '%'") != 0)
        #expect(try readDisk(path, "SELECT count(*) FROM books WHERE rating IS NULL") != 0)
    }

    @Test func homeIsTheFallback() {
        #expect(DemoDatabase.defaultPath(environment: ["HOME": "/home/ada"]) == "/home/ada/.local/share/cardfile/demo.sqlite")
        #expect(DemoDatabase.defaultPath(environment: ["HOME": "/home/ada", "XDG_DATA_HOME": ""]) == "/home/ada/.local/share/cardfile/demo.sqlite")
    }
}
