import CardfileStore
import Foundation

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
    }

    /// Closes every connection.
    package func close() {
        readers.lock()
        let open = pool.free
        pool.free = []
        readers.unlock()
        for session in open { session.close() }
        writer.close()
    }

    /// Every table and view of the search path (in path order, as the catalog lists them),
    /// each described; a table the user may not read is not listed.
    package func readSchema() throws -> DatabaseSchema {
        try read { session in
            guard let engine = session as? PostgresEngineSession else { return DatabaseSchema(tables: []) }
            let catalog = PostgresCatalog(session: engine.session)
            var tables: [TableSchema] = []
            for relation in try catalog.relations() {
                tables.append(try catalog.describe(relation).tableSchema)
            }
            return DatabaseSchema(tables: tables)
        }
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
