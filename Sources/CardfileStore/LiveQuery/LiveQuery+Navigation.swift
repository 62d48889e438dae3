/// Moving through the result: what the list screen's keys call.
extension LiveQuery {
    /// Selects `id` when it is in the window; otherwise shows it at the top of the window
    /// (when it exists and matches).
    public func select(_ id: ObjectID) throws(StoreError) {
        pendingJump = nil
        if window.rows.contains(where: { $0.id == id }) {
            window = LiveWindow(rows: window.rows, firstRow: window.firstRow, count: window.count, selection: id, columns: window.columns)
            return
        }
        var visible = window
        visible = LiveWindow(rows: visible.rows, firstRow: visible.firstRow, count: visible.count, selection: id, columns: visible.columns)
        if walksByKey {
            try reanchor(on: id, line: 0, oldWindow: visible, oldKeys: windowKeys)
        } else if let index = sortedIndex(of: id) {
            let (slice, _) = try read { db in try sortedSlice(around: index, line: 0, db: db) }
            install(slice, selecting: .id(id))
        }
    }

    /// Moves the selection by `delta` rows (negative: up), scrolling when it leaves the window.
    public func moveSelection(by delta: Int) throws(StoreError) {
        pendingJump = nil
        guard !window.rows.isEmpty else { return }
        guard let line = window.selectedLine else {
            window = LiveWindow(rows: window.rows, firstRow: window.firstRow, count: window.count, selection: window.rows[0].id, columns: window.columns)
            return
        }
        var target = max(0, window.firstRow + line + delta)
        if window.count.isExact { target = min(target, max(0, window.count.known - 1)) }
        let local = target - window.firstRow
        if local >= 0, local < window.rows.count {
            window = LiveWindow(rows: window.rows, firstRow: window.firstRow, count: window.count, selection: window.rows[local].id, columns: window.columns)
        } else if local < 0 {
            try show(firstRow: target, selecting: .line(0))
        } else {
            try show(firstRow: target - height + 1, selecting: .position(target))
        }
    }

    /// Shows the next page, keeping the selection's line.
    public func pageDown() throws(StoreError) {
        pendingJump = nil
        let line = window.selectedLine ?? 0
        try show(firstRow: window.firstRow + height, selecting: .line(line))
    }

    /// Shows the previous page, keeping the selection's line.
    public func pageUp() throws(StoreError) {
        pendingJump = nil
        let line = window.selectedLine ?? 0
        try show(firstRow: max(0, window.firstRow - height), selecting: .line(line))
    }

    /// Shows the first rows and selects the first.
    public func jumpToStart() throws(StoreError) {
        pendingJump = nil
        try show(firstRow: 0, selecting: .line(0))
    }

    /// Shows the last rows and selects the last. While the order is being sorted in the
    /// background, the jump is made once the sort arrives (``isWaitingToJump``).
    public func jumpToEnd() throws(StoreError) {
        pendingJump = nil
        try readAwaitedFirstPageNow()
        if awaitsSort, !(window.count.isExact && window.rows.count + window.firstRow >= window.count.known) {
            pendingJump = .end
            return
        }
        try showEnd(selecting: .last)
    }

    /// Shows row `position` (from 0) at the top of the window, or as near the top as the end of
    /// the result allows, and selects it. While the order is being sorted in the background, a
    /// row past the window is jumped to once the sort arrives (``isWaitingToJump``).
    public func jump(toRow position: Int) throws(StoreError) {
        pendingJump = nil
        let position = max(0, position)
        try readAwaitedFirstPageNow()
        if awaitsSort {
            let local = position - window.firstRow
            if local >= 0, local < window.rows.count {
                window = LiveWindow(rows: window.rows, firstRow: window.firstRow, count: window.count, selection: window.rows[local].id, columns: window.columns)
            } else {
                pendingJump = .row(position)
            }
            return
        }
        try show(firstRow: position, selecting: .position(position))
    }

    /// True while the order's positions come from a background sort not yet arrived.
    private var awaitsSort: Bool { !walksByKey && sorted == nil }

    /// Jumps to a fraction of the result: 0 is the first row, 1 the last.
    public func jump(toFraction fraction: Double) throws(StoreError) {
        let total = max(1, window.count.known)
        let position = Int((Double(total - 1) * min(1, max(0, fraction))).rounded())
        try jump(toRow: position)
    }
}
