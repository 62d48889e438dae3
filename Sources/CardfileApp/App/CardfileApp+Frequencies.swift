import CardfileStore
import CardfileTerminal
import Foundation

/// `F`: the focused column's frequency table over what the list shows (its marked records
/// when there are any), counted off the loop; Enter filters the list to a value.
extension CardfileApp {
    func countValuesOfFocusedColumn(of list: ListScreen, now: ContinuousClock.Instant) {
        guard let rows = describedRows(of: list, now: now) else { return }
        let (column, scope) = (rows.column, rows.scope)
        show("Counting the values of \(column) over \(scope)…", role: .muted, now: now)
        let (table, schema, container) = (list.table.name, list.table, self.container)
        let errands = self.errands
        errands.run(slow: true) {
            let predicate = Result { () throws(StoreError) -> CardfileStore.Predicate? in try rows.predicate(for: schema) }
            let result = Result { () throws(StoreError) -> ColumnFrequencies in
                try container.frequencies(of: column, table: table, where: predicate.get())
            }
            // The table first; when values were left out, their number follows (a second
            // GROUP BY, as long again over a million distinct values).
            guard case .success(let frequencies) = result, frequencies.distinct == nil else {
                return .frequencies(table: table, column: column, scope: scope, fingerprint: rows.fingerprint, result)
            }
            errands.report(.frequencies(table: table, column: column, scope: scope, fingerprint: rows.fingerprint, result))
            return .distinctValues(table: table, column: column, count: try? container.distinctValues(of: column, table: table, where: predicate.get()))
        }
    }

    /// Shows a finished frequency table over the list it was made for (unless something else
    /// was opened meanwhile).
    func show(frequencies result: Result<ColumnFrequencies, StoreError>, table: String, column: String, scope: String, fingerprint: String,
              now: ContinuousClock.Instant) {
        switch result {
        case .failure(let error):
            show(error.message(notDone: "Not counted"), role: .error, now: now)
        case .success(let frequencies):
            guard let list, Self.rowsFingerprint(of: list) == fingerprint else {
                return show("The list changed while the values of \(column) were counted: F counts them again.", role: .warning, now: now)
            }
            guard overlay == nil, form == nil else {
                return show("The frequency table of \(column) is ready: F shows it again.", now: now)
            }
            overlay = .frequencies(FrequencyPanel(table: table, column: column, scope: scope, frequencies: frequencies))
            notice = nil
        }
    }

    /// The number of values of a frequency table that left some out: into the table, if open.
    func take(distinctValues count: Int?, table: String, column: String) {
        guard case .frequencies(var panel)? = overlay, panel.table == table, panel.column == column else { return }
        panel.frequencies.distinct = count
        overlay = .frequencies(panel)
    }

    /// Enter in a frequency table: the list shows the records holding the chosen value, within
    /// the filter it had (the filter's words, so `/` shows and edits them).
    func filter(to panel: FrequencyPanel, now: ContinuousClock.Instant) {
        guard let list, list.table.name == panel.table, let value = panel.selectedValue else { return }
        guard let condition = Self.filterCondition(column: panel.column, value: value) else {
            return show("A blob cannot be written in a filter, so the list cannot be filtered to it.", role: .warning, now: now)
        }
        let filter = list.spec.filter.trimmingCharacters(in: .whitespaces)
        let text = filter.isEmpty ? condition : "(\(filter)) and \(condition)"
        if let problem = applyFilter(text, now: now) {
            return show(problem.sentence(refused: true), role: .warning, now: now)
        }
        // The table counted the marked records only; the list shows every record holding it.
        let marked = panel.scope == Self.markedScope ? panel.frequencies.values[panel.selected].count : nil
        show("Showing the records whose \(panel.column) is \(Self.literal(value))\(marked.map { ", \(ValueText.count($0)) of them marked" } ?? "") (/ edits the filter).", now: now)
    }

    /// `column = value` in the filter's language; nil for a blob, which it cannot write.
    static func filterCondition(column: String, value: Value) -> String? {
        let name = column.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !column.isEmpty && !column.first!.isNumber
            ? column : "\"" + column.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        switch value {
        case .null: return "\(name) is null"
        case .integer(let int): return "\(name) = \(int)"
        case .real(let double) where double.isFinite: return "\(name) = \(double)"
        case .real: return nil
        case .text(let text): return "\(name) = '\(text.replacingOccurrences(of: "'", with: "''"))'"
        // (The filter's language has no NaN, infinities or booleans to write.)
        case .decimal(let text): return Double(text)?.isFinite == true ? "\(name) = \(text)" : nil
        case .boolean: return nil
        case .blob: return nil
        }
    }
}
