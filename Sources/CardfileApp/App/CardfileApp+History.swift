import CardfileStore
import CardfileTerminal
import Foundation

/// History kept across runs (see ``HistoryJournal``): Alt-U / `:undo` and Alt-R / `:redo` in
/// a list write a table's last saved change back, whatever made it (a form, a bulk edit, an
/// import, SQL), and `:history` lists a record's versions, Enter putting one in its form.
extension CardfileApp {
    /// Alt-U / Alt-R in a list when history is kept: the table's newest change undone, or the
    /// last undone one written again. Records changed since are not overwritten: one record
    /// goes to its form and the conflict dialog, several to a question.
    func replayHistory(in list: ListScreen, redo: Bool, now: ContinuousClock.Instant) {
        if let refusal = bulkRefusal(list) { return show(refusal, role: .warning, now: now) }
        guard let history = container.history else { return replayBulkChange(in: list, redo: redo, now: now) }
        let table = list.table.name
        // (A table the journal does not keep: this run's bulk edits, as without history.)
        if history.whyNotKept(list.table) != nil { return replayBulkChange(in: list, redo: redo, now: now) }
        // (Entries of saves just made may still be on their way to the journal.)
        history.flush()
        let step: HistoryStep?
        do {
            step = try redo ? history.nextRedo(table: table) : history.nextUndo(table: table)
        } catch {
            return show(error.message(notDone: redo ? "Not redone" : "Not undone"), role: .error, now: now)
        }
        guard let step else {
            return show(redo ? "Nothing to redo in \(table)." : "Nothing of \(table) to undo: no change of it made here is kept in the history.",
                        role: .warning, now: now)
        }
        guard step.isComplete else {
            return show(StoreError.historyNotKept(count: step.recordCount).message, role: .warning, now: now)
        }
        runHistory(step, changedSince: .ask, table: table, now: now)
    }

    private func runHistory(_ step: HistoryStep, changedSince: Container.ChangedSince, table: String, now: ContinuousClock.Instant) {
        let verb = step.isRedo ? "redoing" : "undoing"
        run(BulkRequest(table: table, work: .history(step, changedSince: changedSince), activity: verb, expected: nil, marks: nil), now: now)
    }

    /// `the form save of 14:03:12`, `the import of 14:03:12 (20 records)`.
    func words(for step: HistoryStep) -> String {
        let count = step.recordCount == 1 ? "" : " (\(Self.records(step.recordCount)))"
        let what = step.source == .form ? "form save" : step.source.words
        return "the \(what) of \(Self.timeText(step.time, now: clock.wallTime))\(count)"
    }

    /// An undo or redo ended: said, or, when records changed since, asked about.
    func finishHistory(_ step: HistoryStep, changedSince: Container.ChangedSince, table: String,
                       _ result: Result<Container.HistoryWrite, StoreError>, news: FormScreen.SourceNews?, now: ContinuousClock.Instant) {
        let verb = step.isRedo ? "Redone" : "Undone"
        let done: Container.HistoryWrite
        switch result {
        case .failure(let error): return show(error.message(notDone: step.isRedo ? "Not redone" : "Not undone"), role: .error, now: now)
        case .success(let written): done = written
        }
        let prefix = news.map { $0.sentence + " " } ?? ""
        let changed = done.recordsChangedSince
        if changedSince == .ask, !changed.isEmpty {
            // One record: its form, with the change as edits, meets the conflict dialog.
            if done.conflicts.count == 1, step.changes.count == 1, let change = step.changes.first, change.kind == .update {
                return resolveInForm(change, step: step, now: now)
            }
            let names = changed.prefix(6).map(Self.name).joined(separator: ", ")
            let more = changed.count > 6 ? " and \(ValueText.count(changed.count - 6)) more" : ""
            let what = step.isRedo ? "Redo" : "Undo"
            let message = "\(Self.records(changed.count)) changed since \(words(for: step)): \(names)\(more). "
                + "\(what) over their newer values too (y), only the others (n), or nothing (Esc)?"
            let dialog = Dialog(title: "Changed since", message: message,
                                buttons: [DialogButton("Overwrite", hotkey: "y", role: .error), DialogButton("Only the others", hotkey: "n"),
                                          DialogButton("Nothing", hotkey: "c")],
                                selected: 1, cancelButton: 2)
            overlay = .question(QuestionDialog(dialog: dialog, question: .historyChangedSince(step, table: table)))
            return
        }
        var notes: [String] = []
        if !done.gone.isEmpty { notes.append("\(Self.records(done.gone.count)) deleted since \(done.gone.count == 1 ? "was" : "were") left deleted") }
        if !done.taken.isEmpty {
            notes.append("\(Self.records(done.taken.count)) not brought back: another record holds \(done.taken.count == 1 ? "its key" : "their keys") now")
        }
        if changedSince == .leave, !changed.isEmpty {
            notes.append("\(Self.records(changed.count)) changed since \(changed.count == 1 ? "was" : "were") left as \(changed.count == 1 ? "it is" : "they are")")
        }
        if changedSince == .overwrite, !changed.isEmpty {
            notes.append("\(Self.records(changed.count)) changed again meanwhile \(changed.count == 1 ? "was" : "were") left")
        }
        let text = "\(verb): \(words(for: step)), \(Self.records(done.written)) written" + (notes.isEmpty ? "." : "; " + notes.joined(separator: "; ") + ".")
        show(prefix + text + (step.isRedo ? "" : " Alt-R redoes it."), role: notes.isEmpty ? .success : .warning, now: now)
    }

    /// The answer to "changed since": overwrite them, leave them, or nothing.
    func answerHistoryChangedSince(_ step: HistoryStep, table: String, button: Int, now: ContinuousClock.Instant) {
        switch button {
        case 0: runHistory(step, changedSince: .overwrite, table: table, now: now)
        case 1: runHistory(step, changedSince: .leave, table: table, now: now)
        default: show("Nothing was \(step.isRedo ? "redone" : "undone").", role: .muted, now: now)
        }
    }

    /// One record changed since the change being undone: its form opens with the undo as
    /// edits that start from what the change wrote, and saving meets the conflict dialog
    /// (Original: what the change wrote; Mine: what undoing writes; Theirs: what is there now).
    private func resolveInForm(_ change: RecordedChange, step: HistoryStep, now: ContinuousClock.Instant) {
        guard let table = container.schema.table(named: change.id.table) else { return }
        openForm(change.id, table: table, now: now)
        guard let form, form.session.id == change.id else { return }
        do {
            _ = try container.stage(change, in: form.session.editor)
        } catch {
            return show(error.message(notDone: step.isRedo ? "Not redone" : "Not undone"), role: .error, now: now)
        }
        form.reload()
        // The entries count as undone (or redone) when the person's choice is saved.
        form.session.writing = step
        apply(coordinator.save(form, quietly: true, now: now, circumstances: circumstances), to: form, now: now)
    }

    /// `people 3`.
    static func name(_ id: ObjectID) -> String {
        "\(id.table) \(id.primaryKeyValues?.map { TerminalText.visible($0.description) }.joined(separator: "/") ?? "")"
    }

    /// A version's time: the time of day for today, else the date and time.
    static func timeText(_ time: Date, now: Date) -> String {
        let calendar = Calendar.current
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = calendar.isDate(time, inSameDayAs: now) ? "HH:mm:ss" : "yyyy-MM-dd HH:mm"
        return formatter.string(from: time)
    }

    // MARK: - :history

    /// `:history`: the versions of the record selected in the list, or of the form's.
    func showHistory(now: ContinuousClock.Instant) {
        guard let history = container.history else {
            let why = container.historyProblem ?? (readOnlyReason != nil ? "the file is open read-only" : "--no-history")
            return show("No history is kept: \(why).", role: .warning, now: now)
        }
        var target: ObjectID?
        if let form { target = form.session.id } else if let list, let id = list.selection {
            target = list.query.map { container.recordID(of: id, in: $0) } ?? id
        }
        guard let id = target, !id.isTemporary else {
            return show(form != nil ? "This record is not saved yet: it has no history." : "Select a record first.", role: .warning, now: now)
        }
        if let table = container.schema.table(named: id.table), let why = history.whyNotKept(table) {
            return show("No history of \(table.name): \(why).", role: .warning, now: now)
        }
        history.flush()
        do {
            var versions = try history.versions(of: id)
            let wall = clock.wallTime
            if let outside = HistoryPanel.changeOutside(id, versions: versions, now: try container.viewContext.record(for: id), at: wall) {
                versions.insert(outside, at: 0)
            }
            overlay = .history(HistoryPanel(id: id, title: Self.name(id), versions: versions, timeText: { Self.timeText($0, now: wall) }))
        } catch {
            show(error.message(notDone: "No history shown"), role: .error, now: now)
        }
    }

    /// Enter in `:history`: the chosen version's values in the record's form, as edits.
    func restore(_ panel: HistoryPanel, now: ContinuousClock.Instant) {
        guard let values = panel.values(at: panel.selected) else {
            return show(panel.isFirstSeen ? "The record did not exist before the oldest version kept." : "That version deleted the record: choose another.",
                        role: .warning, now: now)
        }
        if form?.session.id != panel.id {
            guard let table = container.schema.table(named: panel.id.table) else { return }
            openForm(panel.id, table: table, now: now)
        }
        guard let form, form.session.id == panel.id else { return }
        guard form.readOnly == nil else { return show("Read-only: \(form.readOnly!).", role: .warning, now: now) }
        do {
            let current = try form.session.editor.record(for: panel.id)
            let changed = values.filter { current?[$0.key] != $0.value }
            guard !changed.isEmpty else { return show("The record already holds that version's values.", role: .muted, now: now) }
            try form.session.editor.update(panel.id, values: changed)
        } catch {
            return show(error.message(notDone: "Not restored"), role: .error, now: now)
        }
        form.reload()
        form.session.edited(now: now)
        let when = panel.isFirstSeen ? "as first seen" : "of \(panel.text(of: panel.selected).when)"
        show("The values \(when) are in the form as edits: Ctrl-S saves them, Esc asks to discard them.", role: .success, now: now)
    }
}
