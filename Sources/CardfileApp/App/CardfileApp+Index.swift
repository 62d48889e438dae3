import CardfileStore
import CardfileTerminal
import Foundation

/// `:index`: when a list of a large table is sorted or filtered by a column SQLite must sort or
/// scan for, the status bar says so; `:index` asks, then makes an index on that column (or the
/// focused one) off the loop, and the table's lists use it at once.
extension CardfileApp {
    /// The status bar's words for the list's ``IndexAdvice``.
    static func indexHint(_ advice: IndexAdvice) -> String {
        "no index on \(advice.column): :index"
    }

    func askToIndex(now: ContinuousClock.Instant) {
        guard let list, form == nil, list.query == nil, !list.table.isView else {
            return show(":index makes an index for a table's list: open the table's list first.", role: .warning, now: now)
        }
        if let readOnlyReason { return show("Read-only: \(readOnlyReason). No index can be made.", role: .warning, now: now) }
        let advice = list.live.indexAdvice
        guard let column = advice?.column ?? list.focusedColumnName else { return }
        do {
            if let existing = try container.existingIndex(on: column, of: list.table.name) {
                return show("\(column) already has an index: \(existing).", role: .muted, now: now)
            }
        } catch {
            return show(error.message, role: .error, now: now)
        }
        let gain = switch advice?.use {
        case .sort?: "Sorting by \(column) will read rows in order instead of sorting them all."
        case .filter?: "Filtering by \(column) will look rows up instead of reading them all."
        case nil: "Sorting and filtering by \(column) will use it."
        }
        let dialog = Dialog(title: "Make an index",
                            message: "Make an index on \(list.table.name)(\(column))? \(gain) The database grows by about the size of the column, and saves take a little longer. (y/n)",
                            buttons: [DialogButton("Make it", hotkey: "y", role: .accent), DialogButton("Keep", hotkey: "n")],
                            selected: 1, cancelButton: 1)
        overlay = .question(QuestionDialog(dialog: dialog, question: .createIndex(table: list.table.name, column: column)))
    }

    /// The person said yes: the index is made off the loop.
    func createIndex(on column: String, of table: String, now: ContinuousClock.Instant) {
        show("Making the index on \(table)(\(column))…", role: .muted, now: now)
        let container = self.container
        errands.run(slow: true) {
            let started = ContinuousClock.now
            let result = Result { () throws(StoreError) -> String in try container.createIndex(on: column, of: table) }
            return .indexCreated(table: table, column: column, result, ContinuousClock.now - started)
        }
    }

    func finishIndex(table: String, column: String, _ result: Result<String, StoreError>, took: Duration, now: ContinuousClock.Instant) {
        switch result {
        case .failure(let error):
            show(error.message(notDone: "No index was made"), role: .error, now: now)
        case .success(let name):
            // The table's lists ask the planner again: their order and filter use it now.
            do {
                for list in screens.lists where list.table.name.lowercased() == table.lowercased() { try list.live.setSpec(list.spec) }
            } catch {
                return show(error.message, role: .error, now: now)
            }
            show("Made the index \(name) on \(table)(\(column)) in \(Self.seconds(took)).", role: .success, now: now)
        }
    }
}
