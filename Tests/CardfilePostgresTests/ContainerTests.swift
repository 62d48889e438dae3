@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// A container on PostgreSQL: the same contexts, live query and saves as on SQLite, with
/// psql as the other writer.
@Suite("PostgreSQL: a container", .timeLimit(.minutes(5)))
struct ContainerTests {
    struct Place {
        let server: PostgresTestServer
        let database: String
        let engine: PostgresEngine
        let container: Container

        func psql(_ sql: String) throws -> String { try server.psql(database, sql) }
        func close() {
            engine.close()
            server.drop(database)
        }
    }

    static func place(busyTimeout: TimeInterval = 5) throws -> Place {
        let server = try PostgresTestServer.current()
        let database = try server.makeDatabase()
        try server.psql(database, """
            CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL UNIQUE, qty int CHECK (qty >= 0), price numeric(8,2), seen date);
            INSERT INTO items (name, qty, price, seen) VALUES ('apple', 3, 1.50, '2026-01-02'), ('pear', 0, NULL, NULL), ('fig', 7, 12.00, '2026-03-04');
            """)
        let engine = try PostgresEngine(try server.location(database))
        return Place(server: server, database: database, engine: engine, container: try Container(engine: engine, options: StoreOptions(busyTimeout: busyTimeout)))
    }

    static func id(_ number: Int64) -> ObjectID { ObjectID(table: "items", primaryKey: [.integer(number)]) }

    @Test func listsEditsAndSavesThroughTheContexts() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        #expect(place.container.schema.tables.map(\.name) == ["items"])

        let live = try LiveQuery(context: view, spec: LiveQuerySpec(table: "items", sort: [ColumnSort("name")]), height: 10)
        #expect(live.window.rows.map { $0.values[1] } == [.text("apple"), .text("fig"), .text("pear")])
        #expect(live.window.rows.first?.values == [.integer(1), .text("apple"), .integer(3), .decimal("1.50"), .text("2026-01-02")])

        // An editor's save goes to the view context; the view context's to the server.
        let editor = place.container.editorContext(parent: view)
        try editor.update(Self.id(1), values: ["qty": .integer(5), "seen": .text("2026-02-01")])
        try editor.save()
        #expect(try place.psql("SELECT qty FROM items WHERE id = 1") == "3")
        try view.save()
        #expect(try place.psql("SELECT qty || ' ' || seen FROM items WHERE id = 1") == "5 2026-02-01")

        // An insert takes the key the server gives; a delete goes.
        let new = try view.insert(into: "items", values: ["name": .text("kiwi"), "price": .decimal("0.99")])
        try view.delete(Self.id(2))
        try view.save()
        #expect(try place.psql("SELECT string_agg(id || ':' || name, ',' ORDER BY id) FROM items") == "1:apple,3:fig,4:kiwi")
        #expect(try view.record(for: Self.id(4))?["price"] == .decimal("0.99"))
        #expect(new.isTemporary)
        // (On three rows PostgreSQL's planner sorts rather than walk the index: a new row
        // shows once the background sort has placed it, as on SQLite without an index.)
        _ = try live.update(now: .now, immediately: true)
        try live.waitForBackgroundWork()
        _ = try live.update(now: .now + .seconds(1), immediately: true)
        #expect(live.window.rows.map { $0.values[1] } == [.text("apple"), .text("fig"), .text("kiwi")])
    }

    @Test func aChangeElsewhereMergesOrConflicts() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        _ = try view.record(for: Self.id(1))
        _ = try view.record(for: Self.id(3))

        // Another field changed elsewhere: both changes are kept.
        _ = try place.psql("UPDATE items SET price = 2.00 WHERE id = 1")
        try view.update(Self.id(1), values: ["qty": .integer(9)])
        try view.save()
        #expect(try place.psql("SELECT qty || ' ' || price FROM items WHERE id = 1") == "9 2.00")

        // The same field: a conflict with original, mine and theirs, and nothing written.
        _ = try place.psql("UPDATE items SET qty = 8 WHERE id = 3")
        try view.update(Self.id(3), values: ["qty": .integer(1)])
        let conflict = try #require(conflicts { () throws(StoreError) in try view.save() }.first)
        #expect(conflict.kind == MergeConflict.Kind.updateUpdate)
        let field = try #require(conflict.fields.first { $0.name == "qty" })
        #expect(field.original == .integer(7) && field.mine == .integer(1) && field.theirs == .integer(8))
        #expect(try place.psql("SELECT qty FROM items WHERE id = 3") == "8")

        // Deleted elsewhere while edited: said as such.
        let other = place.container.newBackgroundContext()
        _ = try other.record(for: Self.id(2))
        _ = try place.psql("DELETE FROM items WHERE id = 2")
        try other.update(Self.id(2), values: ["qty": .integer(4)])
        let gone = try #require(conflicts { () throws(StoreError) in try other.save() }.first)
        #expect(gone.kind == MergeConflict.Kind.updateDelete)
    }

    /// What the server stored is what the context holds after a save: PostgreSQL's input
    /// functions rewrite values (a date typed `2026-2-1` is `2026-02-01`), so the written row
    /// comes back through RETURNING; a later edit of another field is no conflict.
    @Test func aSavedRecordHoldsWhatTheServerStored() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        try view.update(Self.id(1), values: ["seen": .text("2026-2-1")])
        try view.save()
        #expect(try view.record(for: Self.id(1))?["seen"] == .text("2026-02-01"))
        try view.update(Self.id(1), values: ["price": .decimal("3.5")])
        try view.save()
        #expect(try view.record(for: Self.id(1))?["price"] == .decimal("3.50"))
        try view.update(Self.id(1), values: ["qty": .integer(4)])
        try view.save()
        #expect(try place.psql("SELECT seen || ' ' || price || ' ' || qty FROM items WHERE id = 1") == "2026-02-01 3.50 4")
    }

    /// A value the column's type refuses names its field, in the server's words, also when it
    /// is the save's only record (the probe that finds the field runs inside the save's
    /// transaction, which the refusal must not have aborted).
    @Test func aValueTheTypeRefusesNamesItsField() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        try view.update(Self.id(1), values: ["seen": .text("not a date"), "name": .text("still apple?")])
        let refused = failures { () throws(StoreError) in try view.save() }
        #expect(refused.count == 1 && refused.first?.field == "seen", "\(refused)")
        if case .refusedValue(let reason)? = refused.first?.rule {
            #expect(reason.contains("invalid input syntax for type date"), "\(reason)")
        } else {
            Issue.record("not a refused value: \(refused)")
        }
        #expect(try place.psql("SELECT name FROM items WHERE id = 1") == "apple")
    }

    /// A row another client holds locked in an open transaction is waited for the busy
    /// timeout, then the save fails as busy, keeping its edits; once the lock is gone it saves.
    @Test func aLockedRowMakesTheSaveBusyNotFrozen() throws {
        let place = try Self.place(busyTimeout: 0.3)
        defer { place.close() }
        let holder = try PostgresSession.open(try place.server.location(place.database))
        defer { holder.close() }
        try holder.run("BEGIN")
        try holder.run("UPDATE items SET qty = 100 WHERE id = 1")
        let view = place.container.viewContext
        try view.update(Self.id(1), values: ["name": .text("waited")])
        let started = ContinuousClock.now
        var busy = false
        do {
            try view.save()
        } catch {
            busy = error == .busy
        }
        #expect(busy)
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(view.hasChanges)
        try holder.run("ROLLBACK")
        try view.save()
        #expect(try place.psql("SELECT name FROM items WHERE id = 1") == "waited")
    }

    /// The server ends every connection of the editor: a poll says everything changed (what
    /// was committed meanwhile was not announced), reads and saves open new connections, and
    /// the change feed announces again.
    @Test func connectionsEndedByTheServerAreOpenedAgain() throws {
        let place = try Self.place()
        defer { place.close() }
        let owner = try PostgresSession.open(try place.server.location(place.database))
        defer { owner.close() }
        _ = try NotifySetup(session: owner).install([try PostgresCatalog(session: owner).describe(try #require(try PostgresCatalog(session: owner).relation(named: "items")))])
        let view = place.container.viewContext
        _ = try view.record(for: Self.id(1))
        _ = try place.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
        _ = try place.psql("UPDATE items SET price = 9.99 WHERE id = 1")
        // (The client notices its ended connections as the server closes them.)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try place.container.checkForExternalChanges())
        try view.processPendingChanges()
        #expect(try view.record(for: Self.id(1))?["price"] == .decimal("9.99"))
        try view.update(Self.id(1), values: ["qty": .integer(11)])
        try view.save()
        #expect(try place.psql("SELECT qty FROM items WHERE id = 1") == "11")
        _ = try place.psql("UPDATE items SET qty = 12 WHERE id = 3")
        #expect(try place.container.checkForExternalChanges())
        #expect(try !place.container.checkForExternalChanges())
    }

    /// What a save's cascade changes shows too: the feed announces our own commits as well.
    @Test func aCascadeOfOurOwnSaveShows() throws {
        let place = try Self.place()
        defer { place.close() }
        _ = try place.psql("CREATE TABLE parts (id int PRIMARY KEY, item int REFERENCES items(id) ON DELETE CASCADE); INSERT INTO parts VALUES (1, 1), (2, 1), (3, 3)")
        let engine = try PostgresEngine(try place.server.location(place.database))
        defer { engine.close() }
        let owner = try PostgresSession.open(try place.server.location(place.database))
        defer { owner.close() }
        let catalog = PostgresCatalog(session: owner)
        _ = try NotifySetup(session: owner).install(try ["items", "parts"].map { try catalog.describe(try #require(try catalog.relation(named: $0))) })
        let container = try Container(engine: engine)
        let view = container.viewContext
        let parts = try LiveQuery(context: view, spec: LiveQuerySpec(table: "parts"), height: 10)
        #expect(parts.window.rows.count == 3)
        try view.delete(Self.id(1))
        try view.save()
        #expect(try container.checkForExternalChanges())
        _ = try parts.update(now: .now, immediately: true)
        try parts.waitForBackgroundWork()
        _ = try parts.update(now: .now + .seconds(1), immediately: true)
        #expect(parts.window.rows.map { $0.values[0] } == [.integer(3)])
    }

    /// A save refused by the database learns nothing silently: a field changed elsewhere that
    /// the refused save merged under the lock is still a conflict when edited next.
    @Test func aRefusedSaveLeavesTheBaseAsItWas() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        _ = try view.record(for: Self.id(1))
        _ = try place.psql("UPDATE items SET name = 'theirs' WHERE id = 1")
        try view.update(Self.id(1), values: ["qty": .integer(-5)])
        #expect(!failures { () throws(StoreError) in try view.save() }.isEmpty)
        try view.update(Self.id(1), values: ["qty": .integer(5), "name": .text("mine")])
        let conflict = conflicts { () throws(StoreError) in try view.save() }
        #expect(conflict.first?.fields.contains { $0.name == "name" && $0.theirs == .text("theirs") && $0.mine == .text("mine") } == true)
        #expect(try place.psql("SELECT name FROM items WHERE id = 1") == "theirs")
    }

    /// Every refused record is reported in one save: the savepoint around each keeps the
    /// transaction usable after the first refusal.
    @Test func everyRefusalIsReportedAndNothingWritten() throws {
        let place = try Self.place()
        defer { place.close() }
        let view = place.container.viewContext
        try view.update(Self.id(1), values: ["name": .text("fig")])      // UNIQUE
        try view.update(Self.id(2), values: ["qty": .integer(-1)])       // CHECK
        try view.update(Self.id(3), values: ["price": .decimal("7.25")]) // fine
        let failures = failures { () throws(StoreError) in try view.save() }
        #expect(Set(failures.map(\.objectID)) == [Self.id(1), Self.id(2)])
        #expect(failures.contains { $0.field == "name" && $0.rule == ValidationFailure.Rule.unique(columns: ["name"]) })
        #expect(failures.contains { if case .check = $0.rule { $0.objectID == Self.id(2) } else { false } })
        #expect(try place.psql("SELECT string_agg(name || ':' || coalesce(qty::text, '-') || ':' || coalesce(price::text, '-'), ',' ORDER BY id) FROM items")
                == "apple:3:1.50,pear:0:-,fig:7:12.00")
    }
}

/// The conflicts `body`'s save met (none when it threw something else or nothing).
func conflicts(_ body: () throws(StoreError) -> Void) -> [MergeConflict] {
    do {
        try body()
    } catch {
        if case .conflicts(let conflicts) = error { return conflicts }
        Issue.record("not a conflict: \(error)")
    }
    return []
}

/// The validation failures `body`'s save met.
func failures(_ body: () throws(StoreError) -> Void) -> [ValidationFailure] {
    do {
        try body()
    } catch {
        if case .validationFailed(let failures) = error { return failures }
        Issue.record("not a validation failure: \(error)")
    }
    return []
}
