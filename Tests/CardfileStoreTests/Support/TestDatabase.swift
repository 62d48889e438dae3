import Foundation
import GRDB
@_exported import CardfileTestSupport
@testable import CardfileStore

/// The schema most store tests use: a rowid-alias table with every kind of constraint.
let peopleSchema = """
    CREATE TABLE people (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        email TEXT UNIQUE,
        age INTEGER CHECK (age >= 0),
        city TEXT,
        notes TEXT
    );
    INSERT INTO people (id, name, email, age, city, notes) VALUES
        (1, 'Ada', 'ada@example.com', 36, 'London', 'first'),
        (2, 'Grace', 'grace@example.com', 45, 'Arlington', NULL),
        (3, 'Linus', 'linus@example.com', 28, 'Helsinki', 'kernel');
    """

/// People whose `city` has a column default: a field left out of an INSERT takes it, an
/// explicit NULL does not.
let peopleWithDefaultSchema = """
    CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT DEFAULT 'Nowhere');
    """

/// Creates a database file at `path` by running `sql` on a connection of its own, which is
/// closed before returning (as another program would have made the file).
func makeDatabase(at path: String, _ sql: String, wal: Bool = true) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.writeWithoutTransaction { db in
        if FixtureJournal.wal(wal) { try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try db.execute(sql: sql)
    }
    try queue.close()
}

/// A fresh directory with the people database, and a container open on it.
struct PeopleFixture {
    let directory = TemporaryDirectory()
    let path: String
    let container: Container

    init(options: StoreOptions = StoreOptions(), schema: String = peopleSchema) throws {
        path = directory.file("people.sqlite")
        try makeDatabase(at: path, schema)
        container = try Container(path: path, options: options)
    }

    var view: ObjectContext { container.viewContext }

    func person(_ id: Int64) -> ObjectID { ObjectID(table: "people", rowid: id) }

    /// Reads one value straight from the file with a connection of its own (not the
    /// container's), so assertions see what is really on disk.
    func disk(_ sql: String) throws -> Value {
        try readDisk(path, sql)
    }
}

/// Reads one value from the file at `path` with a read-only connection of its own.
func readDisk(_ path: String, _ sql: String) throws -> Value {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(5)   // a rollback-journal file is locked while a commit is written
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    defer { try? queue.close() }
    return try queue.read { db in
        try DatabaseValue.fetchOne(db, sql: sql).map(Value.init) ?? .null
    }
}

/// Runs the `sqlite3` command-line tool on `path`: a real second process.
@discardableResult
func sqlite3(_ path: String, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", "-bail", "-cmd", ".timeout 5000", path]
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    input.fileHandleForWriting.write(Data(sql.utf8))
    try input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw SQLite3Failure(status: process.terminationStatus, message: problems)
    }
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
}

struct SQLite3Failure: Error, CustomStringConvertible {
    let status: Int32
    let message: String
    var description: String { "sqlite3 exited with \(status): \(message)" }
}

/// A `sqlite3` process kept running, to hold a transaction open across test steps.
final class SQLite3Session {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-cmd", ".timeout 5000", path]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Sends SQL and waits until the tool has run it (it prints a marker afterwards). A tool
    /// that neither answers nor ends within `timeout` is stopped, and the test fails instead
    /// of hanging.
    func run(_ sql: String, timeout: TimeInterval = 20) throws {
        let marker = "done-\(UUID().uuidString.prefix(8))"
        input.fileHandleForWriting.write(Data("\(sql)\nSELECT '\(marker)';\n".utf8))
        let reader = output.fileHandleForReading
        let finished = DispatchSemaphore(value: 0)
        let outcome = Locked<SQLite3Failure?>(nil)
        DispatchQueue.global().async {
            var seen = ""
            while !seen.contains(marker) {
                let chunk = reader.availableData
                guard !chunk.isEmpty else {
                    outcome.withLock { $0 = SQLite3Failure(status: -1, message: "sqlite3 ended early") }
                    break
                }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            finished.signal()
        }
        guard finished.wait(timeout: .now() + timeout) == .success else {
            process.terminate()      // (its output closes, which ends the reader)
            throw SQLite3Failure(status: -1, message: "no answer within \(Int(timeout)) s to: \(sql)")
        }
        if let failure = outcome.withLock({ $0 }) { throw failure }
    }

    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

extension StoreError {
    /// The conflicts, when this is a conflict error.
    var conflicts: [MergeConflict]? {
        if case .conflicts(let conflicts) = self { return conflicts }
        return nil
    }

    /// The failures, when this is a validation error.
    var failures: [ValidationFailure]? {
        if case .validationFailed(let failures) = self { return failures }
        return nil
    }
}

/// Runs `body` and returns the StoreError it throws, or nil when it does not throw.
func storeError(_ body: () throws -> Void) -> StoreError? {
    do {
        try body()
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        return .database(code: -1, message: "unexpected \(error)")
    }
}
