import ArgumentParser
import Foundation

/// `swift run -c release cardfile-bench`: prints the figures the issues ask for.
@main
struct CardfileBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardfile-bench",
        abstract: "Measures Cardfile's store, live queries, terminal rendering and the editor. Run in release mode.")

    @Option(help: "Rows in the generated table.")
    var rows = 1_000_000

    @Option(help: "Saves (and raw commits) to time.")
    var saves = 5_000

    @Argument(help: "Sections to run: store, live, terminal, app, field, import, sql, diff, history, postgres (default: all; postgres when CARDFILE_TEST_POSTGRES names a server, as scripts/with-postgres sets it).")
    var sections: [String] = []

    @Option(help: .hidden)
    var browseMemory: String?

    @Option(help: .hidden)
    var browseApp: String?

    @Option(help: .hidden)
    var browsePostgres: String?

    @Option(parsing: .upToNextOption, help: .hidden)
    var importChild: [String] = []

    @Option(parsing: .upToNextOption, help: .hidden)
    var diffChild: [String] = []

    func run() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        if let browsePostgres {
            let result = try PostgresBenchmark.browse(browsePostgres)
            print("\(result.rss) \(result.pages) \(result.seconds)")
            return
        }
        if let browseApp {
            let result = try AppBrowseMemoryBenchmark(path: browseApp).run()
            print("\(result.rss) \(result.pages) \(result.seconds)")
            return
        }
        if diffChild.count == 2 {
            let result = try DiffBenchmark.child(diffChild[0], diffChild[1])
            print("\(result.seconds) \(result.rss) \(result.changed)")
            return
        }
        if importChild.count == 2 {
            try ImportBenchmark.child(csv: importChild[0], database: importChild[1])
            return
        }
        if let browseMemory {
            let result = try BrowseMemoryBenchmark(path: browseMemory).run()
            print("\(result.rss) \(result.pages) \(result.seconds)")
            return
        }
        let server = ProcessInfo.processInfo.environment["CARDFILE_TEST_POSTGRES"]
        let all = ["store", "live", "terminal", "app", "field", "import", "sql", "diff", "history"] + (server == nil ? [] : ["postgres"])
        let wanted = Set(sections.isEmpty ? all : sections)

        if wanted.contains("store") {
            let path = "\(folder)/store.sqlite"
            let generated = try Measure.time { try BenchmarkDatabase.create(at: path, rows: rows) }
            print("Generated \(rows.formatted()) rows in \(duration(generated)).")
            try StoreBenchmark(path: path, rows: rows, saves: saves).run()
        }
        if wanted.contains("live") {
            let path = "\(folder)/live.sqlite"
            try BenchmarkDatabase.create(at: path, rows: rows)
            try LiveQueryBenchmark(path: path, rows: rows).run()
            var memory = ResultTable("Memory after browsing a whole table end to end (pages of 50)")
            for size in [100_000, rows] {
                let sized = "\(folder)/browse-\(size).sqlite"
                try BenchmarkDatabase.create(at: sized, rows: size)
                let fields = try Self.inChildProcess(["--browse-memory", sized])
                if fields.count == 3 {
                    memory.add("\(size.formatted()) rows: RSS after \(Int(fields[1]).formatted()) pages in \(duration(fields[2]))", String(format: "%.1f MiB", fields[0]), goal: "< 40 MiB")
                }
                try? FileManager.default.removeItem(atPath: sized)
            }
            memory.print()
        }
        if wanted.contains("terminal") {
            try TerminalBenchmark().run()
        }
        if wanted.contains("app") {
            let path = "\(folder)/app.sqlite"
            try BenchmarkDatabase.create(at: path, rows: rows)
            try AppBenchmark(path: path, rows: rows).run()
            let fields = try Self.inChildProcess(["--browse-app", path])
            var memory = ResultTable("Editor memory")
            if fields.count == 3 {
                memory.add("RSS after paging through all \(rows.formatted()) rows (\(Int(fields[1]).formatted()) pages in \(duration(fields[2])))",
                           String(format: "%.1f MiB", fields[0]), goal: "< 40 MiB")
            }
            memory.print()
        }
        if wanted.contains("field") {
            try LongFieldBenchmark(folder: folder).run()
        }
        if wanted.contains("sql") {
            let path = "\(folder)/sql.sqlite"
            try BenchmarkDatabase.create(at: path, rows: rows)
            try SQLBenchmark(path: path, rows: rows).run()
        }
        if wanted.contains("history") {
            try HistoryBenchmark(folder: folder, rows: rows, saves: saves).run()
        }
        if wanted.contains("diff") {
            try DiffBenchmark(folder: folder, rows: rows).run()
        }
        if wanted.contains("import") {
            try ImportBenchmark(folder: folder, sizes: [100_000, rows]).run()
        }
        if wanted.contains("postgres") {
            guard let server else {
                throw ValidationError("postgres needs a server: run it as scripts/with-postgres .build/release/cardfile-bench postgres")
            }
            try PostgresBenchmark(url: server, rows: rows, saves: min(saves, 2_000)).run()
        }
    }

    /// Runs this benchmark again in a child process with `arguments` (so a measurement has a
    /// heap of its own) and returns the numbers it prints.
    static func inChildProcess(_ arguments: [String]) throws -> [Double] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        return text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
