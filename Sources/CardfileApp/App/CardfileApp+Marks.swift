import CardfileStore
import Foundation

/// Marks on the list: Space, `:select` and `:unselect`, which rows on screen are marked, and
/// their count in the status bar (made off the loop).
extension CardfileApp {
    /// Why `list`'s records cannot be marked; nil when they can.
    private func marksRefusal(_ list: ListScreen) -> String? {
        if picking != nil { return "Picking a record: Enter chooses it, Esc goes back without changing the field." }
        if !list.table.isIdentifiable { return "This list's rows have no key to tell them apart, so they cannot be marked." }
        return nil
    }

    /// Space: marks the selected record (or unmarks it), then moves down.
    func toggleMark(_ list: ListScreen, now: ContinuousClock.Instant) {
        if let refusal = marksRefusal(list) { return show(refusal, role: .warning, now: now) }
        guard let id = list.selection, !id.isTemporary else { return }
        // A key holding NULL (a declared key of a rowid table may) matches nothing in SQL.
        guard id.primaryKeyValues?.contains(where: \.isNull) == false else {
            return show("This record's key is NULL, so it cannot be marked.", role: .warning, now: now)
        }
        list.marks.set(id, marked: !list.marks.onScreen.contains(id))
        do { try list.live.moveSelection(by: 1) } catch { show(error.message, role: .error, now: now) }
    }

    /// `:select [FILTER]` / `:unselect [FILTER]`: every record matching FILTER, in the filter's
    /// language. `:select` alone marks every record the list shows (its own filter, or all);
    /// `:unselect` alone unmarks everything.
    func select(_ filter: String, marked: Bool, now: ContinuousClock.Instant) {
        guard let list, form == nil else { return show("Marks are made on a table's list.", role: .warning, now: now) }
        if let refusal = marksRefusal(list) { return show(refusal, role: .warning, now: now) }
        if !marked, filter.isEmpty {
            list.marks.clear()
            return show("No record is marked now.", now: now)
        }
        // The filter's own words; alone, :select takes the list's filter (every record shown).
        let predicate: CardfileStore.Predicate
        do {
            predicate = try list.live.predicate(for: filter.isEmpty ? list.spec.filter : filter) ?? .and([])   // (every record: true in any dialect)
        } catch {
            return show(error.message, role: .warning, now: now)
        }
        list.marks.set(matching: predicate, marked: marked)
        let which = filter.isEmpty ? (list.spec.filter.isEmpty ? "every record" : "every record the filter shows") : "the records matching \(filter)"
        show("\(marked ? "Marked" : "Unmarked") \(which); the status bar counts the marks.", now: now)
    }

    /// Brings the list's marks up to date: the rows on screen are looked up (a quick read of
    /// them, when the window, the marks or the data changed) and the count is asked for off the
    /// loop, one at a time, on a queue of its own (a count over a million rows must not hold
    /// up the check for other programs' commits).
    func refreshMarks(of list: ListScreen) {
        guard !list.marks.isEmpty else { return }
        list.marks.note(refreshes: list.live.refreshes)
        // The focused column is summed when it holds numbers by its type and is not the key
        // (a sum of ids says nothing).
        // (Every wake-up with marks: a look-up, nothing built.)
        let focused = list.columns.indices.contains(list.focusedColumn) ? list.columns[list.focusedColumn] : nil
        let numeric = focused.flatMap { list.table.column(named: $0.name) }.map { column in
            [.integer, .real, .numeric].contains(column.affinity)
                && !list.table.primaryKey.columnNames.contains { $0.caseInsensitiveCompare(column.name) == .orderedSame }
        } ?? false
        list.marks.note(summing: numeric ? focused?.name : nil)
        if list.marks.needsLookUp(window: list.live.windowVersion) {
            let found = try? container.marked(list.marks.rules, table: list.table.name, among: list.live.window.rows.map(\.id))
            list.marks.take(found, window: list.live.windowVersion)
        }
        guard list.marks.startCount() else { return }
        let (rules, table, token, id, container) = (list.marks.rules, list.table.name, list.marks.countToken, list.marks.id, self.container)
        let column = list.marks.summedColumn
        errands.run(slow: true) {
            .marked(marks: id, count: try? container.countMarked(rules, table: table, summing: column), token: token)
        }
    }

    /// A count of marks came back: to the list whose marks asked (if still open).
    func take(markCount count: MarkedCount?, for marks: UUID, token: Int) {
        screens.lists.first { $0.marks.id == marks }?.marks.take(count: count, token: token)
    }
}
