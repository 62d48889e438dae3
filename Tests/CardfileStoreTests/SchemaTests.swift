import Foundation
import Testing
@testable import CardfileStore

@Suite("Schema introspection and identifiers", .timeLimit(.minutes(10)))
struct SchemaTests {
    static let weird = """
        CREATE TABLE "my ""quoted"" table" (
            "select" INTEGER PRIMARY KEY,
            "first name" TEXT NOT NULL DEFAULT 'anon',
            "order" INTEGER CHECK ("order" >= 0),
            "名前" TEXT,
            "😀 emoji" TEXT COLLATE NOCASE,
            [brack eted] TEXT,
            `back ticked` TEXT UNIQUE
        );
        INSERT INTO "my ""quoted"" table" VALUES (1, 'Zoë', 2, '山田', 'Party 🎉', 'b', 't1');
        INSERT INTO "my ""quoted"" table" VALUES (2, 'Ünal', 1, '田中', 'apple', 'c', 't2');
        """
    static let weirdTable = "my \"quoted\" table"

    @Test func weirdIdentifiersWorkEverywhere() throws {
        let fixture = try PeopleFixture(schema: Self.weird)
        let table = try #require(fixture.container.schema.table(named: Self.weirdTable))
        #expect(table.columns.map(\.name) == ["select", "first name", "order", "名前", "😀 emoji", "brack eted", "back ticked"])
        #expect(table.primaryKey == .rowidAlias(column: "select"))
        #expect(table.column(named: "😀 EMOJI")?.collation == .nocase)
        #expect(table.column(named: "first name")?.defaultSQL == "'anon'")
        #expect(table.checks == [CheckConstraint(name: nil, expression: "\"order\" >= 0", columns: ["order"])])
        #expect(table.uniqueIndexes.map(\.columns) == [["back ticked"]])

        let view = fixture.view
        try view.insert(into: Self.weirdTable, values: ["名前": "佐藤", "😀 emoji": "Banana 🍌", "order": 0, "back ticked": "t3"])
        try view.update(ObjectID(table: Self.weirdTable, rowid: 1), values: ["brack eted": "edited", "first name": "Zoë \"Z\" O'Neil"])
        try view.save()
        let records = try view.fetch(FetchRequest(
            table: Self.weirdTable, predicate: .contains(["😀 emoji", "名前"], "a"),
            sort: [ColumnSort("😀 emoji")]))
        // NOCASE sorts "apple" < "Banana 🍌" < "Party 🎉".
        #expect(records.map { $0["😀 emoji"] } == ["apple", "Banana 🍌", "Party 🎉"])
        #expect(records[1]["first name"] == "anon")
        #expect(records[1].id.primaryKeyValues == [3])
        #expect(try fixture.disk(#"SELECT "first name" FROM "my ""quoted"" table" WHERE "select" = 1"#) == "Zoë \"Z\" O'Neil")

        // Conflict detection works through the quoting too.
        try view.update(ObjectID(table: Self.weirdTable, rowid: 2), values: ["名前": "mine"])
        try sqlite3(fixture.path, #"UPDATE "my ""quoted"" table" SET "名前" = 'theirs' WHERE "select" = 2;"#)
        #expect(storeError { try view.save() }?.conflicts?.first?.fields.first?.theirs == "theirs")
        try view.refresh(ObjectID(table: Self.weirdTable, rowid: 2), mergeChanges: false)
        try view.delete(ObjectID(table: Self.weirdTable, rowid: 2))
        try view.delete(records[1].id)
        try view.save()
        #expect(try fixture.disk(#"SELECT count(*) FROM "my ""quoted"" table""#) == .integer(1))
    }

    static let keys = """
        CREATE TABLE pairs (a TEXT, b INTEGER, v TEXT, PRIMARY KEY (a, b));
        CREATE TABLE tags (name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID;
        CREATE TABLE loose (x TEXT, y TEXT);
        CREATE TABLE shadowed (rowid TEXT, v TEXT);
        CREATE TABLE hopeless (rowid TEXT, _rowid_ TEXT, oid TEXT);
        CREATE TABLE texts (code TEXT PRIMARY KEY, label TEXT);
        INSERT INTO pairs VALUES ('x', 1, 'one'), ('x', 2, 'two');
        INSERT INTO tags VALUES ('swift', 3), ('sqlite', 5);
        INSERT INTO loose VALUES ('p', 'q');
        INSERT INTO shadowed VALUES ('not a rowid', 'v');
        INSERT INTO hopeless VALUES ('1', '2', '3');
        INSERT INTO texts VALUES ('A', 'alpha');
        """

    @Test func everyKindOfPrimaryKeyIsIdentified() throws {
        let fixture = try PeopleFixture(schema: Self.keys)
        let schema = fixture.container.schema
        #expect(schema.table(named: "pairs")?.primaryKey == .columns(["a", "b"]))
        #expect(schema.table(named: "tags")?.primaryKey == .withoutRowid(["name"]))
        #expect(schema.table(named: "tags")?.isWithoutRowid == true)
        #expect(schema.table(named: "loose")?.primaryKey == .implicitRowid(accessor: "rowid"))
        #expect(schema.table(named: "shadowed")?.primaryKey == .implicitRowid(accessor: "_rowid_"))
        #expect(schema.table(named: "hopeless")?.primaryKey == .unidentifiable(columns: ["rowid", "_rowid_", "oid"]))
        #expect(storeError { _ = try fixture.view.insert(into: "hopeless") } == .tableNotEditable("hopeless"))
    }

    @Test(arguments: [
        ("pairs", [Value.text("x"), .integer(2)], "v", "v"),
        ("tags", [Value.text("sqlite")], "uses", "uses"),
        ("loose", [Value.integer(1)], "y", "y"),
        ("shadowed", [Value.integer(1)], "v", "v"),
        ("texts", [Value.text("A")], "label", "label"),
    ])
    func editingWorksForEveryKeyKind(table: String, key: [Value], field: String, column: String) throws {
        let fixture = try PeopleFixture(schema: Self.keys)
        let view = fixture.view
        let id = ObjectID(table: table, primaryKey: key)
        let events = EventRecorder(fixture.container)
        try view.update(id, values: [field: "99"])
        try view.save()
        #expect(events.waitForEvents(1).first?.updated == [id])

        // A change by another context is merged into the view's registered object.
        let other = fixture.container.newBackgroundContext()
        try other.update(id, values: [field: "100"])
        try other.save()
        // What the column stores depends on its affinity ("100" becomes 100 in an INTEGER column).
        let affinity = try #require(fixture.container.schema.table(named: table)?.column(named: column)?.affinity)
        #expect(try view.record(for: id)?[field] == affinity.coerce("100"))

        // A change by another process is detected at save.
        try view.update(id, values: [field: "101"])
        try sqlite3(fixture.path, "UPDATE \(table) SET \(column) = '7';")
        #expect(storeError { try view.save() }?.conflicts?.first?.objectID == id)

        try view.refresh(id, mergeChanges: false)
        try view.delete(id)
        try view.save()
        #expect(try view.record(for: id) == nil)
    }

    @Test func insertsIntoKeyedTablesGetTheirKeys() throws {
        let fixture = try PeopleFixture(schema: Self.keys)
        let view = fixture.view
        let pair = try view.insert(into: "pairs", values: ["a": "y", "b": 1, "v": "new"])
        let tag = try view.insert(into: "tags", values: ["name": "grdb", "uses": 1])
        let loose = try view.insert(into: "loose", values: ["x": "r"])
        let events = EventRecorder(fixture.container)
        try view.save()
        let event = try #require(events.waitForEvents(1).first)
        #expect(event.permanentIDs[pair] == ObjectID(table: "pairs", primaryKey: ["y", 1]))
        #expect(event.permanentIDs[tag] == ObjectID(table: "tags", primaryKey: ["grdb"]))
        #expect(event.permanentIDs[loose] == ObjectID(table: "loose", rowid: 2))
        #expect(event.inserted.count == 3)
    }

    @Test func createTableParserReadsChecksAndCollations() {
        let sql = """
            CREATE TABLE t (
                a TEXT COLLATE RTRIM CONSTRAINT a_short CHECK (length(a) < 10), -- comment with CHECK (x)
                "b c" INTEGER CHECK ("b c" > 0 AND a <> 'x'),
                d TEXT DEFAULT ('(') COLLATE nocase,
                CONSTRAINT pair CHECK (a IS NOT NULL OR "b c" IS NOT NULL),
                CHECK (d <> ')')
            ) STRICT
            """
        let parsed = CreateTableParser.parse(sql, columnNames: ["a", "b c", "d"])
        #expect(parsed.collations == ["a": .rtrim, "d": .nocase])
        #expect(parsed.checks == [
            CheckConstraint(name: "a_short", expression: "length(a) < 10", columns: ["a"]),
            CheckConstraint(name: nil, expression: "\"b c\" > 0 AND a <> 'x'", columns: ["b c", "a"]),
            CheckConstraint(name: "pair", expression: "a IS NOT NULL OR \"b c\" IS NOT NULL", columns: ["a", "b c"]),
            CheckConstraint(name: nil, expression: "d <> ')'", columns: ["d"]),
        ])
        #expect(parsed.isStrict)
        #expect(!parsed.isWithoutRowid)
    }

    @Test func foreignKeysAndIndexesAreIntrospected() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE books (id INTEGER PRIMARY KEY, author INTEGER REFERENCES authors ON DELETE CASCADE, title TEXT);
            CREATE INDEX books_by_title ON books (title COLLATE NOCASE DESC);
            """)
        let books = try #require(fixture.container.schema.table(named: "books"))
        #expect(books.foreignKeys == [ForeignKeyDescription(parentTable: "authors", columns: ["author"], parentColumns: [nil], onDelete: .cascade, onUpdate: .noAction)])
        #expect(books.indexes.first { $0.name == "books_by_title" }?.columns == [.init(name: "title", isDescending: true, collation: .nocase)])
    }

    @Test func valueOrderingMatchesSQLite() throws {
        let values: [Value] = [.text("b"), .integer(2), .null, .real(1.5), .blob(Data([1])), .text("B"), .integer(-1), .text("a "), .real(2.0)]
        let directory = TemporaryDirectory()
        let path = directory.file("order.sqlite")
        try makeDatabase(at: path, "CREATE TABLE v (x);")
        let container = try Container(path: path)
        for value in values { try container.viewContext.insert(into: "v", values: ["x": value]) }
        try container.viewContext.save()
        for collation in [Collation.binary, .nocase, .rtrim] {
            let sql = collation == .binary ? "x" : "x COLLATE \(collation.name)"
            let stored = try sqlite3(path, "SELECT rowid FROM v ORDER BY \(sql), rowid;").split(separator: "\n").map { Int($0)! - 1 }
            let swift = values.indices.sorted { a, b in
                let order = Value.compare(values[a], values[b], collation: collation)
                return order != 0 ? order < 0 : a < b
            }
            #expect(swift == stored, "collation \(collation)")
        }
    }

    /// Two tables whose names differ only in case (two schemas on PostgreSQL): each name finds
    /// its own table, whichever sorts first; another case finds one of them.
    @Test func anExactNameWinsOverTheSameNameInOtherCase() {
        func table(_ name: String) -> TableSchema {
            TableSchema(name: name, columns: [ColumnDescription(name: "id", declaredType: "INTEGER")], primaryKey: .rowidAlias(column: "id"))
        }
        for names in [["Archive.Books", "archive.books"], ["archive.books", "Archive.Books"]] {
            let schema = DatabaseSchema(tables: names.map(table))
            for name in names { #expect(schema.table(named: name)?.name == name, "\(names)") }
            #expect(schema.table(named: "ARCHIVE.BOOKS") != nil)
        }
    }
}
