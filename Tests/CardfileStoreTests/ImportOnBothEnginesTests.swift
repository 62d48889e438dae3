import CardfilePostgres
import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// The import corpus on both engines: the same files, the same table, the same outcome,
/// row by row. On PostgreSQL the rows go by `COPY` (insert) or `INSERT … ON CONFLICT`, and a
/// refused batch is split until each refused row is found; these say that nothing of that
/// shows: the same rows go in, the same lines are reported, with the same columns.
@Suite("Import on SQLite and PostgreSQL", .timeLimit(.minutes(10)))
struct ImportOnBothEnginesTests {
    enum Engine: String, CaseIterable, Sendable {
        case sqlite, postgres
        /// PostgreSQL, into a partitioned table (no `xmax` to return: upserts go a row at a time).
        case postgresPartitioned
        /// The engines the corpus runs on (its table has a unique column a partitioned table
        /// would need its partition key in).
        static let plain: [Engine] = [.sqlite, .postgres]
    }

    static let schema = """
        CREATE TABLE cards (
            id INTEGER PRIMARY KEY, name TEXT NOT NULL, code TEXT UNIQUE, age INTEGER CHECK (age >= 0),
            score DOUBLE PRECISION, note TEXT);
        INSERT INTO cards (id, name, code, age) VALUES (1, 'Existing', 'E1', 50);
        """

    /// A table `cards` on one engine, and a folder for files.
    final class Place {
        let directory = TemporaryDirectory()
        let container: Container
        private let close: () -> Void
        private let readRows: (String) throws -> [String]

        init(_ engine: Engine, schema: String = ImportOnBothEnginesTests.schema) throws {
            switch engine {
            case .sqlite:
                let path = directory.file("cards.sqlite")
                try makeDatabase(at: path, schema)
                container = try Container(path: path)
                close = {}
                readRows = { sql in
                    let queue = try DatabaseQueue(path: path)
                    defer { try? queue.close() }
                    return try queue.read { try String.fetchAll($0, sql: sql) }
                }
            case .postgres, .postgresPartitioned:
                let server = try PostgresTestServer.current()
                let database = try server.makeDatabase()
                _ = try server.psql(database, schema)
                let home = TemporaryDirectory()
                let location = try PostgresLocation.resolve(server.url(database: database), environment: [:], homeFolder: home.path, loginName: "x").location
                let postgres = try PostgresEngine(location)
                container = try Container(engine: postgres, options: StoreOptions())
                close = {
                    postgres.close()
                    server.drop(database)
                }
                readRows = { sql in
                    try postgres.read { session in try session.rows(sql, []).map { row -> String in
                        if case .text(let text) = row[0] { return text }
                        return "\(row[0])"
                    } }
                }
            }
        }

        deinit { close() }

        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = directory.file(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        func run(_ path: String, _ options: ImportOptions, cancelAfter: Int? = nil) throws -> ImportSummary {
            var batches = 0
            return try Importer(container: container, file: path, options: options).run(
                progress: { _ in batches += 1 },
                isCancelled: { cancelAfter.map { batches >= $0 } ?? false })
        }

        /// Every row of `cards`, `id|name|code|age|score|note` with `-` for NULL, by id.
        func rows() throws -> [String] {
            try readRows("""
                SELECT CAST(id AS TEXT) || '|' || name || '|' || COALESCE(code, '-') || '|' || COALESCE(CAST(age AS TEXT), '-')
                    || '|' || COALESCE(CAST(score AS TEXT), '-') || '|' || COALESCE(note, '-') FROM cards ORDER BY id
                """)
        }
    }

    /// One file and what must come of it.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        var fileName = "cards.csv"
        var options = ImportOptions(table: "cards")
        var cancelAfter: Int?
        /// inserted, updated, unchanged, skipped, rejected.
        let counts: [Int]
        /// Each refused row's line and column (nil: none named).
        var refused: [(Int, String?)] = []
        var rolledBack = false
        /// The table afterwards, as ``Place/rows()`` reads it.
        let rows: [String]

        var testDescription: String { name }
        static let existing = "1|Existing|E1|50|-|-"
    }

    static func text(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let cases: [Case] = {
        var cases: [Case] = []
        cases.append(Case(
            name: "quotes, line breaks, NULLs and CRLF",
            bytes: text("id,name,code,age,score,note\r\n2,\"Smith, Ada\",A2,36,1.5,\"line one\nline \"\"two\"\"\\\"\r\n3,Bo,,,,\"\"\r\n"),
            counts: [2, 0, 0, 0, 0],
            rows: [Case.existing, "2|Smith, Ada|A2|36|1.5|line one\nline \"two\"\\", "3|Bo|-|-|-|"]))
        cases.append(Case(
            name: "bad rows by their lines, the rest in",
            bytes: text("id,name,age\n2,Two,2\n3,Three\n4,Four,four\n5,,5\n6,Six,6\n7,\"never closed,7\n"),
            counts: [2, 0, 0, 0, 4], refused: [(3, nil), (4, "age"), (5, "name"), (7, nil)],
            rows: [Case.existing, "2|Two|-|2|-|-", "6|Six|-|6|-|-"]))
        cases.append(Case(
            name: "a key taken, a rule broken, a key twice in the file",
            bytes: text("id,name,age\n1,Dup,1\n8,Neg,-1\n9,Nine,9\n9,Again,9\n10,Ten,10\n"),
            counts: [2, 0, 0, 0, 3], refused: [(2, "id"), (3, nil), (5, "id")],
            rows: [Case.existing, "9|Nine|-|9|-|-", "10|Ten|-|10|-|-"]))
        var latin = ImportOptions(table: "cards")
        latin.encoding = .latin1
        cases.append(Case(
            name: "Latin-1 when given",
            bytes: text("id,name\n11,Jos") + [0xE9] + text("\n"), options: latin,
            counts: [1, 0, 0, 0, 0], rows: [Case.existing, "11|José|-|-|-|-"]))
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "NAME,ID\nZoë 🐈 tab\there,12\n".utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        cases.append(Case(
            name: "UTF-16 with its mark, names in any case, a tab in a field",
            bytes: utf16, counts: [1, 0, 0, 0, 0], rows: [Case.existing, "12|Zoë 🐈 tab\there|-|-|-|-"]))
        var ignoring = ImportOptions(table: "cards")
        ignoring.ignoreUnknown = true
        cases.append(Case(
            name: "semicolons, and a column the table lacks left out",
            bytes: text("id;name;colour;note\n30;Semi;red;\"a;b\"\n"), options: ignoring,
            counts: [1, 0, 0, 0, 0], rows: [Case.existing, "30|Semi|-|-|-|a;b"]))
        var ignore = ImportOptions(table: "cards")
        ignore.mode = .ignore
        cases.append(Case(
            name: "ignore skips a key that is there",
            bytes: text("id,name,age\n1,First,1\n40,New,2\n41,,3\n"), options: ignore,
            counts: [1, 0, 0, 1, 1], refused: [(4, "name")],
            rows: [Case.existing, "40|New|-|2|-|-"]))
        var upsert = ImportOptions(table: "cards")
        upsert.mode = .upsert
        cases.append(Case(
            name: "upsert updates, keeps what the file leaves out, and counts what it left alone",
            bytes: text("id,name,age\n1,Existing,50\n40,New,2\n40,Newer,-2\n40,New,3\n"), options: upsert,
            counts: [1, 1, 1, 0, 1], refused: [(4, nil)],
            rows: ["1|Existing|E1|50|-|-", "40|New|-|3|-|-"]))
        var replace = ImportOptions(table: "cards")
        replace.mode = .replace
        cases.append(Case(
            name: "replace puts the file's row in the old one's place",
            bytes: text("id,name\n1,Replaced\n42,Fresh\n"), options: replace,
            counts: [1, 1, 0, 0, 0], rows: ["1|Replaced|-|-|-|-", "42|Fresh|-|-|-|-"]))
        cases.append(Case(
            name: "JSON Lines: a number as text, a word where a number goes, a line that is not JSON",
            bytes: text("""
                {"id": 50, "name": "Json", "age": 5, "score": 2.5, "note": null}
                {"id": 52, "name": "Str", "age": "12"}
                not json
                {"id": 53, "name": "Bad", "age": "twelve"}
                """), fileName: "cards.jsonl",
            counts: [2, 0, 0, 0, 2], refused: [(3, nil), (4, "age")],
            rows: [Case.existing, "50|Json|-|5|2.5|-", "52|Str|-|12|-|-"]))
        var atomic = ImportOptions(table: "cards", atomic: true, batchSize: 2)
        cases.append(Case(
            name: "atomic: one bad row and nothing goes in",
            bytes: text("id,name\n70,A\n71,B\n72,C\n73,\n74,E\n"), options: atomic,
            counts: [0, 0, 0, 0, 1], refused: [(5, "name")], rolledBack: true, rows: [Case.existing]))
        atomic.batchSize = 10
        cases.append(Case(
            name: "atomic: a value refused before an empty one a column needs is the one named",
            bytes: text("id,name\n70,A\nz,B\n72,C\n73,\n74,E\n"), options: atomic,
            counts: [0, 0, 0, 0, 1], refused: [(3, "id")], rolledBack: true, rows: [Case.existing]))
        atomic.batchSize = 3
        cases.append(Case(
            name: "atomic: a key taken is found inside the one transaction",
            bytes: text("id,name\n70,A\n1,B\n72,C\n"), options: atomic,
            counts: [0, 0, 0, 0, 1], refused: [(3, "id")], rolledBack: true, rows: [Case.existing]))
        var abort = ImportOptions(table: "cards", onError: .abort, batchSize: 1)
        cases.append(Case(
            name: "abort stops at the first bad row",
            bytes: text("id,name\n70,A\n71,\n72,C\n"), options: abort,
            counts: [1, 0, 0, 0, 1], refused: [(3, "name")], rows: [Case.existing, "70|A|-|-|-|-"]))
        abort.batchSize = 10
        cases.append(Case(
            name: "abort stops at a row the database refused, within its batch",
            bytes: text("id,name,age\n80,A,1\n81,B,-1\n82,C,3\n83,,4\n"), options: abort,
            counts: [1, 0, 0, 0, 1], refused: [(3, nil)], rows: [Case.existing, "80|A|-|1|-|-"]))
        cases.append(Case(
            name: "abort stops at an empty value a column needs, within its batch",
            bytes: text("id,name,age\n80,A,1\n81,,2\n82,C,-3\n"), options: abort,
            counts: [1, 0, 0, 0, 1], refused: [(3, "name")], rows: [Case.existing, "80|A|-|1|-|-"]))
        var many = "id,name\n"
        for id in 100..<1100 { many += "\(id),N\(id)\n" }
        cases.append(Case(
            name: "a cancel keeps whole batches",
            bytes: text(many), options: ImportOptions(table: "cards", batchSize: 100), cancelAfter: 3,
            counts: [300, 0, 0, 0, 0], rows: [Case.existing] + (100..<400).map { "\($0)|N\($0)|-|-|-|-" }))
        return cases
    }()

    @Test(arguments: Engine.plain, cases)
    func theCorpusComesOutTheSame(engine: Engine, given: Case) throws {
        let place = try Place(engine)
        let summary = try place.run(try place.file(given.fileName, given.bytes), given.options, cancelAfter: given.cancelAfter)
        let context = "\(engine): \(given.name): \(summary.errors)"
        #expect([summary.inserted, summary.updated, summary.unchanged, summary.skipped, summary.rejected] == given.counts, "\(context)")
        #expect(summary.errors.map(\.line) == given.refused.map(\.0), "\(context)")
        #expect(summary.errors.map(\.column) == given.refused.map(\.1), "\(context)")
        #expect(summary.rolledBack == given.rolledBack, "\(context)")
        #expect(try place.rows() == given.rows, "\(context)")
        if given.cancelAfter != nil {
            #expect(summary.cancelled && summary.stoppedAtLine == 302, "\(context)")
        }
    }

    /// A column the database fills (generated, identity) is not taken from a file, and the
    /// words say so rather than that the table lacks it.
    @Test(arguments: Engine.plain)
    func aColumnTheDatabaseFillsIsNamedAsSuch(engine: Engine) throws {
        let place = try Place(engine, schema: "CREATE TABLE g (id INTEGER PRIMARY KEY, a INTEGER, doubled INTEGER GENERATED ALWAYS AS (a * 2) STORED)")
        let file = try place.file("g.csv", Self.text("id,a,doubled\n1,5,99\n"))
        #expect(throws: ImportError.filledByDatabase(file: "g.csv", columns: ["doubled"], table: "g")) {
            _ = try place.run(file, ImportOptions(table: "g"))
        }
        #expect(ImportError.filledByDatabase(file: "g.csv", columns: ["doubled"], table: "g").description.contains("--ignore-unknown"))
        let summary = try place.run(file, ImportOptions(table: "g", ignoreUnknown: true))
        #expect(summary.inserted == 1)
        let json = try place.file("g.jsonl", Self.text("{\"id\": 2, \"a\": 1, \"doubled\": 7}\n"))
        let refused = try place.run(json, ImportOptions(table: "g"))
        #expect(refused.errors.first?.reason.contains("fills “doubled” itself") == true, "\(refused.errors)")
    }

    /// A refused row says why in words that point at the fix, on both engines.
    @Test(arguments: Engine.plain)
    func reasonsNameTheFix(engine: Engine) throws {
        let place = try Place(engine)
        let summary = try place.run(try place.file("bad.csv", Self.text("id,name,age\n1,Dup,1\n2,,2\n3,Three,-3\n4,Four,four\n")), ImportOptions(table: "cards"))
        let reasons = summary.errors.map(\.reason)
        try #require(reasons.count == 4, "\(reasons)")
        #expect(reasons[0].contains("already has this value (--mode upsert"), "\(reasons)")
        #expect(reasons[1].contains("--empty-as-text"), "\(reasons)")
        #expect(reasons[2].hasPrefix("breaks the table's rule"), "\(reasons)")
        #expect(reasons[3].contains("four"), "the value refused is named: \(reasons)")
    }
}

/// Random files of good and bad rows into a table with rows in it, on both engines, against
/// a model that takes the rows one at a time in file order: PostgreSQL's batches (a `COPY` or
/// an `INSERT` of many rows, split in halves when refused) must come to the same rows,
/// counts, refused lines and columns as that, whatever the batch size.
@Suite("Import on both engines against a model", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ImportModelTests {
    static let schema = """
        CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT NOT NULL, code TEXT UNIQUE, age INTEGER CHECK (age >= 0),
            score DOUBLE PRECISION, note TEXT);
        """
    /// The same table partitioned by key on PostgreSQL.
    static let partitioned = """
        CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT NOT NULL, code TEXT, age INTEGER CHECK (age >= 0),
            score DOUBLE PRECISION, note TEXT) PARTITION BY RANGE (id);
        CREATE TABLE cards_low PARTITION OF cards FOR VALUES FROM (MINVALUE) TO (20);
        CREATE TABLE cards_high PARTITION OF cards FOR VALUES FROM (20) TO (MAXVALUE);
        """

    struct Model {
        var rows: [Int: (name: String, age: Int?)] = [:]
        var counts = [0, 0, 0, 0, 0]
        var refused: [(Int, String?)] = []

        /// One file row at `line`: nil name is an empty field (NULL), an age of nil is empty,
        /// `word` an age that is no number.
        mutating func take(line: Int, id: Int, name: String?, age: Int?, word: Bool, mode: ImportOptions.Mode) {
            guard let name else { return refuse(line, "name") }
            if word { return refuse(line, "age") }
            if let age, age < 0 { return refuse(line, nil) }
            if let old = rows[id] {
                switch mode {
                case .insert: refuse(line, "id")
                case .ignore: counts[3] += 1
                case .upsert:
                    if old.name == name && old.age == age { counts[2] += 1 } else {
                        rows[id] = (name, age)
                        counts[1] += 1
                    }
                case .replace:
                    rows[id] = (name, age)
                    counts[1] += 1
                }
                return
            }
            rows[id] = (name, age)
            counts[0] += 1
        }

        mutating func refuse(_ line: Int, _ column: String?) {
            counts[4] += 1
            refused.append((line, column))
        }

        func table() -> [String] {
            rows.keys.sorted().map { id in "\(id)|\(rows[id]!.name)|-|\(rows[id]!.age.map(String.init) ?? "-")|-|-" }
        }
    }

    @Test(arguments: ImportOnBothEnginesTests.Engine.allCases)
    func randomFilesComeOutAsTheModelSays(engine: ImportOnBothEnginesTests.Engine) throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(6) {
            let place = try ImportOnBothEnginesTests.Place(engine, schema: engine == .postgresPartitioned ? Self.partitioned : Self.schema)
            var model = Model()
            // Rows already there.
            var existing = "id,name,age\n"
            for id in 1...20 where random.next(below: 2) == 0 {
                let age = random.next(below: 60)
                existing += "\(id),Old \(id),\(age)\n"
                model.rows[id] = ("Old \(id)", age)
            }
            _ = try place.run(try place.file("before.csv", Array(existing.utf8)), ImportOptions(table: "cards"))
            let modes: [ImportOptions.Mode] = [.insert, .ignore, .upsert, .replace]
            let mode = modes[random.next(below: modes.count)]
            let sizes: [Int?] = [nil, 1, 2, 3, 7, 50]
            var options = ImportOptions(table: "cards", mode: mode, batchSize: sizes[random.next(below: sizes.count)])
            options.atomic = random.next(below: 5) == 0
            // `--on-error abort`: nothing after the first refused row.
            if !options.atomic, random.next(below: 4) == 0 { options.onError = .abort }
            var model2 = model
            var text = "id,name,age\n"
            let count = 1 + random.next(below: 120)
            var badLines: Set<Int> = []
            for index in 0..<count {
                let line = index + 2
                let id = 1 + random.next(below: 40)
                var name: String? = random.next(below: 12) == 0 ? nil : ["Ann", "Bo, \"Jr\"", "tab\there", "back\\slash", "Zoë 🐈"][random.next(below: 5)]
                // (One fault a row: with two, each engine names the one it meets first.)
                let word = name != nil && random.next(below: 15) == 0
                var age: Int? = random.next(below: 6) == 0 ? nil : random.next(below: 12) - 2
                // Often the row as it stands (an upsert leaves it unchanged).
                if !word, let now = model2.rows[id], random.next(below: 3) == 0 { (name, age) = (now.name, now.age) }
                let quotedName = name.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" } ?? ""
                text += "\(id),\(quotedName),\(word ? "many" : age.map(String.init) ?? "")\n"
                let before = model2.counts[4]
                if options.onError == .abort, before > 0 { continue }
                model2.take(line: line, id: id, name: name, age: word ? nil : age, word: word, mode: mode)
                if model2.counts[4] > before { badLines.insert(line) }
            }
            let summary = try place.run(try place.file("random.csv", Array(text.utf8)), options)
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), \(engine), round \(round), \(mode), batch \(options.batchSize.map(String.init) ?? "default"), atomic \(options.atomic), \(options.onError)"
            if options.atomic, !badLines.isEmpty {
                // All or nothing: nothing goes in, and what is reported is among the bad rows. (Not
                // always the first: once the reader finds a bad row, no batch is written, so a
                // row the database would refuse before it in that batch goes unnamed.)
                #expect(summary.rolledBack, "\(context)")
                #expect(try place.rows() == model.table(), "\(context)")
                #expect(!summary.errors.isEmpty && Set(summary.errors.map(\.line)).isSubset(of: badLines), "\(context): \(summary.errors)")
                continue
            }
            #expect([summary.inserted, summary.updated, summary.unchanged, summary.skipped, summary.rejected] == model2.counts, "\(context): \(summary.errors.prefix(3))")
            #expect(summary.errors.map(\.line) == model2.refused.prefix(ImportSummary.errorsKept).map(\.0), "\(context)")
            #expect(summary.errors.map(\.column) == model2.refused.prefix(ImportSummary.errorsKept).map(\.1), "\(context)")
            let rows = try place.rows()
            #expect(rows == model2.table(), "\(context): first difference \(zip(rows, model2.table()).first { $0 != $1 }.map { "\($0)" } ?? "in length")")
        }
    }
}
