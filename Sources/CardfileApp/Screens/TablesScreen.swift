import CardfileStore
import CardfileTerminal

/// The database's tables and views with their row counts (counted in the background, so a big table
/// never holds up the screen); Enter opens one.
struct TablesScreen {
    let tables: [TableSchema]
    var selected = 0
    /// Counts that arrived, by table name.
    var counts: [String: Int] = [:]

    init(tables: [TableSchema]) {
        self.tables = tables
    }

    mutating func handle(_ action: AppAction) -> Bool {
        switch action {
        case .up: selected = max(0, selected - 1)
        case .down: selected = min(max(0, tables.count - 1), selected + 1)
        case .first: selected = 0
        case .last: selected = max(0, tables.count - 1)
        default: return false
        }
        return true
    }

    var selectedTable: TableSchema? { tables.indices.contains(selected) ? tables[selected] : nil }

    /// The table drawn at `point` in `area` (a mouse click), or nil.
    func table(at point: Point, in area: Rect) -> Int? {
        let (_, body) = area.splitTop(1)
        guard body.contains(point) else { return nil }
        let index = max(0, selected - body.height + 1) + point.y - body.y
        return tables.indices.contains(index) ? index : nil
    }

    func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)
        guard !area.isEmpty else { return }
        buffer.fill(area, style: .plain)
        let (header, body) = area.splitTop(1)
        buffer.write("Tables", x: header.x, y: header.y, maxWidth: header.width, style: Style(foreground: .accent, attributes: [.bold]))
        let first = max(0, selected - body.height + 1)
        for (line, index) in (first..<tables.count).prefix(body.height).enumerated() {
            let table = tables[index]
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
