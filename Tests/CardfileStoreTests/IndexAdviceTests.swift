import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// `:index` in the store: which column a list of a large table would want indexed, asked of
/// SQLite's planner, and the index made.
@Suite("Index advice", .timeLimit(.minutes(10)))
struct IndexAdviceTests {
    static func fixture(rows: Int = 2_000) throws -> PeopleFixture {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, year INTEGER, price REAL);
            CREATE INDEX items_by_year ON items (year);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(rows))
            INSERT INTO items SELECT i, 'item ' || (i * 7 % 1000), 1900 + i % 120, i % 50 FROM c;
            """)
        return fixture
    }

    static func live(_ container: Container, _ spec: LiveQuerySpec, rows: Int = 1_000) throws -> LiveQuery {
        let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: "items"), height: 10)
        live.indexAdviceRows = rows
        try live.setSpec(spec)
        return live
    }

    @Test func aSortOrFilterNoIndexServesIsAdvisedAndAnIndexMadeEndsIt() throws {
        let fixture = try Self.fixture()
        let container = fixture.container
        let byName = try Self.live(container, LiveQuerySpec(table: "items", sort: [ColumnSort("name")]))
        #expect(byName.indexAdvice == IndexAdvice(table: "items", column: "name", use: .sort))
        let byYear = try Self.live(container, LiveQuerySpec(table: "items", sort: [ColumnSort("year")]))
        #expect(byYear.indexAdvice == nil, "items_by_year serves it")
        let filtered = try Self.live(container, LiveQuerySpec(table: "items", filter: "price = 3"))
        #expect(filtered.indexAdvice == IndexAdvice(table: "items", column: "price", use: .filter))
        #expect(try Self.live(container, LiveQuerySpec(table: "items", filter: "year = 1950")).indexAdvice == nil)
        #expect(try Self.live(container, LiveQuerySpec(table: "items", filter: "item")).indexAdvice == nil, "a substring search is not indexed")
        // Several sort keys: one column's index would not serve them.
        #expect(try Self.live(container, LiveQuerySpec(table: "items", sort: [ColumnSort("name"), ColumnSort("price")])).indexAdvice == nil)
        // A filter whose first column is indexed already names the next one.
        #expect(try Self.live(container, LiveQuerySpec(table: "items", filter: "year = 1950 or price = 3")).indexAdvice?.column == "price")
        // A small table wants none.
        #expect(try Self.live(container, LiveQuerySpec(table: "items", sort: [ColumnSort("name")]), rows: 5_000).indexAdvice == nil)

        #expect(try container.createIndex(on: "name", of: "items") == "items_name")
        try byName.setSpec(byName.spec)
        #expect(byName.indexAdvice == nil, "\(String(describing: byName.indexAdvice))")
        #expect(try fixture.disk("SELECT count(*) FROM sqlite_master WHERE name = 'items_name'") == .integer(1))
        #expect(try container.existingIndex(on: "NAME", of: "items") == "items_name")
        #expect(throws: StoreError.self) { try container.createIndex(on: "year", of: "items") }
        _ = try container.createIndex(on: "price", of: "items")
        try filtered.setSpec(filtered.spec)
        #expect(filtered.indexAdvice == nil)
    }
}
