import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// Lists of rows that have no key (a view of a join or a compound, a table whose rowid is
/// shadowed): rows are named by their content and their ordinal among identical rows. Walked
/// at random, with another process writing, against plain SQL.
@Suite("Keyless lists", .timeLimit(.minutes(Fuzz.scaled(10))))
struct KeylessListTests {
    /// `view`: a compound view (keyless); otherwise a table whose rowid is shadowed.
    @Test(arguments: [true, false])
    func randomWalkAgainstTheOracle(view: Bool) throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let directory = TemporaryDirectory()
        let path = directory.file("keyless.sqlite")
        let (a, b) = view ? ("a", "b") : ("rowid", "oid")
        let source = view ? "src" : "hopeless"
        try makeDatabase(at: path, view
            ? "CREATE TABLE src (a, b TEXT COLLATE NOCASE); CREATE VIEW v AS SELECT a, b FROM src UNION ALL SELECT a, b FROM src WHERE a > 2;"
            : "CREATE TABLE hopeless (rowid, _rowid_, oid TEXT COLLATE NOCASE);")
        let table = view ? "v" : "hopeless"
        let columns = view ? "a, b" : "rowid, oid"
        try sqlite3(path, (0..<(20 + random.next(below: 40))).map { _ in
            "INSERT INTO \(source) (\(columns)) VALUES (\(Self.number(&random)), \(Self.word(&random)));"
        }.joined(separator: "\n"))

        let container = try Container(path: path)
        let sortColumn = random.next(below: 2) == 0 ? a : b
        let descending = random.next(below: 2) == 0
        let nocase = sortColumn == a && random.next(below: 3) == 0
        let filters = [("", "1"), ("\(a) > 2", "\(a) > 2"), ("\(b) = beta", "\(b) = 'beta'")]
        let (filter, condition) = filters[random.next(below: filters.count)]
        let spec = LiveQuerySpec(
            table: table, sort: [ColumnSort(sortColumn, ascending: !descending, collation: nocase ? .nocase : nil)], filter: filter)
        var height = 1 + random.next(below: 12)
        let live = try LiveQuery(context: container.viewContext, spec: spec, height: height)
        try live.waitForBackgroundWork()
        var clock = TestClock()

        // The list's order: the sort, then every column as BINARY and its storage class, in
        // the sort's direction.
        let direction = descending ? "DESC" : "ASC"
        let order = "\(sortColumn)\(nocase ? " COLLATE NOCASE" : "") \(direction), "
            + [a, b].map { "\($0) COLLATE BINARY \(direction), typeof(\($0)) \(direction)" }.joined(separator: ", ")
        func oracle() throws -> [[Value]] {
            let queue = try DatabaseQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT \(a), \(b) FROM \(table) WHERE \(condition) ORDER BY \(order)").map { row in
                    [Value(row[0] as DatabaseValue), Value(row[1] as DatabaseValue)]
                }
            }
        }
        func shown(_ rows: [LiveRow]) -> [[Value]] {
            let first = container.schema.table(named: table)!.columnIndex(named: a)!
            let second = container.schema.table(named: table)!.columnIndex(named: b)!
            return rows.map { [$0.values[first], $0.values[second]] }
        }
        let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), \(table), sort \(order), filter '\(filter)'"

        for step in 0..<Fuzz.scaled(50) {
            var operation = "move"
            switch random.next(below: 9) {
            case 0: try live.moveSelection(by: random.next(below: 9) - 4)
            case 1: try live.pageDown()
            case 2: try live.pageUp()
            case 3: try live.jump(toRow: random.next(below: 120))
            case 4: try random.next(below: 2) == 0 ? live.jumpToEnd() : live.jumpToStart()
            case 5:
                height = 1 + random.next(below: 12)
                try live.setHeight(height)
            case 6:
                operation = "full walk"
                try live.jumpToStart()
                var all = shown(live.window.rows)
                while live.window.firstRow + live.window.rows.count < live.window.count.known {
                    try live.pageDown()
                    let window = live.window
                    all = Array(all.prefix(window.firstRow)) + shown(window.rows)
                }
                #expect(all == (try oracle()), "\(context), step \(step): every row once, in order")
            default:
                operation = "sqlite3"
                // Another process adds copies of existing rows, new rows, and takes some away.
                var sql = "INSERT INTO \(source) (\(columns)) SELECT \(columns) FROM \(source) ORDER BY random() LIMIT \(random.next(below: 3));"
                sql += "INSERT INTO \(source) (\(columns)) VALUES (\(Self.number(&random)), \(Self.word(&random)));"
                if random.next(below: 2) == 0 {
                    sql += "DELETE FROM \(source) WHERE \(view ? "rowid" : "_rowid_") IN (SELECT \(view ? "rowid" : "_rowid_") FROM \(source) ORDER BY random() LIMIT 2);"
                }
                try sqlite3(path, sql)
                _ = try container.checkForExternalChanges()
            }
            try LiveQueryCursorTests.settle(live, &clock)
            let expected = try oracle()
            let window = live.window
            let at = "\(context), step \(step) (\(operation)) at \(window.firstRow)"
            #expect(window.count == .exact(expected.count), "\(at): count")
            let slice = Array(expected.dropFirst(window.firstRow).prefix(height))
            #expect(shown(window.rows) == slice, "\(at): rows")
            #expect(Set(window.rows.map(\.id)).count == window.rows.count, "\(at): identities are distinct")
            // Every shown row is found again by its identity, with exactly its values.
            for row in window.rows {
                #expect(try container.viewContext.record(for: row.id)?.values == row.values, "\(at): \(row.id) found as listed")
            }
        }
    }

    /// Small domains so that identical rows are common; integers and reals that SQL calls
    /// equal, and NULLs.
    static func number(_ random: inout SeededRandom) -> String {
        ["NULL", "1", "1.0", "2", "3", "3", "4.5", "'3'"][random.next(below: 8)]
    }

    static func word(_ random: inout SeededRandom) -> String {
        ["NULL", "'alpha'", "'Alpha'", "'beta'", "'BETA'", "''", "'gamma'"][random.next(below: 7)]
    }

}
