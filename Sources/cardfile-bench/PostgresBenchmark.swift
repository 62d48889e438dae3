import CardfilePostgres
import CardfileStore
import Foundation
import PostgresNIO

/// `cardfile-bench postgres`: the PostgreSQL engine's figures, against the server whose URL is in
/// `CARDFILE_TEST_POSTGRES` (`scripts/with-postgres` starts one). A database of its own holds a
/// table of `rows` books, made by the server (`generate_series`), and is dropped at the end.
///
/// What exists so far is measured: connecting to a first page, a save by row version against a
/// plain UPDATE, a commit elsewhere reaching the change feed, and memory after paging through
/// the table. Import and export through COPY are not built yet.
struct PostgresBenchmark {
    let url: String
    let rows: Int
    let saves: Int

    func run() throws {
        let database = "cardfile_bench_\(getpid())"
        let admin = try Self.session(url)
        try admin.run(PostgresQuery(unsafeSQL: "CREATE DATABASE \(database)"))
        defer {
            try? admin.run(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"))
            admin.close()
        }
        let target = Self.url(url, database: database)
        let setup = try Self.session(target)
        let made = try Measure.time {
            // (One statement a query: the extended protocol takes no more.)
            try setup.run("CREATE TABLE books (id int8 PRIMARY KEY, title text NOT NULL, author text, price numeric(8,2), year int)")
            try setup.run(PostgresQuery(unsafeSQL: """
                INSERT INTO books SELECT n, 'Title ' || n, 'Author ' || (n % 5000), (n % 10000) / 100.0, 1900 + n % 125
                  FROM generate_series(1, \(rows)) AS n
                """))
            try setup.run("ANALYZE books")
        }
        print("Generated \(rows.formatted()) rows on the server in \(duration(made)).")
        var table = ResultTable("PostgreSQL (\(rows.formatted()) rows, the local server)")

        // Open to first window: connect, find the table, read its columns, the first 50 rows.
        let opens = try Measure.samples(7) { _ in
            let session = try Self.session(target)
            let catalog = PostgresCatalog(session: session)
            guard let relation = try catalog.relation(named: "books") else { return }
            let reader = PostgresKeysetReader(session: session, table: try catalog.describe(relation), sort: [])
            _ = try reader.estimatedCount()
            _ = try reader.first(50)
            session.close()
        }
        table.add("open to first window (connect, catalog, estimate, 50 rows), p50", duration(Distribution(opens).p50), goal: "< 50 ms")

        let catalog = PostgresCatalog(session: setup)
        guard let relation = try catalog.relation(named: "books") else { return }
        let description = try catalog.describe(relation)

        // Saves: one field through the writer (at its row version) against the same UPDATE plain.
        let writer = PostgresRecordWriter(session: setup, table: description)
        var random = SystemRandomNumberGenerator()
        let raw = try Measure.samples(saves) { index in
            let id = Int64.random(in: 1...Int64(rows), using: &random)
            try setup.run("UPDATE books SET title = \("raw \(index)") WHERE id = \(id)")
        }
        let held = try (0..<saves).map { _ in try writer.read(key: [.integer(Int64.random(in: 1...Int64(rows), using: &random))]) }
        let through = try Measure.samples(saves) { index in
            guard let record = held[index] else { return }
            var mine = record.values
            mine[1] = .text("saved \(index)")
            _ = try writer.update(original: record, mine: mine)
        }
        let (rawP50, savedP50) = (Distribution(raw).p50, Distribution(through).p50)
        table.add("plain UPDATE of one field, p50", duration(rawP50))
        table.add("save by row version (UPDATE … AND xmin = …), p50", duration(savedP50))
        table.add("save / plain ratio at p50", String(format: "%.2f", savedP50 / rawP50), goal: "≤ 1.5")

        // Another client's commit reaching the feed (with pg-setup's triggers).
        _ = try NotifySetup(session: setup).install([description])
        let arrived = DispatchSemaphore(value: 0)
        let feed = try PostgresChangeFeed(location: try Self.location(target), wake: { arrived.signal() })
        let other = try Self.session(target)
        var latencies: [Double] = []
        for index in 0..<100 {
            _ = feed.drain()
            let id = Int64.random(in: 1...Int64(rows), using: &random)
            let start = DispatchTime.now().uptimeNanoseconds
            try other.run("UPDATE books SET author = \("other \(index)") WHERE id = \(id)")
            _ = arrived.wait(timeout: .now() + 5)
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        feed.close()
        other.close()
        table.add("another client's commit to the change feed (NOTIFY), p50 / max", "\(duration(Distribution(latencies).p50)) / \(duration(Distribution(latencies).max))", goal: "< 100 ms p50")
        setup.close()

        // Memory after paging through the whole table, in a process of its own.
        let fields = try CardfileBench.inChildProcess(["--browse-postgres", target])
        if fields.count == 3 {
            table.add("RSS after paging through all \(rows.formatted()) rows (\(Int(fields[1]).formatted()) pages of 50 in \(duration(fields[2])))",
                      String(format: "%.1f MiB", fields[0]), goal: "< 40 MiB")
        }
        table.add("import vs psql \\copy", "not built yet", goal: "≥ 0.9×")
        table.add("export vs psql \\copy", "not built yet", goal: "≥ 1.0×")
        table.print()
    }

    /// The child's part: keyset pages of 50 from first to last; prints RSS, pages, seconds.
    static func browse(_ url: String) throws -> (rss: Double, pages: Int, seconds: Double) {
        let session = try session(url)
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)
        guard let relation = try catalog.relation(named: "books") else { return (-1, 0, 0) }
        let reader = PostgresKeysetReader(session: session, table: try catalog.describe(relation), sort: [])
        var pages = 0
        let seconds = try Measure.time {
            var page = try reader.first(50)
            while let last = page.last {
                pages += 1
                page = try reader.after(last, 50)
            }
        }
        return (Measure.residentMiB(), pages, seconds)
    }

    static func location(_ url: String) throws -> PostgresLocation {
        try PostgresLocation.resolve(url, environment: [:], homeFolder: NSTemporaryDirectory(), loginName: "cardfile").location
    }

    static func session(_ url: String) throws -> PostgresSession {
        try PostgresSession.open(try location(url))
    }

    /// `url` naming another database.
    static func url(_ url: String, database: String) -> String {
        guard let slash = url.range(of: "/", options: .backwards), url[..<slash.lowerBound].contains("@") else { return url }
        return String(url[..<slash.upperBound]) + database
    }
}
