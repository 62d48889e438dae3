import CardfileStore
import CardfileTerminal

/// A table's records: a live query on the view context, drawn as a table with a focused
/// column, sorted and filtered as the person asks.
final class ListScreen {
    let table: TableSchema
    /// For the result of a statement on the SQL screen, what it is (its rows may be records of
    /// a table, or read-only); nil for a table's list.
    let query: QueryResult?
    let live: LiveQuery
    private(set) var focusedColumn = 0
    /// The columns a list can show (the table's, less SQLite's hidden ones), in table order.
    let allColumns: [ColumnDescription]
    /// The columns shown, in the order shown (the person may hide and reorder them).
    private(set) var columns: [ColumnDescription]
    /// The key's columns stay at the left while the others scroll sideways.
    private(set) var pinned = false
    /// Widths the person chose (`_`, `<`, `>`), by column name.
    private(set) var chosenWidths: [String: Int] = [:]
    /// The widest value drawn so far in each column: columns widen to fit what scrolls by and
    /// do not narrow again (see ``noteShownWidths()``).
    private var seenWidths: [String: Int] = [:]
    /// The window last folded into ``seenWidths`` (most frames bring no new one).
    private var notedWindow: UInt64?
    /// The marked records (Space, `:select`, `:unselect`).
    var marks = ListMarks()
    /// The first column of the part that scrolls sideways (kept so that moving the focus
    /// scrolls only as far as it must).
    private(set) var firstColumn = 0
    /// The width of the screen the list is drawn on (the app sets it).
    var areaWidth = 80 {
        didSet { keepFocusInView() }
    }

    /// Columns wider than this are long text: they take this width when there is room and
    /// share what remains; anything narrower is always shown whole. 32 cells, less on a narrow
    /// screen (a third of it, never below 16: ISBNs, dates and codes stay whole at 40 columns).
    var longTextWidth: Int { min(32, max(16, areaWidth / 3)) }

    /// A list of `table`, or of a statement's result (`query`: in the statement's order, its
    /// first rows read in the background, since every read runs the statement again).
    init(context: ObjectContext, table: TableSchema, query: QueryResult? = nil, height: Int, refreshInterval: Duration, choice: ColumnChoice? = nil,
         wake: @escaping @Sendable () -> Void) throws(StoreError) {
        self.table = table
        self.query = query
        allColumns = table.columns.filter { !$0.isHidden }
        columns = allColumns
        let sort = query == nil ? [] : [ColumnSort(QueryResult.ordinalColumn)]
        live = try LiveQuery(context: context, spec: LiveQuerySpec(table: table.name, sort: sort), height: max(1, height),
                             minimumRefreshInterval: refreshInterval, firstWindowInBackground: query != nil, wake: wake)
        // A new order no index serves is read in the background: the loop keeps answering.
        live.firstWindowInBackground = true
        if let choice {
            // Columns remembered that the table no longer has are left out.
            _ = choose(choice.shown.filter { name in allColumns.contains { $0.name.caseInsensitiveCompare(name) == .orderedSame } })
            if choice.pinned { _ = setPinned(true) }
            for (name, width) in choice.widths ?? [:] {
                if let column = allColumns.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) { chosenWidths[column.name] = width }
            }
        }
    }

    var spec: LiveQuerySpec { live.spec }

    /// The focused column's name; nil when no column is shown.
    var focusedColumnName: String? { columns.indices.contains(focusedColumn) ? columns[focusedColumn].name : nil }

    /// Handles a list action; returns false for actions the app handles.
    func handle(_ action: AppAction) throws(StoreError) -> Bool {
        switch action {
        case .up: try live.moveSelection(by: -1)
        case .down: try live.moveSelection(by: 1)
        case .pageUp: try live.pageUp()
        case .pageDown: try live.pageDown()
        case .first: try live.jumpToStart()
        case .last: try live.jumpToEnd()
        case .left: focus(column: focusedColumn - 1)
        case .right: focus(column: focusedColumn + 1)
        case .sortAscending, .sortDescending:
            guard columns.indices.contains(focusedColumn) else { return true }
            try sort(by: columns[focusedColumn].name, ascending: action == .sortAscending)
        case .addSortAscending, .addSortDescending:
            guard columns.indices.contains(focusedColumn) else { return true }
            try addSortKey(columns[focusedColumn].name, ascending: action == .addSortAscending)
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

    /// The header's title for `column`: its name, and its rank and direction in the sort
    /// (`name↑`; `name↑1 year↓2` when several columns sort).
    func headerTitle(_ column: String) -> String {
        let sort = live.spec.sort
        guard let rank = sort.firstIndex(where: { $0.column.caseInsensitiveCompare(column) == .orderedSame }) else { return column }
        return column + (sort[rank].ascending ? "↑" : "↓") + (sort.count > 1 ? String(rank + 1) : "")
    }

    /// A click on a column's header: sorts by it, ascending, or the other way round when it
    /// already sorts alone.
    func sortByHeader(column index: Int) throws(StoreError) {
        guard columns.indices.contains(index) else { return }
        focus(column: index)
        let name = columns[index].name
        let sort = live.spec.sort
        try self.sort(by: name, ascending: !(sort.count == 1 && sort[0].column == name && sort[0].ascending))
    }

    /// Sorts by `name` alone (the header's mark changes its width: the focus stays in view).
    private func sort(by name: String, ascending: Bool) throws(StoreError) {
        var spec = live.spec
        spec.sort = [ColumnSort(name, ascending: ascending)]
        try live.setSpec(spec)
        keepFocusInView()
    }

    /// Adds `name` as the sort's next key, after those already there; a column that already
    /// sorts keeps its rank and takes the new direction.
    private func addSortKey(_ name: String, ascending: Bool) throws(StoreError) {
        var spec = live.spec
        if let rank = spec.sort.firstIndex(where: { $0.column.caseInsensitiveCompare(name) == .orderedSame }) {
            guard spec.sort[rank].ascending != ascending else { return }
            spec.sort[rank].ascending = ascending
        } else {
            spec.sort.append(ColumnSort(name, ascending: ascending))
        }
        try live.setSpec(spec)
        keepFocusInView()
    }

    /// `sort: year ↓`, or every key in order: `sort: author_id ↑, year ↓`.
    var sortText: String? {
        guard !live.spec.sort.isEmpty else { return nil }
        return "sort: " + live.spec.sort.map { "\($0.column) \($0.ascending ? "↑" : "↓")" }.joined(separator: ", ")
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
        columns.map(\.name) == allColumns.map(\.name) && !pinned && chosenWidths.isEmpty
            ? nil : ColumnChoice(shown: columns.map(\.name), pinned: pinned, widths: chosenWidths)
    }

    // MARK: - Widths

    /// The focused column's width as drawn now.
    private var focusedWidth: Int? {
        let table = drawnTable()
        return table.layout(width: contentWidth(of: table)).first { $0.index == focusedColumn }?.width
    }

    /// `_`: the focused column at the width of its longest value shown (up to the screen), or
    /// back to its natural width. Returns the name and the width now chosen (nil: natural).
    func toggleFocusedWidth() -> (name: String, width: Int?)? {
        guard columns.indices.contains(focusedColumn) else { return nil }
        let name = columns[focusedColumn].name
        if chosenWidths.removeValue(forKey: name) != nil {
            keepFocusInView()
            return (name, nil)
        }
        let table = drawnTable()
        let full = min(table.naturalWidths()[focusedColumn], max(1, contentWidth(of: table)))
        chosenWidths[name] = full
        keepFocusInView()
        return (name, full)
    }

    /// `<` and `>`: the focused column `by` cells narrower or wider than drawn now.
    func resizeFocused(by delta: Int) -> (name: String, width: Int)? {
        guard columns.indices.contains(focusedColumn), let current = focusedWidth else { return nil }
        let name = columns[focusedColumn].name
        let width = min(max(1, current + delta), max(1, contentWidth(of: drawnTable())))
        chosenWidths[name] = width
        keepFocusInView()
        return (name, width)
    }

    /// Folds the widths of the values in the window into what has been seen (the app calls
    /// it once a frame's data is in), so columns keep the width of what scrolled by.
    func noteShownWidths() {
        guard live.windowVersion != notedWindow else { return }
        notedWindow = live.windowVersion
        let window = live.window
        var grew = false
        for (index, name) in window.columns.enumerated() {
            var widest = seenWidths[name] ?? 0
            for row in window.rows where index < row.values.count {
                widest = max(widest, ValueText.cell(row.values[index]).displayWidth)
            }
            if widest != seenWidths[name] ?? 0 {
                seenWidths[name] = widest
                grew = true
            }
        }
        if grew { keepFocusInView() }
    }

    /// Scrolls sideways as little as shows the focused column.
    func keepFocusInView() {
        let table = drawnTable()
        firstColumn = table.scrolledFirstColumn(width: contentWidth(of: table))
    }

    private func contentWidth(of table: Table) -> Int {
        table.contentWidth(in: Rect(x: 0, y: 0, width: areaWidth, height: live.height + 1))
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
        keepFocusInView()
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
        keepFocusInView()
        return []
    }

    /// Every column, in table order.
    func showAllColumns() {
        let focused = columns.indices.contains(focusedColumn) ? columns[focusedColumn].name : nil
        columns = allColumns
        focusedColumn = focused.flatMap { name in columns.firstIndex { $0.name == name } } ?? 0
        if pinned { _ = setPinned(true) }
        keepFocusInView()
    }

    /// Pins the key's columns at the left (moving them first, showing them if hidden), or
    /// unpins; false when the table has no key column to pin.
    func setPinned(_ on: Bool) -> Bool {
        defer { keepFocusInView() }
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
        keepFocusInView()
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
            TableColumn(headerTitle(column.name), minWidth: 1, maxWidth: longTextWidth,
                        alignment: column.affinity == .integer || column.affinity == .real || column.affinity == .numeric ? .right : .left,
                        width: chosenWidths[column.name], knownWidth: seenWidths[column.name] ?? 0)
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
        let picked = self.marks.isEmpty ? [] : window.rows.map { self.marks.onScreen.contains($0.id) }
        return Table(columns: tableColumns, rows: rows, marks: marks, picked: picked, selectedRow: window.selectedLine, focusedColumn: focusedColumn,
                     scroll: ScrollPosition(first: window.firstRow, total: window.count.known), pinnedColumns: pinned ? keyColumns.count : 0,
                     firstColumn: firstColumn)
    }
}
