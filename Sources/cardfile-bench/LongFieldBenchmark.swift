import CardfileApp
import CardfileCurses
import CardfileStore
import CardfileTerminal
import Foundation
import GRDB

/// Issue 19's figure for a form field holding one line of 1 MB: opening its form, and a key
/// typed at its end or its start until the frame is written (ncurses, to a file).
struct LongFieldBenchmark {
    let folder: String
    let size = Size(width: 120, height: 40)

    func run() throws {
        let path = "\(folder)/long-field.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let queue = try DatabaseQueue(path: path)
        // Words of 2 to 9 letters, so wrapping has spaces to break at, 1 MiB in all.
        var text = ""
        text.reserveCapacity(1 << 20)
        var word = 0
        while text.utf8.count < 1 << 20 {
            text += String(repeating: "abcdefghi".randomElement()!, count: 2 + word % 8) + " "
            word += 1
        }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO notes (body) VALUES (?)", arguments: [text])
        }
        try queue.close()

        var table = ResultTable("A form field holding one line of \((text.utf8.count).formatted()) bytes (\(size.width)×\(size.height))")
        guard let stream = tmpfile() else { throw CursesError.notATerminal }
        defer { fclose(stream) }
        let backend = try CursesBackend(theme: .default, terminalType: "xterm-256color", output: stream, size: size)
        defer { backend.shutdown() }
        let container = try Container(path: path)
        let app = try CardfileApp(container: container, options: CardfileApp.Options(table: "notes", autosave: nil), size: size,
                                  clock: SystemClock(), inbox: Inbox(wake: {}))
        try frame(app, backend)
        let opened = try Measure.time {
            _ = app.update(.event(.key(KeyEvent(.enter))))
            _ = app.tick()
            try frame(app, backend)
        }
        table.add("open the form → first frame", duration(opened), goal: "< 50 ms")
        func keys(_ count: Int, _ key: (Int) -> KeyEvent) throws -> Distribution {
            Distribution(try Measure.samples(count) { index in
                _ = app.update(.event(.key(key(index))))
                _ = app.tick()
                try frame(app, backend)
            })
        }
        _ = app.update(.event(.key(KeyEvent(.end))))
        let atEnd = try keys(300) { index in index % 2 == 0 ? .char("x") : KeyEvent(.backspace) }
        table.add("a key typed at its end → frame flushed (p50 / p99)", "\(duration(atEnd.p50)) / \(duration(atEnd.p99))", goal: "p99 < 16 ms")
        _ = app.update(.event(.key(KeyEvent(.home))))
        let atStart = try keys(300) { index in index % 2 == 0 ? .char("x") : KeyEvent(.backspace) }
        table.add("a key typed at its start → frame flushed (p50 / p99)", "\(duration(atStart.p50)) / \(duration(atStart.p99))", goal: "p99 < 16 ms")
        let moving = try keys(300) { _ in KeyEvent(.right) }
        table.add("→ moving through it → frame flushed (p50 / p99)", "\(duration(moving.p50)) / \(duration(moving.p99))", goal: "p99 < 16 ms")
        table.print()
    }

    private func frame(_ app: CardfileApp, _ backend: CursesBackend) throws {
        var buffer = Buffer(size: size)
        let cursor = app.view(into: &buffer)
        try backend.draw(buffer, cursor: cursor)
    }
}
