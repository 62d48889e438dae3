import CardfileStore
import Foundation
import GRDB

/// Live query figures for issue #3, on the generated `items` table (index on `year`, none on
/// `name`, 1% of notes contain "needle").
struct LiveQueryBenchmark {
    let path: String
    let rows: Int
    let windowHeight = 50

    func run() throws {
        var table = ResultTable("Live queries (\(rows.formatted()) rows, windows of \(windowHeight))")
        let container = try Container(path: path)
        let view = container.viewContext

        // Open to the first window, by primary key and by an indexed column.
        var byKey: LiveQuery?
        let openKey = try Measure.time { byKey = try LiveQuery(context: view, spec: LiveQuerySpec(table: "items"), height: windowHeight) }
        let indexedSpec = LiveQuerySpec(table: "items", sort: [ColumnSort("year")])
        var byYear: LiveQuery?
        let openYear = try Measure.time { byYear = try LiveQuery(context: view, spec: indexedSpec, height: windowHeight) }
        table.add("open to first window, primary key", duration(openKey), goal: "< 50 ms")
        table.add("open to first window, indexed column", duration(openYear), goal: "< 50 ms")
        let positioned = try Measure.time { try byYear!.waitForBackgroundWork() }
        try byKey!.waitForBackgroundWork()
        table.add("  … until exact count and positions (background)", duration(openYear + positioned))

        for (name, live) in [("primary key", byKey!), ("indexed column", byYear!)] {
            let page = Distribution(try Measure.samples(200) { _ in try live.pageDown() })
            let end = try Measure.time { try live.jumpToEnd() }
            try live.jumpToStart()
            let jump = try Measure.time { try live.jump(toRow: rows * 7 / 10) }
            let selected = live.window.selectedPosition ?? -1
            table.add("scroll a page, \(name) (p50 / max)", "\(duration(page.p50)) / \(duration(page.max))", goal: "< 16 ms")
            table.add("jump to end, \(name)", duration(end), goal: "< 16 ms")
            table.add("jump to row \((rows * 7 / 10).formatted()), \(name)", duration(jump) + (selected == rows * 7 / 10 ? "" : " (WRONG ROW \(selected))"), goal: "< 16 ms")
        }

        // Re-sort by an unindexed text column while a simulated UI loop ticks every 10 ms. As in
        // the app, the top-N query of the first window runs in the background too.
        let live = byKey!
        live.firstWindowInBackground = true
        let resort = try resorting(live, to: [ColumnSort("name")])
        table.add("re-sort by unindexed text: new first window (top-N, background)", duration(resort.firstWindow), goal: "< 150 ms")
        table.add("  … until the whole order is sorted (background)", duration(resort.elapsed))
        table.add("  longest stall of a 10 ms UI loop meanwhile", duration(resort.longestStall))
        let sortedPage = Distribution(try Measure.samples(200) { _ in try live.pageDown() })
        let sortedJump = try Measure.time { try live.jump(toRow: rows * 7 / 10) }
        table.add("  then scroll a page (p50) / jump to row 700k", "\(duration(sortedPage.p50)) / \(duration(sortedJump))")

        // Two keys (`[` on category, `}` on name): no index serves them either.
        let twoKeys = try resorting(live, to: [ColumnSort("category"), ColumnSort("name", ascending: false)])
        table.add("re-sort by two keys (category ↑, name ↓): new first window", duration(twoKeys.firstWindow), goal: "< 150 ms")
        table.add("  … until the whole order is sorted (background)", duration(twoKeys.elapsed))
        table.add("  longest stall of a 10 ms UI loop meanwhile", duration(twoKeys.longestStall))
        let twoKeyPage = Distribution(try Measure.samples(200) { _ in try live.pageDown() })
        table.add("  then scroll a page (p50 / max)", "\(duration(twoKeyPage.p50)) / \(duration(twoKeyPage.max))")

        // A substring filter matching about 1% of rows.
        var filtered: LiveQuery?
        let firstFiltered = try Measure.time {
            filtered = try LiveQuery(context: view, spec: LiveQuerySpec(table: "items", filter: "needle", searchColumns: ["name", "notes"]), height: windowHeight)
        }
        let counted = try Measure.time { try filtered!.waitForBackgroundWork() }
        table.add("substring filter (~1%): first window", duration(firstFiltered))
        table.add("  … exact count (\(filtered!.window.count.known.formatted()) rows)", duration(firstFiltered + counted))

        // Refresh after another connection commits one row.
        let refresh = try externalRefresh(container: container, live: byYear!)
        table.add("external single-row commit to new diff (p50 / max)", "\(duration(refresh.p50)) / \(duration(refresh.max))")
        table.print()
    }

    /// Sorts `live` by `sort` while a UI loop ticks every 10 ms: when the new order's first
    /// window showed, when the whole order was sorted, and the loop's longest stall meanwhile.
    private func resorting(_ live: LiveQuery, to sort: [ColumnSort]) throws -> (firstWindow: Double, elapsed: Double, longestStall: Double) {
        var firstWindow: Double?
        let began = DispatchTime.now().uptimeNanoseconds
        let run = try tickingLoop(
            { try live.setSpec(LiveQuerySpec(table: "items", sort: sort)) },
            until: {
                if firstWindow == nil, !live.isAwaitingFirstWindow { firstWindow = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9 }
                return live.activity == .idle && !live.isAwaitingFirstWindow
            }, on: live)
        return (firstWindow ?? run.elapsed, run.elapsed, run.longestStall)
    }

    /// Runs `action`, then ticks like a UI loop (sleep 10 ms, `update`) until `done`; returns how
    /// long that took and the longest gap between two ticks beyond the 10 ms sleep.
    private func tickingLoop(_ action: () throws -> Void, until done: () -> Bool, on live: LiveQuery) throws -> (elapsed: Double, longestStall: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        try action()
        var last = DispatchTime.now().uptimeNanoseconds
        var longest = Double(last - start) / 1e9
        repeat {
            Thread.sleep(forTimeInterval: 0.010)
            _ = try live.update(now: .now)
            let now = DispatchTime.now().uptimeNanoseconds
            longest = max(longest, Double(now - last) / 1e9 - 0.010)
            last = now
        } while !done()
        _ = try live.update(now: .now)
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, longest)
    }

    private func externalRefresh(container: Container, live: LiveQuery) throws -> Distribution {
        let other = try DatabaseQueue(path: path)
        defer { try? other.close() }
        try live.jumpToStart()
        let shown = live.window.rows.map(\.id)
        var samples: [Double] = []
        for round in 0..<50 {
            guard case .integer(let rowid)? = shown[round % shown.count].primaryKeyValues?.first else { continue }
            try other.write { db in
                try db.execute(sql: "UPDATE items SET price = ? WHERE id = ?", arguments: [Double(round), rowid])
            }
            let start = DispatchTime.now().uptimeNanoseconds
            var change: WindowChange?
            while change == nil {
                // What the UI loop's external-change watch does several times a second.
                _ = try container.checkForExternalChanges()
                change = try live.update(now: .now + .seconds(round + 1))
            }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return Distribution(samples)
    }
}

/// Pages through a whole table and reports the resident memory afterwards; run in a child
/// process per table size so sizes do not share a heap.
struct BrowseMemoryBenchmark {
    let path: String

    func run() throws -> (rss: Double, pages: Int, seconds: Double) {
        let container = try Container(path: path)
        let live = try LiveQuery(context: container.viewContext, spec: LiveQuerySpec(table: "items"), height: 50)
        try live.waitForBackgroundWork()
        var pages = 0
        let seconds = try Measure.time {
            var last = -1
            while live.window.firstRow != last {
                last = live.window.firstRow
                try live.pageDown()
                pages += 1
            }
        }
        return (Measure.residentMiB(), pages, seconds)
    }
}
