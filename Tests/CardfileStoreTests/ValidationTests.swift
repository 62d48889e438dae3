import Foundation
import GRDB
import Testing
import CardfileTestSupport
@testable import CardfileStore

@Suite("Validation", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ValidationTests {
    static let schema = """
        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            isbn TEXT UNIQUE,
            year INTEGER,
            pages INTEGER CONSTRAINT positive_pages CHECK (pages > 0),
            price REAL,
            author_id INTEGER REFERENCES authors(id),
            CHECK (year IS NULL OR year >= 1450)
        );
        INSERT INTO authors VALUES (1, 'Ursula K. Le Guin');
        INSERT INTO books VALUES (1, 'The Dispossessed', '978-0061054884', 1974, 387, 9.99, 1);
        """

    static let options = StoreOptions(entities: [
        EntityDescription(table: "books", rules: [
            "title": [.length(min: 1, max: 20)],
            "price": [.range(min: 0, max: 1000)],
        ]),
    ])

    @Test func severalFailuresAreReportedAtOnceInWords() throws {
        let fixture = try PeopleFixture(options: Self.options, schema: Self.schema)
        let view = fixture.view
        let book = ObjectID(table: "books", rowid: 1)
        // Pre-write failures on one object...
        try view.update(book, values: ["title": .null, "year": "nineteen", "price": -5])
        // ...and constraint failures on others, found by SQLite.
        let duplicate = try view.insert(into: "books", values: ["title": "Copy", "isbn": "978-0061054884"])
        let tooEarly = try view.insert(into: "books", values: ["title": "Old", "year": 1200, "pages": 0])
        let orphan = try view.insert(into: "books", values: ["title": "Orphan", "author_id": 42])
        let untitled = try view.insert(into: "books", values: ["title": "A title that is far too long to fit"])

        let failures = try #require(storeError { try view.save() }?.failures)
        func rules(_ id: ObjectID) -> [String: ValidationFailure.Rule] {
            Dictionary(failures.filter { $0.objectID == id }.map { ($0.field ?? "-", $0.rule) }, uniquingKeysWith: { a, _ in a })
        }
        #expect(rules(book) == ["title": .notNull, "year": .type(.integer), "price": .range(min: 0, max: 1000)])
        #expect(rules(duplicate) == ["isbn": .unique(columns: ["isbn"])])
        // SQLite stops at the first failing CHECK of a row; the save reports every one.
        #expect(rules(tooEarly) == ["pages": .check(expression: "pages > 0"), "year": .check(expression: "year IS NULL OR year >= 1450")])
        #expect(rules(orphan) == ["author_id": .foreignKey(parentTable: "authors")])
        #expect(rules(untitled) == ["title": .length(min: 1, max: 20)])

        // Nothing was written.
        #expect(try fixture.disk("SELECT count(*) FROM books") == .integer(1))
        #expect(try fixture.disk("SELECT title FROM books WHERE id = 1") == "The Dispossessed")

        // Every failure has a sentence naming its field.
        let message = StoreError.validationFailed(failures).message
        #expect(message.contains("8 problems"))
        #expect(message.contains("“title” needs a value"))
        #expect(message.contains("“year” must be a whole number; “nineteen” is not"))
        #expect(message.contains("“price” must be between 0 and 1000; it is -5"))
        #expect(message.contains("Another record already has this “isbn”"))
        #expect(message.contains("“author_id” refers to a record of “authors” that does not exist"))
        #expect(message.contains("“title” must be between 1 and 20 characters long"))
    }

    @Test func checkFailuresNameTheirRule() throws {
        let fixture = try PeopleFixture(options: Self.options, schema: Self.schema)
        let view = fixture.view
        let book = ObjectID(table: "books", rowid: 1)
        try view.update(book, values: ["pages": -3])
        let failure = try #require(storeError { try view.save() }?.failures?.first)
        #expect(failure.field == "pages")
        #expect(failure.rule == .check(expression: "pages > 0"))
        #expect(failure.message.contains("breaks the table's rule pages > 0"))
    }

    @Test func deletingAReferencedRowSaysWhoRefersToIt() throws {
        let fixture = try PeopleFixture(options: Self.options, schema: Self.schema)
        let view = fixture.view
        try view.delete(ObjectID(table: "authors", rowid: 1))
        let failure = try #require(storeError { try view.save() }?.failures?.first)
        #expect(failure.rule == .referenced(by: "books"))
        #expect(view.deletedObjects == [ObjectID(table: "authors", rowid: 1)])
    }

    @Test func numericTextIsAcceptedForNumberColumns() throws {
        let fixture = try PeopleFixture(options: Self.options, schema: Self.schema)
        let view = fixture.view
        try view.update(ObjectID(table: "books", rowid: 1), values: ["year": "1975"])
        try view.save()
        // SQLite's affinity stores it as an integer.
        #expect(try fixture.disk("SELECT typeof(year) FROM books WHERE id = 1") == "integer")
        #expect(try view.record(for: ObjectID(table: "books", rowid: 1))?["year"] == 1975)
    }

    @Test func keysAndGeneratedColumnsCannotBeEdited() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE items (code TEXT PRIMARY KEY, qty INTEGER, doubled INTEGER GENERATED ALWAYS AS (qty * 2));
            INSERT INTO items (code, qty) VALUES ('A', 1);
            """)
        let view = fixture.view
        let item = ObjectID(table: "items", primaryKey: ["A"])
        try view.update(item, values: ["code": "B", "doubled": 7, "qty": 5])
        let failures = try #require(storeError { try view.save() }?.failures)
        #expect(Set(failures.compactMap(\.field)) == ["code", "doubled"])
        #expect(failures.allSatisfy { $0.rule == .readOnlyField })
        try view.update(item, values: ["code": "A", "doubled": 2])
        try view.save()
        #expect(try view.record(for: item)?["doubled"] == 10)
    }

    @Test func affinityCoercionForTypedInput() {
        #expect(Affinity.integer.coerce("1990") == .integer(1990))
        #expect(Affinity.integer.coerce("19.5") == nil)
        #expect(Affinity.real.coerce("2") == .real(2))
        #expect(Affinity.numeric.coerce("2.5") == .real(2.5))
        #expect(Affinity.text.coerce("42") == .text("42"))
        #expect(Affinity(declaredType: "VARCHAR(20)") == .text)
        #expect(Affinity(declaredType: "BIGINT") == .integer)
        #expect(Affinity(declaredType: "DOUBLE PRECISION") == .real)
        #expect(Affinity(declaredType: "") == .blob)
        #expect(Affinity(declaredType: "DECIMAL(10,2)") == .numeric)
        #expect(Affinity(declaredType: "FLOATING POINT") == .integer) // "INT" wins, as in SQLite
    }

    /// Random rows against four CHECK rules: the save reports exactly the rules SQLite
    /// refuses one at a time (each tried alone, in a table of its own, on a second
    /// connection), all in one save.
    @Test func everyBrokenCheckIsReportedInOneSave() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let checks = ["a > 0", "b < 10", "a + b <> 5", "length(c) < 4"]
        let fixture = try PeopleFixture(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c TEXT, "
            + checks.map { "CHECK (\($0))" }.joined(separator: ", ") + ")")
        let oracle = try DatabaseQueue()
        try oracle.write { db in
            for (index, check) in checks.enumerated() { try db.execute(sql: "CREATE TABLE o\(index) (a INTEGER, b INTEGER, c TEXT, CHECK (\(check)))") }
        }
        for round in 0..<Fuzz.scaled(60) {
            func number() -> Value { random.next(below: 6) == 0 ? .null : .integer(Int64(random.next(below: 16)) - 3) }
            let values: [String: Value] = ["a": number(), "b": number(), "c": random.next(below: 6) == 0 ? .null : .text(String(repeating: "x", count: random.next(below: 7)))]
            let view = fixture.view
            _ = try view.insert(into: "t", values: values)
            let reported = Set(storeError { try view.save() }?.failures?.compactMap { failure -> String? in
                if case .check(let expression) = failure.rule { return expression }
                return nil
            } ?? [])
            view.rollback()
            let refused = try Set(checks.indices.filter { index in
                do {
                    try oracle.write { db in
                        try db.execute(sql: "INSERT INTO o\(index) VALUES (?, ?, ?)", arguments: [values["a"]!.databaseValue, values["b"]!.databaseValue, values["c"]!.databaseValue])
                    }
                    return false
                } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_CHECK {
                    return true
                }
            }.map { checks[$0] })
            #expect(reported == refused, "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round): \(values)")
        }
    }
}
