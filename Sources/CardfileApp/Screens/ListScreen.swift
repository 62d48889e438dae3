import CardfileStore
import CardfileTerminal

/// A table's records: a live query on the view context, drawn as a table with a focused
/// column, sorted and filtered as the person asks.
final class ListScreen {
    let table: TableSchema
    let live: LiveQuery
    private(set) var focusedColumn = 0
    /// The columns shown (hidden and generated-hidden ones left out).
    let columns: [ColumnDescription]

    init(context: ObjectContext, table: TableSchema, height: Int, refreshInterval: Duration, wake: @escaping @Sendable () -> Void) throws(StoreError) {
        self.table = table
        columns = table.columns.filter { !$0.isHidden }
        live = try LiveQuery(context: context, spec: LiveQuerySpec(table: table.name), height: max(1, height),
                             minimumRefreshInterval: refreshInterval, wake: wake)
    }

    var spec: LiveQuerySpec { live.spec }

    /// Handles a list action; returns false for actions the app handles.
    func handle(_ action: AppAction) throws(StoreError) -> Bool {
        switch action {
        case .up: try live.moveSelection(by: -1)
        case .down: try live.moveSelection(by: 1)
        case .pageUp: try live.pageUp()
        case .pageDown: try live.pageDown()
        case .first: try live.jumpToStart()
        case .last: try live.jumpToEnd()
        case .left: focusedColumn = max(0, focusedColumn - 1)
        case .right: focusedColumn = min(max(0, columns.count - 1), focusedColumn + 1)
        case .sortAscending, .sortDescending:
            guard columns.indices.contains(focusedColumn) else { return true }
            var spec = live.spec
            spec.sort = [ColumnSort(columns[focusedColumn].name, ascending: action == .sortAscending)]
            try live.setSpec(spec)
        default:
            return false
        }
        return true
    }

    /// Shows the records matching `filter` (the live query's filter language).
    func setFilter(_ filter: String) throws(StoreError) {
        var spec = live.spec
        guard spec.filter != filter else { return }
        spec.filter = filter
        try live.setSpec(spec)
    }

    func setHeight(_ height: Int) throws(StoreError) {
        guard height != live.height else { return }
        try live.setHeight(max(1, height))
    }

    /// The selected record.
    var selection: ObjectID? { live.window.selection }

    // MARK: - Words for the status bar

    var positionText: String {
        let window = live.window
        let count = window.count
        let total: String
        switch count {
        case .exact(let n): total = ValueText.count(n)
        case .approximately(let n): total = "~" + ValueText.count(n)
        case .counting(let n): total = "at least " + ValueText.count(n)
        }
        guard let position = window.selectedPosition else { return count.known == 0 ? "no records" : "\(total) records" }
        return "row \(ValueText.count(position + 1)) of \(total)"
    }

    var sortText: String? {
        guard let sort = live.spec.sort.first else { return nil }
        return "sort: \(sort.column) \(sort.ascending ? "↑" : "↓")"
    }

    var activityText: String? {
        switch live.activity {
        case .idle: return nil
        case .counting: return "counting…"
        case .sorting(let fraction): return fraction.map { "sorting \(Int($0 * 100))%" } ?? "sorting…"
        }
    }

    // MARK: - Drawing

    /// Focuses column `index` of ``columns`` (a click).
    func focus(column index: Int) {
        focusedColumn = min(max(0, index), max(0, columns.count - 1))
    }

    /// Selects the record on line `line` of the window (a click).
    func select(line: Int) throws(StoreError) {
        let rows = live.window.rows
        guard rows.indices.contains(line) else { return }
        try live.select(rows[line].id)
    }

    /// What is under `point` when the list is drawn in `area`.
    func hit(_ point: Point, in area: Rect) -> (row: Int?, column: Int?, isHeader: Bool) {
        drawnTable().hit(point, in: area)
    }

    func render(in area: Rect, buffer: inout Buffer) {
        drawnTable().render(in: area, buffer: &buffer)
        if live.window.rows.isEmpty, area.height > 1 {
            let text = live.spec.filter.isEmpty ? "No records. Press a to add one." : "No record matches the filter."
            buffer.write(text, x: area.x + 2, y: area.y + 1, maxWidth: max(0, area.width - 2), style: Style(foreground: .muted))
        }
    }

    /// The window as the toolkit's table (what is drawn, and what a click hits).
    private func drawnTable() -> Table {
        let window = live.window
        let tableColumns = columns.map { column in
            TableColumn(column.name, minWidth: 3, maxWidth: 40,
                        alignment: column.affinity == .integer || column.affinity == .real || column.affinity == .numeric ? .right : .left)
        }
        let positions = columns.map { column in window.columns.firstIndex(of: column.name) ?? 0 }
        let rows = window.rows.map { row in positions.map { row.values.indices.contains($0) ? ValueText.cell(row.values[$0]) : "" } }
        let marks: [RowMark?] = window.rows.map { row in
            switch row.status {
            case .inserted: return .inserted
            case .updated: return .modified
            case .deleted: return .deleted
            case .unchanged: return nil
            }
        }
        return Table(columns: tableColumns, rows: rows, marks: marks, selectedRow: window.selectedLine, focusedColumn: focusedColumn,
                     scroll: ScrollPosition(first: window.firstRow, total: window.count.known))
    }
}
