import CardfileStore
import CardfileTerminal
import Foundation

/// Bulk edits in a list: `:set COLUMN = VALUE` and `:delete` on the marked records (or the
/// selected one), each asked first and run off the loop in one transaction, and Alt-U / Alt-R,
/// which undo and redo them over the records nobody has changed since (the others are listed,
/// and overwritten only when the person says so).
extension CardfileApp {
    /// Why a bulk edit cannot be made in `list`; nil when it can.
    func bulkRefusal(_ list: ListScreen) -> String? {
        if let query = list.query { return Self.refusal(.update, inResultOf: query) ?? Self.refusal(.delete, inResultOf: query) }
        if picking != nil { return "Picking a record: Enter chooses it, Esc goes back without changing the field." }
        if let readOnlyReason { return "Read-only: \(readOnlyReason)." }
        if !list.table.isIdentifiable { return StoreError.tableNotEditable(list.table.name, isView: list.table.isView).message }
        if list.table.isView { return "\(list.table.name) is a view: its records are changed one at a time, in their forms." }
        if let bulk { return "Wait until \(bulk.request.activity) is done." }
        return nil
    }

    /// What a bulk edit works on: the marks (with their count when known), or the selected
    /// record. The conditions are built with the edit, off the loop (a rule naming 100,000
    /// records is tens of milliseconds of JSON).
    struct BulkTarget {
        var marks: MarkSet
        /// `3 records`, `cards 7`.
        var words: String
        var count: Int?
        /// The list's marks it was made on and their version, nil for the selected record.
        var listMarks: (id: UUID, version: Int)?
    }

    /// What a bulk edit in `list` works on; nil (and a message) when there is nothing.
    private func bulkTarget(_ list: ListScreen, now: ContinuousClock.Instant) -> BulkTarget? {
        // (A copy of the marks: Swift 6.3's optimizer crashed on reading their count in place.)
        let marks = list.marks
        if !marks.isEmpty {
            let count = marks.count
            let words = count.map { Self.records($0) } ?? "the marked records (still being counted)"
            return BulkTarget(marks: marks.rules, words: words, count: count, listMarks: (marks.id, marks.rulesVersion))
        }
        guard let id = list.selection, !id.isTemporary, let key = id.primaryKeyValues, !key.contains(where: \.isNull) else {
            show("No record is selected or marked (Space marks one, :select many).", role: .warning, now: now)
            return nil
        }
        var one = MarkSet()
        one.set(id, marked: true)
        return BulkTarget(marks: one, words: "\(list.table.name) \(key.map(\.description).joined(separator: "/"))", count: 1, listMarks: nil)
    }

    static func records(_ count: Int) -> String { "\(ValueText.count(count)) record\(count == 1 ? "" : "s")" }

    /// `:set COLUMN = VALUE`: reads and checks the value, then asks.
    func askToSet(_ assignment: String, now: ContinuousClock.Instant) {
        guard let list, form == nil else { return show("Bulk edits are made in a table's list.", role: .warning, now: now) }
        if let refusal = bulkRefusal(list) { return show(refusal, role: .warning, now: now) }
        let column: String, value: Value
        do {
            (column, value) = try FilterParser.parseAssignment(assignment, table: list.table)
            try container.validateBulkSet(table: list.table.name, column: column, to: value)
        } catch .invalidFilter(let message, let offset) {
            return show(":set cannot be read at character \(offset + 1) of “\(assignment)”: \(message).", role: .warning, now: now)
        } catch {
            return show(error.message(notDone: "Not set"), role: .error, now: now)
        }
        guard let target = bulkTarget(list, now: now) else { return }
        let request = BulkRequest(table: list.table.name, work: .set(column: column, value: value, marks: target.marks),
                                  activity: "setting \(column)", expected: target.count, marks: target.listMarks)
        let dialog = Dialog(title: "Set \(column)", message: "Set \(column) to \(Self.literal(value)) on \(target.words)? (y/n)",
                            buttons: [DialogButton("Set", hotkey: "y", role: .error), DialogButton("Keep", hotkey: "n")],
                            selected: 1, cancelButton: 1)
        overlay = .question(QuestionDialog(dialog: dialog, question: .bulk(request)))
    }

    /// `:delete`: the marked records after a question; with none marked, the selected record,
    /// as `d` deletes it.
    func askToDeleteMarked(now: ContinuousClock.Instant) {
        guard let list, form == nil else { return show("Bulk edits are made in a table's list.", role: .warning, now: now) }
        if let refusal = bulkRefusal(list) { return show(refusal, role: .warning, now: now) }
        guard !list.marks.isEmpty else {
            guard let id = list.selection else { return show("No record is selected or marked.", role: .warning, now: now) }
            switch coordinator.deleteQuestion(id, in: list.table, container: container, readOnlyReason: readOnlyReason) {
            case .success(let question): overlay = .question(question)
            case .failure(let refusal): show(refusal.report, now: now)
            }
            return
        }
        guard let target = bulkTarget(list, now: now) else { return }
        // What foreign keys do elsewhere is not kept, so Alt-U cannot bring it back: say so.
        let name = list.table.name.lowercased()
        let reaching = container.schema.tables.filter { table in
            table.foreignKeys.contains { $0.parentTable.lowercased() == name && ![.noAction, .restrict].contains($0.onDelete) }
        }.map(\.name)
        var message = "Delete \(target.words)? Alt-U brings them back."
        if !reaching.isEmpty {
            message += " Records of \(reaching.joined(separator: ", ")) that refer to them are deleted or changed with them, and those do not come back."
        }
        let request = BulkRequest(table: list.table.name, work: .delete(marks: target.marks), activity: "deleting", expected: target.count, marks: target.listMarks)
        let dialog = Dialog(title: "Delete records", message: message + " (y/n)",
                            buttons: [DialogButton("Delete", hotkey: "y", role: .error), DialogButton("Keep", hotkey: "n")],
                            selected: 1, cancelButton: 1)
        overlay = .question(QuestionDialog(dialog: dialog, question: .bulk(request)))
    }

    /// Alt-U / Alt-R in a list: undoes the table's last bulk change, or redoes the one undone last.
    func replayBulkChange(in list: ListScreen, redo: Bool, now: ContinuousClock.Instant) {
        if let refusal = bulkRefusal(list) { return show(refusal, role: .warning, now: now) }
        let table = list.table.name
        guard let change = redo ? bulkHistory.takeRedo(table: table) : bulkHistory.takeUndo(table: table) else {
            return show(redo ? "Nothing to redo in \(table)." : "No bulk change of \(table) to undo (Alt-U undoes :set and :delete).", role: .warning, now: now)
        }
        run(BulkRequest(table: table, work: .apply(change, overwriting: [:]), activity: redo ? "redoing" : "undoing",
                        expected: change.count, marks: nil), now: now)
    }

    /// Starts a bulk edit off the loop; its progress and end come back through the inbox.
    func run(_ request: BulkRequest, now: ContinuousClock.Instant) {
        guard bulk == nil else { return show("Wait until \(bulk!.request.activity) is done.", role: .warning, now: now) }
        bulk = RunningBulk(request: request)
        let (container, errands) = (self.container, self.errands)
        errands.run(slow: true) {
            let result = Result { () throws(StoreError) -> BulkOutcome in
                try request.run(on: container) { read in errands.report(.bulkProgress(read: read)) }
            }
            return .bulkDone(request, result)
        }
    }

    /// A bulk edit ended: its change goes to the history, the marks follow what was written,
    /// and records changed since an undone change are offered to be overwritten.
    func finish(_ request: BulkRequest, _ result: Result<BulkOutcome, StoreError>, now: ContinuousClock.Instant) {
        bulk = nil
        // A change of 100,000 records takes tens of milliseconds to free: not on the loop.
        errands.release((request, result))
        // The open forms meet the commit as another program's: what it did to the form on top
        // is said first (it is what the person is looking at), then the result.
        let news = (try? result.get()).flatMap { _ in formsFollowTheirSource() }
        func show(_ text: String, role: Role, now: ContinuousClock.Instant) {
            self.show((news.map { $0.sentence + " " } ?? "") + text, role: news.map { if case .deleted = $0 { .conflict } else { role } } ?? role, now: now)
        }
        // The marks it was made on, unless they were changed meanwhile.
        let marksList = request.marks.flatMap { marks in screens.lists.first { $0.marks.id == marks.id && $0.marks.rulesVersion == marks.version } }
        switch (request.work, result) {
        case (.history(let step, let changedSince), _):
            finishHistory(step, changedSince: changedSince, table: request.table, result.map { $0.history ?? Container.HistoryWrite() },
                          news: news, now: now)
        case (.set(let column, let value, _), .success(let outcome)):
            let done = outcome.application
            bulkHistory.record(undo: outcome.reverse)
            if done.applied.count == 0 { return show("No record matched any more: nothing was set.", role: .warning, now: now) }
            // The marks become the records written: a mark made by a filter on this column
            // would otherwise let go of them.
            if let written = outcome.written { marksList?.marks.replace(with: written) }
            show("Set \(column) to \(Self.literal(value)) on \(Self.records(done.applied.count)). Alt-U undoes it.", role: .success, now: now)
        case (.delete, .success(let outcome)):
            let done = outcome.application
            bulkHistory.record(undo: outcome.reverse)
            marksList?.marks.clear()
            if done.applied.count == 0 { return show("No record matched any more: nothing was deleted.", role: .warning, now: now) }
            show("Deleted \(Self.records(done.applied.count)). Alt-U brings them back.", role: .success, now: now)
        case (.apply(let change, let overwriting), .success(let outcome)):
            let done = outcome.application
            let undo = change.isUndo
            if overwriting.isEmpty || !request.extendsLastEntry {
                if undo { bulkHistory.undone(redo: outcome.reverse) } else { bulkHistory.redone(undo: outcome.reverse) }
            } else {
                bulkHistory.extendLast(with: outcome.reverse, redo: undo)
            }
            let verb = undo ? "Undone" : "Redone"
            if !overwriting.isEmpty {
                // The person chose to overwrite: what could not be (changed again meanwhile) is
                // said, not asked about again.
                let left = done.changedSince.isEmpty ? "" : "; \(Self.records(done.changedSince.count)) changed again meanwhile, and \(done.changedSince.count == 1 ? "was" : "were") left"
                return show("\(verb) over \(Self.records(done.applied.count)) changed since\(left).", role: done.changedSince.isEmpty ? .success : .warning, now: now)
            }
            guard !done.changedSince.isEmpty else {
                return show("\(verb) on \(Self.records(done.applied.count)).", role: .success, now: now)
            }
            let count = done.changedSince.count
            show("\(verb) on \(Self.records(done.applied.count)); \(Self.records(count)) changed since \(count == 1 ? "was" : "were") left as \(count == 1 ? "it is" : "they are").", role: .warning, now: now)
            // (Not over another question or panel: a key meant for it must not answer this.)
            if overlay == nil { askToOverwrite(outcome, of: change, extending: !done.applied.records.isEmpty) }
        case (let work, .failure(let error)):
            switch work {
            case .set: show(error.message(notDone: "Not set"), role: .error, now: now)
            case .delete: show(error.message(notDone: "Not deleted"), role: .error, now: now)
            case .history: break
            case .apply(let change, let overwriting):
                // Nothing was written: the change can be tried again.
                if overwriting.isEmpty {
                    if change.isUndo { bulkHistory.redone(undo: change) } else { bulkHistory.undone(redo: change) }
                }
                show(error.message(notDone: change.isUndo ? "Not undone" : "Not redone"), role: .error, now: now)
            }
        }
    }

    /// Names the records changed since an undo or redo (a few of them) and asks whether to
    /// overwrite them too. Records deleted since a `:set` are named but not offered (one
    /// column is not a row); a key taken by a new record since a `:delete` is said as such.
    private func askToOverwrite(_ outcome: BulkOutcome, of change: BulkChange, extending: Bool) {
        let changedSince = outcome.application.changedSince
        let offered = outcome.offered
        guard !offered.isEmpty else { return }
        // (A few names, in key order; not every id sorted, on the loop.)
        let named = changedSince.keys.prefix(8).sorted { left, right in
            let (a, b) = (left.primaryKeyValues ?? [], right.primaryKeyValues ?? [])
            for (x, y) in zip(a, b) where Value.compare(x, y) != 0 { return Value.compare(x, y) < 0 }
            return a.count < b.count
        }.map { id in
            let state = switch (change.kind, changedSince[id]! == nil) {
            case (.delete, false): " (a record added since)"
            case (_, true): " (deleted)"
            default: ""
            }
            return "\(id.table) \(id.primaryKeyValues?.map(\.description).joined(separator: "/") ?? "")" + state
        }
        let more = changedSince.count > named.count ? " and \(ValueText.count(changedSince.count - named.count)) more" : ""
        let what = change.isUndo ? "Undo" : "Redo"
        let gone = changedSince.count - offered.count
        let besides = gone == 0 ? "" : " (not the \(ValueText.count(gone)) deleted since)"
        let message = "\(Self.records(changedSince.count)) changed since, so \(what.lowercased()) left \(changedSince.count == 1 ? "it" : "them") alone: \(named.joined(separator: ", "))\(more). \(what) there too\(besides), over the newer values? (y/n)"
        var request = BulkRequest(table: change.table, work: .apply(change, overwriting: offered),
                                  activity: change.isUndo ? "undoing" : "redoing", expected: offered.count, marks: nil)
        request.extendsLastEntry = extending
        let dialog = Dialog(title: "Changed since", message: message,
                            buttons: [DialogButton("Overwrite", hotkey: "y", role: .error), DialogButton("Leave them", hotkey: "n")],
                            selected: 1, cancelButton: 1)
        overlay = .question(QuestionDialog(dialog: dialog, question: .bulk(request)))
    }

    /// A value as `:set` reads it back: a number as is, a text in quotes, NULL.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer, .real, .decimal, .boolean: return value.description
        case .text(let text): return "“\(TerminalText.visible(text))”"
        case .blob(let data): return "x'\(data.map { String(format: "%02x", $0) }.joined())'"
        }
    }
}
