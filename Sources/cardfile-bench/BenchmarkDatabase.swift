import Foundation
import GRDB

/// Generates the benchmark table: `items` with `rows` rows of mixed text and numbers, an index
/// on `year` and none on `name` (so both kinds of sort can be measured).
enum BenchmarkDatabase {
    static let categories = ["books", "music", "films", "games", "tools", "garden", "kitchen", "toys"]
    static let words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "haven", "iris", "juniper",
                        "kestrel", "lumen", "maple", "nectar", "onyx", "pine", "quartz", "raven", "sage", "tundra"]

    static func create(at path: String, rows: Int) throws {
        try? FileManager.default.removeItem(atPath: path)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: """
                CREATE TABLE items (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    category TEXT,
                    year INTEGER,
                    price REAL,
                    notes TEXT
                );
                """)
        }
        var generator = SystemRandomNumberGenerator()
        try queue.inTransaction { db in
            let insert = try db.makeStatement(sql: "INSERT INTO items (id, name, category, year, price, notes) VALUES (?, ?, ?, ?, ?, ?)")
            for id in 1...rows {
                let name = "\(words[Int.random(in: 0..<words.count, using: &generator)]) \(words[Int.random(in: 0..<words.count, using: &generator)]) \(id)"
                let notes = id % 100 == 0 ? "needle in the haystack \(id)" : "plain note \(id % 997)"
                try insert.execute(arguments: [
                    id, name, categories[id % categories.count], 1900 + (id * 7919) % 125,
                    Double((id * 31) % 10_000) / 100, notes,
                ])
            }
            return .commit
        }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE INDEX items_by_year ON items (year)")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try queue.close()
    }
}
