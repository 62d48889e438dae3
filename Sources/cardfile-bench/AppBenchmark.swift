import CardfileApp
import CardfileCurses
import CardfileStore
import CardfileTerminal
import Foundation

/// The editor's figures for issue #10, on the generated `items` table: keys handled and the
/// frame written by ncurses (to a file), as a person at a 120×40 terminal would meet them.
struct AppBenchmark {
    let path: String
    let rows: Int
    let size = Size(width: 120, height: 40)

    func run() throws {
        var table = ResultTable("Editor (\(rows.formatted()) rows, \(size.width)×\(size.height), frames written by ncurses to a file)")
        guard let stream = tmpfile() else { throw CursesError.notATerminal }
        defer { fclose(stream) }
        let backend = try CursesBackend(theme: .default, terminalType: "xterm-256color", output: stream, size: size)
        defer { backend.shutdown() }
        let clock = SystemClock()
        let inbox = Inbox(wake: {})

        var app: CardfileApp?
        let opened = try Measure.time {
            let container = try Container(path: path)
            app = try CardfileApp(container: container, options: CardfileApp.Options(table: "items", autosave: nil), size: size, clock: clock, inbox: inbox)
            try frame(app!, backend)
        }
        table.add("open the table to first frame (process start excluded)", duration(opened), goal: "< 30 ms")
        let editor = app!

        func keys(_ count: Int, _ key: (Int) -> KeyEvent) throws -> Distribution {
            Distribution(try Measure.samples(count) { index in
                _ = editor.update(.event(.key(key(index))))
                _ = editor.tick()
                try frame(editor, backend)
            })
        }
        let down = try keys(2000) { _ in KeyEvent(.down) }
        table.add("list: ↓ handled → frame flushed (p50 / p99)", "\(duration(down.p50)) / \(duration(down.p99))", goal: "p99 < 5 ms")
        let pages = try keys(500) { _ in KeyEvent(.pageDown) }
        table.add("list: PgDn handled → frame flushed (p50 / p99)", "\(duration(pages.p50)) / \(duration(pages.p99))", goal: "p99 < 5 ms")

        _ = editor.update(.event(.key(KeyEvent(.enter))))
        try frame(editor, backend)
        let typing = try keys(2000) { index in index % 2 == 0 ? .char("x") : KeyEvent(.backspace) }
        table.add("form: a key typed → frame flushed (p50 / p99)", "\(duration(typing.p50)) / \(duration(typing.p99))", goal: "p99 < 5 ms")
        _ = editor.update(.event(.key(KeyEvent(.escape))))

        // Sort by the unindexed name column: the first window, then the whole order.
        _ = editor.update(.event(.key(.char("l"))))
        let sorted = try Measure.time {
            _ = editor.update(.event(.key(.char("["))))
            try frame(editor, backend)
        }
        table.add("sort by an unindexed column → first frame", duration(sorted), goal: "< 150 ms")
        table.print()
    }

    private func frame(_ app: CardfileApp, _ backend: CursesBackend) throws {
        var buffer = Buffer(size: size)
        let cursor = app.view(into: &buffer)
        try backend.draw(buffer, cursor: cursor)
    }
}

/// Pages through a whole table in the editor and reports the resident memory afterwards (run
/// in a child process, so nothing else shares its heap).
struct AppBrowseMemoryBenchmark {
    let path: String

    func run() throws -> (rss: Double, pages: Int, seconds: Double) {
        let container = try Container(path: path)
        let size = Size(width: 120, height: 40)
        let app = try CardfileApp(container: container, options: CardfileApp.Options(table: "items", autosave: nil), size: size,
                                  clock: SystemClock(), inbox: Inbox(wake: {}))
        var pages = 0
        let seconds = try Measure.time {
            var last = ""
            while true {
                _ = app.update(.event(.key(KeyEvent(.pageDown))))
                _ = app.tick()
                var buffer = Buffer(size: size)
                _ = app.view(into: &buffer)
                pages += 1
                let status = buffer.line(size.height - 2)
                if status == last { break }
                last = status
            }
        }
        return (Measure.residentMiB(), pages, seconds)
    }
}
