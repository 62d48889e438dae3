import CardfilePostgres
import CardfileTestSupport
import Foundation
import Testing

/// Connecting to the real server `scripts/test` starts, and reading its catalogs.
@Suite("PostgreSQL server", .timeLimit(.minutes(5)))
struct ServerTests {
    func location(_ url: String, _ environment: [String: String] = [:]) throws -> PostgresLocation {
        let home = TemporaryDirectory()
        return try PostgresLocation.resolve(url, environment: environment, homeFolder: home.path, loginName: "nobody").location
    }

    func problem(opening url: String) throws -> PostgresProblem? {
        let place = try location(url)
        do {
            let session = try PostgresSession.open(place)
            session.close()
            return nil
        } catch {
            return error
        }
    }

    @Test func connectsOverTCPAndThroughTheSocket() throws {
        let server = try PostgresTestServer.current()
        let tcp = try PostgresSession.open(try location(server.url(database: "postgres", extra: "?sslmode=disable")))
        defer { tcp.close() }
        let answer = try tcp.rows("SELECT current_user::text, 40 + 2")
        let (user, sum) = try #require(answer.first).decode((String, Int).self)
        #expect(user == "cardfile")
        #expect(sum == 42)

        let folder = server.socketFolder.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let socket = try PostgresSession.open(try location("postgres://cardfile@\(folder):\(server.port)/postgres"))
        defer { socket.close() }
        #expect(try socket.rows("SELECT 1").count == 1)
    }

    @Test func eachWayOfFailingToConnectHasItsOwnWords() throws {
        let server = try PostgresTestServer.current()

        let wrong = try problem(opening: server.url(database: "postgres", password: "not-the-password"))
        guard case .loginRefused(_, let user, _, let source) = wrong else {
            Issue.record("a wrong password gave \(String(describing: wrong))")
            return
        }
        #expect(user == "cardfile")
        #expect(source == .url)
        #expect(wrong?.message.contains("refused the login of \"cardfile\"") == true)
        #expect(wrong?.message.contains("not-the-password") == false)

        let none = try problem(opening: "postgres://cardfile@127.0.0.1:\(server.port)/postgres")
        #expect(none == .passwordNeeded(server: "127.0.0.1:\(server.port)", user: "cardfile"))

        let database = try problem(opening: server.url(database: "no_such_database"))
        #expect(database == .unknownDatabase(server: "127.0.0.1:\(server.port)", database: "no_such_database"))

        // A port where nothing listens: the port of a socket this test opened and closed.
        let closedPort = try SilentListener.closedPort()
        let nobody = try problem(opening: "postgres://cardfile:pw@127.0.0.1:\(closedPort)/postgres")
        #expect(nobody == .unreachable(server: "127.0.0.1:\(closedPort)", reason: "connection refused"))
        #expect(nobody?.message.contains("pw@") == false)

        let noSocket = try problem(opening: "postgres://cardfile@%2Fnonexistent%2Ffolder:5432/postgres")
        #expect(noSocket == .unreachable(server: "/nonexistent/folder (socket, port 5432)", reason: "there is no server socket in /nonexistent/folder for port 5432"))

        // The test server has no certificate, so it offers no encryption.
        let encrypted = try problem(opening: server.url(database: "postgres", extra: "?sslmode=require"))
        #expect(encrypted == .encryptionUnavailable(server: "127.0.0.1:\(server.port)", sslMode: .require))
        // Checking the certificate needs an authority to check it against, as in libpq.
        let unverifiable = try problem(opening: server.url(database: "postgres", extra: "?sslmode=verify-ca"))
        guard case .encryptionFailed(_, let reason) = unverifiable else {
            Issue.record("verify-ca with no root certificate gave \(String(describing: unverifiable))")
            return
        }
        #expect(reason.contains("~/.postgresql/root.crt"))
        // prefer (the default) falls back to a plain connection.
        #expect(try problem(opening: server.url(database: "postgres", extra: "?sslmode=prefer")) == nil)
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let started = ContinuousClock.now
        let silent = try problem(opening: "postgres://cardfile:pw@127.0.0.1:\(listener.port)/postgres?connect_timeout=2")
        #expect(silent == .unreachable(server: "127.0.0.1:\(listener.port)", reason: "no answer within 2 seconds"))
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func theCatalogListsTablesAndViewsOfTheSearchPath() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, """
            CREATE SCHEMA extra;
            CREATE SCHEMA hidden;
            SET search_path = public;
            ALTER DATABASE \(database) SET search_path = public, extra;
            CREATE TABLE public.books (id serial PRIMARY KEY, title text NOT NULL, price numeric(8,2) DEFAULT 0);
            INSERT INTO public.books (title) SELECT 'Book ' || n FROM generate_series(1, 250) AS n;
            ANALYZE public.books;
            CREATE TABLE public.unanalysed (k int PRIMARY KEY);
            CREATE TABLE extra.books (id int PRIMARY KEY);
            CREATE TABLE extra.notes (id int PRIMARY KEY, body text);
            CREATE TABLE hidden.secret (id int PRIMARY KEY);
            CREATE VIEW public.cheap AS SELECT id, title FROM public.books WHERE price < 10;
            CREATE VIEW public.totals AS SELECT count(*) AS n FROM public.books;
            CREATE MATERIALIZED VIEW public.snapshot AS SELECT id FROM public.books;
            CREATE TABLE public.events (id int, at date NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
            CREATE TABLE public.events_2026 PARTITION OF public.events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
            CREATE TABLE public.keyless (a int, b text);
            """)
        let session = try PostgresSession.open(try location(server.url(database: database)))
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)
        let relations = try catalog.relations()
        #expect(relations.map(\.displayName) == ["books", "cheap", "events", "keyless", "snapshot", "totals", "unanalysed", "extra.books", "notes"])

        let books = try #require(relations.first { $0.displayName == "books" })
        #expect(books.schema == "public")
        #expect(books.kind == .table)
        #expect(books.estimatedRows == 250)
        #expect(books.canUpdate && books.canInsert && books.canDelete)
        #expect(relations.first { $0.name == "unanalysed" }?.estimatedRows == nil)
        #expect(relations.first { $0.name == "events" }?.kind == .partitionedTable)
        #expect(relations.first { $0.name == "cheap" }?.canUpdate == true, "a simple view can be written through")
        #expect(relations.first { $0.name == "totals" }?.canUpdate == false)
        #expect(relations.first { $0.name == "notes" }?.isVisible == true)
        #expect(relations.first { $0.displayName == "extra.books" }?.isVisible == false, "public.books hides it")

        #expect(try catalog.relation(named: "extra.books")?.schema == "extra")
        #expect(try catalog.relation(named: "notes")?.schema == "extra")
        #expect(try catalog.relation(named: "BOOKS")?.name == "books", "an unquoted name is folded, as PostgreSQL folds it")
        #expect(try catalog.relation(named: "hidden.secret")?.name == "secret", "a schema outside the path is reached by its name")
        #expect(try catalog.relation(named: "nothing") == nil)
        #expect(try catalog.relation(named: "a.b.c.d") == nil)
        #expect(try catalog.relation(named: "\"unclosed") == nil)
    }

    @Test func describingATableGivesItsColumnsKeyAndWhatCannotBeEdited() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, """
            CREATE TYPE mood AS ENUM ('sad', 'happy');
            CREATE TABLE people (
                id bigint GENERATED ALWAYS AS IDENTITY,
                region text,
                name varchar(40) NOT NULL,
                born date,
                salary numeric(10,2) DEFAULT 0,
                double_salary numeric GENERATED ALWAYS AS (salary * 2) STORED,
                tags text[],
                feeling mood,
                token uuid,
                payload jsonb,
                photo bytea,
                active boolean DEFAULT true,
                PRIMARY KEY (region, id)
            );
            ALTER TABLE people DROP COLUMN born;
            CREATE TABLE counted (n int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY);
            CREATE TABLE keyless (a int);
            CREATE VIEW totals AS SELECT count(*) AS n FROM people;
            CREATE MATERIALIZED VIEW snapshot AS SELECT id FROM people;
            """)
        let session = try PostgresSession.open(try location(server.url(database: database)))
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)

        let people = try catalog.describe(try #require(try catalog.relation(named: "people")))
        #expect(people.columns.map(\.name) == ["id", "region", "name", "salary", "double_salary", "tags", "feeling", "token", "payload", "photo", "active"])
        #expect(people.primaryKey == ["region", "id"], "key order, not table order")
        #expect(people.readOnlyReason == nil)
        let column = { (name: String) in people.columns.first { $0.name == name }! }
        #expect(column("id").identity == .always)
        #expect(column("id").readOnlyReason?.contains("identity") == true)
        #expect(column("double_salary").isGenerated)
        #expect(column("double_salary").readOnlyReason?.contains("generated") == true)
        #expect(column("name").typeName == "character varying(40)")
        #expect(column("name").isNotNull)
        #expect(column("name").readOnlyReason == nil)
        #expect(column("salary").typeName == "numeric(10,2)")
        #expect(column("salary").category == "N")
        #expect(column("salary").defaultExpression == "0")
        #expect(column("tags").category == "A")
        #expect(column("feeling").category == "E")
        #expect(column("active").category == "B")
        #expect(column("active").defaultExpression == "true")

        let counted = try catalog.describe(try #require(try catalog.relation(named: "counted")))
        #expect(counted.columns.first?.identity == .byDefault)

        let keyless = try catalog.describe(try #require(try catalog.relation(named: "keyless")))
        #expect(keyless.readOnlyReason?.contains("no primary key") == true)
        let totals = try catalog.describe(try #require(try catalog.relation(named: "totals")))
        #expect(totals.readOnlyReason?.contains("cannot be written through") == true)
        let snapshot = try catalog.describe(try #require(try catalog.relation(named: "snapshot")))
        #expect(snapshot.readOnlyReason?.contains("materialized view") == true)
    }

    @Test func aUserWithoutRightsSeesWhy() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        let role = "reader_\(database.suffix(8))"
        defer {
            server.drop(database)
            _ = try? server.psql("postgres", "DROP ROLE IF EXISTS \(role)")
        }
        try server.psql(database, """
            CREATE ROLE \(role) LOGIN PASSWORD 'readerpw';
            CREATE TABLE shelf (id int PRIMARY KEY, label text);
            CREATE TABLE locked (id int PRIMARY KEY);
            GRANT SELECT ON shelf TO \(role);
            """)
        let session = try PostgresSession.open(try location("postgres://\(role):readerpw@127.0.0.1:\(server.port)/\(database)"))
        defer { session.close() }
        let catalog = PostgresCatalog(session: session)
        #expect(try catalog.relations().map(\.name) == ["shelf"], "a table the user may not read is not listed")
        let shelf = try catalog.describe(try #require(try catalog.relation(named: "shelf")))
        #expect(shelf.readOnlyReason?.contains("may not change") == true)
    }

    @Test func aStatementTheServerRefusesKeepsItsWordsAndCode() throws {
        let server = try PostgresTestServer.current()
        let session = try PostgresSession.open(try location(server.url(database: "postgres")))
        defer { session.close() }
        do {
            try session.run("SELECT * FROM no_such_table")
            Issue.record("the statement ran")
        } catch {
            guard case .refused(let message, _, let state) = error else {
                Issue.record("gave \(error)")
                return
            }
            #expect(message.contains("no_such_table"))
            #expect(state == "42P01")
        }
    }
}
