import CardfileTestSupport
import Testing
@testable import CardfilePostgres
@testable import CardfileStore

/// What deleting a record does beyond it on PostgreSQL, counted by deleting it in a
/// transaction that is rolled back: cascades, `SET NULL`s and a trigger's deletes, each
/// table's count as the server did it, and nothing deleted.
@Suite("Deletion effects on PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresDeletionEffectsTests {
    static let schema = """
        CREATE TABLE authors (id int PRIMARY KEY, name text);
        CREATE TABLE books (id int PRIMARY KEY, author int REFERENCES authors(id) ON DELETE CASCADE, title text);
        CREATE TABLE reviews (id int PRIMARY KEY, book int REFERENCES books(id) ON DELETE CASCADE);
        CREATE TABLE loans (id int PRIMARY KEY, book int REFERENCES books(id) ON DELETE SET NULL);
        CREATE TABLE prizes (id int PRIMARY KEY, author int REFERENCES authors(id));
        CREATE TABLE log (n serial PRIMARY KEY, what text);
        CREATE FUNCTION note_gone() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM log WHERE what = OLD.title; RETURN OLD; END $$;
        CREATE TRIGGER books_gone AFTER DELETE ON books FOR EACH ROW EXECUTE FUNCTION note_gone();
        INSERT INTO authors VALUES (1, 'Ada'), (2, 'Bo'), (3, 'Cy');
        INSERT INTO books VALUES (10, 1, 'one'), (11, 1, 'two'), (12, 2, 'three');
        INSERT INTO reviews VALUES (100, 10), (101, 10), (102, 11), (103, 12);
        INSERT INTO loans VALUES (200, 10), (201, 12);
        INSERT INTO log (what) VALUES ('one'), ('one'), ('three');
        INSERT INTO prizes VALUES (300, 3);
        """

    static func author(_ key: Int64) -> ObjectID { ObjectID(table: "authors", primaryKey: [.integer(key)]) }

    @Test func cascadesSetNullsAndATriggersDeletesAreCountedAndNothingIsDeleted() throws {
        let place = try DatabasePlace(Self.schema)
        let effects = try place.container.deletionEffects(of: [Self.author(1)])
        #expect(effects.deleted == [.init(table: "books", count: 2), .init(table: "log", count: 2), .init(table: "reviews", count: 3)], "\(effects)")
        #expect(effects.changed == [.init(table: "loans", count: 1, columns: ["book"], action: .setNull)], "\(effects)")
        #expect(try place.psql("SELECT (SELECT count(*) FROM books) + (SELECT count(*) FROM reviews) + (SELECT count(*) FROM log)") == "10")
        // Two at once: what both reach is counted once each.
        let both = try place.container.deletionEffects(of: [Self.author(1), Self.author(2)])
        #expect(both.deleted.first { $0.table == "books" }?.count == 3 && both.deleted.first { $0.table == "reviews" }?.count == 4, "\(both)")
        // Nothing refers to a book's review: no effects.
        #expect(try place.container.deletionEffects(of: [ObjectID(table: "reviews", primaryKey: [.integer(100)])]).isEmpty)
    }

    @Test func aDeleteAForeignKeyRefusesIsSaidAsSuch() throws {
        let place = try DatabasePlace(Self.schema)
        let refused = Result { () throws(StoreError) in try place.container.deletionEffects(of: [Self.author(3)]) }
        guard case .failure(.validationFailed(let failures)) = refused else {
            Issue.record("a prize's author was deletable: \(refused)")
            return
        }
        #expect(failures.map(\.rule) == [.referenced(by: "prizes")], "\(failures)")
        #expect(try place.psql("SELECT count(*) FROM authors") == "3")
    }

    /// A partitioned table's rows are counted as its own (not again as a partition's), and
    /// tables of one name in two schemas are counted apart.
    @Test func partitionsCountAsTheirTableAndSchemasApart() throws {
        let place = try DatabasePlace("""
            CREATE TABLE p (id int PRIMARY KEY);
            CREATE TABLE part (id int, p int REFERENCES p(id) ON DELETE CASCADE, PRIMARY KEY (id)) PARTITION BY RANGE (id);
            CREATE TABLE part_1 PARTITION OF part FOR VALUES FROM (0) TO (100);
            CREATE TABLE part_2 PARTITION OF part FOR VALUES FROM (100) TO (200);
            CREATE TABLE c (id int PRIMARY KEY, p int REFERENCES p(id) ON DELETE CASCADE);
            CREATE SCHEMA "Odd Schema";
            CREATE TABLE "Odd Schema".c (id int PRIMARY KEY, p int REFERENCES p(id) ON DELETE CASCADE);
            INSERT INTO p VALUES (1);
            INSERT INTO part VALUES (5, 1), (150, 1), (160, 1);
            INSERT INTO c SELECT i, 1 FROM generate_series(1, 4) AS i;
            INSERT INTO "Odd Schema".c SELECT i, 1 FROM generate_series(1, 6) AS i;
            """)
        let effects = try place.container.deletionEffects(of: [ObjectID(table: "p", primaryKey: [.integer(1)])])
        #expect(effects.deleted == [.init(table: "Odd Schema.c", count: 6), .init(table: "c", count: 4), .init(table: "part", count: 3)], "\(effects)")
        let own = try place.container.deletionEffects(of: [ObjectID(table: "part", primaryKey: [.integer(150)])])
        #expect(own.isEmpty, "\(own)")
    }
}
