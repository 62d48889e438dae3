import Foundation
import GRDB
import Testing
import CardfileTestSupport
@testable import CardfileStore

/// Numbers are never rounded silently: a value is kept exactly (as text where the column has
/// no type that can hold it) or refused with its line and why.
@Suite("Exact numbers", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ExactNumberTests {
    // MARK: - The named cases, through import

    @Test func jsonNumbersBeyondWhatAColumnHoldsAreRefusedWithTheReason() throws {
        let fixture = try ImportTests.Fixture()
        let path = try fixture.file("n.jsonl", """
            {"id": 2, "name": "big", "age": 123456789012345678901234}
            {"id": 3, "name": "huge", "score": 1e400}
            {"id": 4, "name": "tiny", "score": 1e-400}
            {"id": 5, "name": "hex", "age": 0x10}
            {"id": 6, "name": "keep", "extra": 123456789012345678901234}
            {"id": 7, "name": "keep", "extra": 1e400}
            {"id": 8, "name": "keep", "extra": 1e-400}
            {"id": 9, "name": "keep", "extra": 3.14159265358979323846}
            {"id": 10, "name": "fine", "age": 1e3, "score": 0.1, "extra": -0.5}
            """)
        let summary = try fixture.run(path)
        let reasons = Dictionary(uniqueKeysWithValues: summary.errors.map { ($0.line, $0.reason) })
        #expect(reasons[1] == "“123456789012345678901234” is beyond a 64-bit integer (a REAL would round it; a column without a type keeps it as text)")
        #expect(summary.errors.first { $0.line == 1 }?.column == "age")
        #expect(reasons[2] == "“1e400” is too large for a REAL (the largest is about 1.8e308)")
        #expect(reasons[3] == "“1e-400” is too small for a REAL (it would be stored as 0)")
        #expect(reasons[4] == "not valid JSON (“0x10” is not a JSON number)")
        #expect(summary.errors.count == 4 && summary.inserted == 5, "\(summary.errors)")
        let kept = try fixture.disk("SELECT group_concat(quote(extra), ' ') FROM (SELECT extra FROM cards WHERE id BETWEEN 6 AND 9 ORDER BY id)")
        #expect(kept == "'123456789012345678901234' '1e400' '1e-400' '3.14159265358979323846'")
        #expect(try fixture.disk("SELECT quote(age) || ' ' || quote(score) || ' ' || quote(extra) FROM cards WHERE id = 10") == "1000 0.1 -0.5")
    }

    @Test func csvNumbersAreReadExactlyOrRefused() throws {
        let fixture = try ImportTests.Fixture()
        let path = try fixture.file("n.csv", """
            id,name,age,score,extra
            2,hex,0x10,,
            3,hexreal,,0x1p3,
            4,inf,,inf,
            5,big,99999999999999999999,,
            6,tiny,,1e-400,
            7,keep,,,0x10
            8,keep,,,1e-400
            9,keep,,,12345678901234567890123
            10,fine,2e1, 2.5 ,1.25

            """)
        let summary = try fixture.run(path)
        let reasons = Dictionary(uniqueKeysWithValues: summary.errors.map { ($0.line, $0.reason) })
        #expect(reasons[2] == "“0x10” is not a whole number")
        #expect(reasons[3] == "“0x1p3” is not a number")
        #expect(reasons[4] == "“inf” is not a number")
        #expect(reasons[5]?.hasPrefix("“99999999999999999999” is beyond a 64-bit integer") == true)
        #expect(reasons[6]?.hasPrefix("“1e-400” is too small for a REAL") == true)
        #expect(summary.errors.count == 5, "\(summary.errors)")
        #expect(try fixture.disk("SELECT group_concat(quote(extra), ' ') FROM (SELECT extra FROM cards WHERE id BETWEEN 7 AND 9 ORDER BY id)")
                == "'0x10' '1e-400' '12345678901234567890123'")
        #expect(try fixture.disk("SELECT quote(age) || ' ' || quote(score) || ' ' || quote(extra) FROM cards WHERE id = 10") == "20 2.5 1.25")
    }

    @Test func createdTablesKeepNumbersARealCannotHoldAsText() throws {
        let directory = TemporaryDirectory()
        let database = directory.file("new.sqlite")
        let file = directory.file("t.csv")
        try "big,fine\n123456789012345678901234,1.5\n1e-400,2\n".write(toFile: file, atomically: true, encoding: .utf8)
        let created = try TableCreator.createIfMissing(database: database, file: file, options: ImportOptions(table: "t", create: true))
        #expect(created?.columns.map(\.type) == ["TEXT", "REAL"])
    }

    @Test func aFormRefusesANumberItWouldRoundAndSaysWhy() throws {
        let fixture = try PeopleFixture(schema: "CREATE TABLE m (id INTEGER PRIMARY KEY, r REAL, i INTEGER)")
        for (column, text, words) in [("r", "1e-400", "is too small for a REAL"), ("r", "1e400", "is too large for a REAL"), ("i", "1e19", "is beyond a 64-bit integer")] {
            let affinity: Affinity = column == "r" ? .real : .integer
            #expect(affinity.coerce(text) == nil, "\(text) in \(column) is refused, not rounded")
            // A form keeps text its column cannot take as text, and the save names the problem.
            let view = fixture.view
            let object = try view.insert(into: "m", values: [column: .text(text)])
            let failure = try #require(storeError { try view.save() }?.failures?.first)
            #expect(failure.objectID == object && failure.field == column)
            #expect(failure.message.contains("“\(text)” \(words)"), "\(failure.message)")
            view.rollback()
        }
        #expect(try fixture.disk("SELECT count(*) FROM m") == 0)
    }

    // MARK: - Seeded property test against exact arithmetic and SQLite

    /// Random decimal texts (long mantissas, signs, points, exponents near the edges of 64
    /// bits and of a double) for each number affinity: what is accepted equals the value
    /// `Decimal` (exact to 38 digits) and Swift's correctly rounded `Double` give, each
    /// refusal is the right one, and SQLite stores what is accepted without changing it.
    @Test func numbersAreExactOrRefusedAgainstDecimalAndSQLite() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE n (i INTEGER, r REAL, x NUMERIC, u)") }
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(random.next(below: 10))) }) }
        for round in 0..<Fuzz.scaled(3000) {
            var text = random.next(below: 4) == 0 ? "-" : ""
            text += digits(1 + random.next(below: 22))
            if random.next(below: 2) == 0 { text += "." + digits(1 + random.next(below: 12)) }
            if random.next(below: 2) == 0 { text += "e" + (random.next(below: 2) == 0 ? "-" : "") + String([1, 2, 5, 18, 19, 20, 300, 308, 309, 320, 400][random.next(below: 11)]) }
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round): \(text)"
            let written = text.contains(".") || text.contains("e")
            let zero = !text.prefix { $0 != "e" }.contains { "123456789".contains($0) }
            // Decimal is exact to 38 digits, up to about 1e±128: beyond, only the sign of the
            // exponent and whether the number is 0 tell what an integer makes of it.
            let exact = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            let hugeExponent = text.split(separator: "e").last.flatMap { Int($0) }.map { abs($0) >= 300 } ?? false
            #expect(exact != nil || hugeExponent, "\(context)")

            // INTEGER: whole and within 64 bits, else the right refusal.
            switch Affinity.integer.number(from: text) {
            case .success(.integer(let int)): #expect(exact.map { Decimal(int) == $0 } ?? (zero && int == 0), "\(context)")
            case .failure(.notWhole): #expect(exact.map { !Self.isWhole($0) } ?? (!zero && text.contains("e-")), "\(context)")
            case .failure(.beyondInteger):
                #expect(exact.map { Self.isWhole($0) && ($0 > Decimal(Int64.max) || $0 < Decimal(Int64.min)) } ?? (!zero && !text.contains("e-")), "\(context)")
            case let other: Issue.record("\(context): INTEGER gave \(other)")
            }
            // REAL: the correctly rounded double, never infinity, never 0 for not 0.
            let double = Double(text)!
            switch Affinity.real.number(from: text) {
            case .success(.real(let value)): #expect(value == double && double.isFinite && (double != 0 || zero), "\(context)")
            case .failure(.tooLarge): #expect(double.isInfinite, "\(context)")
            case .failure(.tooSmall): #expect(double == 0 && !zero, "\(context)")
            case let other: Issue.record("\(context): REAL gave \(other)")
            }
            // NUMERIC: an integer when written as one (refused beyond 64 bits), else REAL.
            switch Affinity.numeric.number(from: text) {
            case .success(.integer(let int)): #expect(!written && exact.map { Decimal(int) == $0 } == true, "\(context)")
            case .success(.real(let value)): #expect(written && value == double, "\(context)")
            case .failure(.beyondInteger): #expect(!written, "\(context)")
            case .failure(.tooLarge), .failure(.tooSmall): #expect(written, "\(context)")
            case let other: Issue.record("\(context): NUMERIC gave \(other)")
            }
            // Untyped: a number only when it is the text's exact value.
            if let exact {
                switch Affinity.exactNumber(text) {
                case .integer(let int)?: #expect(!written && Decimal(int) == exact, "\(context)")
                case .real(let value)?:
                    #expect(written && Decimal(string: value.description, locale: Locale(identifier: "en_US_POSIX")) == exact, "\(context)")
                case nil:
                    let heldExactly = written && double.isFinite && Decimal(string: double.description, locale: Locale(identifier: "en_US_POSIX")) == exact
                    #expect(!heldExactly && (written || exact > Decimal(Int64.max) || exact < Decimal(Int64.min)), "\(context)")
                default: Issue.record("\(context): untyped gave a non-number")
                }
            }
            // What is accepted, SQLite stores as given.
            let values = [Affinity.integer, .real, .numeric].map { try? $0.number(from: text).get() } + [Affinity.exactNumber(text) ?? .text(text)]
            let stored = try queue.write { db -> [DatabaseValue] in
                try db.execute(sql: "DELETE FROM n")
                try db.execute(sql: "INSERT INTO n VALUES (?, ?, ?, ?)", arguments: StatementArguments(values.map { $0?.databaseValue ?? .null }))
                return Array(try Row.fetchOne(db, sql: "SELECT i, r, x, u FROM n")!.databaseValues)
            }
            for (value, back) in zip(values, stored) where value != nil {
                #expect(value!.databaseValue == back, "\(context): \(value!) was stored as \(back)")
            }
        }
    }

    static func isWhole(_ decimal: Decimal) -> Bool {
        var value = decimal
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .plain)
        return rounded == decimal
    }

    @Test func notDecimalNumbersAreNotNumbers() {
        for text in ["0x10", "0X1F", "0x1p3", "inf", "-infinity", "nan", "NaN", "1e", "e5", ".", "-", "1.2.3", "1e+", "１２", "1_000", ""] {
            #expect(Affinity.integer.coerce(text) == nil && Affinity.real.coerce(text) == nil && Affinity.numeric.coerce(text) == nil, "\(text)")
            #expect(Affinity.exactNumber(text) == nil, "\(text)")
        }
        #expect(Affinity.integer.coerce(" 42\t") == .integer(42), "spaces around a number are allowed in a number column")
        #expect(Affinity.exactNumber(" 42") == nil, "but an untyped column keeps them, as text")
        #expect(Affinity.integer.coerce("-9223372036854775808") == .integer(.min))
        #expect(Affinity.integer.coerce("-9223372036854775809") == nil)
        #expect(Affinity.integer.coerce("9.223372036854775807e18") == .integer(.max))
    }
}

/// After a save, the context holds exactly what a read of the row gives: a REAL column's
/// whole values stay reals, generated columns included (RETURNING handed them back as
/// integers, and a just-inserted record showed `3` where the list later showed `3.0`).
@Suite("Saved values are read values", .timeLimit(.minutes(Fuzz.scaled(10))))
struct SavedValueTests {
    @Test func aGeneratedRealIsARealInTheJustSavedRecord() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE g (id INTEGER PRIMARY KEY, a INTEGER, x REAL, n NUMERIC,
                r REAL GENERATED ALWAYS AS (a * 1.5), s REAL GENERATED ALWAYS AS (a * 2) STORED)
            """)
        let view = fixture.view
        let disk = try DatabaseQueue(path: fixture.path)
        for round in 0..<Fuzz.scaled(40) {
            let id = Int64(round + 1)
            let a = Int64(random.next(below: 20)) - 10
            let x: Value = random.next(below: 2) == 0 ? .integer(Int64(random.next(below: 9))) : .real(Double(random.next(below: 9)) / 2)
            let object = ObjectID(table: "g", rowid: id)
            if random.next(below: 3) == 0, round > 0 {
                let earlier = ObjectID(table: "g", rowid: Int64(1 + random.next(below: round)))
                try view.update(earlier, values: ["a": .integer(a), "x": x, "n": .real(Double(a))])
                try view.save()
                try check(earlier)
            }
            _ = try view.insert(into: "g", values: ["id": .integer(id), "a": .integer(a), "x": x, "n": .integer(a)])
            try view.save()
            try check(object)

            func check(_ id: ObjectID) throws {
                let record = try #require(try view.record(for: id))
                let stored = try disk.read { db in try Row.fetchOne(db, sql: "SELECT a, x, n, r, s FROM g WHERE id = ?", arguments: [id.primaryKeyValues![0].databaseValue])! }
                for (index, name) in ["a", "x", "n", "r", "s"].enumerated() {
                    // Value's == is exact: an integer is not a real of the same value.
                    #expect(record[name] == Value(stored[index] as DatabaseValue),
                            "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), \(id) \(name): the context has \(String(describing: record[name])), the file \(stored[index] as DatabaseValue)")
                }
            }
        }
    }
}
