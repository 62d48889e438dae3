import CardfileStore
import CardfileTerminal

/// A table's records: a live query on the view context, drawn as a table with a focused
/// column, sorted and filtered as the person asks.
final class ListScreen {
    let table: TableSchema
    let live: LiveQuery
    private(set) var focusedColumn = 0
    /// The columns a list can show (the table's, less SQLite's hidden ones), in table order.
    let allColumns: [ColumnDescription]
    /// The columns shown, in the order shown (the person may hide and reorder them).
    private(set) var columns: [ColumnDescription]
    /// The key's columns stay at the left while the others scroll sideways.
    private(set) var pinned = false

    init(context: ObjectContext, table: TableSchema, height: Int, refreshInterval: Duration, choice: ColumnChoice? = nil,
         wake: @escaping @Sendable () -> Void) throws(StoreError) {
        self.table = table
        allColumns = table.columns.filter { !$0.isHidden }
        columns = allColumns
        live = try LiveQuery(context: context, spec: LiveQuerySpec(table: table.name), height: max(1, height),
                             minimumRefreshInterval: refreshInterval, wake: wake)
        // A new order no index serves is read in the background: the loop keeps answering.
        live.firstWindowInBackground = true
        if let choice {
            // Columns remembered that the table no longer has are left out.
            _ = choose(choice.shown.filter { name in allColumns.contains { $0.name.caseInsensitiveCompare(name) == .orderedSame } })
            if choice.pinned { _ = setPinned(true) }
        }
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

    // MARK: - Choosing columns

    /// The choice to remember; nil when every column shows in table order, unpinned.
    var choice: ColumnChoice? {
        columns.map(\.name) == allColumns.map(\.name) && !pinned ? nil : ColumnChoice(shown: columns.map(\.name), pinned: pinned)
    }

    /// The key's columns (those the list can show).
    private var keyColumns: [String] {
        let names = Set(table.primaryKey.columnNames.map { $0.lowercased() })
        return allColumns.filter { names.contains($0.name.lowercased()) }.map(\.name)
    }

    /// Hides the focused column; returns its name, or nil when it is the last one shown.
    func hideFocusedColumn() -> String? {
        guard columns.count > 1, columns.indices.contains(focusedColumn) else { return nil }
        let name = columns.remove(at: focusedColumn).name
        focusedColumn = min(focusedColumn, columns.count - 1)
        if pinned, !keyColumns.allSatisfy({ key in columns.contains { $0.name == key } }) { pinned = false }
        return name
    }

    /// Shows `names`, in that order (case does not matter); returns the names no column has.
    func choose(_ names: [String]) -> [String] {
        var chosen: [ColumnDescription] = []
        var unknown: [String] = []
        for name in names {
            if let column = allColumns.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) {
                if !chosen.contains(where: { $0.name == column.name }) { chosen.append(column) }
            } else {
                unknown.append(name)
            }
        }
        guard unknown.isEmpty, !chosen.isEmpty else { return unknown }
        let focused = columns.indices.contains(focusedColumn) ? columns[focusedColumn].name : nil
        columns = chosen
        focusedColumn = focused.flatMap { name in columns.firstIndex { $0.name == name } } ?? 0
        if pinned { _ = setPinned(true) }
        return []
    }

    /// Every column, in table order.
    func showAllColumns() {
        let focused = columns.indices.contains(focusedColumn) ? columns[focusedColumn].name : nil
        columns = allColumns
        focusedColumn = focused.flatMap { name in columns.firstIndex { $0.name == name } } ?? 0
        if pinned { _ = setPinned(true) }
    }

    /// Pins the key's columns at the left (moving them first, showing them if hidden), or
    /// unpins; false when the table has no key column to pin.
    func setPinned(_ on: Bool) -> Bool {
        guard on else { pinned = false; return true }
        let keys = keyColumns
        guard !keys.isEmpty else { return false }
        let focused = columns.indices.contains(focusedColumn) ? columns[focusedColumn].name : nil
        columns = keys.compactMap { key in allColumns.first { $0.name == key } } + columns.filter { !keys.contains($0.name) }
        focusedColumn = focused.flatMap { name in columns.firstIndex { $0.name == name } } ?? 0
        pinned = true
        return true
    }

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
                     scroll: ScrollPosition(first: window.firstRow, total: window.count.known), pinnedColumns: pinned ? keyColumns.count : 0)
    }
}
