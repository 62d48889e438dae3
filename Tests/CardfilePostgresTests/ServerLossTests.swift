@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// The server goes away under the editor (killed with SIGKILL, as a crash would) and comes
/// back: nothing freezes, nothing pending is lost, and the edits are saved once it answers.
/// Each test has a server of its own, since the run's serves every other test meanwhile.
@Suite("PostgreSQL: losing the server", .timeLimit(.minutes(5)))
struct ServerLossTests {
    struct Place {
        let owned: PrivatePostgresServer
        let location: PostgresLocation
        let engine: PostgresEngine
        let container: Container

        func psql(_ sql: String) throws -> String { try owned.server.psql("postgres", sql) }
        func close() {
            engine.close()
            owned.stop()
        }
    }

    /// A server of its own (no autovacuum: nothing writes unless a test does), a table of
    /// `rows` items, and a container on it.
    static func place(rows: Int = 3) throws -> Place {
        let owned = try PrivatePostgresServer(settings: ["autovacuum=off"])
        do {
            try owned.server.psql("postgres", """
                CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, qty int);
                INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(1, \(rows)) g;
                """)
            let location = try PostgresLocation.resolve(owned.server.url, environment: [:], homeFolder: TemporaryDirectory().path, loginName: "x").location
            let engine = try PostgresEngine(location)
            return Place(owned: owned, location: location, engine: engine, container: try Container(engine: engine, options: StoreOptions(busyTimeout: 1)))
        } catch {
            owned.stop()
            throw error
        }
    }

    /// Installs `cardfile pg-setup`'s triggers on `table`.
    static func announce(_ table: String, at location: PostgresLocation) throws {
        let owner = try PostgresSession.open(location)
        defer { owner.close() }
        let catalog = PostgresCatalog(session: owner)
        _ = try NotifySetup(session: owner).install([try catalog.describe(try #require(try catalog.relation(named: table)))])
    }

    static func id(_ number: Int) -> ObjectID { ObjectID(table: "items", primaryKey: [.integer(Int64(number))]) }

    static func isUnreachable(_ error: StoreError) -> Bool {
        if case .serverUnreachable = error { return true }
        return false
    }

    /// Saves `view`: true when it saved, false when the server could not be reached. Any other
    /// failure is recorded as the test's.
    static func saveOrFindTheServerGone(_ view: ObjectContext) -> Bool {
        do {
            try view.save()
            return true
        } catch {
            if !isUnreachable(error) { Issue.record("the save failed otherwise: \(error)") }
            return false
        }
    }

    /// Polls as the editor does until a poll answers (the server is back and everything is
    /// read again), for at most `limit`; returns what the last poll said.
    static func pollUntilAnswered(_ container: Container, limit: Duration = .seconds(20)) -> Result<Bool, StoreError> {
        let end = ContinuousClock.now + limit
        while true {
            do {
                return .success(try container.checkForExternalChanges())
            } catch {
                guard isUnreachable(error), ContinuousClock.now < end else { return .failure(error) }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test func aSaveWhileTheServerIsDownKeepsTheEditsAndSavesWhenItAnswers() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        _ = try view.record(for: Self.id(1))
        #expect(place.container.liveRefresh(of: "items") == .polled)
        #expect(!place.container.isServerUnreachable)

        try place.owned.kill()
        try view.update(Self.id(1), values: ["qty": .integer(42)])
        var lost: StoreError?
        do { try view.save() } catch { lost = error }
        #expect(lost.map(Self.isUnreachable) == true, "\(String(describing: lost))")
        #expect(lost?.message.contains("cannot be reached") == true)
        #expect(view.hasChanges, "the edit is kept")
        #expect(place.container.isServerUnreachable)
        #expect(place.container.liveRefresh(of: "items") == .unreachable)
        // The poll says so too, and a second save is refused at once without a connection.
        var polled: StoreError?
        do { try place.container.checkForExternalChanges() } catch { polled = error }
        #expect(polled.map(Self.isUnreachable) == true, "\(String(describing: polled))")
        do { try view.save() } catch { lost = error }
        #expect(lost.map(Self.isUnreachable) == true)

        try place.owned.start()
        // The first poll that answers reads everything again (nothing was announced meanwhile).
        #expect(try Self.pollUntilAnswered(place.container).get())
        #expect(!place.container.isServerUnreachable)
        #expect(place.container.liveRefresh(of: "items") == .polled)
        try view.save()
        #expect(!view.hasChanges)
        #expect(try place.psql("SELECT qty FROM items WHERE id = 1") == "42")
    }

    /// The server stops answering without closing anything (every process paused, as a
    /// stopped machine or a cut network looks). With no poll running (the UI's loop is the one
    /// waiting), the engine's heartbeat finds it within its own wait and ends every
    /// connection: a read and a save waiting on it fail as unreachable, the edit kept (no
    /// statement of theirs has a deadline: without the heartbeat they would wait for good).
    /// Once the server goes on, the poll answers and the save goes through.
    @Test func aServerThatStopsAnsweringIsFoundAndWaitedForNoMore() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        _ = try view.record(for: Self.id(2))
        try place.owned.pause()
        var paused = true
        defer { if paused { try? place.owned.resume() } }
        // A read on a connection opened before.
        var read: StoreError?
        do { _ = try view.record(for: Self.id(3)) } catch { read = error }
        #expect(read.map(Self.isUnreachable) == true, "\(String(describing: read))")
        try view.update(Self.id(2), values: ["name": .text("while paused")])
        var lost: StoreError?
        do { try view.save() } catch { lost = error }
        #expect(lost.map(Self.isUnreachable) == true, "\(String(describing: lost))")
        #expect(place.container.isServerUnreachable)
        #expect(view.hasChanges)

        try place.owned.resume()
        paused = false
        // (The feed's own connection lived through the pause: nothing it was sent is lost.)
        #expect(throws: Never.self) { _ = try Self.pollUntilAnswered(place.container).get() }
        #expect(!place.container.isServerUnreachable)
        try view.save()
        #expect(try place.psql("SELECT name FROM items WHERE id = 2") == "while paused")
    }

    /// A commit heard just before the server went away, not yet read into the view: while
    /// the server is gone the view goes on with what it holds (edits work), and the commit is
    /// read once it answers, not dropped.
    @Test func aCommitHeardBeforeTheServerWentIsReadOnceItAnswers() throws {
        let place = try Self.place()
        defer { place.close() }
        try Self.announce("items", at: place.location)
        _ = try place.engine.readSchema()
        let view = place.container.viewContext
        _ = try view.record(for: Self.id(1))
        try place.psql("UPDATE items SET qty = 50 WHERE id = 1")
        #expect(try place.container.checkForExternalChanges())
        try place.owned.kill()
        #expect(try view.record(for: Self.id(1))?["qty"] == .integer(1))
        try view.update(Self.id(1), values: ["name": .text("edited offline")])
        try place.owned.start()
        // (The feed's own connection is gone too: its first answer names every table.)
        _ = try Self.pollUntilAnswered(place.container).get()
        #expect(try view.record(for: Self.id(1))?["qty"] == .integer(50))
        try view.save()
        #expect(try place.psql("SELECT name || ' ' || qty FROM items WHERE id = 1") == "edited offline 50")
    }

    /// The answer to a new record's COMMIT is lost: the server is asked whether it committed.
    /// Here it did not (the connection ended inside the commit, by a deferred trigger that
    /// ends its own connection once): the save says the server was lost, and the save tried
    /// again stores the record once.
    @Test func aNewRecordWhoseCommitWasCutOffIsStoredOnce() throws {
        let place = try Self.place()
        defer { place.close() }
        try place.psql(PostgresTestServer.atFirstCommit(into: "items", name: "cut", run: "PERFORM pg_terminate_backend(pg_backend_pid());"))
        let view = place.container.viewContext
        _ = try view.insert(into: "items", values: ["id": .integer(10), "name": .text("new one")])
        var lost: StoreError?
        do { try view.save() } catch { lost = error }
        #expect(lost.map(Self.isUnreachable) == true, "\(String(describing: lost))")
        #expect(try place.psql("SELECT count(*) FROM items WHERE id = 10") == "0")
        _ = try Self.pollUntilAnswered(place.container).get()
        try view.save()
        #expect(try place.psql("SELECT count(*) FROM items WHERE name = 'new one'") == "1")
    }

    /// The connection is cut just after the server committed a new record (its answer never
    /// comes): the server is asked, says it committed, and the save is done, the record
    /// stored once. (Tried again blindly, it would have been stored twice.)
    @Test func aNewRecordWhoseCommitAnswerWasLostIsStoredOnce() throws {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        defer { server.drop(database) }
        try server.psql(database, "CREATE TABLE notes (id serial PRIMARY KEY, body text)")
        let proxy = try CuttingProxy(targetPort: server.port)
        defer { proxy.stop() }
        let url = "postgres://cardfile:\(server.password)@127.0.0.1:\(proxy.port)/\(database)"
        let location = try PostgresLocation.resolve(url, environment: [:], homeFolder: TemporaryDirectory().path, loginName: "x").location
        let engine = try PostgresEngine(location)
        defer { engine.close() }
        let container = try Container(engine: engine, options: StoreOptions(busyTimeout: 1))
        let view = container.viewContext
        _ = try view.insert(into: "notes", values: ["body": .text("once")])
        proxy.cutAfterNextCommit()
        try view.save()
        #expect(!view.hasChanges)
        #expect(try server.psql(database, "SELECT count(*) FROM notes WHERE body = 'once'") == "1")
        #expect(!container.isServerUnreachable)
        try view.save()
        #expect(try server.psql(database, "SELECT count(*) FROM notes") == "1")
    }

    /// The server dies while it commits a new record, and cannot be asked: the save says the
    /// outcome is not known and is not tried again by itself; nothing was stored, and the
    /// record is still there to save once the server is back.
    @Test func aNewRecordWhoseCommitCannotBeAskedAboutIsNotSavedAgainBlindly() throws {
        let place = try Self.place()
        defer { place.close() }
        try place.psql(PostgresTestServer.atFirstCommit(into: "items", name: "slow", run: "PERFORM pg_sleep(3);"))
        let view = place.container.viewContext
        _ = try view.insert(into: "items", values: ["id": .integer(11), "name": .text("in doubt")])
        let killer = Thread { Thread.sleep(forTimeInterval: 1); try? place.owned.kill() }
        killer.start()
        var outcome: StoreError?
        do { try view.save() } catch { outcome = error }
        while !killer.isFinished { Thread.sleep(forTimeInterval: 0.05) }
        guard case .saveOutcomeUnknown? = outcome else {
            Issue.record("expected an unknown outcome, got \(String(describing: outcome))")
            return
        }
        #expect(outcome?.message.contains("may store them twice") == true)
        #expect(view.hasChanges, "the new record is kept")
        try place.owned.start()
        _ = try Self.pollUntilAnswered(place.container).get()
        #expect(try place.psql("SELECT count(*) FROM items WHERE id = 11") == "0")
        try view.save()
        #expect(try place.psql("SELECT count(*) FROM items WHERE id = 11") == "1")
    }

    /// Without triggers a table is polled: another client's commit is heard within a second or
    /// so, and a quiet server costs no refresh. With `pg-setup`'s triggers it is announced.
    @Test func tablesWithoutTriggersArePolledAndWithThemAnnounced() throws {
        let place = try Self.place()
        defer { place.close() }
        try place.psql("CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'a')")
        _ = try place.engine.readSchema()
        #expect(place.container.liveRefresh(of: "notes") == .polled)
        // Quiet: no poll reports anything.
        _ = try place.engine.changedElsewhere()
        let quietEnd = ContinuousClock.now + .milliseconds(1500)
        while ContinuousClock.now < quietEnd {
            #expect(try place.engine.changedElsewhere().isEmpty)
            Thread.sleep(forTimeInterval: 0.05)
        }
        // A commit elsewhere: a poll names the polled tables within the interval.
        try place.psql("UPDATE notes SET body = 'b' WHERE id = 1")
        var heard = Set<String>()
        let end = ContinuousClock.now + .seconds(5)
        while heard.isEmpty, ContinuousClock.now < end {
            heard = try place.engine.changedElsewhere()
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(heard == ["items", "notes"])

        // With the triggers, commits to the table are announced as they happen.
        try Self.announce("notes", at: place.location)
        _ = try place.engine.readSchema()
        #expect(place.container.liveRefresh(of: "notes") == .announced)
        #expect(place.container.liveRefresh(of: "items") == .polled)
        _ = try place.engine.changedElsewhere()
        try place.psql("UPDATE notes SET body = 'c' WHERE id = 1")
        // (At the next poll: no second's wait, and the polled table is not named with it
        // unless the second since its last report is up.)
        #expect(try place.engine.changedElsewhere().contains("notes"))
    }

    /// Random outages among random edits, saves, polls and another writer's commits (psql, on
    /// other fields): whatever the order, once the server is back and the saves retried, the
    /// table holds every edit of both, and nothing was overwritten.
    @Test func randomOutagesLoseNoEdit() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let rows = 4
        let place = try Self.place(rows: rows)
        defer { place.close() }
        // (Announced, so the view hears the other writer's commit at the next poll and an
        // edit of ours after it starts from it: an edit made without having seen it would be
        // a conflict, rightly, which this oracle does not model.)
        try Self.announce("items", at: place.location)
        _ = try place.engine.readSchema()
        let view = place.container.viewContext
        for number in 1...rows { _ = try view.record(for: Self.id(number)) }
        let editor = place.container.editorContext(parent: view)
        // What each field should hold in the end.
        var expected: [Int: [String: String]] = [:]
        for number in 1...rows { expected[number] = ["name": "item \(number)", "qty": "\(number)"] }
        // Fields with edits of ours not yet on the server (psql leaves those alone).
        var pending: [Int: Set<String>] = [:]
        var up = true
        var log: [String] = []

        for step in 0..<Fuzz.scaled(40) {
            let number = 1 + random.next(below: rows)
            switch random.next(below: 10) {
            case 0, 1:
                // Kill or start the server; sometimes while a save is on its way.
                if up {
                    if random.next(below: 2) == 0, view.hasChanges {
                        let delay = Double(random.next(below: 4)) / 1000
                        let postmaster = try place.owned.postmaster()
                        let killer = Thread { Thread.sleep(forTimeInterval: delay); kill(postmaster, SIGKILL) }
                        killer.start()
                        if Self.saveOrFindTheServerGone(view) { pending = [:] }
                        while !killer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
                        try place.owned.kill()
                        log.append("\(step): kill during a save")
                    } else {
                        try place.owned.kill()
                        log.append("\(step): kill")
                    }
                    up = false
                } else {
                    try place.owned.start()
                    up = true
                    log.append("\(step): start")
                }
            case 2, 3, 4:
                let field = random.next(below: 2) == 0 ? "name" : "qty"
                let value = random.next(below: 1000)
                try editor.update(Self.id(number), values: [field: field == "qty" ? .integer(Int64(value)) : .text("mine \(value)")])
                try editor.save()
                expected[number]?[field] = field == "qty" ? "\(value)" : "mine \(value)"
                pending[number, default: []].insert(field)
                log.append("\(step): edit \(number).\(field)")
            case 5, 6:
                if Self.saveOrFindTheServerGone(view) {
                    pending = [:]
                    log.append("\(step): saved")
                } else {
                    #expect(!up || place.container.isServerUnreachable, "seed \(seed)")
                    log.append("\(step): save found the server gone")
                }
            case 7:
                _ = try? place.container.checkForExternalChanges()
                _ = try? view.processPendingChanges()
            default:
                // The other writer, on a field we have no edit of.
                guard up else { continue }
                let free = ["name", "qty"].filter { !(pending[number]?.contains($0) ?? false) }
                guard let field = free.randomElement(using: &random) else { continue }
                let value = random.next(below: 1000)
                let text = field == "qty" ? "\(value)" : "theirs \(value)"
                try place.psql("UPDATE items SET \(field) = '\(text)' WHERE id = \(number)")
                // (Just after a restart the engine may still wait before it connects again.)
                _ = try Self.pollUntilAnswered(place.container).get()
                try view.processPendingChanges()
                expected[number]?[field] = text
                log.append("\(step): psql \(number).\(field)")
            }
        }
        if !up { try place.owned.start() }
        #expect(throws: Never.self, "seed \(seed)") { _ = try Self.pollUntilAnswered(place.container).get() }
        try view.processPendingChanges()
        var saved = false
        for _ in 0..<100 where !saved {
            saved = Self.saveOrFindTheServerGone(view)
            if !saved { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(saved, "seed \(seed)")
        let stored = try place.psql("SELECT string_agg(id || '|' || name || '|' || qty, ',' ORDER BY id) FROM items")
        let wanted = (1...rows).map { "\($0)|\(expected[$0]!["name"]!)|\(expected[$0]!["qty"]!)" }.joined(separator: ",")
        #expect(stored == wanted, "seed \(seed): \(log.joined(separator: "; "))")
    }
}
