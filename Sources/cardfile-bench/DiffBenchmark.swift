import CardfileStore
import Foundation
import GRDB

/// `cardfile diff` (issue 23): two copies of the generated table, 1% of the rows changed in
/// one, compared in a child process (its own heap) writing the text form to nowhere.
struct DiffBenchmark {
    let folder: String
    let rows: Int

    func run() throws {
        let a = "\(folder)/diff-a.sqlite", b = "\(folder)/diff-b.sqlite"
        try BenchmarkDatabase.create(at: a, rows: rows)
        try? FileManager.default.removeItem(atPath: b)
        let queue = try DatabaseQueue(path: a)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [b]) }
        try queue.close()
        let other = try DatabaseQueue(path: b)
        try other.write { db in try db.execute(sql: "UPDATE items SET price = price + 1 WHERE id % 100 = 0") }
        try other.close()
        var table = ResultTable("cardfile diff (\(rows.formatted()) rows a side, 1% changed)")
        for _ in 0..<2 {
            let fields = try CardfileBench.inChildProcess(["--diff-child", a, b])
            if fields.count == 3 {
                table.add("diff, \(Int(fields[2]).formatted()) records changed: time / peak RSS",
                          "\(duration(fields[0])) / \(String(format: "%.1f MiB", fields[1]))", goal: "< 5 s / < 100 MiB")
            }
        }
        table.print()
    }

    /// The comparison itself: its time, the process's peak RSS, and the records changed.
    static func child(_ a: String, _ b: String) throws -> (seconds: Double, rss: Double, changed: Int) {
        let left = try Container(path: a, options: StoreOptions(createIfMissing: false, readOnly: true))
        let right = try Container(path: b, options: StoreOptions(createIfMissing: false, readOnly: true))
        var summary = DatabaseDiff.Summary()
        var written = 0
        var columns: [String] = [], key: [String] = [], hasRowid = true
        let seconds = try Measure.time {
            summary = try DatabaseDiff.run(left, right) { event in
                if case .table(_, let names, let keyNames, _, let rowid) = event { (columns, key, hasRowid) = (names, keyNames, rowid) }
                written += DiffText.lines(event, format: .text, columns: columns, key: key).utf8.count
            }
        }
        return (seconds, Measure.peakResidentMiB(), summary.changed)
    }
}
