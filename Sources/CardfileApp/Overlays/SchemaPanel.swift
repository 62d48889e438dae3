import CardfileTerminal

/// `:schema`'s panel: the lines describing a table, some of them naming another table (a
/// foreign key, or one pointing here). ↑ ↓ go from one such line to the next, Enter opens that
/// table's list, PgUp PgDn scroll, Esc closes.
struct SchemaPanel {
    let title: String
    let lines: [String]
    /// The lines that name another table, by line index.
    let links: [Int: String]
    /// The line chosen among ``links``; none at first (the panel opens at its top, and a
    /// line chosen out of sight would open a table the person has not seen named).
    private(set) var selected: Int?
    private(set) var scroll = 0

    init(title: String, lines: [String], links: [Int: String]) {
        self.title = title
        self.lines = lines
        self.links = links
    }

    /// The table the chosen line names.
    var selectedTable: String? { selected.flatMap { links[$0] } }

    func frame(in area: Rect) -> Rect {
        let widest = max(lines.map(\.displayWidth).max() ?? 0, title.displayWidth + 2)
        return area.centered(Size(width: min(widest + 4, max(0, area.width - 2)), height: min(lines.count + 2, area.height)))
    }

    private func visibleRows(in area: Rect) -> Int { max(1, frame(in: area).height - 2) }

    /// ↑ (-1) or ↓ (1): the previous or next line naming a table, scrolled into view; with
    /// none that way, the text scrolls a line.
    mutating func step(_ direction: Int, in area: Rect) {
        let ordered = links.keys.sorted()
        let next = direction > 0 ? ordered.first { $0 > (selected ?? -1) } : ordered.last { $0 < (selected ?? Int.max) }
        if let next { selected = next } else { return scrollBy(direction, in: area) }
        let visible = visibleRows(in: area)
        if next! < scroll { scroll = next! }
        if next! >= scroll + visible { scroll = next! - visible + 1 }
    }

    mutating func scrollBy(_ lines: Int, in area: Rect) {
        scroll = min(max(0, self.lines.count - visibleRows(in: area)), max(0, scroll + lines))
    }

    func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)
        let box = frame(in: area)
        let inner = Block(title: title).render(in: box, buffer: &buffer)
        guard !inner.isEmpty else { return }
        let surface = Style(foreground: .text, background: .surface)
        for (offset, line) in lines.dropFirst(scroll).prefix(inner.height).enumerated() {
            let index = scroll + offset
            let isChosen = index == selected
            let style = isChosen ? Style(foreground: .text, background: .selection, attributes: [.bold])
                : links[index] != nil ? Style(foreground: .accent, background: .surface) : surface
            let y = inner.y + offset
            buffer.set(Cell(text: " ", style: style), x: inner.x, y: y)
            let written = buffer.write(line, x: inner.x + 1, y: y, maxWidth: max(0, inner.width - 2), style: style)
            for x in (inner.x + 1 + written)..<(inner.x + inner.width - 1) where x >= inner.x + 1 { buffer.set(Cell(text: " ", style: style), x: x, y: y) }
            // The chosen line's marker sits in its indent: ` › books.author`.
            if isChosen { _ = buffer.write("›", x: inner.x + 1, y: y, maxWidth: 1, style: style) }
        }
        if scroll + inner.height < lines.count {
            _ = buffer.write("↓ more", x: inner.x + inner.width - 7, y: inner.y + inner.height - 1, maxWidth: 6, style: Style(foreground: .muted, background: .surface))
        }
    }
}
