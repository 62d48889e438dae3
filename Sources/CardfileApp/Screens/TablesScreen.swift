import CardfileStore
import CardfileTerminal
import Foundation

/// The database's tables and views with their row counts (counted in the background, so a big table
/// never holds up the screen); Enter opens one, `/` narrows them by name.
struct TablesScreen {
    private(set) var tables: [TableSchema]
    /// The part of a name the tables shown contain (any case); empty: every table.
    private(set) var filter = ""
    /// The tables shown: those whose names contain ``filter``.
    private(set) var shown: [TableSchema]
    /// The selected line of ``shown``.
    var selected = 0
    /// Counts that arrived, by table name.
    var counts: [String: Int] = [:]

    init(tables: [TableSchema]) {
        self.tables = tables
        self.shown = tables
    }

    /// The tables as the schema now has them (a statement created or dropped some): the filter
    /// and the selected table (while it exists) stay.
    mutating func setTables(_ tables: [TableSchema]) {
        let (keep, line) = (selectedTable?.name, selected)
        self.tables = tables
        setFilter(filter)
        selected = keep.flatMap { name in shown.firstIndex { $0.name == name } } ?? min(line, max(0, shown.count - 1))
    }

    /// Moves the selection; `page` is how many tables a page holds.
    mutating func handle(_ action: AppAction, page: Int) -> Bool {
        let last = max(0, shown.count - 1)
        switch action {
        case .up: selected = max(0, selected - 1)
        case .down: selected = min(last, selected + 1)
        case .pageUp: selected = max(0, selected - max(1, page))
        case .pageDown: selected = min(last, selected + max(1, page))
        case .first: selected = 0
        case .last: selected = last
        default: return false
        }
        return true
    }

    /// Shows only the tables whose names contain `text` (any case), keeping the selected table
    /// selected while it is still shown.
    mutating func setFilter(_ text: String) {
        let keep = selectedTable?.name
        filter = text
        let needle = text.trimmingCharacters(in: .whitespaces).lowercased()
        shown = needle.isEmpty ? tables : tables.filter { $0.name.lowercased().contains(needle) }
        selected = keep.flatMap { name in shown.firstIndex { $0.name == name } } ?? 0
    }

    var selectedTable: TableSchema? { shown.indices.contains(selected) ? shown[selected] : nil }

    /// The line of ``shown`` drawn at `point` in `area` (a mouse click), or nil.
    func table(at point: Point, in area: Rect) -> Int? {
        let (_, body) = area.splitTop(1)
        guard body.contains(point) else { return nil }
        let index = max(0, selected - body.height + 1) + point.y - body.y
        return shown.indices.contains(index) ? index : nil
    }

    /// What the screen says when it has no table to show.
    var emptyText: String? {
        if tables.isEmpty {
            return "This database has no tables yet. To make one from a CSV, TSV or JSON file, quit (q) and run: cardfile import DATABASE FILE --table NAME --create. Or create one with SQL (Q here) or sqlite3: it shows here at once."
        }
        if shown.isEmpty { return "No table's name contains “\(filter.trimmingCharacters(in: .whitespaces))”. / changes the filter; Esc on it shows every table." }
        return nil
    }

    func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)
        guard !area.isEmpty else { return }
        buffer.fill(area, style: .plain)
        let (header, body) = area.splitTop(1)
        let needle = filter.trimmingCharacters(in: .whitespaces)
        let title = needle.isEmpty ? "Tables" : "Tables whose name contains “\(needle)” (\(shown.count) of \(tables.count))"
        buffer.write(title, x: header.x, y: header.y, maxWidth: header.width, style: Style(foreground: .accent, attributes: [.bold]))
        if let emptyText {
            for (line, text) in Dialog.wrap(emptyText, width: max(1, body.width - 4)).prefix(body.height).enumerated() {
                buffer.write(text, x: body.x + 2, y: body.y + line, maxWidth: max(0, body.width - 2), style: Style(foreground: .muted))
            }
            return
        }
        let first = max(0, selected - body.height + 1)
        for (line, index) in (first..<shown.count).prefix(body.height).enumerated() {
            let table = shown[index]
            let style = index == selected ? Style(foreground: .text, background: .selection) : .plain
            let y = body.y + line
            buffer.fill(Rect(x: body.x, y: y, width: body.width, height: 1), style: style)
            let counted = counts[table.name].map { "\(ValueText.count($0)) record\($0 == 1 ? "" : "s")" } ?? "counting…"
            let count = table.isView ? "view · " + counted : counted
            let countWidth = min(count.displayWidth, max(0, body.width - 4))
            buffer.write("  " + table.name, x: body.x, y: y, maxWidth: max(0, body.width - countWidth - 1), style: style)
            buffer.write(count, x: body.maxX - countWidth, y: y, maxWidth: countWidth, style: style.with(foreground: .muted))
        }
    }
}
