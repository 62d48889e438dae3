/// A frame: a grid of cells that widgets draw into and a backend puts on screen.
///
/// Text written here is measured per grapheme cluster and sanitised (see ``Glyph``), so what a
/// buffer holds is always safe to send to a terminal. A wide glyph is never split: one that
/// does not fit at the right edge is left out, and an ellipsis never cuts one in half. No cell
/// is wider than two columns (see ``Glyph/pieces(of:)``), so a row never holds more columns
/// than the buffer is wide.
public struct Buffer: Hashable, Sendable {
    public let size: Size
    public private(set) var cells: [Cell]

    public init(size: Size, fill: Cell = .blank) {
        self.size = size
        cells = Array(repeating: fill, count: size.width * size.height)
    }

    public var area: Rect { Rect(size: size) }

    public subscript(x: Int, y: Int) -> Cell {
        cells[y * size.width + x]
    }

    /// What to do with text wider than the room given.
    public enum Overflow: Sendable {
        /// Cut at the edge.
        case clip
        /// End with `…` in the last cell.
        case ellipsis
    }

    /// Puts one cell, keeping wide glyphs whole: overwriting half of a wide glyph blanks the
    /// other half.
    public mutating func set(_ cell: Cell, x: Int, y: Int) {
        guard x >= 0, y >= 0, x < size.width, y < size.height else { return }
        let index = y * size.width + x
        if cell.width == 2, x + 1 >= size.width {
            // A wide glyph cannot start in the last column.
            set(Cell(text: " ", width: 1, style: cell.style), x: x, y: y)
            return
        }
        let old = cells[index]
        if old.isContinuation, x > 0 {
            cells[index - 1] = Cell(text: " ", width: 1, style: cells[index - 1].style)
        }
        if old.width == 2, x + 1 < size.width, cell.width != 2 {
            cells[index + 1] = Cell(text: " ", width: 1, style: cells[index + 1].style)
        }
        cells[index] = cell
        if cell.width == 2 {
            let next = cells[index + 1]
            if next.width == 2, x + 2 < size.width {
                cells[index + 2] = Cell(text: " ", width: 1, style: cells[index + 2].style)
            }
            cells[index + 1] = .continuation(cell.style)
        }
    }

    /// Fills a rectangle (clipped to the buffer) with `text` (one cell wide) in `style`.
    public mutating func fill(_ rect: Rect, style: Style, text: String = " ") {
        let clipped = rect.intersection(area)
        guard !clipped.isEmpty else { return }
        let cell = Cell(text: text, width: 1, style: style)
        for y in clipped.y..<clipped.maxY {
            let row = y * size.width
            if clipped.x > 0, cells[row + clipped.x].isContinuation {
                cells[row + clipped.x - 1] = Cell(text: " ", width: 1, style: cells[row + clipped.x - 1].style)
            }
            if clipped.maxX < size.width, cells[row + clipped.maxX].isContinuation {
                cells[row + clipped.maxX] = Cell(text: " ", width: 1, style: cells[row + clipped.maxX].style)
            }
            cells.withUnsafeMutableBufferPointer { cells in
                for x in clipped.x..<clipped.maxX { cells[row + x] = cell }
            }
        }
    }

    /// Changes the style of the cells in `rect`, keeping their text.
    public mutating func restyle(_ rect: Rect, _ transform: (Style) -> Style) {
        let clipped = rect.intersection(area)
        guard !clipped.isEmpty else { return }
        for y in clipped.y..<clipped.maxY {
            for x in clipped.x..<clipped.maxX {
                cells[y * size.width + x].style = transform(cells[y * size.width + x].style)
            }
        }
    }

    /// Writes `text` on line `y` from column `x`, in at most `maxWidth` cells (and never past
    /// the buffer's edge). Returns the number of cells used.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, maxWidth: Int = .max, style: Style = .plain, overflow: Overflow = .ellipsis) -> Int {
        guard y >= 0, y < size.height, x < size.width, maxWidth > 0 else { return 0 }
        let start = max(0, x)
        let limit = min(size.width, x > Int.max - maxWidth ? Int.max : x + maxWidth)
        guard start < limit else { return 0 }
        var column = start
        var starts: [Int] = []
        starts.reserveCapacity(4)
        let placeholderStyle = Style(foreground: Style.placeholder.foreground, background: style.background, attributes: Style.placeholder.attributes)

        func put(_ glyph: Glyph) -> Bool {
            if column + glyph.width > limit {
                finishOverflow()
                return false
            }
            set(Cell(text: glyph.text, width: UInt8(clamping: glyph.width), style: glyph.isPlaceholder ? placeholderStyle : style), x: column, y: y)
            if starts.count == 3 { starts.removeFirst() }
            starts.append(column)
            column += glyph.width
            return true
        }

        func finishOverflow() {
            if overflow == .ellipsis {
                while column + 1 > limit, let last = starts.popLast() { column = last }
                if column + 1 <= limit {
                    set(Cell(text: "…", width: 1, style: style), x: column, y: y)
                    column += 1
                }
            }
            // Cells left before the limit (a wide glyph that did not fit, or cells freed by
            // making room for the ellipsis) are blanked.
            while column < limit {
                set(Cell(text: " ", width: 1, style: style), x: column, y: y)
                column += 1
            }
        }

        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            for byte in text.utf8 {
                if column + 1 > limit {
                    finishOverflow()
                    return column - start
                }
                set(Cell(text: Buffer.ascii[Int(byte) - 0x20], width: 1, style: style), x: column, y: y)
                if starts.count == 3 { starts.removeFirst() }
                starts.append(column)
                column += 1
            }
            return column - start
        }
        drawing: for character in text {
            let glyph = Glyph(character)
            if glyph.width == 0 { continue }
            if glyph.width <= 2 {
                if !put(glyph) { break }
                continue
            }
            for piece in Glyph.pieces(of: character) where !put(piece) { break drawing }
        }
        return column - start
    }

    /// One-character strings for printable ASCII, made once.
    private static let ascii: [String] = (0x20..<0x7F).map { String(UnicodeScalar(UInt8($0))) }

    /// The text of line `y`, continuations left out (for tests and plain output).
    public func line(_ y: Int) -> String {
        var text = ""
        for x in 0..<size.width {
            let cell = self[x, y]
            if !cell.isContinuation { text += cell.text }
        }
        return text
    }

    /// Every line's text.
    public var lines: [String] {
        (0..<size.height).map(line)
    }
}
