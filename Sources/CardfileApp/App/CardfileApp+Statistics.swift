import CardfileStore
import CardfileTerminal
import Foundation

/// `I`: the focused column's statistics over what the list shows (its marked records when
/// there are any), computed off the loop and shown in a panel.
extension CardfileApp {
    /// The focused column and the rows `I` and `F` describe: what the list shows, narrowed to
    /// its marked records when there are marks; with the scope in words. Nil (and a message)
    /// when the filter or the marks cannot be read.
    func describedRows(of list: ListScreen, now: ContinuousClock.Instant) -> DescribedRows? {
        guard list.columns.indices.contains(list.focusedColumn) else { return nil }
        let filter: CardfileStore.Predicate?
        do {
            filter = try list.live.predicate(for: list.spec.filter)
        } catch {
            show(error.message, role: .warning, now: now)
            return nil
        }
        let scope = !list.marks.isEmpty ? Self.markedScope : list.spec.filter.isEmpty ? "every record" : "the records the filter shows"
        return DescribedRows(column: list.columns[list.focusedColumn].name, filter: filter, marks: list.marks.rules, scope: scope,
                             fingerprint: Self.rowsFingerprint(of: list))
    }

    /// What names the rows a list shows, for `I` and `F`: its table, filter and marks. A
    /// result made for another fingerprint describes rows the list no longer shows.
    static func rowsFingerprint(of list: ListScreen) -> String {
        [list.table.name, list.spec.filter, list.marks.id.uuidString, String(list.marks.rulesVersion)].joined(separator: "\u{0}")
    }

    /// The rows `I` and `F` describe. The marks' condition is built with the errand, off the
    /// loop (a rule naming 100,000 records is tens of milliseconds of JSON).
    struct DescribedRows: Sendable {
        let column: String
        let filter: CardfileStore.Predicate?
        let marks: MarkSet
        /// Over which rows, in words.
        let scope: String
        /// ``rowsFingerprint(of:)`` when asked.
        let fingerprint: String

        func predicate(for table: TableSchema) throws(StoreError) -> CardfileStore.Predicate? {
            var parts: [CardfileStore.Predicate] = filter.map { [$0] } ?? []
            if !marks.isEmpty { parts.append(try marks.predicate(for: table)) }
            return parts.isEmpty ? nil : .and(parts)
        }
    }

    /// The scope of `I` and `F` over marks, in words.
    static let markedScope = "the marked records"

    func describeFocusedColumn(of list: ListScreen, now: ContinuousClock.Instant) {
        guard let rows = describedRows(of: list, now: now) else { return }
        let (column, scope) = (rows.column, rows.scope)
        show("Describing \(column) over \(scope)…", role: .muted, now: now)
        let (table, schema, container) = (list.table.name, list.table, self.container)
        errands.run(slow: true) {
            let result = Result { () throws(StoreError) -> ColumnStatistics in
                try container.statistics(of: column, table: table, where: rows.predicate(for: schema))
            }
            return .statistics(table: table, column: column, scope: scope, fingerprint: rows.fingerprint, result)
        }
    }

    /// Shows finished statistics (over the list, unless something else was opened meanwhile).
    func show(statistics result: Result<ColumnStatistics, StoreError>, table: String, column: String, scope: String, fingerprint: String,
              now: ContinuousClock.Instant) {
        switch result {
        case .failure(let error):
            show(error.message(notDone: "Not described"), role: .error, now: now)
        case .success(let statistics):
            guard let list, Self.rowsFingerprint(of: list) == fingerprint else {
                return show("The list changed while \(column) was described: I describes it again.", role: .warning, now: now)
            }
            let panel = TextPanel(title: "\(column) in \(table): \(scope)", lines: Self.lines(of: statistics))
            guard overlay == nil else { return show("The statistics of \(column) are ready: I shows them again.", now: now) }
            overlay = .panel(ReadingPanel(panel))
            notice = nil
        }
    }

    /// The panel's lines: each measure on a line of its own, then the most common values.
    static func lines(of statistics: ColumnStatistics) -> [String] {
        /// A value on one line, its control characters shown (`␊`), as the list shows them.
        /// (The empty text as “”, so a line never ends in nothing.)
        func cell(_ value: Value) -> String { value == .text("") ? "“”" : TerminalText.visible(ValueText.cell(value)) }
        func share(_ count: Int) -> String {
            statistics.rows == 0 ? "" : String(format: " (%.1f%%)", Double(count) * 100 / Double(statistics.rows))
        }
        func text(_ value: String?) -> String {
            guard let value else { return "none" }
            let shown = TerminalText.visible(value)
            let count = value.count
            return "“\(shown.count > 60 ? String(shown.prefix(60)) + "…" : shown)” (\(ValueText.count(count)) character\(count == 1 ? "" : "s"))"
        }
        var lines = [
            "Rows           \(ValueText.count(statistics.rows))",
            "NULL           \(ValueText.count(statistics.nulls))\(share(statistics.nulls))",
            "Empty text     \(ValueText.count(statistics.emptyTexts))\(share(statistics.emptyTexts))",
            "Distinct       \(ValueText.count(statistics.distinct))",
            "Minimum        \(cell(statistics.minimum))",
            "Maximum        \(cell(statistics.maximum))",
        ]
        if let mean = statistics.mean {
            // Six significant digits: a mean is read, not copied back (the extremes are exact).
            lines.append("Mean           \(String(format: "%.6g", mean)) (of \(ValueText.count(statistics.numbers)) number\(statistics.numbers == 1 ? "" : "s"))")
        }
        lines.append("Shortest text  \(text(statistics.shortestText))")
        lines.append("Longest text   \(text(statistics.longestText))")
        if !statistics.mostCommon.isEmpty {
            lines.append("")
            lines.append("Most common")
            for (value, count) in statistics.mostCommon {
                lines.append("  \(ValueText.count(count))\(share(count))  \(cell(value))")
            }
        }
        return lines
    }
}
