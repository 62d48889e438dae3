import CardfileStore
import CardfileTerminal
import Foundation

/// Going to a row by number, finding without filtering, and copying to the clipboard.
extension CardfileApp {
    /// `:123`: selects the list's row 123 (counted from 1).
    func jump(toRow row: Int, now: ContinuousClock.Instant) {
        guard let list, form == nil else { return show("Rows are numbered in a table's list: open one first.", role: .warning, now: now) }
        do {
            let count = list.live.window.count
            if count.isExact, row > count.known {
                try list.live.jumpToEnd()
                show(count.known == 0 ? "The list is empty." : "The list has \(ValueText.count(count.known)) rows: this is the last.", role: .warning, now: now)
            } else {
                try list.live.jump(toRow: row - 1)
                if list.live.isWaitingToJump {
                    show("Going to row \(ValueText.count(row)) once the sort is done.", role: .muted, now: now, aboutAWaitingJump: true)
                }
            }
        } catch {
            show(error.message, role: .error, now: now)
        }
    }

    /// Selects the next (previous with `backward`) record matching `text`, keeping every row in
    /// the list; `n` and `N` repeat the last search.
    func find(_ text: String, backward: Bool, now: ContinuousClock.Instant) {
        guard let list, form == nil else { return show("Find works in a table's list.", role: .warning, now: now) }
        lastSearch = text
        do {
            switch try list.live.selectNext(matching: text, backward: backward) {
            case .found: show("Found “\(text)”: n next, N previous.", role: .muted, now: now)
            case .wrapped: show("Found “\(text)” after going round from the \(backward ? "end" : "start").", role: .accent, now: now)
            case .notFound: show("No record matches “\(text)”.", role: .warning, now: now)
            }
        } catch {
            show(error.message, role: .warning, now: now)
        }
    }

    func findAgain(backward: Bool, now: ContinuousClock.Instant) {
        guard let lastSearch else { return show("Nothing to repeat yet: f finds.", role: .warning, now: now) }
        find(lastSearch, backward: backward, now: now)
    }

    // MARK: - Copying

    /// `y`: the focused cell of the selected record, as its plain text.
    func copyCell(now: ContinuousClock.Instant) -> [AppCommand] {
        guard let list, let row = selectedRow(of: list), list.columns.indices.contains(list.focusedColumn) else {
            show("No record to copy from.", role: .warning, now: now)
            return []
        }
        let column = list.columns[list.focusedColumn].name
        let value = row.values[row.columns.firstIndex(of: column) ?? 0]
        let what = value.isNull ? "\(column) (NULL, copied as empty text)" : "\(column)"
        return copy(RecordText.plain(value), saying: "Copied \(what)", now: now)
    }

    /// `Y` and Alt-Y: the selected record as tab-separated values or JSON.
    func copyRecord(json: Bool, now: ContinuousClock.Instant) -> [AppCommand] {
        if let list, !list.marks.isEmpty, form == nil { return copyMarked(list, json: json, now: now) }
        guard let list, let row = selectedRow(of: list) else {
            show(form == nil ? "No record to copy." : "Copy from the list: Esc, then Y.", role: .warning, now: now)
            return []
        }
        let names = list.columns.map(\.name)
        let values = names.map { name in row.columns.firstIndex(of: name).map { row.values[$0] } ?? .null }
        let text = json ? RecordText.json(columns: names, values: values) : RecordText.tsv(values)
        return copy(text, saying: "Copied the record as \(json ? "JSON" : "tab-separated values")", now: now)
    }

    /// The records copied at most by `Y` with marks (a clipboard holds a megabyte at most;
    /// `x` exports any number).
    static let copiedRecordsAtMost = 10_000

    /// `Y` / Alt-Y with marks: the marked records, one line each (tab-separated values or
    /// JSON), in the order of their keys, the list's columns. Read off the loop (finding them
    /// may scan the table); the copy is made when they come back.
    private func copyMarked(_ list: ListScreen, json: Bool, now: ContinuousClock.Instant) -> [AppCommand] {
        let marks = list.marks
        if let count = marks.count, count > Self.copiedRecordsAtMost {
            show("\(ValueText.count(count)) records are marked: too many to copy (\(ValueText.count(Self.copiedRecordsAtMost)) at most). x exports them to a file.", role: .warning, now: now)
            return []
        }
        let (names, rules, table, container) = (list.columns.map(\.name), marks.rules, list.table.name, self.container)
        errands.run(slow: true) {
            let rows = Result { () throws(StoreError) -> [[Value]] in
                try container.records(marked: rules, table: table, columns: names, limit: Self.copiedRecordsAtMost + 1)
            }
            return .markedRecords(columns: names, json: json, rows)
        }
        return []
    }

    /// The marked records came back for `Y`: copied, unless there are too many.
    func copy(marked rows: Result<[[Value]], StoreError>, columns names: [String], json: Bool, now: ContinuousClock.Instant) -> [AppCommand] {
        switch rows {
        case .failure(let error):
            show(error.message(notDone: "Not copied"), role: .error, now: now)
            return []
        case .success(let rows):
            guard rows.count <= Self.copiedRecordsAtMost else {
                show("More than \(ValueText.count(Self.copiedRecordsAtMost)) records are marked: too many to copy. x exports them to a file.", role: .warning, now: now)
                return []
            }
            let text = rows.map { json ? RecordText.json(columns: names, values: $0) : RecordText.tsv($0) }.joined(separator: "\n")
            return copy(text, saying: "Copied \(CardfileApp.records(rows.count)) as \(json ? "JSON lines" : "tab-separated values")", now: now)
        }
    }

    private func selectedRow(of list: ListScreen) -> (columns: [String], values: [Value])? {
        let window = list.live.window
        guard let line = window.selectedLine, window.rows.indices.contains(line) else { return nil }
        return (window.columns, window.rows[line].values)
    }

    private func copy(_ text: String, saying message: String, now: ContinuousClock.Instant) -> [AppCommand] {
        guard let sequence = Clipboard.osc52(text) else {
            show("Too long to copy through the terminal: \(ValueText.count(text.utf8.count)) bytes (the most is \(ValueText.count(Clipboard.limit))).", role: .warning, now: now)
            return []
        }
        let size = text.utf8.count
        show("\(message) (\(ValueText.count(size)) byte\(size == 1 ? "" : "s")) to the clipboard.", role: .success, now: now)
        return [.writeControl(sequence)]
    }
}
