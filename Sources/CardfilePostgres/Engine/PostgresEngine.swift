import CardfileStore
import Foundation
import NIOConcurrencyHelpers

/// PostgreSQL as a container's engine: a few connections to one database, the search path's
/// tables and views as the store's schema, reads and write transactions on sessions of their
/// own.
///
/// - Writes go one at a time through one connection, each a transaction.
/// - Reads take a free connection of their own (opening one more, up to ``maxReaders``), so a
///   long scan in the background never holds up a page on the screen or a save.
package final class PostgresEngine: StoreEngine {
    package let location: String
    package var name: String { "PostgreSQL" }
    package static let maxReaders = 3

    private let place: PostgresLocation
    private let writer: PostgresSession
    private let writing = NSLock()
    private let readers: NSCondition
    private let pool: Pool
    /// Other connections' commits, announced by `cardfile pg-setup`'s triggers (nothing is
    /// announced without them).
    private let feed: PostgresChangeFeed
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
            feed = try PostgresChangeFeed(location: place) {}
            feed.ignore(backend: try writer.backend())
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
        feed.close()
        writer.close()
    }

    /// Every table and view of the search path (in path order, as the catalog lists them),
    /// each described; a table the user may not read is not listed.
    package func readSchema() throws -> DatabaseSchema {
        try read { session in
            guard let engine = session as? PostgresEngineSession else { return DatabaseSchema(tables: []) }
            let catalog = PostgresCatalog(session: engine.session)
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
    }

    /// What the feed announced since the last call, by table. A lost feed connection counts
    /// as every table changed (what was committed meanwhile was not announced).
    package func changedElsewhere() throws -> Set<String> {
        try feed.catchUp()
        let changes = feed.drain()
        let known = names.withLockedValue { $0 }
        if changes.connectionLost { return Set(known.values) }
        return Set(changes.tables.keys.compactMap { known[$0] })
    }

    package func read<T>(_ body: (any EngineSession) throws -> T) throws -> T {
        let session = try takeReader()
        defer { giveBack(session) }
        return try body(PostgresEngineSession(session))
    }

    package func write<T>(_ body: (any EngineSession) throws -> T) throws -> T {
        writing.lock()
        defer { writing.unlock() }
        try writer.run("BEGIN")
        do {
            let result = try body(PostgresEngineSession(writer, inTransaction: true))
            try writer.run("COMMIT")
            return result
        } catch {
            try? writer.run("ROLLBACK")
            throw error
        }
    }

    private func takeReader() throws(PostgresProblem) -> PostgresSession {
        readers.lock()
        while pool.free.isEmpty && pool.count >= Self.maxReaders { readers.wait() }
        if let session = pool.free.popLast() {
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

    private func giveBack(_ session: PostgresSession) {
        readers.lock()
        pool.free.append(session)
        readers.signal()
        readers.unlock()
    }
}
