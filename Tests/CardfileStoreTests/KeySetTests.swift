import CardfileTestSupport
import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// A set of many keys sent as one JSON array finds exactly the rows a list of bound keys
/// finds, for keys of every kind JSON carries (texts with quotes and control characters,
/// reals, large integers, composite keys).
@Suite("Key sets", .timeLimit(.minutes(10)))
struct KeySetTests {
    static func text(_ random: inout SeededRandom) -> String {
        let pieces = ["a", "\"", "\\", "\n", "\u{1}", "é", "🐈", " ", "'", "/", "\u{7f}"]
        return (0..<random.next(below: 5)).map { _ in pieces[random.next(below: pieces.count)] }.joined()
    }

    @Test func aJSONKeySetMatchesTheBoundKeys() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(6) {
            let fixture = try PeopleFixture(schema: """
                CREATE TABLE one (k INTEGER PRIMARY KEY);
                CREATE TABLE two (t TEXT, r REAL, PRIMARY KEY (t, r)) WITHOUT ROWID;
                """)
            let queue = try DatabaseQueue(path: fixture.path)
            try queue.write { db in
                for _ in 0..<600 {
                    let int = random.next(below: 2) == 0 ? Int64(random.next(below: 5000)) - 2500 : Int64.max - Int64(random.next(below: 100))
                    try db.execute(sql: "INSERT OR IGNORE INTO one VALUES (?)", arguments: [int])
                    let real = Double(random.next(below: 100)) / 7 * (random.next(below: 2) == 0 ? 1 : 1e300)
                    try db.execute(sql: "INSERT OR IGNORE INTO two VALUES (?, ?)", arguments: [Self.text(&random), real])
                }
            }
            for table in ["one", "two"] {
                let schema = try #require(fixture.container.schema.table(named: table))
                let keys: [[Value]] = try queue.read { db in
                    try Row.fetchAll(db, sql: "SELECT \(schema.primaryKey.keyExpressions.joined(separator: ", ")) FROM \(table)")
                        .map { $0.databaseValues.map(Value.init) }
                }
                let chosen = keys.filter { _ in random.next(below: 3) > 0 }
                let condition = schema.keySetSQL(chosen)
                #expect(condition.arguments.count == 1, "seed \(seed): \(chosen.count) keys go as one JSON argument")
                let found: Int = try queue.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(condition.sql)", arguments: condition.arguments.statementArguments) ?? -1
                }
                #expect(found == chosen.count, "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), table \(table)")
            }
            try queue.close()
        }
    }

    @Test func recordsWithBlobKeysAreNamedOnlyWithinTheLimitOfBoundValues() throws {
        let table = TableSchema(name: "b", columns: [ColumnDescription(name: "k", declaredType: "BLOB")], primaryKey: .withoutRowid(["k"]))
        let blobs = (0..<40_000).map { ObjectID(table: "b", primaryKey: [.blob(Data([UInt8($0 % 256), UInt8($0 / 256)]))]) }
        #expect(MarkSet.canName(blobs.prefix(30_000), in: table))
        #expect(!MarkSet.canName(blobs, in: table), "40,000 blobs would be 40,000 bound values")
        let texts = (0..<40_000).map { ObjectID(table: "b", primaryKey: [.text("k\($0)")]) }
        #expect(MarkSet.canName(texts, in: table))
        #expect(table.keySetSQL(texts.compactMap(\.primaryKeyValues)).arguments.count == 1)
    }
}
