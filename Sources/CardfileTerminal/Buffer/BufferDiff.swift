/// A run of changed cells on one line: what a backend writes after one cursor move.
public struct CellRun: Hashable, Sendable {
    public let x: Int
    public let y: Int
    public let cells: [Cell]
}

extension Buffer {
    /// The runs of cells that differ from `previous` (every line when there is no previous
    /// frame or its size differs). Runs separated by a few unchanged cells are joined, since
    /// rewriting them costs less than moving the cursor; a run never starts or ends inside a
    /// wide glyph.
    public func changes(since previous: Buffer?) -> [CellRun] {
        let width = size.width
        guard let previous, previous.size == size else {
            return (0..<size.height).map { y in CellRun(x: 0, y: y, cells: Array(cells[(y * width)..<((y + 1) * width)])) }
        }
        let joinGap = 4
        var runs: [CellRun] = []
        for y in 0..<size.height {
            let row = y * width
            var x = 0
            while x < width {
                guard cells[row + x] != previous.cells[row + x] else {
                    x += 1
                    continue
                }
                var start = x
                if cells[row + start].isContinuation, start > 0 { start -= 1 }
                var end = x + 1
                var gap = 0
                var probe = end
                while probe < width, gap <= joinGap {
                    if cells[row + probe] != previous.cells[row + probe] {
                        end = probe + 1
                        gap = 0
                    } else {
                        gap += 1
                    }
                    probe += 1
                }
                if end < width, cells[row + end].isContinuation { end += 1 }
                runs.append(CellRun(x: start, y: y, cells: Array(cells[(row + start)..<(row + end)])))
                x = end
            }
        }
        return runs
    }
}
