/// A column of a ``Table``.
///
/// Its natural width is the widest of its title, the values drawn and ``knownWidth``. A column
/// whose natural width is at most ``maxWidth`` (a key, a number, a date, a code, short text) is
/// always drawn whole; a wider one (long text) gets ``maxWidth`` when there is room and shares
/// what remains otherwise, never below its title (up to ``maxWidth``) or ``minWidth``. A
/// ``width`` chosen by the person overrides all of that.
public struct TableColumn: Hashable, Sendable {
    public enum Alignment: Sendable { case left, right }
    public var title: String
    public var minWidth: Int
    public var maxWidth: Int
    public var alignment: Alignment
    /// A width the person chose (`_`, `<`, `>`), drawn as it is; nil for the natural width.
    public var width: Int?
    /// The widest value the caller has drawn in this column before (a floor for the natural
    /// width, so columns do not narrow as rows scroll by).
    public var knownWidth: Int

    public init(_ title: String, minWidth: Int = 3, maxWidth: Int = 40, alignment: Alignment = .left, width: Int? = nil, knownWidth: Int = 0) {
        self.title = title
        // No screen is 10,000 cells wide; holding widths there keeps the layout's sums small.
        self.minWidth = min(max(1, minWidth), 10_000)
        self.maxWidth = min(max(self.minWidth, maxWidth), 10_000)
        self.alignment = alignment
        self.width = width.map { min(max(1, $0), 10_000) }
        self.knownWidth = min(max(0, knownWidth), 10_000)
    }
}

/// A mark in a row's gutter: what is pending for the record.
public enum RowMark: Hashable, Sendable {
    case modified, inserted, deleted, conflict

    var symbol: String {
        switch self {
        case .modified: return "●"
        case .inserted: return "+"
        case .deleted: return "✗"
        case .conflict: return "!"
        }
    }

    var role: Role {
        switch self {
        case .modified: return .modified
        case .inserted: return .inserted
        case .deleted: return .deleted
        case .conflict: return .conflict
        }
    }
}

/// Where the shown rows stand in the whole list, for the scroll indicator.
public struct ScrollPosition: Hashable, Sendable {
    public var first: Int
    public var total: Int

    public init(first: Int, total: Int) {
        self.first = first
        self.total = total
    }
}

/// A list of records: a header, one line per row, a gutter of marks, a selected row, a focused
/// column and a scroll indicator. Columns get their natural widths (see ``TableColumn``); when
/// they do not all fit, the table scrolls sideways by whole columns, from ``firstColumn``, as
/// little as keeps the focused column in view.
///
/// The table draws only the rows it is given (the live query's window); its scroll state
/// belongs to the caller.
public struct Table: Widget {
    public var columns: [TableColumn]
    public var rows: [[String]]
    public var marks: [RowMark?]
    /// Rows the person marked (to act on several at once): a `*` in the gutter's second cell
    /// and bold text in the accent colour, so they differ without colour too.
    public var picked: [Bool]
    public var selectedRow: Int?
    public var focusedColumn: Int?
    public var scroll: ScrollPosition?
    /// Leading columns kept at the left while the others scroll sideways (the key).
    public var pinnedColumns: Int
    /// The first column of the part that scrolls sideways, as the caller last had it (the
    /// layout moves it only as far as keeps the focused column in view).
    public var firstColumn: Int

    public init(columns: [TableColumn], rows: [[String]], marks: [RowMark?] = [], picked: [Bool] = [], selectedRow: Int? = nil, focusedColumn: Int? = nil,
                scroll: ScrollPosition? = nil, pinnedColumns: Int = 0, firstColumn: Int = 0) {
        self.pinnedColumns = pinnedColumns
        self.columns = columns
        self.rows = rows
        self.marks = marks
        self.picked = picked
        self.selectedRow = selectedRow
        self.focusedColumn = focusedColumn
        self.scroll = scroll
        self.firstColumn = firstColumn
    }

    /// Each column's natural width: its title, the values drawn and what the caller has seen.
    public func naturalWidths() -> [Int] {
        columns.indices.map { index in
            let column = columns[index]
            var widest = max(column.minWidth, column.title.displayWidth, column.knownWidth)
            for row in rows where index < row.count {
                widest = max(widest, row[index].displayWidth)
            }
            return min(widest, 10_000)
        }
    }

    /// The columns shown, in order, with their widths. Every column fits whole when it can:
    /// long ones narrow first; when even that is too wide, the first ``pinnedColumns`` stay
    /// at the left and whole columns from ``firstColumn`` on fill the rest (moved just enough to
    /// show the focused one), any room left going to the long columns among them. Only a
    /// column wider than the room it has (the area, less the pinned columns) is ever cut.
    public func layout(width: Int) -> [(index: Int, width: Int)] {
        guard !columns.isEmpty, width > 0 else { return [] }
        let natural = naturalWidths()
        var preferred: [Int] = []
        var least: [Int] = []
        for (index, column) in columns.enumerated() {
            if let chosen = column.width {
                preferred.append(chosen)
                least.append(chosen)
            } else if natural[index] <= column.maxWidth {
                preferred.append(natural[index])
                least.append(natural[index])
            } else {
                // Long text: its cap when there is room, down to its title (or 8 cells).
                preferred.append(column.maxWidth)
                least.append(min(column.maxWidth, max(column.minWidth, column.title.displayWidth, 8)))
            }
        }
        // One space between columns.
        func total(_ widths: ArraySlice<Int>) -> Int { widths.reduce(0, +) + max(0, widths.count - 1) }
        func all(_ widths: [Int]) -> [(index: Int, width: Int)] { widths.enumerated().map { ($0.offset, $0.element) } }
        if total(preferred[...]) <= width { return all(preferred) }
        // Long columns narrow first, the widest first, down to their least.
        var widths = preferred
        var excess = total(widths[...]) - width
        while excess > 0 {
            guard let widest = widths.indices.filter({ widths[$0] > least[$0] }).max(by: { widths[$0] < widths[$1] }) else { break }
            let second = widths.indices.filter { $0 != widest && widths[$0] > least[$0] }.map { widths[$0] }.max() ?? least[widest]
            let step = max(1, min(excess, widths[widest] - max(second, least[widest])))
            widths[widest] -= step
            excess -= step
        }
        if excess <= 0 { return all(widths) }
        // Sideways: the pinned columns (when they leave room for another), then whole columns.
        widths = least
        var pinned = min(max(0, pinnedColumns), columns.count - 1)
        // (Pinned columns stay while they leave 4 cells for another; a column wider than what
        // they leave is cut.)
        if pinned > 0, total(widths[0..<pinned]) + 1 + min(4, widths[pinned...].min()!) > width { pinned = 0 }
        let room = pinned > 0 ? width - total(widths[0..<pinned]) - 1 : width
        // A focus on a pinned column leaves the scroll where it is.
        let focused = min(max(0, focusedColumn ?? pinned), columns.count - 1)
        let focus = focused < pinned ? min(max(pinned, firstColumn), columns.count - 1) : focused
        var first = min(max(pinned, firstColumn), focus)
        while first < focus, total(widths[first...focus]) > room { first += 1 }
        // Room left at the end of the table is used for columns to the left.
        while first > pinned, total(widths[(first - 1)...]) <= room { first -= 1 }
        var last = first
        while last + 1 < columns.count, total(widths[first...(last + 1)]) <= room { last += 1 }
        var shown = Array(widths[first...last])
        if shown.count == 1, shown[0] > room { shown[0] = max(1, room) }
        // What is left goes to the long columns shown, up to their cap.
        var spare = room - total(shown[...])
        for offset in shown.indices where spare > 0 {
            let index = first + offset
            let grow = min(spare, preferred[index] - shown[offset])
            if grow > 0, columns[index].width == nil {
                shown[offset] += grow
                spare -= grow
            }
        }
        return (0..<pinned).map { ($0, widths[$0]) } + shown.enumerated().map { (first + $0.offset, $0.element) }
    }

    /// The first column of the part that scrolls, as ``layout(width:)`` places it in a table
    /// drawn `width` cells wide: what the caller keeps as ``firstColumn``.
    public func scrolledFirstColumn(width: Int) -> Int {
        let pinned = min(max(0, pinnedColumns), max(0, columns.count - 1))
        return layout(width: width).map(\.index).first { $0 >= pinned } ?? firstColumn
    }

    /// The width of the area the columns get when the table is drawn in `area`.
    public func contentWidth(in area: Rect) -> Int { frame(in: area).content.width }

    /// What is under `point` when the table is drawn in `area` (a mouse click): the row's
    /// index (nil on the header or below the rows) and the column's (nil between columns and
    /// on the gutter). `isHeader` is true on the header line.
    public func hit(_ point: Point, in area: Rect) -> (row: Int?, column: Int?, isHeader: Bool) {
        guard area.contains(point) else { return (nil, nil, false) }
        let line = point.y - area.y - 1
        let row = line >= 0 && line < rows.count ? line : nil
        let content = frame(in: area).content
        var column: Int?
        var x = content.x
        for (index, width) in layout(width: content.width) {
            if point.x >= x, point.x < x + width { column = index }
            x += width + 1
        }
        return (row, column, point.y == area.y)
    }

    /// Where the columns go in `area` (right of the marks' gutter, left of the scrollbar),
    /// the gutter's width, and whether there is a scrollbar.
    private func frame(in area: Rect) -> (content: Rect, gutter: Int, showsScrollbar: Bool) {
        let showsScrollbar = scroll.map { $0.total > max(0, area.height - 1) } ?? false && area.width > 3
        let gutter = area.width > 4 ? 2 : 0
        let content = Rect(x: area.x + gutter, y: area.y, width: area.width - gutter - (showsScrollbar ? 1 : 0), height: area.height)
        return (content, gutter, showsScrollbar)
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        // Lines below the rows; the header and each row fill their own line.
        buffer.fill(Rect(x: area.x, y: area.y + 1 + rows.count, width: area.width, height: area.height - 1 - rows.count), style: .plain)
        let (content, gutter, showsScrollbar) = frame(in: area)
        let placed = layout(width: content.width)

        // Header.
        let header = Style(foreground: .accent, background: .surface, attributes: [.bold])
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), style: header)
        var x = content.x
        for (index, width) in placed {
            let column = columns[index]
            let style = index == focusedColumn ? header.adding(.underline) : header
            writeAligned(column.title, x: x, y: area.y, width: width, alignment: column.alignment, style: style, buffer: &buffer)
            x += width + 1
        }

        // Rows.
        for (line, row) in rows.enumerated() {
            let y = area.y + 1 + line
            guard y < area.maxY else { break }
            let selected = line == selectedRow
            let isPicked = line < picked.count && picked[line]
            var rowStyle = selected ? Style(foreground: .text, background: .selection) : .plain
            buffer.fill(Rect(x: area.x, y: y, width: area.width - (showsScrollbar ? 1 : 0), height: 1), style: rowStyle)
            if gutter > 0, line < marks.count, let mark = marks[line] {
                buffer.write(mark.symbol, x: area.x, y: y, maxWidth: 1, style: rowStyle.with(foreground: mark.role).adding(.bold))
            }
            if isPicked {
                rowStyle = (selected ? rowStyle : rowStyle.with(foreground: .accent)).adding(.bold)
                if gutter > 1 { buffer.write("*", x: area.x + 1, y: y, maxWidth: 1, style: rowStyle) }
            }
            var x = content.x
            for (index, width) in placed {
                let text = index < row.count ? row[index] : ""
                var style = rowStyle
                if line < marks.count, marks[line] == .deleted { style = style.with(foreground: .muted).adding(.dim) }
                if selected, index == focusedColumn { style = style.adding(.underline) }
                writeAligned(text, x: x, y: y, width: width, alignment: columns[index].alignment, style: style, buffer: &buffer)
                x += width + 1
            }
        }

        if showsScrollbar, let scroll { renderScrollbar(scroll, x: area.maxX - 1, top: area.y + 1, height: area.height - 1, buffer: &buffer) }
    }

    private func writeAligned(_ text: String, x: Int, y: Int, width: Int, alignment: TableColumn.Alignment, style: Style, buffer: inout Buffer) {
        guard width > 0 else { return }
        var start = x
        if alignment == .right {
            let used = min(width, text.displayWidth)
            start = x + width - used
        }
        buffer.write(text, x: start, y: y, maxWidth: x + width - start, style: style)
    }

    /// A one-column bar whose thumb shows the window's place and size in the list.
    private func renderScrollbar(_ scroll: ScrollPosition, x: Int, top: Int, height: Int, buffer: inout Buffer) {
        guard height > 0, scroll.total > 0 else { return }
        // In floating point: positions near Int.max must not overflow.
        let visible = min(scroll.total, rows.count)
        let thumb = max(1, min(height, Int(Double(height) * Double(visible) / Double(scroll.total))))
        let room = height - thumb
        let maxFirst = max(1, scroll.total - visible)
        let offset = min(room, Int((Double(room) * Double(min(max(0, scroll.first), maxFirst)) / Double(maxFirst)).rounded()))
        for line in 0..<height {
            let inThumb = line >= offset && line < offset + thumb
            buffer.set(Cell(text: inThumb ? "█" : "░", style: Style(foreground: inThumb ? .accent : .border)), x: x, y: top + line)
        }
    }
}
