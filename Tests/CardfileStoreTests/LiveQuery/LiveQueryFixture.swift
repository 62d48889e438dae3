import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// A few thousand rows with duplicates and NULLs in the sort columns, an index on `year` and
/// none on `name`, and an oracle that answers with plain SQL on a connection of its own.
struct ItemsFixture {
    let directory = TemporaryDirectory()
    let path: String
    let container: Container
    static let rows = 3000

    init(rows: Int = ItemsFixture.rows, options: StoreOptions = StoreOptions()) throws {
        path = directory.file("items.sqlite")
        var sql = """
            CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, category TEXT, year INTEGER, price REAL, notes TEXT);
            CREATE INDEX items_by_year ON items (year);
            BEGIN;
            """
        let words = ["amber", "Birch", "cedar", "delta", "Ember", "fjord", "grove", "haven"]
        let categories = ["books", "music", "films", "games"]
        for id in 1...rows {
            let name = "\(words[(id * 7) % words.count]) \(words[(id * 3) % words.count]) \(id % 50)"
            let year = id % 13 == 0 ? "NULL" : String(1950 + (id * 37) % 70)
            let notes = id % 9 == 0 ? "NULL" : (id % 11 == 0 ? "''" : "'note \(id % 17)'")
            sql += "INSERT INTO items VALUES (\(id), '\(name)', '\(categories[id % 4])', \(year), \(Double(id % 100) / 4), \(notes));\n"
        }
        sql += "COMMIT;"
        try makeDatabase(at: path, sql)
        container = try Container(path: path, options: options)
    }

    var view: ObjectContext { container.viewContext }

    func item(_ id: Int64) -> ObjectID { ObjectID(table: "items", rowid: id) }

    /// One value straight from the file (see ``readDisk(_:_:)``).
    func disk(_ sql: String) throws -> Value { try readDisk(path, sql) }

    /// The ids at `offset..<offset+limit` of `SELECT id FROM items WHERE where ORDER BY order`,
    /// and the total count, straight from SQLite.
    func oracle(where condition: String = "1", order: String = "id", offset: Int, limit: Int) throws -> (ids: [Int64], count: Int) {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM items WHERE \(condition) ORDER BY \(order) LIMIT ? OFFSET ?", arguments: [limit, offset])
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE \(condition)") ?? 0
            return (ids, count)
        }
    }

    func liveQuery(_ spec: LiveQuerySpec, height: Int = 20, interval: Duration = .milliseconds(250)) throws -> LiveQuery {
        let query = try LiveQuery(context: view, spec: spec, height: height, minimumRefreshInterval: interval)
        try query.waitForBackgroundWork()
        return query
    }
}

extension LiveWindow {
    /// The rowids of the rows shown.
    var rowids: [Int64] {
        rows.compactMap { row in
            if case .integer(let id) = row.id.primaryKeyValues?.first { return id }
            return nil
        }
    }
}

/// A virtual clock for driving live queries.
struct TestClock {
    private(set) var now = ContinuousClock.now

    mutating func advance(_ duration: Duration) {
        now = now + duration
    }
}
