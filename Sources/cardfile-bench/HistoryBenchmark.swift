import CardfileStore
import Foundation

/// The history journal's cost (issue 23): a save with and without the journal (the goal: at
/// most 20% more), a bulk edit of an eighth of the rows recorded, and its undo from the journal.
struct HistoryBenchmark {
    let folder: String
    let rows: Int
    let saves: Int

    func run() throws {
        var table = ResultTable("History journal (\(rows.formatted()) rows, \(saves) saves each)")
        let plainPath = "\(folder)/history-plain.sqlite"
        let journaledPath = "\(folder)/history-journaled.sqlite"
        try BenchmarkDatabase.create(at: plainPath, rows: rows)
        try FileManager.default.copyItem(atPath: plainPath, toPath: journaledPath)
        let state = "\(folder)/history-state"
        try? FileManager.default.removeItem(atPath: state)
        let plain = try Container(path: plainPath)
        let journaled = try Container(path: journaledPath, options: StoreOptions(history: HistorySettings(folder: state)))
        guard let journal = journaled.history else { throw CocoaError(.fileWriteUnknown) }
        var rng = SystemRandomNumberGenerator()
        let ids = (0..<100).map { _ in ObjectID(table: "items", rowid: Int64.random(in: 1...Int64(rows), using: &rng)) }

        // A save as a form makes it: an editor's change into the view context, then to disk.
        // Blocks of 100 alternate, so both meet the same machine conditions.
        func save(_ container: Container, _ index: Int) throws {
            let editor = container.editorContext(parent: container.viewContext)
            try editor.update(ids[index % 100], values: ["price": .real(Double(index) / 7)])
            try editor.save()
            try container.viewContext.save()
        }
        for index in 0..<200 {
            try save(plain, index)
            try save(journaled, index)
        }
        journal.flush()
        var without: [Double] = []
        var with: [Double] = []
        var withWritten: [Double] = []
        for block in 0..<max(1, saves / 100) {
            without += try Measure.samples(100) { try save(plain, block * 100 + $0) }
            with += try Measure.samples(100) { try save(journaled, block * 100 + $0) }
            // The same, waiting until the journal has written the entry too.
            withWritten += try Measure.samples(100) {
                try save(journaled, 500_000 + block * 100 + $0)
                journal.flush()
            }
        }
        // At a person's pace (a save every 5 ms, still far faster than anyone types): the
        // journal has written the last entry before the next save, on the other core.
        var pacedWithout: [Double] = []
        var pacedWith: [Double] = []
        for index in 0..<300 {
            Thread.sleep(forTimeInterval: 0.005)
            pacedWithout += try Measure.samples(1) { _ in try save(plain, 900_000 + index) }
            Thread.sleep(forTimeInterval: 0.005)
            pacedWith += try Measure.samples(1) { _ in try save(journaled, 900_000 + index) }
        }
        let (a, b, c) = (Distribution(without), Distribution(with), Distribution(withWritten))
        let (d, e) = (Distribution(pacedWithout), Distribution(pacedWith))
        table.add("form save without history p50 / p99", "\(duration(a.p50)) / \(duration(a.p99))")
        table.add("form save with history p50 / p99", "\(duration(b.p50)) / \(duration(b.p99))")
        table.add("  with / without at p50, saves back to back", String(format: "%.2f", b.p50 / a.p50), goal: "≤ 1.20")
        table.add("  … waiting for the journal's write too, p50 (ratio)", "\(duration(c.p50)) (\(String(format: "%.2f", c.p50 / a.p50)))")
        table.add("a save every 5 ms, without / with history, p50", "\(duration(d.p50)) / \(duration(e.p50))")
        table.add("  with / without at p50, a save every 5 ms", String(format: "%.2f", e.p50 / d.p50), goal: "≤ 1.20")

        table.print()
        table = ResultTable("History journal: a bulk edit and its undo (\(rows.formatted()) rows)")

        // A bulk edit of one category (an eighth of the rows), recorded; then undone from the journal.
        let condition = Predicate.compare("category", .equal, .text("books"))
        let plainSet = try Measure.time { _ = try plain.bulkSet(table: "items", column: "price", to: .real(1), where: condition) }
        var count = 0
        let journaledSet = try Measure.time { count = try journaled.bulkSet(table: "items", column: "price", to: .real(1), where: condition).count }
        let written = Measure.time { journal.flush() }
        table.add(":set on \(count.formatted()) records without / with history", "\(duration(plainSet)) / \(duration(journaledSet))")
        table.add("  the journal's write of it (its own queue)", duration(written))
        var step: HistoryStep?
        let read = try Measure.time { step = try journal.nextUndo(table: "items") }
        guard let step else { throw CocoaError(.fileReadUnknown) }
        var undone = 0
        let undo = try Measure.time { undone = try journaled.write(step).written }
        table.add("Alt-U of it: read from the journal / written back (\(undone.formatted()) records)", "\(duration(read)) / \(duration(undo))")
        table.print()
        try? FileManager.default.removeItem(atPath: state)
        for path in [plainPath, journaledPath] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }
}
