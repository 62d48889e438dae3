import ArgumentParser
import Foundation

/// `swift run -c release cardfile-bench`: prints the figures the issues ask for.
@main
struct CardfileBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardfile-bench",
        abstract: "Measures Cardfile's store, live queries and terminal rendering. Run in release mode.")

    @Option(help: "Rows in the generated table.")
    var rows = 1_000_000

    @Option(help: "Saves (and raw commits) to time.")
    var saves = 5_000

    @Argument(help: "Sections to run: store, live, terminal (default: all).")
    var sections: [String] = []

    func run() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wanted = Set(sections.isEmpty ? ["store", "live", "terminal"] : sections)

        if wanted.contains("store") {
            let path = "\(folder)/store.sqlite"
            let generated = try Measure.time { try BenchmarkDatabase.create(at: path, rows: rows) }
            print("Generated \(rows.formatted()) rows in \(duration(generated)).")
            try StoreBenchmark(path: path, rows: rows, saves: saves).run()
        }
    }
}
