import CardfileStore
import Foundation

/// The SQL screen's figures (issue 24) on the generated `items` table: a statement compiled
/// and described, its rows counted, its result's first window and pages, a cancel, and a
/// write counted then run.
struct SQLBenchmark {
    let path: String
    let rows: Int
    let windowHeight = 50

    func run() throws {
        var table = ResultTable("SQL screen (\(rows.formatted()) rows, windows of \(windowHeight))")
        let container = try Container(path: path)
        let view = container.viewContext

        for (name, sql) in [
            ("one table with its key (editable)", "SELECT id, name, year FROM items WHERE year > 1990 ORDER BY name"),
            ("every row, no key (read-only)", "SELECT name, price FROM items"),
            ("GROUP BY (read-only)", "SELECT category, count(*), avg(price) FROM items GROUP BY category"),
        ] {
            var result: QueryResult?
            let described = try Measure.time { result = try container.openQuery(try container.compile(sql)) }
            var count = 0
            let counted = try Measure.time { count = try container.load(result!, cancellation: Cancellation()) }
            var live: LiveQuery?
            let opened = try Measure.time {
                live = try LiveQuery(context: view, spec: LiveQuerySpec(table: result!.table.name, sort: [ColumnSort(QueryResult.ordinalColumn)]),
                                     height: windowHeight, firstWindowInBackground: true)
            }
            let first = try Measure.time {
                while live!.isAwaitingFirstWindow {
                    Thread.sleep(forTimeInterval: 0.002)
                    _ = try live!.update(now: .now)
                }
            }
            let sorted = try Measure.time { try live!.waitForBackgroundWork() }
            let pages = Distribution(try Measure.samples(5) { _ in try live!.pageDown() })
            table.add("\(name): compile and describe", duration(described))
            table.add("  run it and keep its \(count.formatted()) rows (background, cancellable)", duration(counted))
            table.add("  open the list (loop) / first window (background)", "\(duration(opened)) / \(duration(opened + first))")
            table.add("  … until its order is known (background)", duration(sorted))
            table.add("  scroll a page, on the loop (p50 / max)", "\(duration(pages.p50)) / \(duration(pages.max))")
        }

        // A cancel: the progress handler stops a recursive query of three billion rows.
        let endless = try container.openQuery(try container.compile(
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000000000) SELECT x FROM n"))
        let cancellation = Cancellation()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? container.load(endless, cancellation: cancellation)
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.3)
        let cancelled = Measure.time {
            cancellation.cancel()
            done.wait()
        }
        table.add("cancel a 3e9-row recursive query: Esc to stopped", duration(cancelled), goal: "< 1 s")

        // A write of a tenth of the rows: counted in a transaction rolled back, then run.
        let update = try container.compile("UPDATE items SET notes = 'sql' WHERE id % 10 = 0")
        var counted: Int?
        let rehearsed = try Measure.time { counted = try container.rehearse(update, cancellation: Cancellation()) }
        let ran = try Measure.time { _ = try container.run(update, cancellation: Cancellation()) }
        table.add("UPDATE of \((counted ?? 0).formatted()) rows: counted (rolled back) / run", "\(duration(rehearsed)) / \(duration(ran))")

        // :index: a list sorted by the unindexed `name`, before and after the index it advises.
        func sortedByName() throws -> (advice: IndexAdvice?, open: Double, sorted: Double, page: Distribution, jump: Double) {
            var live: LiveQuery?
            let open = try Measure.time {
                live = try LiveQuery(context: view, spec: LiveQuerySpec(table: "items", sort: [ColumnSort("name")]), height: windowHeight)
            }
            let sorted = try Measure.time { try live!.waitForBackgroundWork() }
            let page = Distribution(try Measure.samples(50) { _ in try live!.pageDown() })
            let jump = try Measure.time { try live!.jump(toRow: rows * 7 / 10) }
            return (live!.indexAdvice, open, sorted, page, jump)
        }
        let before = try sortedByName()
        let made = try Measure.time { _ = try container.createIndex(on: "name", of: "items") }
        let after = try sortedByName()
        for (when, run) in [("before :index", before), ("after :index", after)] {
            table.add("sorted by name, \(when) (advice: \(run.advice.map { "\($0.column)" } ?? "none")): first window", duration(run.open))
            table.add("  … until the order is known (background) / page (p50) / jump to row 700k",
                      "\(duration(run.sorted)) / \(duration(run.page.p50)) / \(duration(run.jump))")
        }
        table.add(":index on name (\(rows.formatted()) rows)", duration(made))
        table.print()
    }
}
