import CardfileCurses
import CardfileTerminal
import Foundation

/// Terminal figures for issue #4: rendering and diffing a full 200×60 table frame of
/// mixed-width text, a frame with one changed cell, and what the curses backend writes for a
/// one-line change.
struct TerminalBenchmark {
    let size = Size(width: 200, height: 60)

    func table(selected: Int, note: String = "") -> Table {
        let words = ["Ada Lovelace", "山田太郎", "Zoë Ünal", "Паris 🇫🇷", "한국어 텍스트", "emoji 😀 row", "plain ascii text", "Grace Hopper"]
        let rows = (0..<(size.height - 1)).map { row in
            (0..<8).map { column in "\(words[(row + column) % words.count]) \(row * 8 + column)\(column == 7 && row == 5 ? note : "")" }
        }
        return Table(columns: (0..<8).map { TableColumn("Column \($0)", maxWidth: 30) }, rows: rows,
                     marks: rows.indices.map { $0 % 7 == 3 ? .modified : nil }, selectedRow: selected, focusedColumn: 2,
                     scroll: ScrollPosition(first: 0, total: 10_000))
    }

    func render(_ widget: Table) -> Buffer {
        var buffer = Buffer(size: size)
        widget.render(in: buffer.area, buffer: &buffer)
        return buffer
    }

    func run() throws {
        var results = ResultTable("Terminal rendering (200×60 table, mixed-width text)")
        let first = render(table(selected: 0))
        let second = render(table(selected: 1))
        for _ in 0..<50 { _ = render(table(selected: 2)).changes(since: first) }

        // A whole new frame: everything differs from the frame before.
        let empty = Buffer(size: size)
        let full = Distribution(Measure.samples(300) { _ in
            let frame = render(table(selected: 0))
            _ = frame.changes(since: empty)
        })
        let renderOnly = Distribution(Measure.samples(300) { _ in _ = render(table(selected: 0)) })
        let diffFull = Distribution(Measure.samples(300) { _ in _ = first.changes(since: empty) })
        results.add("full frame: render + diff (p50 / max)", "\(duration(full.p50)) / \(duration(full.max))", goal: "< 2 ms")
        results.add("  of which render / diff (p50)", "\(duration(renderOnly.p50)) / \(duration(diffFull.p50))")

        // One cell changed between two frames (a character typed in a cell).
        let typed = render(table(selected: 0, note: "!"))
        let oneCell = Distribution(Measure.samples(300) { _ in _ = typed.changes(since: first) })
        let oneCellRuns = typed.changes(since: first)
        let renderAndDiff = Distribution(Measure.samples(300) { _ in
            let frame = render(table(selected: 0, note: "!"))
            _ = frame.changes(since: first)
        })
        results.add("one cell changed: diff (p50 / max)", "\(duration(oneCell.p50)) / \(duration(oneCell.max)) (\(oneCellRuns.reduce(0) { $0 + $1.cells.count }) cell)", goal: "< 0.2 ms")
        results.add("one cell changed: render + diff (p50)", duration(renderAndDiff.p50))
        let selectionRuns = second.changes(since: first)
        results.add("selection moved one row: cells to write", "\(selectionRuns.reduce(0) { $0 + $1.cells.count }) in \(selectionRuns.count) runs")

        // Bytes the curses backend writes, captured in memory.
        let withStatus = status(first, row: 5_000)
        let nextStatus = status(first, row: 5_001)
        let bytes = try cursesBytes([first, typed, withStatus, nextStatus, first])
        let statusCells = nextStatus.changes(since: withStatus).reduce(0) { $0 + $1.cells.count }
        let lineCells = first.changes(since: withStatus).reduce(0) { $0 + $1.cells.count }
        results.add("ncurses bytes: first full frame", "\(bytes[0].formatted()) B")
        results.add("ncurses bytes: one cell changed", "\(bytes[1]) B")
        results.add("ncurses bytes: status line text changed (\(statusCells) cells)", "\(bytes[3]) B", goal: "that line's changed cells")
        results.add("ncurses bytes: a whole line restyled (\(lineCells) cells)", "\(bytes[4]) B")
        results.print()
    }

    private func status(_ frame: Buffer, row: Int) -> Buffer {
        var changed = frame
        StatusBar(left: "people", center: "row \(row.formatted()) of 10,000", right: "saved")
            .render(in: Rect(x: 0, y: size.height - 1, width: size.width, height: 1), buffer: &changed)
        return changed
    }

    /// Draws frames through a curses backend writing to a temporary file (ncurses writes to the
    /// stream's descriptor, so it must be a real file) and counts the bytes of each frame.
    private func cursesBytes(_ frames: [Buffer]) throws -> [Int] {
        guard let stream = tmpfile() else { throw CursesError.notATerminal }
        defer { fclose(stream) }
        let backend = try CursesBackend(theme: .default, terminalType: "xterm-256color", output: stream, size: size)
        defer { backend.shutdown() }
        func fileSize() -> Int {
            fflush(stream)
            var info = stat()
            fstat(fileno(stream), &info)
            return Int(info.st_size)
        }
        return try frames.map { frame in
            let before = fileSize()
            try backend.draw(frame, cursor: nil)
            return fileSize() - before
        }
    }
}
