import CardfilePostgres
import CardfileTestSupport
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

/// pg-setup's triggers and the feed that listens to them, with psql or a second connection as
/// the other writer.
@Suite("PostgreSQL change feed", .timeLimit(.minutes(5)))
struct ChangeFeedTests {
    /// A database of its own with the tables set up, a session on it, and a feed listening.
    final class Place: @unchecked Sendable {
        let server: PostgresTestServer
        let database: String
        let location: PostgresLocation
        let session: PostgresSession
        let feed: PostgresChangeFeed
        let wakes = NIOLockedValueBox(0)
        private var drained = PendingChanges()

        init(_ sql: String) throws {
            let server = try PostgresTestServer.current()
            let database = try server.makeDatabase()
            var opened: PostgresSession?
            do {
                try server.psql(database, sql + "; CREATE TABLE sentinel (id int PRIMARY KEY)")
                let location = try server.location(database)
                let session = try PostgresSession.open(location)
                opened = session
                let catalog = PostgresCatalog(session: session)
                let tables = try catalog.relations().map { try catalog.describe($0) }
                _ = try NotifySetup(session: session).install(tables)
                let wakes = self.wakes
                feed = try PostgresChangeFeed(location: location, wake: { wakes.withLockedValue { $0 += 1 } })
                (self.server, self.database, self.location, self.session) = (server, database, location, session)
            } catch {
                opened?.close()
                server.drop(database)
                throw error
            }
        }

        deinit {
            feed.close()
            session.close()
            server.drop(database)
        }

        /// Waits until the sentinel row `mark` is announced (notifications come in commit order,
        /// so everything committed before it has come too), and returns what came, sentinel aside.
        func changes(upTo mark: Int) throws -> PendingChanges {
            try server.psql(database, "INSERT INTO sentinel VALUES (\(mark))")
            let deadline = Date().addingTimeInterval(10)
            let sentinel = PendingChanges.QualifiedName(schema: "public", table: "sentinel")
            while Date() < deadline {
                let batch = feed.drain()
                for (name, extent) in batch.tables { merge(name, extent) }
                if case .records(let keys) = drained.tables[sentinel], keys.contains([String(mark)]) {
                    var result = drained
                    result.tables[sentinel] = nil
                    drained = PendingChanges()
                    return result
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
            throw PostgresTestServer.Missing(description: "the sentinel \(mark) was never announced")
        }

        private func merge(_ name: PendingChanges.QualifiedName, _ extent: PendingChanges.Extent) {
            switch (drained.tables[name], extent) {
            case (.everything, _), (_, .everything): drained.tables[name] = .everything
            case (.records(let a), .records(let b)): drained.tables[name] = .records(a.union(b))
            case (nil, _): drained.tables[name] = extent
            }
        }
    }

    static let books = PendingChanges.QualifiedName(schema: "public", table: "books")

    @Test func eachStatementAnnouncesTheKeysItChanged() throws {
        let place = try Place("""
            CREATE TABLE books (id int PRIMARY KEY, title text);
            CREATE TABLE visits (shelf text, day date, n int, PRIMARY KEY (shelf, day));
            INSERT INTO books SELECT n, 'Book ' || n FROM generate_series(1, 300) n
            """)
        try place.server.psql(place.database, "INSERT INTO books VALUES (1000, 'new')")
        try place.server.psql(place.database, "UPDATE books SET title = 'changed' WHERE id IN (5, 6)")
        try place.server.psql(place.database, "DELETE FROM books WHERE id = 7")
        try place.server.psql(place.database, "UPDATE books SET id = 2000 WHERE id = 8")
        try place.server.psql(place.database, "INSERT INTO visits VALUES ('a:b', '2026-11-26', 1), ('x''y', '2026-01-02', 2)")
        let first = try place.changes(upTo: 1)
        #expect(first.tables[Self.books] == .records([["1000"], ["5"], ["6"], ["7"], ["8"], ["2000"]]))
        #expect(first.tables[.init(schema: "public", table: "visits")] == .records([["a:b", "2026-11-26"], ["x'y", "2026-01-02"]]))

        // More records than the limit, and TRUNCATE, say "everything".
        try place.server.psql(place.database, "UPDATE books SET title = title || '!' WHERE id <= 200")
        #expect(try place.changes(upTo: 2).tables[Self.books] == .everything)
        try place.server.psql(place.database, "TRUNCATE books")
        #expect(try place.changes(upTo: 3).tables[Self.books] == .everything)

        // A statement that changed no record still announces itself, with no keys.
        try place.server.psql(place.database, "UPDATE books SET title = 'x' WHERE id = -1")
        #expect(try place.changes(upTo: 4).tables[Self.books] == .records([]))
    }

    @Test func aBurstIsDrainedAsOneAndWakesOnce() throws {
        let place = try Place("CREATE TABLE books (id int PRIMARY KEY, title text); INSERT INTO books SELECT n, 't' FROM generate_series(1, 60) n")
        let statements = (1...50).map { "UPDATE books SET title = 'u\($0)' WHERE id = \($0);" }.joined(separator: "\n")
        #expect(place.feed.drain().isEmpty)
        let wakesBefore = place.wakes.withLockedValue { $0 }
        // psql -c runs them as one transaction: 50 statements, one commit, 50 notifications.
        try place.server.psql(place.database, statements)
        let changes = try place.changes(upTo: 1)
        #expect(changes.tables[Self.books] == .records(Set((1...50).map { [String($0)] })))
        let wakes = place.wakes.withLockedValue { $0 } - wakesBefore
        // One for the burst; the sentinel's may come after a drain emptied the feed.
        #expect(wakes >= 1 && wakes <= 3, "a wake for the first change after a drain, not one per change: \(wakes)")
    }

    /// Keys print the same whatever the writing session's settings (time zone, date style).
    @Test func keysPrintTheSameInEverySession() throws {
        let place = try Place("CREATE TABLE readings (at timestamptz PRIMARY KEY, day date, v float8)")
        try place.server.psql(place.database, """
            SET TimeZone = 'America/New_York'; SET DateStyle = 'SQL, DMY';
            INSERT INTO readings VALUES ('2026-11-26 10:00:00+00', '2026-11-26', 0.1)
            """)
        let readings = PendingChanges.QualifiedName(schema: "public", table: "readings")
        #expect(try place.changes(upTo: 1).tables[readings] == .records([["2026-11-26 10:00:00+00"]]))
    }

    /// When the feed's connection ends, the next drain says so (and a wake comes), since what
    /// is committed from then on is not announced.
    @Test func aLostConnectionIsSaid() throws {
        let place = try Place("CREATE TABLE books (id int PRIMARY KEY)")
        #expect(!place.feed.drain().connectionLost)
        let before = place.wakes.withLockedValue { $0 }
        try place.server.psql(place.database, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'")
        let deadline = Date().addingTimeInterval(10)
        var drained = PendingChanges()
        while Date() < deadline, !drained.connectionLost {
            drained = place.feed.drain()
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(drained.connectionLost)
        #expect(place.wakes.withLockedValue { $0 } > before)
    }

    @Test func setupIsIdempotentSkipsWhatItCannotAnnounceAndComesOff() throws {
        let place = try Place("""
            CREATE TABLE books (id int PRIMARY KEY);
            CREATE TABLE keyless (a int);
            CREATE VIEW titles AS SELECT id FROM books;
            CREATE TABLE events (id int, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
            CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')
            """)
        let catalog = PostgresCatalog(session: place.session)
        let setup = NotifySetup(session: place.session)
        let tables = try catalog.relations().map { try catalog.describe($0) }
        let again = try setup.install(tables)
        let outcomes = Dictionary(uniqueKeysWithValues: again.map { ($0.0.name, $0.1) })
        #expect(outcomes["books"] == .installed)
        #expect(outcomes["events"] == .installed)
        #expect(outcomes["sentinel"] == .installed)
        guard case .skipped(let keyless) = outcomes["keyless"], case .skipped(let view) = outcomes["titles"] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(keyless.contains("no primary key"))
        #expect(view.contains("a view"))
        let announced = try setup.announcedTables()
        #expect(announced == Set(tables.filter { ["books", "events", "sentinel"].contains($0.relation.name) }.map(\.relation.oid)))
        #expect(try place.server.psql(place.database, "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'cardfile_notify_%' AND tgrelid = 'books'::regclass") == "4")

        // A row written through the partitioned table, or straight into its partition, is
        // announced as the partitioned table's.
        let events = PendingChanges.QualifiedName(schema: "public", table: "events")
        try place.server.psql(place.database, "INSERT INTO events VALUES (1, '2026-05-01')")
        #expect(try place.changes(upTo: 1).tables[events] == .records([["1", "2026-05-01"]]))
        try place.server.psql(place.database, "INSERT INTO events_2026 VALUES (2, '2026-06-01')")
        let direct = try place.changes(upTo: 10)
        #expect(direct.tables[events] == .records([["2", "2026-06-01"]]))
        #expect(direct.tables[.init(schema: "public", table: "events_2026")] == nil)
        // A partition added later is not announced until pg-setup runs again. (Named with its
        // schema: the test's role is called cardfile, so "$user" in the search path would put
        // it in pg-setup's schema.)
        try place.server.psql(place.database, "CREATE TABLE public.events_2027 PARTITION OF events FOR VALUES FROM ('2027-01-01') TO ('2028-01-01')")
        let eventsOID = try #require(tables.first { $0.relation.name == "events" }).relation.oid
        #expect(try !setup.announcedTables().contains(eventsOID))
        _ = try setup.install(tables)
        #expect(try setup.announcedTables().contains(eventsOID))

        let books = try #require(tables.first { $0.relation.name == "books" }).relation
        #expect(try setup.remove([books], everything: false).outcomes.first?.1 == .removed)
        try place.server.psql(place.database, "INSERT INTO books VALUES (1)")
        #expect(try place.changes(upTo: 2).tables[Self.books] == nil)
        // A table of a person's own in a schema named cardfile is never dropped with it.
        _ = try setup.install(tables)
        try place.server.psql(place.database, "CREATE TABLE cardfile.mine (id int PRIMARY KEY); INSERT INTO cardfile.mine VALUES (1)")
        #expect(try setup.remove([], everything: true).schemaDropped == false)
        #expect(try setup.announcedTables().isEmpty)
        #expect(try place.server.psql(place.database, "SELECT count(*) FROM cardfile.mine") == "1")
        try place.server.psql(place.database, "DROP TABLE cardfile.mine")
        #expect(try setup.remove([], everything: true).schemaDropped == true)
        #expect(try place.server.psql(place.database, "SELECT count(*) FROM pg_namespace WHERE nspname = 'cardfile'") == "0")
    }

    /// Random statements by a second connection against a model of the table: every record a
    /// statement changed is among the keys announced, or the table is announced whole, and
    /// nothing that was not changed is named.
    @Test func randomStatementsAreAllAnnounced() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try Place("CREATE TABLE books (id int PRIMARY KEY, title text)")
        let other = try PostgresSession.open(place.location)
        defer { other.close() }
        var model: [Int: String] = [:]
        for round in 0..<Fuzz.scaled(40) {
            var changed = Set<Int>()
            var everything = false
            for _ in 0..<(1 + random.next(below: 3)) {
                let ids = Set((0..<random.next(below: 130)).map { _ in random.next(below: 400) })
                let list = ids.isEmpty ? "-1" : ids.sorted().map(String.init).joined(separator: ",")
                switch random.next(below: 4) {
                case 0:
                    let fresh = ids.subtracting(model.keys)
                    guard !fresh.isEmpty else { continue }
                    try other.run(PostgresQuery(unsafeSQL: "INSERT INTO books SELECT n, 'r\(round)' FROM unnest(ARRAY[\(fresh.sorted().map(String.init).joined(separator: ","))]) n"))
                    for id in fresh { model[id] = "r\(round)" }
                    if fresh.count > NotifySetup.keyLimit { everything = true }
                    changed.formUnion(fresh)
                case 1:
                    try other.run(PostgresQuery(unsafeSQL: "UPDATE books SET title = 'u\(round)' WHERE id IN (\(list))"))
                    let hit = ids.intersection(model.keys)
                    for id in hit { model[id] = "u\(round)" }
                    if hit.count > NotifySetup.keyLimit { everything = true }
                    changed.formUnion(hit)
                case 2:
                    try other.run(PostgresQuery(unsafeSQL: "DELETE FROM books WHERE id IN (\(list))"))
                    let hit = ids.intersection(model.keys)
                    for id in hit { model[id] = nil }
                    if hit.count > NotifySetup.keyLimit { everything = true }
                    changed.formUnion(hit)
                default:
                    // A key moved: both the old and the new key are announced.
                    let present = model.keys.sorted()
                    guard !present.isEmpty else { continue }
                    let from = present[random.next(below: present.count)]
                    let to = 1000 + round * 10 + random.next(below: 10)
                    guard model[to] == nil else { continue }
                    try other.run(PostgresQuery(unsafeSQL: "UPDATE books SET id = \(to) WHERE id = \(from)"))
                    model[to] = model[from]
                    model[from] = nil
                    changed.formUnion([from, to])
                }
            }
            let announced = try place.changes(upTo: round).tables[Self.books]
            let context = "seed \(seed) round \(round)"
            switch announced {
            case .everything:
                #expect(everything || changed.count > NotifySetup.keyLimit, "announced whole without cause, \(context)")
            case .records(let keys):
                #expect(!everything, "\(context)")
                #expect(keys == Set(changed.map { [String($0)] }), "\(context)")
            case nil:
                #expect(changed.isEmpty, "nothing announced, \(context)")
            }
        }
        let rows = try other.rows("SELECT count(*)::int8 FROM books")
        #expect(try rows.first?.decode(Int64.self) == Int64(model.count), "seed \(seed)")
    }
}
