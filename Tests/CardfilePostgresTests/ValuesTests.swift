import CardfilePostgres
import CardfileStore
import CardfileTestSupport
import Foundation
import PostgresNIO
import Testing

/// PostgreSQL's types through the store's values, written and read back by the real server,
/// with psql's own text of each value as the oracle.
@Suite("PostgreSQL values", .timeLimit(.minutes(5)))
struct ValuesTests {
    static let tableSQL = """
        CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
        CREATE DOMAIN positive AS int8 CHECK (VALUE > 0);
        CREATE TABLE sample (
            id int PRIMARY KEY,
            small int2, whole int8, counted positive,
            ratio float8,
            amount numeric, price numeric(10,2),
            flag boolean,
            label text, code varchar(6), padded char(3),
            day date, at timestamptz, span interval,
            token uuid, doc jsonb, photo bytea, tags text[], feeling mood
        )
        """

    struct Place {
        let server: PostgresTestServer
        let database: String
        let session: PostgresSession
        let columns: [PostgresTableColumn]

        init(_ sql: String = ValuesTests.tableSQL) throws {
            let server = try PostgresTestServer.current()
            let database = try server.makeDatabase()
            var opened: PostgresSession?
            do {
                try server.psql(database, sql)
                let location = try server.location(database)
                let session = try PostgresSession.open(location)
                opened = session
                let catalog = PostgresCatalog(session: session)
                columns = try catalog.describe(try #require(try catalog.relation(named: "sample"))).columns
                (self.server, self.database, self.session) = (server, database, session)
            } catch {
                opened?.close()
                server.drop(database)
                throw error
            }
        }

        func close() {
            session.close()
            server.drop(database)
        }

        func column(_ name: String) -> PostgresTableColumn { columns.first { $0.name == name }! }

        /// Inserts `values` (by column name) through the codec.
        func insert(id: Int, _ values: [String: Value]) throws(PostgresProblem) {
            var bindings = PostgresBindings()
            let names = ["id"] + values.keys.sorted()
            let placeholders = names.map { name in
                PostgresValues.placeholder(name == "id" ? .integer(Int64(id)) : values[name]!, for: column(name), into: &bindings)
            }
            let sql = "INSERT INTO sample (\(names.map(PostgresName.quoted).joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
            try session.run(PostgresQuery(unsafeSQL: sql, binds: bindings))
        }

        /// The row `id` read back through the codec, by column name.
        func read(id: Int) throws -> [String: Value] {
            let list = columns.map(PostgresValues.selectExpression).joined(separator: ", ")
            let rows = try session.rows(PostgresQuery(unsafeSQL: "SELECT \(list) FROM sample WHERE id = \(id)"))
            let values = try PostgresValues.values(try #require(rows.first), columns: columns)
            return Dictionary(uniqueKeysWithValues: zip(columns.map(\.name), values))
        }
    }

    @Test func eachTypeHasItsValue() throws {
        let place = try Place()
        defer { place.close() }
        #expect(place.columns.map(\.kind) == [
            .integer, .integer, .integer, .integer, .real, .decimal, .decimal, .boolean, .text, .text, .text,
            .textual, .textual, .textual, .textual, .textual, .bytes, .textual, .textual,
        ])
        try place.server.psql(place.database, """
            SET TimeZone = 'UTC';
            INSERT INTO sample VALUES (1, -3, 9223372036854775807, 5, 0.1,
                123456789012345678901234567890.123456789, 2.5, true, 'naïve', 'abc', 'x', '2026-11-26',
                '2026-11-26 10:00:00+00', '1 day 02:00:00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"b": 1, "a": [true]}',
                '\\x00ff', '{one,"two three"}', 'happy');
            INSERT INTO sample (id) VALUES (2)
            """)
        let row = try place.read(id: 1)
        #expect(row["small"] == .integer(-3))
        #expect(row["whole"] == .integer(Int64.max))
        #expect(row["counted"] == .integer(5))
        #expect(row["ratio"] == .real(0.1))
        #expect(row["amount"] == .decimal("123456789012345678901234567890.123456789"), "numeric is exact, never a Double")
        #expect(row["price"] == .decimal("2.50"), "the column's scale is kept")
        #expect(row["flag"] == .boolean(true))
        #expect(row["label"] == .text("naïve"))
        #expect(row["padded"] == .text("x  "))
        #expect(row["day"] == .text("2026-11-26"))
        #expect(row["token"] == .text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
        #expect(row["doc"] == .text("{\"a\": [true], \"b\": 1}"))
        #expect(row["photo"] == .blob(Data([0, 255])))
        #expect(row["tags"] == .text("{one,\"two three\"}"))
        #expect(row["feeling"] == .text("happy"))
        let empty = try place.read(id: 2)
        let others = empty.filter { $0.key != "id" }.values
        #expect(others.count == 18 && others.allSatisfy { $0.isNull })
    }

    @Test func theServerChecksWhatItIsGiven() throws {
        let place = try Place()
        defer { place.close() }
        // The column's own rules, as for psql: a length, a domain's check, an enum's labels.
        for (column, value, state) in [
            ("code", Value.text("toolong"), "22001"), ("counted", .integer(-1), "23514"), ("feeling", .text("angry"), "22P02"),
            ("day", .text("yesterday-ish"), "22007"), ("amount", .text("12abc"), "22P02"),
        ] {
            do {
                try place.insert(id: 10, [column: value])
                Issue.record("\(column) took \(value)")
            } catch {
                guard case .refused(_, _, let code) = error else { Issue.record("\(error)"); continue }
                #expect(code == state, "\(column): \(error.message)")
            }
        }
        // A scale is rounded by the column, as PostgreSQL rounds it.
        try place.insert(id: 11, ["price": .decimal("2.555"), "amount": .integer(7), "ratio": .integer(2)])
        let row = try place.read(id: 11)
        #expect(row["price"] == .decimal("2.56"))
        #expect(row["amount"] == .decimal("7"))
        #expect(row["ratio"] == .real(2))
    }

    /// A value keeps all of itself in types whose cast with no modifier would cut it
    /// (`character` is char(1), `bit` is bit(1)), in domains (over domains), and a float4 keeps
    /// its own digits.
    @Test func writesKeepTheWholeValue() throws {
        let place = try Place("""
            CREATE DOMAIN short AS varchar(3);
            CREATE DOMAIN money2 AS numeric(8,2);
            CREATE DOMAIN positive_money AS money2 CHECK (VALUE > 0);
            CREATE TABLE sample (code char(3) PRIMARY KEY, bits bit(3), s short, cost positive_money, f float4)
            """)
        defer { place.close() }
        #expect(place.columns.map(\.kind) == [.text, .textual, .text, .decimal, .real])
        #expect(place.columns.map(\.castType) == ["bpchar", "\"bit\"", "character varying", "numeric", "real"])
        var bindings = PostgresBindings()
        let values: [Value] = [.text("abc"), .text("101"), .text("xyz"), .decimal("12.345"), .real(0.1)]
        let placeholders = zip(values, place.columns).map { PostgresValues.placeholder($0, for: $1, into: &bindings) }
        try place.session.run(PostgresQuery(unsafeSQL: "INSERT INTO sample VALUES (\(placeholders.joined(separator: ", ")))", binds: bindings))
        let list = place.columns.map(PostgresValues.selectExpression).joined(separator: ", ")
        let rows = try place.session.rows(PostgresQuery(unsafeSQL: "SELECT \(list) FROM sample"))
        let read = try PostgresValues.values(try #require(rows.first), columns: place.columns)
        #expect(read == [.text("abc"), .text("101"), .text("xyz"), .decimal("12.35"), .real(0.1)])
        // Too long for the domain, or against its rule: refused, not cut.
        for (index, value, state) in [(2, Value.text("wxyz"), "22001"), (3, .decimal("-1"), "23514"), (0, .text("abcd"), "22001")] {
            var more = PostgresBindings()
            var row = [Value.text("def"), .text("000"), .text("a"), .decimal("1"), .real(1)]
            row[index] = value
            let marks = zip(row, place.columns).map { PostgresValues.placeholder($0, for: $1, into: &more) }
            do {
                try place.session.run(PostgresQuery(unsafeSQL: "INSERT INTO sample VALUES (\(marks.joined(separator: ", ")))", binds: more))
                Issue.record("\(value) was taken for \(place.columns[index].name)")
            } catch {
                guard case .refused(_, _, let code) = error else { Issue.record("\(error)"); continue }
                #expect(code == state, "\(error.message)")
            }
        }
    }

    /// Random values of every type written through the codec and read back: equal to what was
    /// written (after the server's own normalising, which psql's text of the same row shows).
    @Test func randomValuesReadBackAsWritten() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try Place()
        defer { place.close() }
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random.next(below: 10))) }) }
        for round in 0..<Fuzz.scaled(60) {
            let sign = random.next(below: 2) == 0 ? "-" : ""
            let whole = String(digits(1 + random.next(below: 30)).drop { $0 == "0" })
            let fraction = random.next(below: 3) == 0 ? "" : "." + digits(1 + random.next(below: 20))
            let amount = sign + (whole.isEmpty ? "0" : whole) + fraction
            let alphabet = Array("aé漢 ,\"'\\{}\t")
            let text = String((0..<random.next(below: 12)).map { _ in alphabet[random.next(below: alphabet.count)] })
            let bytes = Data((0..<random.next(below: 16)).map { _ in UInt8(random.next(below: 256)) })
            let ratio = Double(Int64(bitPattern: random.next()) % 1_000_000) / 997
            let values: [String: Value] = [
                "whole": .integer(Int64(bitPattern: random.next())),
                "ratio": .real(ratio),
                "amount": .decimal(amount),
                "flag": .boolean(random.next(below: 2) == 0),
                "label": .text(text),
                "photo": .blob(bytes),
                "day": .text(String(format: "%04d-%02d-%02d", 1 + random.next(below: 9000), 1 + random.next(below: 12), 1 + random.next(below: 28))),
                "token": .text(UUID(uuidString: "00000000-0000-4000-8000-" + String(format: "%012x", random.next() & 0xFFFF_FFFF_FFFF))!.uuidString.lowercased()),
            ]
            let context = "seed \(seed) round \(round)"
            try place.insert(id: 100 + round, values)
            let row = try place.read(id: 100 + round)
            for (name, value) in values {
                if name == "amount", case .decimal(let written) = value {
                    // PostgreSQL writes -0 as 0 and keeps the scale written.
                    let oracle = try place.server.psql(place.database, "SELECT amount::text FROM sample WHERE id = \(100 + round)")
                    #expect(row[name] == .decimal(oracle), "\(context): \(written)")
                    #expect(Value.compare(row[name]!, value) == 0, "\(context): \(written) read back as \(String(describing: row[name]))")
                } else {
                    #expect(row[name] == value, "\(context): \(name)")
                }
            }
        }
    }

    /// `Value.compare` orders decimals, and decimals against integers, reals and booleans, as
    /// PostgreSQL orders the same numbers (the server is the oracle; a live list merges rows in
    /// memory into windows the server sorted).
    @Test func randomDecimalsOrderAsTheServerOrdersThem() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let server = try PostgresTestServer.current()
        func number() -> Value {
            func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random.next(below: 10))) }) }
            switch random.next(below: 11) {
            case 0: return .integer(Int64(random.next(below: 2001)) - 1000)
            case 1: return .real(Double(Int64(random.next(below: 200_001)) - 100_000) / 64)
            case 2: return .boolean(random.next(below: 2) == 0)
            case 3: return .decimal(["NaN", "Infinity", "-Infinity", "0", "0.000", "-0", "1e5", ".5", "5.", "+7", "100000"][random.next(below: 11)])
            // Beyond 2^53: a real that holds a big integer exactly, and integers and decimals
            // around it, where a rounded comparison would be wrong.
            case 4: return .real(Double(big))
            case 5: return .integer(big + Int64(random.next(below: 5)) - 2)
            case 6: return [.real(.nan), .real(.infinity), .real(-.infinity)][random.next(below: 3)]
            case 7: return .decimal(String(big + Int64(random.next(below: 5)) - 2) + (random.next(below: 2) == 0 ? "" : ".5"))
            default:
                let sign = random.next(below: 3) == 0 ? "-" : ""
                let whole = random.next(below: 4) == 0 ? "0" : digits(1 + random.next(below: 4))
                let fraction = random.next(below: 2) == 0 ? "" : "." + digits(1 + random.next(below: 6))
                return .decimal(sign + whole + fraction)
            }
        }
        // A big number with its low bits clear, so a double holds it exactly.
        var big: Int64 = 0
        func sql(_ value: Value) -> String {
            switch value {
            case .boolean(let flag): return flag ? "1::numeric" : "0::numeric"
            case .real(let double) where double.isNaN: return "'NaN'::numeric"
            case .real(let double) where double.isInfinite: return double > 0 ? "'Infinity'::numeric" : "'-Infinity'::numeric"
            case .real(let double) where abs(double) >= 9.0e15: return "'\(Int64(double))'::numeric"
            case .real(let double): return "'\(double)'::numeric"
            default: return "'\(value.description)'::numeric"
            }
        }
        for _ in 0..<Fuzz.scaled(1) {
            // 400 pairs a statement (psql takes it as one argument, which has a size limit).
            big = Int64(bitPattern: random.next() & ~0x3FF) >> 1
            let pairs = (0..<400).map { _ in (number(), number()) }
            let rows = pairs.map { "(\(sql($0.0)), \(sql($0.1)))" }.joined(separator: ", ")
            let answers = try server.psql("postgres", "SELECT CASE WHEN a < b THEN -1 WHEN a > b THEN 1 ELSE 0 END FROM (VALUES \(rows)) AS p(a, b)")
                .split(separator: "\n").map { Int($0)! }
            #expect(answers.count == pairs.count)
            for ((left, right), expected) in zip(pairs, answers) {
                #expect(Value.compare(left, right) == expected, "seed \(seed): \(left) vs \(right)")
            }
        }
    }
}
