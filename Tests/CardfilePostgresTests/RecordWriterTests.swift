import CardfilePostgres
import CardfileStore
import CardfileTestSupport
import Foundation
import PostgresNIO
import Testing

/// Saves by row version against the real server, with a second connection as the other writer.
@Suite("PostgreSQL saves by row version", .timeLimit(.minutes(5)))
struct RecordWriterTests {
    struct Place {
        let server: PostgresTestServer
        let database: String
        let session: PostgresSession
        let other: PostgresSession
        let writer: PostgresRecordWriter

        init(_ sql: String = "CREATE TABLE books (id int PRIMARY KEY, title text, author text, price numeric(8,2), seq int GENERATED ALWAYS AS IDENTITY)") throws {
            server = try PostgresTestServer.current()
            database = try server.makeDatabase()
            try server.psql(database, sql)
            let location = try server.location(database)
            session = try PostgresSession.open(location)
            other = try PostgresSession.open(location)
            let catalog = PostgresCatalog(session: session)
            writer = PostgresRecordWriter(session: session, table: try catalog.describe(try #require(try catalog.relation(named: "books"))))
        }

        func close() {
            session.close()
            other.close()
            server.drop(database)
        }

        /// The other writer's statement.
        func elsewhere(_ sql: String) throws {
            try other.run(PostgresQuery(unsafeSQL: sql))
        }

        func stored(_ id: Int) throws -> [Value]? {
            try writer.read(key: [.integer(Int64(id))])?.values
        }
    }

    static func book(_ id: Int64, _ title: String, _ author: String, _ price: String) -> [Value] {
        [.integer(id), .text(title), .text(author), .decimal(price)]
    }

    @Test func eachCaseOfTheRule() throws {
        let place = try Place()
        defer { place.close() }
        let writer = place.writer
        let first = try writer.insert(Self.book(1, "Emma", "Austen", "9.99"), columns: [0, 1, 2, 3])
        #expect(first.values == Self.book(1, "Emma", "Austen", "9.99") + [.integer(1)])

        // Nothing elsewhere: saved, and the version moved.
        var mine = first.values
        mine[1] = .text("Emma!")
        guard case .saved(let second) = try writer.update(original: first, mine: mine) else { Issue.record("not saved"); return }
        #expect(second.values[1] == .text("Emma!"))
        #expect(second.version != first.version)

        // Another field changed elsewhere: both kept, silently.
        try place.elsewhere("UPDATE books SET author = 'J. Austen' WHERE id = 1")
        mine = second.values
        mine[3] = .decimal("12.00")
        guard case .saved(let third) = try writer.update(original: second, mine: mine) else { Issue.record("not merged"); return }
        #expect(third.values == Self.book(1, "Emma!", "J. Austen", "12.00") + [.integer(1)])

        // A change elsewhere that moved the version and no value: no conflict.
        try place.elsewhere("UPDATE books SET title = title WHERE id = 1")
        mine = third.values
        mine[1] = .text("Emma (1815)")
        guard case .saved(let fourth) = try writer.update(original: third, mine: mine) else { Issue.record("a no-op update was a conflict"); return }
        #expect(fourth.values[1] == .text("Emma (1815)"))

        // The same field changed on both sides: nothing written, the three versions given.
        try place.elsewhere("UPDATE books SET title = 'Theirs' WHERE id = 1")
        mine = fourth.values
        mine[1] = .text("Mine")
        guard case .conflict(let merge, let theirs) = try writer.update(original: fourth, mine: mine) else { Issue.record("no conflict"); return }
        #expect(merge.contested == [1])
        #expect(merge.original[1] == .text("Emma (1815)"))
        #expect(merge.mine[1] == .text("Mine"))
        #expect(merge.theirs[1] == .text("Theirs"))
        #expect(try place.stored(1)?[1] == .text("Theirs"))
        // The person chose mine: saved against their version.
        guard case .saved(let chosen) = try writer.update(original: theirs, mine: merge.merged(contestedTaking: .mine)) else { Issue.record("choice not saved"); return }
        #expect(chosen.values[1] == .text("Mine"))
        // A policy can decide instead.
        try place.elsewhere("UPDATE books SET title = 'Theirs again' WHERE id = 1")
        mine = chosen.values
        mine[1] = .text("Mine again")
        guard case .saved(let trumped) = try writer.update(original: chosen, mine: mine, policy: .objectTrump) else { Issue.record("policy not applied"); return }
        #expect(trumped.values[1] == .text("Mine again"))

        // Deleted elsewhere: said so.
        try place.elsewhere("DELETE FROM books WHERE id = 1")
        #expect(try writer.update(original: trumped, mine: mine) == .deletedElsewhere)
    }

    @Test func deletesKeepAChangeMadeElsewhere() throws {
        let place = try Place()
        defer { place.close() }
        let writer = place.writer
        let a = try writer.insert(Self.book(1, "A", "x", "1"), columns: [0, 1, 2, 3])
        let b = try writer.insert(Self.book(2, "B", "y", "2"), columns: [0, 1, 2, 3])
        let c = try writer.insert(Self.book(3, "C", "z", "3"), columns: [0, 1, 2, 3])
        try place.elsewhere("UPDATE books SET title = 'A2' WHERE id = 1")
        guard case .changedElsewhere(let theirs) = try writer.delete(original: a) else { Issue.record("deleted over a change"); return }
        #expect(theirs.values[1] == .text("A2"))
        #expect(try place.stored(1) != nil)
        try place.elsewhere("UPDATE books SET title = title WHERE id = 2")
        #expect(try writer.delete(original: b) == .deleted, "a no-op update does not keep the record")
        try place.elsewhere("DELETE FROM books WHERE id = 3")
        #expect(try writer.delete(original: c) == .alreadyGone)
    }

    @Test func generatedAndIdentityColumnsAreNeverWritten() throws {
        let place = try Place()
        defer { place.close() }
        let first = try place.writer.insert(Self.book(1, "A", "x", "1"), columns: [0, 1, 2, 3])
        var mine = first.values
        mine[4] = .integer(99)   // the identity column
        mine[1] = .text("B")
        guard case .saved(let saved) = try place.writer.update(original: first, mine: mine) else { Issue.record("not saved"); return }
        #expect(saved.values[4] == .integer(1))
        #expect(saved.values[1] == .text("B"))
    }

    /// Rounds of random moves: the other connection changes a field, touches the row without
    /// changing it, deletes it or puts it back; this writer saves an edit from the version it
    /// last read. The oracle is the rule itself applied to what the other writer left: the
    /// stored row after every save must be the merge, or unchanged on a conflict.
    @Test func randomTwoWritersAgainstTheRule() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try Place()
        defer { place.close() }
        let writer = place.writer
        let ids: [Int64] = [1, 2, 3]
        var held: [Int64: PostgresRecord] = [:]
        for id in ids { held[id] = try writer.insert(Self.book(id, "t\(id)", "a\(id)", "\(id).00"), columns: [0, 1, 2, 3]) }
        var counts = (saved: 0, merged: 0, conflicts: 0, noOps: 0, deleted: 0)
        for round in 0..<Fuzz.scaled(1000) {
            let id = ids[random.next(below: ids.count)]
            let context = "seed \(seed) round \(round) record \(id)"
            // The other writer's move, if any.
            switch random.next(below: 6) {
            case 0: try place.elsewhere("UPDATE books SET title = 'o\(round)' WHERE id = \(id)")
            case 1: try place.elsewhere("UPDATE books SET author = 'o\(round)' WHERE id = \(id)")
            case 2:
                try place.elsewhere("UPDATE books SET title = title, price = price WHERE id = \(id)")
                counts.noOps += 1
            case 3 where random.next(below: 4) == 0: try place.elsewhere("DELETE FROM books WHERE id = \(id)")
            default: break
            }
            guard let original = held[id] else {
                // Put back a record this writer had lost, as a person restoring it would.
                if try place.stored(Int(id)) == nil {
                    held[id] = try writer.insert(Self.book(id, "back\(round)", "a", "0"), columns: [0, 1, 2, 3])
                } else {
                    held[id] = try writer.read(key: [.integer(id)])
                }
                continue
            }
            let before = try place.stored(Int(id))
            var mine = original.values
            let field = 1 + random.next(below: 3)
            mine[field] = field == 3 ? .decimal("\(random.next(below: 100)).\(10 + random.next(below: 90))") : .text("m\(round)")
            let outcome = try writer.update(original: original, mine: mine)
            let after = try place.stored(Int(id))
            guard let theirs = before else {
                #expect(outcome == .deletedElsewhere, "\(context)")
                #expect(after == nil, "\(context)")
                held[id] = nil
                counts.deleted += 1
                continue
            }
            let merge = ThreeWayMerge(original: original.values, mine: mine, theirs: theirs, fields: [0, 1, 2, 3])
            switch outcome {
            case .saved(let stored):
                #expect(merge.contested.isEmpty, "\(context): saved over a contested field")
                #expect(stored.values == merge.merged(contestedTaking: .mine), "\(context)")
                #expect(after == stored.values, "\(context)")
                if theirs != original.values { counts.merged += 1 } else { counts.saved += 1 }
                held[id] = stored
            case .conflict(let reported, let current):
                #expect(merge.contested == [field], "\(context): a conflict the rule does not see")
                #expect(reported.contested == merge.contested, "\(context)")
                #expect(after == theirs, "\(context): a conflict wrote something")
                counts.conflicts += 1
                // The person takes theirs: the record is held at their version from now on.
                held[id] = current
            case .deletedElsewhere:
                Issue.record("\(context): deleted, yet the row was there")
            }
        }
        print("randomTwoWritersAgainstTheRule: \(counts)")
        #expect(counts.conflicts > 0 && counts.merged > 0 && counts.saved > 0, "seed \(seed): every case was met: \(counts)")
    }
}
