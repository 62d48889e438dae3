import CardfilePostgres
import CardfileStore
import Foundation
import PostgresNIO

/// `cardfile-bench postgres`: the PostgreSQL engine's figures, against the server whose URL is in
/// `CARDFILE_TEST_POSTGRES` (`scripts/with-postgres` starts one). A database of its own holds a
/// table of `rows` books, made by the server (`generate_series`), and is dropped at the end.
///
/// Everything goes through the store as the editor uses it (a container on a PostgresEngine,
/// its view context and live lists): opening to a first window, a save against a plain UPDATE,
/// another client's commit on screen, memory after paging through the table, and `cardfile
/// import` and `export` (file to table and back, as the commands run them) against `psql`'s
/// `\copy` of the same file and table.
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

        // Open to first window: connect, read the schema, open the container and a live list
        // of 50 rows, as `cardfile URL --table books` does.
        let place = try Self.location(target)
        func opening(tablesAtLeast: Int) throws -> Double {
            Distribution(try Measure.samples(7) { _ in
                let engine = try PostgresEngine(place)
                defer { engine.close() }
                let container = try Container(engine: engine)
                let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: "books"), height: 50)
                guard live.window.rows.count == 50 else { throw BenchFailure(description: "the first window has \(live.window.rows.count) rows") }
                guard container.schema.tables.count >= tablesAtLeast else { throw BenchFailure(description: "the tables were not all listed") }
            }).p50
        }
        table.add("open to first window (engine, schema, container, live list of 50), p50", duration(try opening(tablesAtLeast: 1)), goal: "< 50 ms")

        let catalog = PostgresCatalog(session: setup)
        guard let relation = try catalog.relation(named: "books") else { return }
        let description = try catalog.describe(relation)

        // Saves: one field through the view context (checked against every field read) against
        // the same UPDATE plain.
        let engine = try PostgresEngine(place)
        defer { engine.close() }
        let container = try Container(engine: engine)
        let view = container.viewContext
        var random = SystemRandomNumberGenerator()
        let held = (0..<saves).map { _ in ObjectID(table: "books", primaryKey: [.integer(Int64.random(in: 1...Int64(rows), using: &random))]) }
        // p50 of a plain UPDATE of a random row, and of an edit and save of one of `held`
        // through `view` (each row read into it first).
        func savesAgainstPlain(_ view: ObjectContext, tag: String) throws -> (plain: Double, saved: Double) {
            let raw = try Measure.samples(saves) { index in
                let id = Int64.random(in: 1...Int64(rows), using: &random)
                try setup.run("UPDATE books SET title = \("raw \(index)") WHERE id = \(id)")
            }
            for id in held { _ = try view.record(for: id) }
            let through = try Measure.samples(saves) { index in
                try view.update(held[index], values: ["title": .text("\(tag) \(index)")])
                try view.save()
            }
            return (Distribution(raw).p50, Distribution(through).p50)
        }
        let (rawP50, savedP50) = try savesAgainstPlain(view, tag: "saved")
        table.add("plain UPDATE of one field, p50", duration(rawP50))
        table.add("edit + save through the view context, p50", duration(savedP50))
        table.add("save / plain ratio at p50", String(format: "%.2f", savedP50 / rawP50), goal: "≤ 1.5")

        // Another client's commit on screen (with pg-setup's triggers): a row of the live list
        // changed by another connection, until the list shows it, polling as the editor does.
        _ = try NotifySetup(session: setup).install([description])

        // The same saves once pg-setup is run, as a team has it: the triggers announce each
        // commit (psql's UPDATE pays for them too) and record the editor's in the history
        // journal, in the same transaction.
        let journaledEngine = try PostgresEngine(place)
        defer { journaledEngine.close() }
        let journaled = try Container(engine: journaledEngine, options: StoreOptions(history: HistorySettings(folder: NSTemporaryDirectory())))
        guard journaled.history != nil else { throw BenchFailure(description: "no history: \(journaled.historyProblem ?? "")") }
        let (rawAnnouncedP50, journaledP50) = try savesAgainstPlain(journaled.viewContext, tag: "kept")
        table.add("with pg-setup: plain UPDATE of one field (triggers fire), p50", duration(rawAnnouncedP50))
        table.add("with pg-setup: edit + save, journaled in the history, p50", duration(journaledP50))
        table.add("with pg-setup: save / plain ratio at p50", String(format: "%.2f", journaledP50 / rawAnnouncedP50), goal: "≤ 1.5")

        let watching = try PostgresEngine(place)
        defer { watching.close() }
        let screen = try Container(engine: watching)
        let live = try LiveQuery(context: screen.viewContext, spec: LiveQuerySpec(table: "books"), height: 50, minimumRefreshInterval: .zero)
        let other = try Self.session(target)
        var latencies: [Double] = []
        for index in 0..<100 {
            let id = Int64(1 + index % 50)
            let author = Value.text("other \(index)")
            let start = DispatchTime.now().uptimeNanoseconds
            try other.run("UPDATE books SET author = \("other \(index)") WHERE id = \(id)")
            var shown = false
            while !shown {
                if try screen.checkForExternalChanges() {
                    _ = try live.update(now: .now, immediately: true)
                }
                shown = live.window.rows.contains { $0.values[0] == .integer(id) && $0.values[2] == author }
                if !shown { usleep(200) }
            }
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        other.close()
        table.add("another client's commit on screen (NOTIFY, polled), p50 / max", "\(duration(Distribution(latencies).p50)) / \(duration(Distribution(latencies).max))", goal: "< 100 ms p50")

        // :set on a tenth of the rows, marked by a filter rule as :select marks them (pg-setup's
        // triggers installed, as a team has them), its undo (Alt-U: many rows a statement),
        // the marks it leaves counted (their keys as one JSON argument), and F on a column.
        guard let books = container.schema.table(named: "books") else { throw BenchFailure(description: "no books table") }
        var marks = MarkSet()
        marks.set(matching: .compare("id", .lessOrEqual, .integer(Int64(rows / 10))), marked: true)
        var change: BulkChange?
        // (Journaled in the history, as a team's editor does: 100,000 records is its limit.)
        let setTime = try Measure.time { change = try journaled.bulkSet(table: "books", column: "author", to: .text("bulk"), where: marks.predicate(for: books)) }
        guard let change else { throw BenchFailure(description: "no :set") }
        table.add(":set on \(change.count.formatted()) marked records (values read, then written, journaled)", duration(setTime))
        // The same rows by one plain UPDATE, as psql would send it (then put back).
        let plainTime = try Measure.time { try setup.run(PostgresQuery(unsafeSQL: "UPDATE books SET author = 'plain' WHERE id <= \(rows / 10)")) }
        try setup.run(PostgresQuery(unsafeSQL: "UPDATE books SET author = 'bulk' WHERE id <= \(rows / 10)"))
        table.add("  … the same rows by one plain UPDATE; :set / plain", "\(duration(plainTime)); \(String(format: "%.2f", setTime / plainTime))")
        let undoTime = try Measure.time { _ = try journaled.apply(change.reversed) }
        table.add("  … its undo (Alt-U)", duration(undoTime))
        marks.replace(withKeysOf: change.records)
        let countTime = try Measure.time { _ = try container.countMarked(marks, table: "books") }
        table.add("  … counting the \(change.count.formatted()) records it marks after", duration(countTime))
        let frequencyTime = try Measure.time { _ = try container.frequencies(of: "author", table: "books") }
        table.add("F on author (unindexed, 5,000 values)", duration(frequencyTime), goal: "< 1 s")
        setup.close()

        // Memory after paging through the whole table, in a process of its own.
        let fields = try CardfileBench.inChildProcess(["--browse-postgres", target])
        if fields.count == 3 {
            table.add("RSS after paging through all \(rows.formatted()) rows (\(Int(fields[1]).formatted()) pages of 50 in \(duration(fields[2])))",
                      String(format: "%.1f MiB", fields[0]), goal: "< 40 MiB")
        }
        try measureTransfers(target, into: &table)

        // The same open in a database of 300 more tables (each listed and described).
        let crowding = try Self.session(target)
        defer { crowding.close() }
        try crowding.run(PostgresQuery(unsafeSQL: """
            DO $$ BEGIN FOR i IN 1..300 LOOP
              EXECUTE format('CREATE TABLE other_%s (id int PRIMARY KEY, name text NOT NULL, price numeric, made timestamptz DEFAULT now(), ref int)', i);
            END LOOP; END $$
            """))
        table.add("  … with 300 more tables in the database, p50", duration(try opening(tablesAtLeast: 301)))
        table.print()
    }

    /// Import: a CSV file of `rows` books into an empty table, through a container on the
    /// engine as `cardfile import` runs it (reading, parsing, COPY in batches), against `psql
    /// -c '\\copy … FROM … CSV HEADER'` of the same file into a table like it. Export: the
    /// table to a CSV file as `cardfile export` writes it, against `\\copy … TO`. Three of
    /// each, alternating; the ratios are psql's median time over ours (above 1: faster).
    private func measureTransfers(_ target: String, into table: inout ResultTable) throws {
        let folder = NSTemporaryDirectory() + "cardfile-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let csv = folder + "/books.csv"
        var text = "id,title,author,price,year\n"
        text.reserveCapacity(rows * 48)
        for n in 1...rows {
            text += "\(n),Title \(n),\"Author \(n % 5000), Jr\",\(n % 10000 / 100).\(n % 100 < 10 ? "0" : "")\(n % 100),\(1900 + n % 125)\n"
        }
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        let session = try Self.session(target)
        defer { session.close() }
        let create = "(id int8 PRIMARY KEY, title text NOT NULL, author text, price numeric(8,2), year int)"
        func fresh(_ name: String) throws {
            try session.run(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(name)"))
            try session.run(PostgresQuery(unsafeSQL: "CREATE TABLE \(name) \(create)"))
        }
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<3 {
            try fresh("ours")
            let engine = try PostgresEngine(try Self.location(target))
            let container = try Container(engine: engine)
            var summary = ImportSummary()
            ours.append(try Measure.time { summary = try Importer(container: container, file: csv, options: ImportOptions(table: "ours")).run() })
            engine.close()
            guard summary.inserted == rows else { throw BenchFailure(description: "the import inserted \(summary.inserted) rows: \(summary.errors.prefix(2))") }
            try fresh("theirs")
            theirs.append(try Measure.time { try Self.psql(target, "\\copy theirs FROM '\(csv)' CSV HEADER") })
        }
        let (ourImport, theirImport) = (Distribution(ours).p50, Distribution(theirs).p50)
        table.add("import of \(rows.formatted()) CSV rows, cardfile / psql \\copy, p50", "\(duration(ourImport)) / \(duration(theirImport))")
        table.add("import speed vs psql \\copy", String(format: "%.2f×", theirImport / ourImport), goal: "≥ 0.9×")

        // Once each, into tables pg-setup set up: both pay for the triggers, and the editor's
        // import keeps its first 100,000 records in the history journal.
        try fresh("ours")
        try fresh("theirs")
        let catalog = PostgresCatalog(session: session)
        let described = try ["ours", "theirs"].compactMap { try catalog.relation(named: $0) }.map { try catalog.describe($0) }
        _ = try NotifySetup(session: session).install(described)
        let journaledEngine = try PostgresEngine(try Self.location(target))
        let journaled = try Container(engine: journaledEngine, options: StoreOptions(history: HistorySettings(folder: NSTemporaryDirectory())))
        let ourSetUp = try Measure.time { _ = try Importer(container: journaled, file: csv, options: ImportOptions(table: "ours")).run() }
        journaledEngine.close()
        let theirSetUp = try Measure.time { try Self.psql(target, "\\copy theirs FROM '\(csv)' CSV HEADER") }
        table.add("  … with pg-setup (triggers, history): cardfile / psql \\copy; speed", "\(duration(ourSetUp)) / \(duration(theirSetUp)); \(String(format: "%.2f×", theirSetUp / ourSetUp))")

        ours = []
        theirs = []
        let engine = try PostgresEngine(try Self.location(target))
        defer { engine.close() }
        let container = try Container(engine: engine)
        for index in 0..<3 {
            let path = folder + "/out-\(index).csv"
            ours.append(try Measure.time {
                let file = try OutputFile(path: path, replacing: true, protecting: [])
                let count = try Exporter(container: container, table: "ours", format: .csv).run { try file.write($0) }
                try file.commit()
                guard count == rows else { throw BenchFailure(description: "the export wrote \(count) rows") }
            })
            let theirPath = folder + "/psql-\(index).csv"
            theirs.append(try Measure.time { try Self.psql(target, "\\copy (SELECT * FROM theirs ORDER BY id) TO '\(theirPath)' CSV HEADER") })
        }
        let (ourExport, theirExport) = (Distribution(ours).p50, Distribution(theirs).p50)
        table.add("export of \(rows.formatted()) rows to CSV, cardfile / psql \\copy, p50", "\(duration(ourExport)) / \(duration(theirExport))")
        table.add("export speed vs psql \\copy", String(format: "%.2f×", theirExport / ourExport), goal: "≥ 1.0×")
    }

    /// Runs `psql` on `url` with one command; fails unless it succeeds.
    static func psql(_ url: String, _ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", url, "-c", command]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchFailure(description: "psql failed: \(command)") }
    }

    /// The child's part: a live list of 50 paged from first to last; prints RSS, pages, seconds.
    static func browse(_ url: String) throws -> (rss: Double, pages: Int, seconds: Double) {
        let engine = try PostgresEngine(try location(url))
        defer { engine.close() }
        let container = try Container(engine: engine)
        let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: "books"), height: 50)
        var pages = 0
        let seconds = try Measure.time {
            var last = live.window.rows.last?.id
            while true {
                try live.pageDown()
                pages += 1
                let now = live.window.rows.last?.id
                if now == last { break }
                last = now
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

/// A figure that could not be taken, and why.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}
