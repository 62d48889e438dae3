import Foundation
import Testing
@testable import CardfileStore

/// `--create`: a missing table is made with column types that fit every value of the file.
@Suite("Creating a table for an import", .timeLimit(.minutes(10)))
struct TableCreatorTests {
    static func columns(_ path: String, _ table: String) throws -> String {
        String(describing: try readDisk(path, "SELECT group_concat(name || ' ' || type, ', ') FROM pragma_table_info('\(table)')"))
    }

    @Test func typesFitEveryValueOfTheFile() throws {
        let fixture = try PeopleFixture(schema: "SELECT 1;")
        var text = "id,price,zip,code,blob,empty,mixed, ,Name,name\n"
        for index in 0..<2_000 {
            // "mixed" is whole numbers until the last row: a guess from the first rows would
            // reject that row.
            let mixed = index == 1_999 ? "n/a" : "\(index)"
            text += "\(index),\(index).5,0\(index % 9),\"\(index)\",\\x0aff,,\(mixed),x,a,b\n"
        }
        let file = fixture.directory.file("things.csv")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let options = ImportOptions(table: "things", create: true)
        let created = try #require(try TableCreator.createIfMissing(database: fixture.path, file: file, options: options))
        #expect(created.columns.map(\.type) == ["INTEGER", "REAL", "TEXT", "TEXT", "BLOB", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT"])
        #expect(created.columns.map(\.name) == ["id", "price", "zip", "code", "blob", "empty", "mixed", "column_8", "Name", "name_2"])

        let container = try Container(path: fixture.path)
        let summary = try Importer(container: container, file: file, options: options).run()
        #expect(summary.inserted == 2_000)
        #expect(summary.rejected == 0, "\(summary.errors.prefix(2))")
        #expect(try readDisk(fixture.path, "SELECT typeof(id) || typeof(price) || zip || typeof(code) || typeof(blob) || quote(empty) FROM things WHERE id = 10") == .text("integerreal01textblobNULL"))
        #expect(try readDisk(fixture.path, "SELECT mixed FROM things WHERE id = 1999") == .text("n/a"))

        // A table that is there is left alone.
        #expect(try TableCreator.createIfMissing(database: fixture.path, file: file, options: options) == nil)
    }

    @Test func jsonKeysBecomeColumnsInTheOrderTheyFirstAppear() throws {
        let fixture = try PeopleFixture(schema: "SELECT 1;")
        let file = fixture.directory.file("events.jsonl")
        try """
            {"id": 1, "what": "start", "at": 1.5}
            {"id": 2, "what": "stop", "extra": true, "AT": 2}
            {"id": 3, "what": null}
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let options = ImportOptions(table: "events", create: true)
        _ = try TableCreator.createIfMissing(database: fixture.path, file: file, options: options)
        let made = try Self.columns(fixture.path, "events")
        #expect(made == "id INTEGER, what TEXT, at REAL, extra INTEGER", "\(made)")
        let summary = try Importer(container: try Container(path: fixture.path), file: file, options: options).run()
        #expect(summary.inserted == 3)
    }

    @Test func aMissingDatabaseIsCreatedAndAnEmptyFileIsAnError() throws {
        let fixture = try PeopleFixture(schema: "SELECT 1;")
        let database = fixture.directory.file("new.sqlite")
        let file = fixture.directory.file("rows.tsv")
        try "a\tb\n1\tx\n".write(toFile: file, atomically: true, encoding: .utf8)
        _ = try TableCreator.createIfMissing(database: database, file: file, options: ImportOptions(table: "rows", create: true))
        #expect(try Self.columns(database, "rows") == "a INTEGER, b TEXT")
        let empty = fixture.directory.file("empty.csv")
        FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(throws: ImportError.noHeader(file: "empty.csv")) {
            try TableCreator.createIfMissing(database: database, file: empty, options: ImportOptions(table: "other", create: true))
        }
    }

    @Test func anExportComesBackIntoACreatedTableWithItsValuesAndTypes() throws {
        let source = try PeopleFixture(schema: "SELECT 1;")
        let path = source.directory.file("demo.sqlite")
        try DemoDatabase.create(at: path, rows: 300)
        var bytes: [UInt8] = []
        _ = try Exporter(container: try Container(path: path), table: "books", format: .csv).run { bytes += $0 }
        let file = source.directory.file("books.csv")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let copy = source.directory.file("copy.sqlite")
        let options = ImportOptions(table: "books", create: true)
        _ = try TableCreator.createIfMissing(database: copy, file: file, options: options)
        let summary = try Importer(container: try Container(path: copy), file: file, options: options).run()
        #expect(summary.inserted == 300 && summary.rejected == 0)
        let digest = "SELECT group_concat(quote(id) || quote(title) || quote(author_id) || quote(isbn) || quote(year) || quote(published) || quote(pages) || quote(rating) || quote(notes), '|') FROM (SELECT * FROM books ORDER BY id)"
        #expect(try readDisk(copy, digest) == (try readDisk(path, digest)))
    }
}

@Suite("Creating import", .timeLimit(.minutes(10)))
struct CreatingImportTests {
    /// An atomic import that makes its table makes it in the import's transaction: a bad row
    /// rolls back the table with the rows. A non-atomic one keeps the table and the good rows.
    @Test func anAtomicImportThatFailsLeavesNoTable() throws {
        let fixture = try PeopleFixture()
        let file = fixture.directory.file("new.csv")
        try "code,n\na,1\nb,2\n\"c\"x,3\n".write(toFile: file, atomically: true, encoding: .utf8)
        let atomic = ImportOptions(table: "fresh", atomic: true, create: true)
        let plan = try #require(try TableCreator.plan(database: fixture.path, file: file, options: atomic))
        let summary = try Importer(container: fixture.container, file: file, options: atomic, creating: plan).run()
        #expect(summary.rolledBack && summary.errors.map(\.line) == [4])
        #expect(try fixture.disk("SELECT count(*) FROM sqlite_master WHERE name = 'fresh'") == 0)

        let kept = ImportOptions(table: "fresh", create: true)
        let again = try #require(try TableCreator.plan(database: fixture.path, file: file, options: kept))
        let partial = try Importer(container: fixture.container, file: file, options: kept, creating: again).run()
        #expect(partial.inserted == 2 && !partial.rolledBack)
        #expect(try fixture.disk("SELECT group_concat(code || n) FROM fresh") == "a1,b2")
        #expect(try TableCreator.plan(database: fixture.path, file: file, options: kept) == nil, "the table is there now")
    }
}
