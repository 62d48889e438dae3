import CardfileStore

/// Marks on the list: Space, `:select` and `:unselect`, which rows on screen are marked, and
/// their count in the status bar (made off the loop).
extension CardfileApp {
    /// `:select [FILTER]` / `:unselect [FILTER]`: every record matching FILTER, in the filter's
    /// language. `:select` alone marks every record the list shows (its own filter, or all);
    /// `:unselect` alone unmarks everything.
    func select(_ filter: String, marked: Bool, now: ContinuousClock.Instant) {
        guard let list, form == nil else { return show("Marks are made on a table's list.", role: .warning, now: now) }
        guard list.table.isIdentifiable else {
            return show("This list's rows have no key to tell them apart, so they cannot be marked.", role: .warning, now: now)
        }
        if !marked, filter.isEmpty {
            list.marks.clear()
            return show("No record is marked now.", now: now)
        }
        // The filter's own words; alone, :select takes the list's filter (every record shown).
        let text = filter.isEmpty ? list.spec.filter : filter
        let searchable = list.spec.searchColumns ?? list.table.columns.filter { !$0.isHidden }.map(\.name)
        let predicate: Predicate
        do {
            predicate = try FilterParser.parse(text, table: list.table, searchColumns: searchable) ?? .sql("1", arguments: [])
        } catch {
            return show(error.message, role: .warning, now: now)
        }
        list.marks.set(matching: predicate, marked: marked)
        let which = filter.isEmpty ? (text.isEmpty ? "every record" : "every record the filter shows") : "the records matching \(filter)"
        show("\(marked ? "Marked" : "Unmarked") \(which); the status bar counts the marks.", now: now)
    }

    /// Brings the list's marks up to date with what is on screen (a quick read of the rows
    /// shown, when the window or the marks changed) and asks for their count off the loop.
    func refreshMarks(of list: ListScreen) {
        if list.marks.needsLookUp(window: list.live.windowVersion) {
            let window = list.live.window
            // A failed look-up (a lock held elsewhere) keeps what was shown; the next window
            // or change asks again.
            if let found = try? container.marked(list.marks.rules, table: list.table.name, among: window.rows.map(\.id)) {
                list.marks.take(found, window: list.live.windowVersion)
            }
        }
        guard list.marks.countIsDue else { return }
        list.marks.countStarted()
        let (rules, table, token, container) = (list.marks.rules, list.table.name, list.marks.countToken, self.container)
        errands.run {
            guard let count = try? container.countMarked(rules, table: table) else { return nil }
            return .marked(table: table, count: count, token: token)
        }
    }
}
