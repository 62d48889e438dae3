import Foundation
import GRDB
import GRDBSQLite

/// Where the results of the SQL screen's queries are kept: a database of Cardfile's own, in a
/// temporary folder removed when the container goes, one table per result.
///
/// A result is run once and its rows copied here (``fill(_:from:cancellation:)``), so a list
/// reads it as fast as a table: by key, sorted with SQLite's sorter, a page at a time, while
/// the person's database is read once per run. (Read in place instead, each page of a
/// million-row result ran the whole query again: 0.56–0.83 s per page on the loop, measured
/// with `cardfile-bench sql`; a GROUP BY of 8 rows cost 0.7 s per page.) When a table the
/// query reads changes, ``QueryRefresher`` runs it again in the background and the list
/// follows as it follows another program's commit.
final class ResultStore: Sendable {
    let folder: URL
    /// Reads of results (lists on the loop, sorts in the background) and the copies' writes.
    let pool: DatabasePool
    /// The refreshers of the results open now, by result name, and the generation of each
    /// name: a copy made for an older generation (a refresh of the result before) is dropped,
    /// never written over a newer result of that name.
    private let refreshers = Locked<[String: QueryRefresher]>([:])
    private let generations = Locked<[String: UInt64]>([:])

    /// Folders are named `cardfile-results-PID-…`: one left by a process that is gone (killed,
    /// or a test whose container was never freed) is removed by the next one made.
    private static let prefix = "cardfile-results-"

    init() throws {
        Self.removeLeftovers()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(Self.prefix)\(getpid())-\(UUID().uuidString.prefix(12))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var configuration = Configuration()
        // Nobody else writes here: durability is not wanted, speed is.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = OFF")
        }
        pool = try DatabasePool(path: folder.appendingPathComponent("results.sqlite").path, configuration: configuration)
    }

    deinit {
        removeFiles()
    }

    /// Closes the results' database and removes its folder (when the editor ends: the
    /// process may end without freeing the container). Reading a result afterwards fails.
    func removeFiles() {
        stopAll()
        try? pool.close()
        try? FileManager.default.removeItem(at: folder)
    }

    private static func removeLeftovers() {
        let temporary = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }

    /// A new generation for results named `name`: copies for the ones before it are dropped.
    func newGeneration(for name: String) -> UInt64 {
        let stopped = refreshers.withLock { $0.removeValue(forKey: name.lowercased()) }
        stopped?.stop()
        return generations.withLock { generations in
            generations[name.lowercased(), default: 0] += 1
            return generations[name.lowercased()]!
        }
    }

    /// Runs `result`'s query on the person's database (through `core`) and copies its rows,
    /// numbered in order, into the result's table here, replacing what it held; one
    /// transaction, so a list reading meanwhile sees the old rows or the new. Returns the
    /// number of rows. `cancellation` stops the query and the copy (``StoreError/queryCancelled``),
    /// and so does a newer `generation` of the name (see ``newGeneration(for:)``).
    func fill(_ result: QueryResult, generation: UInt64, from core: StoreCore, cancellation: Cancellation) throws -> Int {
        let table = result.table
        let width = table.columns.count - 1
        if let engine = core.engine {
            return try fill(result, generation: generation, from: engine, cancellation: cancellation)
        }
        return try core.read { source in
            try cancellation.interrupting(source) {
                let statement = try source.makeStatement(sql: "SELECT * FROM (\n\(result.sql)\n)")
                let handle = statement.sqliteStatement
                let cursor = try Row.fetchCursor(statement)
                return try pool.write { db in
                    // (Checked inside the write: fills of one name take turns here.)
                    guard generations.value[table.name.lowercased()] == generation else { throw StoreError.queryCancelled }
                    let insert = try keeping { try Self.replaceTable(of: result, in: db) }
                    var count = 0
                    while try cursor.next() != nil {
                        count += 1
                        var values: [Value] = [.integer(Int64(count))]
                        for index in 0..<CInt(width) { values.append(Value(statement: handle, index: index)) }
                        try keeping { try insert.execute(arguments: values.statementArguments) }
                        if count % 4096 == 0, cancellation.isCancelled { throw StoreError.queryCancelled }
                    }
                    return count
                }
            }
        }
    }

    /// ``fill(_:generation:from:cancellation:)`` from an engine: the query's rows read on the
    /// server, each column by its type as the engine reads a table's (``SQLDialect/selectExpression(_:)``).
    /// A boolean is kept as `true` or `false`, as the engine's lists show it.
    private func fill(_ result: QueryResult, generation: UInt64, from engine: any StoreEngine, cancellation: Cancellation) throws -> Int {
        let table = result.table
        let resultColumns = Array(table.columns.dropFirst())
        let names = resultColumns.indices.map { "c\($0 + 1)" }
        return try engine.read { session in
            let dialect = session.dialect
            let reads = zip(names, resultColumns).map { name, column in
                dialect.selectExpression(ColumnDescription(name: name, declaredType: column.declaredType))
            }
            // (Each column renamed: a result may name two alike.)
            let sql = "SELECT \(reads.joined(separator: ", ")) FROM (\n\(result.sql)\n) AS \"__cf_query\" (\(names.map(\.quotedIdentifier).joined(separator: ", ")))"
            return try pool.write { db in
                guard generations.value[table.name.lowercased()] == generation else { throw StoreError.queryCancelled }
                let insert = try keeping { try Self.replaceTable(of: result, in: db) }
                var count = 0
                try session.forEachRow(sql, [], cancellation: cancellation) { row in
                    count += 1
                    var values: [Value] = [.integer(Int64(count))]
                    for value in row {
                        if case .boolean(let flag) = value { values.append(.text(flag ? "true" : "false")) } else { values.append(value) }
                    }
                    try keeping { try insert.execute(arguments: values.statementArguments) }
                    if count % 4096 == 0, cancellation.isCancelled { throw StoreError.queryCancelled }
                }
                return count
            }
        }
    }

    /// `body`, a failure of the copy itself said as such (it is not the person's database).
    private func keeping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode != .SQLITE_INTERRUPT {
            throw StoreError.statementNotRun(reason: "The result could not be kept in Cardfile's temporary folder \(folder.path): \(error.message ?? "error \(error.resultCode.rawValue)"). Nothing was changed.")
        }
    }

    /// Makes `result`'s table anew in `db` (empty), and returns the statement inserting a row.
    private static func replaceTable(of result: QueryResult, in db: Database) throws -> Statement {
        let table = result.table
        let columns = table.columns.map(\.name.quotedIdentifier)
        try db.execute(sql: "DROP TABLE IF EXISTS \(table.quotedName)")
        try db.execute(sql: "CREATE TABLE \(table.quotedName) (\(columns[0]) INTEGER PRIMARY KEY, \(columns.dropFirst().joined(separator: ", ")))")
        if let records = result.records {
            try db.execute(sql: "CREATE UNIQUE INDEX \("\(table.name) key".quotedIdentifier) ON \(table.quotedName) (\(records.keyColumns.map(\.quotedIdentifier).joined(separator: ", ")))")
        }
        return try db.makeStatement(sql: "INSERT INTO \(table.quotedName) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))")
    }

    /// Keeps `refresher` for its result (the one before it of that name stops).
    func keep(_ refresher: QueryRefresher, for name: String) {
        let old = refreshers.withLock { refreshers in
            defer { refreshers[name.lowercased()] = refresher }
            return refreshers[name.lowercased()]
        }
        old?.stop()
    }

    /// Stops refreshing the result named `name` (its list was closed).
    func stopRefreshing(_ name: String) {
        refreshers.withLock { $0.removeValue(forKey: name.lowercased()) }?.stop()
    }

    /// Stops every refresher (the editor ends).
    func stopAll() {
        let all = refreshers.withLock { refreshers in
            defer { refreshers.removeAll() }
            return Array(refreshers.values)
        }
        for refresher in all { refresher.stop() }
    }
}
