import CardfileStore
import Foundation
import GRDB

/// Store figures for issue #2: save latency beside a raw GRDB commit, fetch by ID, batch
/// update and its merge into another context, the external-change check, and memory.
struct StoreBenchmark {
    let path: String
    let rows: Int
    let saves: Int

    func run() throws {
        var table = ResultTable("Store (\(rows.formatted()) rows, \(saves) saves each)")

        let container = try Container(path: path)
        let view = container.viewContext
        var rng = SystemRandomNumberGenerator()
        // 100 registered objects, half of them inside the range the batch update will touch.
        let registered = (0..<100).map { index in
            ObjectID(table: "items", rowid: index < 50 ? Int64.random(in: 1...Int64(rows / 10), using: &rng) : Int64.random(in: Int64(rows / 10 + 1)...Int64(rows), using: &rng))
        }
        for id in registered { _ = try view.record(for: id) }

        // Raw single-row UPDATE commits through GRDB, on a pool of its own with SQLite's
        // automatic checkpoint (the default), as any GRDB app would do. Raw commits and saves
        // alternate in blocks of 100, so both meet the same machine conditions.
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        let rawIDs = (0..<100).map { _ in Int64.random(in: 1...Int64(rows), using: &rng) }
        let rawCommit = { (index: Int) throws in
            try pool.write { db in
                try db.execute(sql: "UPDATE items SET price = ? WHERE id = ?", arguments: [Double(index % 10_000) / 7, rawIDs[index % 100]])
            }
        }
        for index in 0..<200 {
            try rawCommit(index)
            try edit(view, registered[index % 100], index)
        }
        var rawSamples: [Double] = []
        var saveSamples: [Double] = []
        for block in 0..<max(1, saves / 100) {
            rawSamples += try Measure.samples(100) { try rawCommit(block * 100 + $0) }
            saveSamples += try Measure.samples(100) { try edit(view, registered[(block * 100 + $0) % 100], block * 100 + $0) }
        }
        try pool.close()
        let raw = Distribution(rawSamples)
        let ours = Distribution(saveSamples)
        let rssAfterSaves = Measure.residentMiB()

        table.add("raw GRDB commit p50 / p99 / max", "\(duration(raw.p50)) / \(duration(raw.p99)) / \(duration(raw.max))")
        table.add("edit + save() p50 / p99 / max", "\(duration(ours.p50)) / \(duration(ours.p99)) / \(duration(ours.max))")
        table.add("save / raw ratio at p50", String(format: "%.2f", ours.p50 / raw.p50), goal: "≤ 1.5")
        table.add("save / raw ratio at p99", String(format: "%.2f", ours.p99 / raw.p99))
        table.add("RSS, \(rows.formatted()) rows on disk, 100 registered", String(format: "%.1f MiB", rssAfterSaves), goal: "< 40 MiB")

        // Fetch by ObjectID: unregistered (one indexed read) and registered (reused).
        let fetcher = container.newBackgroundContext()
        let randomIDs = (0..<10_000).map { _ in ObjectID(table: "items", rowid: Int64.random(in: 1...Int64(rows), using: &rng)) }
        let cold = try Measure.time { for id in randomIDs { _ = try fetcher.record(for: id) } } / Double(randomIDs.count)
        let warm = try Measure.time { for id in randomIDs { _ = try fetcher.record(for: id) } } / Double(randomIDs.count)
        table.add("fetch by ObjectID, not registered (mean)", duration(cold))
        table.add("fetch by ObjectID, registered (mean)", duration(warm))

        // External-change check when nothing changed, and right after one of our commits.
        let checks = 100_000
        let idle = try Measure.time { for _ in 0..<checks { _ = try container.checkForExternalChanges() } } / Double(checks)
        var ownSamples: [Double] = []
        for index in 0..<500 {
            try edit(view, registered[index % 100], index)
            ownSamples.append(try Measure.time { _ = try container.checkForExternalChanges() })
        }
        table.add("checkForExternalChanges, nothing committed", duration(idle))
        table.add("checkForExternalChanges, after our commit", duration(Distribution(ownSamples).mean))


        // Batch update of 100k rows, then the time until the view shows it.
        let observed = ObservedTime()
        let queue = DispatchQueue(label: "bench.observer")
        let start = DispatchTime.now().uptimeNanoseconds
        let observation = container.observeSaves(on: queue) { _ in
            observed.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        let batchIDs = try container.batchUpdate(table: "items", set: ["notes": "batched"], where: .compare("id", .lessOrEqual, .integer(Int64(rows / 10))))
        let batchDone = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        try view.processPendingChanges()
        let merged = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let shown = try registered.prefix(50).allSatisfy { try view.record(for: $0)?["notes"] == "batched" }
        queue.sync {}
        observation.cancel()
        table.add("batch update of \(batchIDs.count.formatted()) rows", duration(batchDone))
        table.add("  … until the view's registered objects show it", duration(merged) + (shown ? "" : " (NOT SHOWN)"))
        table.add("  … until an observer on its queue got the event", duration(observed.seconds ?? .nan))

        // :set on 100k marked records (marked by a filter rule, as :select marks them), its
        // undo, and the marks it leaves (the 100k records written, one JSON argument).
        var marks = MarkSet()
        marks.set(matching: .compare("id", .lessOrEqual, .integer(Int64(rows / 10))), marked: true)
        guard let schema = container.schema.table(named: "items") else { return }
        var change: BulkChange?
        let setTime = try Measure.time {
            change = try container.bulkSet(table: "items", column: "notes", to: .text("bulk"), where: marks.predicate(for: schema))
        }
        table.add(":set on \(change?.count.formatted() ?? "?") marked records (values read, then written)", duration(setTime), goal: "< 0.5 s")
        var undone: BulkApplication?
        let undoTime = try Measure.time { undone = try container.apply(change!.reversed) }
        table.add("  … its undo (Alt-U), record by record", duration(undoTime) + (undone?.changedSince.isEmpty == false ? " (LEFT SOME)" : ""))
        var written = MarkSet()
        written.replace(withKeysOf: change!.records)
        var counted = 0
        let countTime = try Measure.time { counted = try container.countMarked(written, table: "items") }
        table.add("  … counting the \(counted.formatted()) records it marks after", duration(countTime))

        // F: a column's frequency table over every row, for unindexed columns of few, some
        // and a million distinct values.
        for column in ["category", "notes", "name"] {
            var distinct: Int?
            let seconds = try Measure.time { distinct = try container.frequencies(of: column, table: "items").distinct }
            if let distinct {
                table.add("F on \(column) (unindexed, \(distinct.formatted()) values)", duration(seconds), goal: "< 1 s")
            } else {
                let counting = try Measure.time { distinct = try container.distinctValues(of: column, table: "items") }
                table.add("F on \(column) (unindexed, \(distinct?.formatted() ?? "?") values): the table", duration(seconds), goal: "< 1 s")
                table.add("  … then its number of values, counted apart", duration(counting))
            }
        }

        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        table.add("WAL size at the end", "\(wal / 1024) KiB")
        table.print()
    }

    private func edit(_ context: ObjectContext, _ id: ObjectID, _ index: Int) throws {
        try context.update(id, values: ["price": .real(Double(index % 10_000) / 7)])
        try context.save()
    }
}

/// The time the observer saw the event. Written only on the observer's serial queue and read
/// after `queue.sync {}`, so the queue orders the two accesses.
private final class ObservedTime: @unchecked Sendable {
    var seconds: Double?
}
