@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// Export by `COPY … TO STDOUT` on a connection of its own (postgres-nio has no copy-out):
/// every awkward value comes back exactly through an import, progress counts rows as they
/// come, and a cancel stops the server's copy too.
@Suite("PostgreSQL: export by COPY", .timeLimit(.minutes(5)))
struct CopyOutTests {

    static let awkward = """
        CREATE TYPE mood AS ENUM ('calm', 'so "so"');
        CREATE TABLE things (id int PRIMARY KEY, name text, note text, flag boolean, bytes bytea, amount numeric, ratio float8,
                             day date, seen timestamptz, doc jsonb, tags int[], feeling mood);
        CREATE TABLE copy (LIKE things INCLUDING ALL);
        INSERT INTO things VALUES
          (1, 'plain', '', true, '\\x00ff5c0a', 12345678901234567890.123456789, 0.1, '2026-02-01', '2026-02-01 10:00:00+00', '{"a": [1, "x,y"]}', '{1,2}', 'calm'),
          (2, E'comma, "quote"\\nline\\ttab\\\\back', NULL, false, '', -0.5, 'NaN', NULL, NULL, 'null', '{}', 'so "so"'),
          (3, 'Zoë 🐈 漢字 e\u{301}', E'\\r\\n', NULL, NULL, NULL, '-Infinity', '0001-01-01', NULL, '"text"', NULL, NULL),
          (4, 'NULL', '\\N', true, NULL, 0, 1e300, NULL, NULL, NULL, NULL, NULL);
        """

    @Test(arguments: [Exporter.Format.csv, .tsv, .jsonl, .json])
    func everyValueComesBackThroughAnImport(format: Exporter.Format) throws {
        let place = try DatabasePlace(Self.awkward)
        let (path, rows) = try place.export("things", format: format)
        #expect(rows == 4)
        let summary = try Importer(container: place.container, file: path, options: ImportOptions(table: "copy")).run()
        #expect(summary.inserted == 4 && summary.rejected == 0, "\(format): \(summary.errors)")
        let written = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        #expect(try place.psql("SELECT count(*) FROM (SELECT * FROM things EXCEPT SELECT * FROM copy) AS d") == "0", "\(format): \(written)")
    }

    @Test func csvIsWrittenAsOnSQLite() throws {
        let place = try DatabasePlace(Self.awkward)
        let (path, _) = try place.export("things", format: .csv, filter: "id <= 2", null: "-")
        let lines = try String(contentsOfFile: path, encoding: .utf8)
        #expect(lines.hasPrefix("\"id\",\"name\",\"note\",\"flag\",\"bytes\",\"amount\",\"ratio\",\"day\",\"seen\",\"doc\",\"tags\",\"feeling\"\n"))
        // Text quoted (the empty string too), numbers, booleans and bytes bare, NULL as given.
        #expect(lines.contains("\n1,\"plain\",\"\",true,\\x00ff5c0a,12345678901234567890.123456789,0.1,\"2026-02-01\","), "\(lines)")
        #expect(lines.contains("\n2,\"comma, \"\"quote\"\"\nline\ttab\\back\",-,false,\\x,-0.5,NaN,-,-,\"null\",\"{}\",\"so \"\"so\"\"\"\n"), "\(lines)")
        // A NULL text COPY cannot write (it holds the delimiter) is written all the same, as given.
        let (odd, _) = try place.export("things", format: .csv, filter: "id = 2", null: "n/a, none")
        #expect(try String(contentsOfFile: odd, encoding: .utf8).contains(",n/a, none,false,"))
    }

    @Test func progressCountsRowsAndACancelStopsTheServersCopy() throws {
        let place = try DatabasePlace("CREATE TABLE many AS SELECT n AS id, repeat('x', 100) AS pad FROM generate_series(1, 300000) AS n; ALTER TABLE many ADD PRIMARY KEY (id)")
        var seen: [Int] = []
        let (_, all) = try place.export("many", format: .csv, progress: { seen.append($0) })
        #expect(all == 300_000)
        #expect(seen.count > 3 && seen == seen.sorted() && (seen.last ?? 0) <= 300_000, "\(seen.prefix(5))…")
        var chunks = 0
        let (_, some) = try place.export("many", format: .csv, progress: { _ in chunks += 1 }, isCancelled: { chunks >= 1 })
        #expect(some > 0 && some < 300_000)
        // The copy's connection is gone, and with it the server's work.
        let deadline = Date().addingTimeInterval(5)
        var running = ""
        repeat {
            running = try place.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%' AND pid <> pg_backend_pid()")
            if running == "0" { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        #expect(running == "0")
    }

    @Test func aRefusedCopyIsTheServersWords() throws {
        let place = try DatabasePlace("CREATE TABLE t (id int PRIMARY KEY, n int); INSERT INTO t VALUES (1, 0)")
        // (A value the column's type refuses, found only when the copy's query runs.)
        #expect(throws: StoreError.self) { _ = try place.export("t", format: .csv, filter: "n = \"many\"") }
        do {
            _ = try place.export("t", format: .csv, filter: "n = \"many\"")
        } catch let error as StoreError {
            #expect(error.message.contains("invalid input syntax for type integer"), "\(error.message)")
        }
        // The engine goes on.
        #expect(try place.export("t", format: .csv).1 == 1)
    }

    /// A `COPY` takes no parameters, so the filter's values are written into it: random texts
    /// of the characters that could end a quote early, read back by the server as they were.
    @Test func valuesGoIntoTheCopyAsLiteralsThatNoTextCanEscape() throws {
        let place = try DatabasePlace("CREATE TABLE t (id int PRIMARY KEY, s text)")
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let pieces = ["$", "cf", "$cf$", "1", "'", "\\", "x", "$cf1$", "é"]
        var texts = ["plain", "it's", "$cf$", "$cf", "x$", "$cf$$cf1$", "\\"]
        for _ in 0..<Fuzz.scaled(40) {
            texts.append((0..<random.next(below: 8)).map { _ in pieces[random.next(below: pieces.count)] }.joined())
        }
        let select = texts.map { PostgresValues.literal(.text($0)) + "::text" }.joined(separator: " || chr(10) || ")
        let back = try place.engine.read { session in try session.rows("SELECT \(select)", []) }
        #expect(back.first?.first == .text(texts.joined(separator: "\n")), "seed \(seed) (CARDFILE_SEED=\(seed) replays it)")
        #expect(PostgresValues.inlined("SELECT 1 WHERE a = ? AND b = '?' AND c = ?", [.text("x'y"), .integer(5)])
                == "SELECT 1 WHERE a =  $cf$x'y$cf$  AND b = '?' AND c =  $cf$5$cf$ ")
    }
}

extension DatabasePlace {
    /// Exports `table` to a file; returns its path and the rows written.
    func export(_ table: String, format: Exporter.Format, filter: String = "", null: String = "",
                progress: (Int) -> Void = { _ in }, isCancelled: () -> Bool = { false }) throws -> (String, Int) {
        let path = folder.file("\(table)-\(UUID().uuidString).\(format.rawValue)")
        let file = try OutputFile(path: path, replacing: true, protecting: [])
        let rows = try Exporter(container: container, table: table, filter: filter, format: format, null: null)
            .run(progress: progress, isCancelled: isCancelled) { try file.write($0) }
        try file.commit()
        return (path, rows)
    }
}
