import ArgumentParser
import CardfileApp
import CardfileStore
import CardfileTerminal
import Foundation
import GRDB

/// Issue #12's figures: importing the same generated CSV with `cardfile`'s importer, with
/// `sqlite3 .import` and with a plain GRDB loop; peak memory; the editor's longest stall
/// while an import runs in it; export against `sqlite3 -csv`.
struct ImportBenchmark {
    let folder: String
    let sizes: [Int]

    static let schema = "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, category TEXT, year INTEGER, price REAL, rating INTEGER, notes TEXT)"

    func run() throws {
        let sqlite3 = Self.which("sqlite3")
        var table = ResultTable("Import and export (7 typed columns, the same generated CSV for each; fresh WAL database each run)")
        var largest: (csv: String, db: String)?
        for rows in sizes {
            let csv = "\(folder)/rows-\(rows).csv"
            try Self.generate(rows: rows, to: csv)
            let megabytes = Double((try? FileManager.default.attributesOfItem(atPath: csv)[.size] as? Int) ?? 0) / 1_048_576
            let label = "\(rows.formatted()) rows (\(String(format: "%.0f", megabytes)) MB)"

            let ours = "\(folder)/ours-\(rows).sqlite"
            try Self.freshDatabase(ours)
            let child = try CardfileBench.inChildProcess(["--import-child", csv, ours])
            guard child.count == 2 else { throw CleanExit.message("the import child printed \(child)") }
            let oursSeconds = child[0]
            table.add("\(label): cardfile import (change events on)", Self.rate(rows, oursSeconds))

            var sqliteSeconds: Double?
            if let sqlite3 {
                let theirs = "\(folder)/sqlite-\(rows).sqlite"
                try Self.freshDatabase(theirs)
                sqliteSeconds = try Measure.time {
                    try Self.runProcess(sqlite3, [theirs, "-cmd", ".mode csv", ".import --skip 1 \(csv) items"])
                }
                let count = try DatabaseQueue(path: theirs).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") } ?? 0
                table.add("\(label): sqlite3 .import\(count == rows ? "" : " (imported \(count.formatted())!)")", Self.rate(rows, sqliteSeconds!))
            }
            let plain = "\(folder)/grdb-\(rows).sqlite"
            try Self.freshDatabase(plain)
            let plainSeconds = try Measure.time { try Self.plainLoop(csv: csv, database: plain) }
            table.add("\(label): plain GRDB prepared-statement loop (naive split, one transaction)", Self.rate(rows, plainSeconds))
            if let sqliteSeconds {
                table.add("\(label): cardfile speed ÷ sqlite3 speed", String(format: "%.2f×", sqliteSeconds / oursSeconds), goal: "≥ 1.25×")
            }
            table.add("\(label): cardfile import peak RSS", String(format: "%.1f MiB", child[1]), goal: "< 50 MiB")
            largest = (csv, ours)
            for path in [plain, "\(folder)/sqlite-\(rows).sqlite"] { try? FileManager.default.removeItem(atPath: path) }
        }
        if let largest {
            let rows = sizes.last ?? 0
            let stall = try editorStall(csv: largest.csv)
            table.add("editor importing \(rows.formatted()) rows: longest loop stall (\(stall.keys) keys, \(stall.saves) saves saved)",
                      duration(stall.longest), goal: "< 50 ms")
            let out = "\(folder)/export.csv"
            let exported = try Measure.time {
                guard let handle = FileHandle(forWritingAtPath: out) ?? { FileManager.default.createFile(atPath: out, contents: nil); return FileHandle(forWritingAtPath: out) }() else { return }
                _ = try Exporter(container: try Container(path: largest.db), table: "items", format: .csv).run { try handle.write(contentsOf: Data($0)) }
                try handle.close()
            }
            table.add("export \(rows.formatted()) rows to CSV: cardfile", Self.rate(rows, exported))
            if let sqlite3 {
                let theirs = try Measure.time {
                    try Self.runProcess(sqlite3, ["-csv", "-header", largest.db, "SELECT * FROM items"], output: "\(folder)/export-sqlite.csv")
                }
                table.add("export \(rows.formatted()) rows to CSV: sqlite3 -csv", Self.rate(rows, theirs))
                table.add("export: cardfile speed ÷ sqlite3 speed", String(format: "%.2f×", theirs / exported), goal: "≥ 1×")
            }
        }
        table.print()
    }

    /// `--import-child CSV DB`: imports in a process of its own and prints the seconds and
    /// the peak RSS in MiB.
    static func child(csv: String, database: String) throws {
        let container = try Container(path: database)
        var summary = ImportSummary()
        let seconds = try Measure.time {
            summary = try Importer(container: container, file: csv, options: ImportOptions(table: "items")).run()
        }
        guard summary.rejected == 0 else { throw CleanExit.message("rejected rows: \(summary.errors.prefix(3))") }
        // Every batch's event reached the view context: apply them, as the editor would.
        try container.viewContext.processPendingChanges()
        print("\(seconds) \(Measure.peakResidentMiB())")
    }

    /// The editor on a fresh database while `:import` runs in it: keys every 5 ms (↓ and ↑ in
    /// the list, and now and then a record opened, edited and saved); the longest time one
    /// key took from arriving to its frame drawn.
    private func editorStall(csv: String) throws -> (longest: Double, keys: Int, saves: String) {
        let path = "\(folder)/editor.sqlite"
        try Self.freshDatabase(path)
        try DatabaseQueue(path: path).write { try $0.execute(sql: "INSERT INTO items (name) VALUES ('first'), ('second')") }
        let size = Size(width: 120, height: 40)
        let backend = HeadlessBackend(size: size)
        let clock = SystemClock()
        let inbox = Inbox(wake: { backend.wake() })
        let app = try CardfileApp(container: try Container(path: path), options: CardfileApp.Options(table: "items", autosave: nil),
                                  size: size, clock: clock, inbox: inbox)
        func step(_ keys: [KeyEvent]) throws -> Double {
            try Measure.time {
                backend.enqueue(keys.map { .key($0) })
                try AppLoop.run(app, backend: backend, inbox: inbox, clock: clock, untilIdle: true)
            }
        }
        _ = try step([.char(":")] + "import \(csv)".map { KeyEvent(.character($0)) } + [KeyEvent(.enter)])
        var longest = 0.0
        var keys = 0
        var saves = 0
        var saved = 0
        while true {
            var frame = Buffer(size: size)
            _ = app.view(into: &frame)
            let status = frame.lines[size.height - 2]
            if !status.contains("importing") && keys > 0 { break }
            let sequence: [KeyEvent]
            if keys % 50 == 20 {
                sequence = [KeyEvent(.enter), .char("x"), .control("s")]
                saves += 1
            } else if keys % 50 == 21 {
                sequence = [KeyEvent(.escape)]
            } else {
                sequence = [KeyEvent(keys % 2 == 0 ? .down : .up)]
            }
            longest = max(longest, try step(sequence))
            if sequence.last == .control("s") {
                var after = Buffer(size: size)
                _ = app.view(into: &after)
                if after.lines[size.height - 1].contains("Saved.") { saved += 1 }
            }
            keys += 1
            Thread.sleep(forTimeInterval: 0.005)
        }
        return (longest, keys, "\(saved) of \(saves)")
    }

    // MARK: - Helpers

    /// The generated file: `id,name,category,year,price,rating,notes`, notes quoted.
    static func generate(rows: Int, to path: String) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CleanExit.message("cannot write \(path)") }
        defer { try? handle.close() }
        let words = ["cedar", "ember", "birch", "haven", "juniper", "marsh", "orchid", "quartz"]
        var chunk = "id,name,category,year,price,rating,notes\n"
        for id in 1...max(1, rows) {
            chunk += "\(id),\(words[id % 8]) \(words[(id / 8) % 8]) \(id),\(words[(id / 3) % 8]),\(1900 + id % 120),\(Double(id % 400) / 4),\(id % 5 + 1),\"note \(id)\"\n"
            if chunk.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try handle.write(contentsOf: Data(chunk.utf8))
    }

    static func freshDatabase(_ path: String) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: schema)
        }
        try queue.close()
    }

    /// The baseline: lines split at commas (this file has none inside quotes), one prepared
    /// INSERT in one transaction.
    static func plainLoop(csv: String, database: String) throws {
        let queue = try DatabaseQueue(path: database)
        defer { try? queue.close() }
        guard let reader = FileHandle(forReadingAtPath: csv) else { return }
        defer { try? reader.close() }
        try queue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)")
            var pending = Data()
            var header = true
            func insert(_ line: Substring) throws {
                if header { header = false; return }
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count == 7 else { return }
                let notes = fields[6].hasPrefix("\"") ? String(fields[6].dropFirst().dropLast()) : String(fields[6])
                try statement.execute(arguments: [Int64(fields[0]), String(fields[1]), String(fields[2]), Int64(fields[3]), Double(fields[4]), Int64(fields[5]), notes])
            }
            while let data = try reader.read(upToCount: 1 << 20), !data.isEmpty {
                pending.append(data)
                guard let last = pending.lastIndex(of: 0x0A) else { continue }
                let text = String(decoding: pending[..<last], as: UTF8.self)
                for line in text.split(separator: "\n") { try insert(line) }
                pending = Data(pending[(last + 1)...])
            }
            if !pending.isEmpty { try insert(Substring(String(decoding: pending, as: UTF8.self))) }
        }
    }

    static func rate(_ rows: Int, _ seconds: Double) -> String {
        "\(duration(seconds)) (\(Int(Double(rows) / seconds).formatted()) rows/s)"
    }

    static func which(_ tool: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    static func runProcess(_ program: String, _ arguments: [String], output: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let output {
            FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: output)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
    }
}
