import Foundation
import Testing
@testable import CardfileStore

/// What `:schema` reads of a table: the keys pointing at it, its triggers, generated columns'
/// expressions, its rows and its size.
@Suite("Table reports", .timeLimit(.minutes(10)))
struct TableReportTests {
    @Test func aTableWithEverything() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE books (id INTEGER PRIMARY KEY, author INTEGER REFERENCES authors(id) ON DELETE CASCADE, title TEXT);
            CREATE TABLE prizes (book INTEGER REFERENCES books(id), author INTEGER REFERENCES authors(id));
            CREATE TRIGGER authors_named AFTER INSERT ON authors BEGIN SELECT 1; END;
            CREATE INDEX authors_by_name ON authors (name);
            INSERT INTO authors (name) VALUES ('a'), ('b'), ('c');
            """)
        let report = try fixture.container.report(on: "authors")
        #expect(report.rows == 3)
        #expect(Set(report.referencedBy.map { "\($0.table).\($0.key.columns.joined())" }) == ["books.author", "prizes.author"])
        #expect(report.referencedBy.first { $0.table == "books" }?.key.onDelete == .cascade)
        #expect(report.triggers.map(\.name) == ["authors_named"])
        #expect(report.triggers.first?.sql.contains("AFTER INSERT ON authors") == true)
        #expect((report.bytes ?? 0) >= 2 * 4096, "the table and its index, a page each at least: \(report.bytes ?? -1)")
        #expect(try fixture.container.report(on: "prizes").referencedBy.isEmpty)
    }

    @Test func generatedColumnsShowTheirExpressions() throws {
        let fixture = try PeopleFixture(schema: """
            CREATE TABLE g (a INTEGER, "b c" INTEGER GENERATED ALWAYS AS (a * (2 + 1)) VIRTUAL, d AS (upper('x,y')) STORED, e TEXT DEFAULT 'as (no)');
            """)
        let report = try fixture.container.report(on: "g")
        #expect(report.generated == ["b c": "a * (2 + 1)", "d": "upper('x,y')"])
    }
}
