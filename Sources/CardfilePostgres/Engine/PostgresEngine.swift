import CardfileStore
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// PostgreSQL as a container's engine: a few connections to one database, the search path's
/// tables and views as the store's schema, reads and write transactions on sessions of their
/// own.
///
/// - Writes go one at a time through one connection, each a transaction.
/// - Reads take a free connection of their own (opening one more, up to ``maxReaders``), so a
///   long scan in the background never holds up a page on the screen or a save.
package final class PostgresEngine: StoreEngine, @unchecked Sendable {  // (`writer` is touched only under `writing`.)
    package let location: String
    package var name: String { "PostgreSQL" }
    package static let maxReaders = 3

    private let place: PostgresLocation
    /// The writing connection; opened again when it was lost (a write then starts afresh).
    private var writer: PostgresSession
    /// The `lock_timeout` set on the writer, in milliseconds (set again only when it changes).
    private var writerLockWait: Int?
    private let writing = NSLock()
    private let readers: NSCondition
    private let pool: Pool
    /// Commits, announced by `cardfile pg-setup`'s triggers (nothing is announced without
    /// them): other connections' and ours, which names what our writes' cascades and triggers
    /// changed too. Opened again when its connection was lost.
    private let feed: NIOLockedValueBox<PostgresChangeFeed?>
    /// The store's names of the tables, by schema and name (made by ``readSchema()``).
    private let names = NIOLockedValueBox([PendingChanges.QualifiedName: String]())

    /// The reading connections: the free ones, and how many there are in all.
    private final class Pool: @unchecked Sendable {
        var free: [PostgresSession] = []
        var count = 0
    }

    /// Connects (the writer at once; readers when first needed).
    package init(_ place: PostgresLocation) throws(PostgresProblem) {
        self.place = place
        location = place.description
        writer = try PostgresSession.open(place)
        readers = NSCondition()
        pool = Pool()
        do {
            feed = NIOLockedValueBox(try PostgresChangeFeed(location: place) {})
        } catch {
            writer.close()
            throw error
        }
    }

    /// Closes every connection.
    package func close() {
        readers.lock()
        let open = pool.free
        pool.free = []
        readers.unlock()
        for session in open { session.close() }
        feed.withLockedValue { $0?.close() }
        writing.lock()
        writer.close()
        writing.unlock()
    }

    /// Every table and view of the search path (in path order, as the catalog lists them),
    /// each described; a table the user may not read is not listed.
    package func readSchema() throws -> DatabaseSchema {
        let session = try takeReader()
        defer { giveBack(session) }
        let catalog = PostgresCatalog(session: session)
        var tables: [TableSchema] = []
        var named: [PendingChanges.QualifiedName: String] = [:]
        for relation in try catalog.relations() {
            let table = try catalog.describe(relation).tableSchema
            tables.append(table)
            named[PendingChanges.QualifiedName(schema: relation.schema, table: relation.name)] = table.name
        }
        names.withLockedValue { $0 = named }
        return DatabaseSchema(tables: tables)
    }

    /// What the feed announced since the last call, by table. A lost feed connection counts
    /// as every table changed (what was committed meanwhile was not announced).
    package func changedElsewhere() throws -> Set<String> {
        let known = names.withLockedValue { $0 }
        let changes: PendingChanges? = feed.withLockedValue { feed in
            guard let current = feed else { return nil }
            do {
                try current.catchUp()
            } catch {
                return nil
            }
            let changes = current.drain()
            return changes.connectionLost ? nil : changes
        }
        guard let changes else {
            // The feed's connection is gone: what was committed meanwhile was not announced.
            // Everything is read again, and a new feed listens from now on (when the server
            // answers; the next poll tries again otherwise).
            feed.withLockedValue { feed in
                feed?.close()
                feed = try? PostgresChangeFeed(location: place) {}
            }
            return Set(known.values)
        }
        return Set(changes.tables.keys.compactMap { known[$0] })
    }

    package func read<T>(_ body: (any EngineSession) throws -> T) throws -> T {
        let session = try takeReader()
        defer { giveBack(session) }
        return try body(PostgresEngineSession(session))
    }

    /// One transaction on the writing connection, opened again first when it was lost. A row
    /// lock held elsewhere is waited for `lockWait` (`lock_timeout`), then the write fails as
    /// busy.
    package func write<T>(lockWait: Duration, _ body: (any EngineSession) throws -> T) throws -> T {
        writing.lock()
        defer { writing.unlock() }
        if writer.connection.isClosed {
            writer = try PostgresSession.open(place)
            writerLockWait = nil
        }
        let milliseconds = max(1, Int(lockWait.components.seconds * 1000 + lockWait.components.attoseconds / 1_000_000_000_000_000))
        if writerLockWait != milliseconds {
            try writer.run(PostgresQuery(unsafeSQL: "SET lock_timeout = \(milliseconds)"))
            writerLockWait = milliseconds
        }
        try writer.run("BEGIN")
        do {
            let result = try body(PostgresEngineSession(writer, inTransaction: true))
            try writer.run("COMMIT")
            return result
        } catch PostgresProblem.refused(_, _, "55P03") {
            try? writer.run("ROLLBACK")
            throw StoreError.busy
        } catch {
            try? writer.run("ROLLBACK")
            throw error
        }
    }

    private func takeReader() throws(PostgresProblem) -> PostgresSession {
        readers.lock()
        while pool.free.isEmpty && pool.count >= Self.maxReaders { readers.wait() }
        // (A connection the server ended is dropped: the next one, or a new one, serves.)
        while let session = pool.free.popLast() {
            if session.connection.isClosed {
                pool.count -= 1
                continue
            }
            readers.unlock()
            return session
        }
        pool.count += 1
        readers.unlock()
        do {
            return try PostgresSession.open(place)
        } catch {
            readers.lock()
            pool.count -= 1
            readers.signal()
            readers.unlock()
            throw error
        }
    }

    /// Returns a reading connection to the pool; one that was lost is dropped (the next read
    /// opens another).
    private func giveBack(_ session: PostgresSession) {
        readers.lock()
        if session.connection.isClosed { pool.count -= 1 } else { pool.free.append(session) }
        readers.signal()
        readers.unlock()
    }
}
