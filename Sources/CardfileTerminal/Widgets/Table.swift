/// A column of a ``Table``.
public struct TableColumn: Hashable, Sendable {
    public enum Alignment: Sendable { case left, right }
    public var title: String
    public var minWidth: Int
    public var maxWidth: Int
    public var alignment: Alignment

    public init(_ title: String, minWidth: Int = 3, maxWidth: Int = 40, alignment: Alignment = .left) {
        self.title = title
        // No screen is 10,000 cells wide; holding widths there keeps the layout's sums small.
        self.minWidth = min(max(1, minWidth), 10_000)
        self.maxWidth = min(max(self.minWidth, maxWidth), 10_000)
        self.alignment = alignment
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
/// column and a scroll indicator. Column widths fit the area and the data on screen; when the
/// columns do not fit, the focused column stays visible.
///
/// The table draws only the rows it is given (the live query's window); its scroll state
/// belongs to the caller.
public struct Table: Widget {
    public var columns: [TableColumn]
    public var rows: [[String]]
    public var marks: [RowMark?]
    public var selectedRow: Int?
    public var focusedColumn: Int?
    public var scroll: ScrollPosition?
    /// Leading columns kept at the left while the others scroll sideways (the key).
    public var pinnedColumns: Int

    public init(columns: [TableColumn], rows: [[String]], marks: [RowMark?] = [], selectedRow: Int? = nil, focusedColumn: Int? = nil,
                scroll: ScrollPosition? = nil, pinnedColumns: Int = 0) {
        self.pinnedColumns = pinnedColumns
        self.columns = columns
        self.rows = rows
        self.marks = marks
        self.selectedRow = selectedRow
        self.focusedColumn = focusedColumn
        self.scroll = scroll
    }

    /// The columns shown, in order, with their widths. When they do not all fit, the first
    /// ``pinnedColumns`` stay at the left and a run of the others containing the focused one
    /// fills the rest (scrolling sideways as the focus moves).
    public func layout(width: Int) -> [(index: Int, width: Int)] {
        guard !columns.isEmpty, width > 0 else { return [] }
        let natural = columns.indices.map { index -> Int in
            let column = columns[index]
            let data = rows.map { index < $0.count ? $0[index].displayWidth : 0 }.max() ?? 0
            return min(column.maxWidth, max(column.minWidth, column.title.displayWidth, data))
        }
        // One space between columns.
        func total(_ widths: ArraySlice<Int>) -> Int { widths.reduce(0, +) + max(0, widths.count - 1) }
        func all(_ widths: [Int]) -> [(index: Int, width: Int)] { widths.enumerated().map { ($0.offset, $0.element) } }
        if total(natural[...]) <= width { return all(natural) }
        // Shrink the widest columns first, down to their minimum.
        var widths = natural
        while total(widths[...]) > width {
            guard let widest = widths.indices.filter({ widths[$0] > columns[$0].minWidth }).max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        if total(widths[...]) <= width { return all(widths) }
        // Still too wide: the pinned columns (when they leave room for another), then a run of
        // columns containing the focused one.
        var pinned = min(max(0, pinnedColumns), columns.count - 1)
        if pinned > 0, total(widths[0..<pinned]) + 1 + columns[pinned...].map(\.minWidth).min()! > width { pinned = 0 }
        let room = pinned > 0 ? width - total(widths[0..<pinned]) - 1 : width
        let focus = min(max(pinned, focusedColumn ?? 0), columns.count - 1)
        var first = focus
        var last = focus
        while true {
            if last + 1 < columns.count, total(widths[first...(last + 1)]) <= room { last += 1; continue }
            if first > pinned, total(widths[(first - 1)...last]) <= room { first -= 1; continue }
            break
        }
        var shown = Array(widths[first...last])
        if total(shown[...]) > room { shown[shown.count - 1] = max(1, room - (total(shown[...]) - shown[shown.count - 1])) }
        return (0..<pinned).map { ($0, widths[$0]) } + shown.enumerated().map { (first + $0.offset, $0.element) }
    }

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
            let rowStyle = selected ? Style(foreground: .text, background: .selection) : .plain
            buffer.fill(Rect(x: area.x, y: y, width: area.width - (showsScrollbar ? 1 : 0), height: 1), style: rowStyle)
            if gutter > 0, line < marks.count, let mark = marks[line] {
                buffer.write(mark.symbol, x: area.x, y: y, maxWidth: 1, style: rowStyle.with(foreground: mark.role).adding(.bold))
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
