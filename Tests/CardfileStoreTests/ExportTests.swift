import Foundation
import Testing
@testable import CardfileStore

/// Export, then import into an empty copy: the same rows, values and types come back.
@Suite("Export", .timeLimit(.minutes(10)))
struct ExportTests {
    static let schema = """
        CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, r REAL, b BLOB, anything);
        INSERT INTO t VALUES
            (1, 'plain', 1, 1.0, x'00ff10', 12),
            (2, 'quote " and, comma', -5, 2.5e-7, NULL, '12'),
            (3, 'two
        lines', NULL, -0.0, x'', 1.5),
            (4, '', 0, 1e300, x'5c78', 'text'),
            (5, NULL, 9223372036854775807, NULL, NULL, NULL),
            (6, 'Zoë 漢字 🐈 ␀', 7, 3.0, x'ff', x'0102'),
            (7, '\\x00', 8, 0.1, NULL, '');
        """

    static func rows(_ path: String) throws -> Value {
        try readDisk(path, "SELECT group_concat(id || ':' || quote(name) || ':' || quote(n) || ':' || quote(r) || ':' || quote(b) || ':' || quote(anything) || ':' || typeof(anything), ' | ') FROM (SELECT * FROM t ORDER BY id)")
    }

    @Test(arguments: [Exporter.Format.csv, .tsv, .jsonl, .json])
    func aRoundTripGivesBackTheSameRows(format: Exporter.Format) throws {
        let source = try PeopleFixture(schema: Self.schema)
        var bytes: [UInt8] = []
        let count = try Exporter(container: source.container, table: "t", format: format).run { bytes += $0 }
        #expect(count == 7)
        let file = source.directory.file("t.\(format.rawValue)")
        try Data(bytes).write(to: URL(fileURLWithPath: file))

        let copy = try PeopleFixture(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, r REAL, b BLOB, anything);")
        let summary = try Importer(container: copy.container, file: file, options: ImportOptions(table: "t")).run()
        #expect(summary.inserted == 7, "\(summary.errors)")
        if format == .jsonl || format == .json {
            // JSON carries blobs as base64 text: the BLOB column takes them back as bytes; the
            // column without a type keeps the text, so it is left out.
            let plain = "SELECT group_concat(id || quote(name) || quote(n) || quote(r) || quote(b), '|') FROM (SELECT * FROM t ORDER BY id)"
            #expect(try readDisk(copy.path, plain) == (try readDisk(source.path, plain)))
        } else {
            #expect(try Self.rows(copy.path) == (try Self.rows(source.path)))
        }
    }

    @Test(arguments: [Int64.min, Int64.min + 1, -10, -1, 0, 7, 10, 99, 100, Int64.max])
    func integersAreWrittenAsTheirDigits(_ value: Int64) {
        var out: [UInt8] = []
        Exporter.appendDecimal(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == String(value))
    }

    @Test func filterSortAndNullAsText() throws {
        let source = try PeopleFixture(schema: Self.schema)
        var bytes: [UInt8] = []
        _ = try Exporter(container: source.container, table: "t", filter: "n >= 1", sort: [ColumnSort("n", ascending: false)], format: .csv, null: "NULL").run { bytes += $0 }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.first == "\"id\",\"name\",\"n\",\"r\",\"b\",\"anything\"")
        #expect(lines.dropFirst().map { $0.split(separator: ",").first! } == ["5", "7", "6", "1"])
        #expect(lines[1].hasPrefix("5,NULL,9223372036854775807,NULL,NULL,NULL"))
    }

    @Test func theDemoDatabaseComesBackWhole() throws {
        let source = try PeopleFixture(schema: "SELECT 1;")
        let path = source.directory.file("demo.sqlite")
        try DemoDatabase.create(at: path, rows: 300)
        let container = try Container(path: path)
        var bytes: [UInt8] = []
        _ = try Exporter(container: container, table: "books", format: .csv).run { bytes += $0 }
        let file = source.directory.file("books.csv")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let copyPath = source.directory.file("copy.sqlite")
        try DemoDatabase.create(at: copyPath, rows: 300)        // the same authors, for the foreign keys
        let copy = try Container(path: copyPath)
        try sqlite3(copyPath, "PRAGMA foreign_keys = OFF; DELETE FROM loans; DELETE FROM books;")
        let summary = try Importer(container: copy, file: file, options: ImportOptions(table: "books")).run()
        #expect(summary.rejected == 0, "\(summary.errors.prefix(3))")
        let digest = "SELECT count(*) || ':' || sum(length(title)) || ':' || sum(ifnull(year, 0)) || ':' || total(rating) || ':' || sum(length(ifnull(notes, 'x'))) || ':' || sum(notes IS NULL) FROM books"
        #expect(try readDisk(copyPath, digest) == (try readDisk(path, digest)))
    }
}
