import CardfileStore
import CardfileTerminal
import Foundation

/// Saving a form, leaving it, quitting, deleting a record and answering a conflict: what each
/// does to the store, and what the person is told.
///
/// Screens ask; the coordinator does the store's part and answers with a ``Report`` for the
/// message line and, where the person must choose, the dialog to show. It never opens or
/// closes a screen: the app does that with the answer.
struct SaveCoordinator {
    let view: ObjectContext
    let clock: AppClock

    /// A sentence for the message line.
    struct Report: Equatable {
        var text: String
        var role: Role
        /// Stays until something replaces it (a conflict, a file gone), not a few seconds.
        var sticky = false
        /// Says a save did not happen: the next save that succeeds clears it.
        var aboutAFailedSave = false
    }

    /// What stands in the way of a save, besides the form itself.
    struct Circumstances {
        /// The database file was replaced or deleted: nothing is saved through its path.
        var fileGone: FileGone?
        /// The file an all-or-nothing import is reading while it holds the write lock.
        var importHoldingTheLock: String?
    }

    /// How a save went.
    struct Saved {
        let outcome: EditSession.Outcome
        /// What to say; nil for a quiet save that worked or found nothing to do.
        let report: Report?
        /// The save met changes made elsewhere: the dialog that asks what to keep.
        let conflict: ConflictDialog?
    }

    /// Saves the form's record (Ctrl-S, `:w`, autosave); `quietly` says nothing when it works.
    func save(_ form: FormScreen, quietly: Bool, now: ContinuousClock.Instant, circumstances: Circumstances) -> Saved {
        if let reason = form.readOnly, form.session.hasPersistentChanges {
            return Saved(outcome: .failed("read-only"), report: Report(text: "Read-only: \(reason). Nothing can be saved.", role: .warning), conflict: nil)
        }
        let outcome = form.session.save(now: now, wallTime: clock.wallTime)
        let report: Report?
        var dialog: ConflictDialog?
        switch outcome {
        case .saved:
            form.reload()
            form.endUndoRun()
            report = quietly ? nil : Report(text: "Saved.", role: .success)
        case .nothingToSave:
            report = quietly ? nil : Report(text: "Nothing to save.", role: .text)
        case .invalid(let failures):
            form.show(failures)
            report = Report(text: "Not saved: \(failures.map(\.message).joined(separator: " "))", role: .error, aboutAFailedSave: true)
        case .conflict(let conflicts):
            form.refreshMarks()
            let conflict = conflicts.first { $0.objectID == form.session.id } ?? conflicts.first
            let paused = form.session.autosaveDelay == nil ? "" : "; autosave is paused"
            report = Report(text: "Not saved: \(Self.what(conflict)). Your edits are kept\(paused).", role: .error, sticky: true)
            dialog = conflict.map { ConflictDialog(conflict: $0, recordTitle: form.title) }
        case .busy:
            let why = circumstances.importHoldingTheLock.map { ": the all-or-nothing import of \($0) holds it until it ends." } ?? " (another program holds it)."
            report = Report(text: "The database is busy\(why) Your edits are kept; saving again shortly.", role: .warning, aboutAFailedSave: true)
        case .unreachable(let place):
            report = Report(text: "Not saved: the server cannot be reached; your edits are kept and saved when it answers (\(place)).",
                            role: .warning, aboutAFailedSave: true)
        case .failed(let message):
            if let gone = circumstances.fileGone {
                report = Report(text: CardfileApp.fileGoneNotice(gone), role: .error, sticky: true)
            } else {
                // (A save whose outcome is not known stays said: saving again blindly could
                // store the record twice.)
                report = Report(text: "Not saved: \(message)", role: .error, sticky: form.session.inDoubt, aboutAFailedSave: true)
            }
        }
        return Saved(outcome: outcome, report: report, conflict: dialog)
    }

    /// What the other side did, for the sentence that says a save was stopped: the record
    /// deleted elsewhere, or the fields changed on both sides.
    static func what(_ conflict: MergeConflict?) -> String {
        guard let conflict else { return "the record changed elsewhere since you opened it" }
        switch conflict.kind {
        case .updateDelete:
            return "the record was deleted elsewhere since you opened it"
        case .deleteUpdate:
            return "the record you deleted was changed elsewhere"
        case .updateUpdate:
            let fields = conflict.fields.filter(\.isContested).map(\.name)
            return "\(fields.isEmpty ? "the record" : fields.joined(separator: ", ")) changed elsewhere since you opened it"
        }
    }

    /// What leaving a form needs first.
    enum Leave {
        /// Nothing is pending, or `saved` just saved it: go.
        case go(saved: Saved?)
        /// A conflict stopped the save; its dialog is open and answers first.
        case answerTheConflict(Saved)
        /// Save, discard or stay: the person chooses. `failed` is the save that was tried.
        case ask(QuestionDialog, failed: Saved?)
    }

    /// Leaving the form for `then`. With changes pending: autosave on saves at once (and
    /// asks only when that fails); autosave off asks Save / Discard / Cancel.
    func leave(_ form: FormScreen, then: Leaving, now: ContinuousClock.Instant, circumstances: Circumstances) -> Leave {
        guard form.session.hasPersistentChanges, form.readOnly == nil else {
            form.session.discard()
            return .go(saved: nil)
        }
        var tried: Saved?
        if form.session.autosaveDelay != nil, !form.session.inDoubt {
            let saved = save(form, quietly: true, now: now, circumstances: circumstances)
            if saved.outcome == .saved { return .go(saved: saved) }
            if saved.conflict != nil { return .answerTheConflict(saved) }
            tried = saved
        }
        let fields = form.session.changedFields
        let what = fields.isEmpty ? "the new record" : fields.joined(separator: ", ")
        var message = "Save your changes to \(what) of \(form.title)? Discarding loses them."
        if let failure = tried?.report?.text { message = failure + "\n\n" + message }
        if form.session.inDoubt {
            message = "The last save of this new record was cut off: it may be stored already (look in the list). Saving again may store it twice.\n\n" + message
        }
        let dialog = Dialog(title: "Unsaved changes", message: message,
                            buttons: [DialogButton("Save", hotkey: "s", role: .success), DialogButton("Discard", hotkey: "d", role: .error), DialogButton("Cancel", hotkey: "c")],
                            selected: 0, cancelButton: 2)
        return .ask(QuestionDialog(dialog: dialog, question: .leaveForm(then: then)), failed: tried)
    }

    /// What quitting needs first.
    enum Quit {
        /// Ask this before anything else.
        case ask(QuestionDialog)
        /// Leave the open form as leaving always does, then end.
        case leaveTheForm
        /// End now (what the forms hold is dropped).
        case end
    }

    /// Quitting; with `force`, nothing is asked and a form's pending changes are dropped.
    /// `transfer` is the running import or export; `copyHoldsTheWork` says a `:saveas` copy
    /// holds every edit since (it matters only when the file is gone).
    func quit(force: Bool, hasForm: Bool, transfer: (job: TransferJob, progress: TransferProgress?)?, fileGone: FileGone?, copyHoldsTheWork: Bool) -> Quit {
        if let (job, progress) = transfer, !force {
            let done = progress.map { " (\(ValueText.count($0.rows)) rows so far)" } ?? ""
            let kept = job.isImport ? (job.holdsTheLock ? " An all-or-nothing import leaves the table as it was." : " Batches already imported stay.") : " The file is not written."
            let dialog = Dialog(title: job.isImport ? "Import running" : "Export running",
                                message: "\(job.activity.capitalizedFirst) is still running\(done). Stop it and quit?\(kept)",
                                buttons: [DialogButton("Stop and quit", hotkey: "y", role: .error), DialogButton("Keep working", hotkey: "n")],
                                selected: 1, cancelButton: 1)
            return .ask(QuestionDialog(dialog: dialog, question: .stopTransferAndQuit))
        }
        if !force, let fileGone, !copyHoldsTheWork {
            // Nothing can be saved at the path; a copy holding the latest work is enough.
            let dialog = Dialog(title: fileGone == .replaced ? "File replaced" : "File deleted",
                                message: CardfileApp.fileGoneSentence(fileGone) + " What was saved before and your unsaved edits are only in this session now. Quit without a copy? (:saveas FILE writes one.)",
                                buttons: [DialogButton("Quit", hotkey: "q", role: .error), DialogButton("Cancel", hotkey: "c")],
                                selected: 1, cancelButton: 1)
            return .ask(QuestionDialog(dialog: dialog, question: .quitWithFileGone))
        }
        return force || fileGone != nil || !hasForm ? .end : .leaveTheForm
    }

    /// The question `d` asks before deleting `id` from `table`, or why it cannot be deleted.
    /// The question names what cascades with it, counted by a rehearsal of the delete (rolled
    /// back); a lock held elsewhere leaves the counts out and says so.
    func deleteQuestion(_ id: ObjectID, in table: TableSchema, container: Container, readOnlyReason: String?) -> Result<QuestionDialog, Refusal> {
        if let readOnlyReason { return .failure(Refusal(report: Report(text: "Read-only: \(readOnlyReason).", role: .warning))) }
        if let refusal = CardfileApp.refusal(.delete, in: table) { return .failure(Refusal(report: Report(text: refusal, role: .warning))) }
        let label = id.primaryKeyValues?.map(\.description).joined(separator: "/") ?? ""
        var effects: DeletionEffects?
        var uncounted: String?
        do {
            effects = try container.deletionEffects(of: [id], busyTimeout: .milliseconds(50))
        } catch .validationFailed(let failures) {
            // The delete would be refused (records refer to this one): no question.
            let referring = failures.compactMap { failure -> String? in
                if case .referenced(let table) = failure.rule { return "“\(table)”" }
                return nil
            }
            let reason = referring.count == failures.count
                ? "records of \(referring.joined(separator: ", ")) refer to \(table.name) \(label)."
                : failures.map(\.message).joined(separator: " ")
            return .failure(Refusal(report: Report(text: "Not deleted: \(reason)", role: .error)))
        } catch {
            uncounted = error.message.trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        let message = DeleteQuestion.message(deleting: "\(table.name) \(label)", effects: effects, uncounted: uncounted)
        let dialog = Dialog(title: "Delete record", message: message,
                            buttons: [DialogButton("Delete", hotkey: "y", role: .error), DialogButton("Keep", hotkey: "n")],
                            selected: 1, cancelButton: 1)
        return .success(QuestionDialog(dialog: dialog, question: .deleteRecord(id)))
    }

    /// Why something was not done, as the message line says it.
    struct Refusal: Error {
        let report: Report
    }

    /// Deletes `id` through the view context, all or nothing.
    func delete(_ id: ObjectID) -> Report {
        do {
            try view.delete(id)
            try view.save()
            return Report(text: "Deleted.", role: .success)
        } catch {
            view.rollback()
            return Report(text: error.message(notDone: "Not deleted"), role: .error)
        }
    }

    /// What answering the conflict dialog led to.
    enum Answered {
        /// The dialog stays (a key that moved within it, or chose a side of a field).
        case stay(ConflictDialog)
        /// The dialog closes; the form stays.
        case close(Report?)
        /// The dialog and the form close (the deletion was accepted).
        case closeTheForm(Report)
        /// The choices were applied and saved: `saved` says how it went.
        case saved(Saved, done: Report)
    }

    /// What Take theirs (or Accept the deletion) says: `done`, and, when it ended an undo the
    /// history could not record as done, that the next undo offers it again.
    static func taken(_ done: String, _ unrecorded: String?) -> Report {
        guard let unrecorded else { return Report(text: done, role: .success) }
        return Report(text: done + " The history could not record the undo as done, so Alt-U offers it again: " + unrecorded, role: .warning)
    }

    /// Applies the person's answer to the conflict in `dialog` to the form's editor and saves.
    /// Every choice works from the three versions the dialog showed: a field that moved again
    /// since conflicts again rather than being overwritten unseen.
    func answer(_ dialog: ConflictDialog, _ outcome: ConflictDialog.Outcome, form: FormScreen, now: ContinuousClock.Instant, circumstances: Circumstances) -> Answered {
        guard let id = form.session.id else { return .close(nil) }
        let editor = form.session.editor
        switch outcome {
        case .none:
            return .stay(dialog)
        case .cancel:
            return .close(Report(text: "Nothing written; your edits are kept. Autosave waits for your next edit.", role: .warning, sticky: true))
        case .takeTheirs:
            // (An undo met a change made since, and the person kept that change: done.)
            let unrecorded = form.session.writing.flatMap { editor.recordWritten($0) }
            form.session.discard()
            form.reload()
            return .close(Self.taken("Took their version: your changes to this record were dropped.", unrecorded))
        case .acceptDeletion:
            let unrecorded = form.session.writing.flatMap { editor.recordWritten($0) }
            form.session.discard()
            return .closeTheForm(Self.taken("Accepted the deletion.", unrecorded))
        case .saveChoices, .merge, .keepMine, .restore:
            break
        }
        do {
            // The contexts learn the stored row, so the form shows it under the choices.
            try view.refresh(id, mergeChanges: true)
            try editor.refresh(id, mergeChanges: true)
            switch outcome {
            case .restore:
                try editor.resolveConflict(of: id, keeping: .mine)
            case .merge:
                try editor.resolveConflict(dialog.conflict, by: .objectTrump)
            case .keepMine:
                try editor.resolveConflict(dialog.conflict, by: .overwrite)
            default:
                try editor.resolveConflict(dialog.conflict, choosing: Dictionary(dialog.choices.map { ($0.name, $0.choice.side) }) { first, _ in first })
            }
        } catch {
            form.refreshMarks()     // the refresh may have moved the editor: the marks follow
            return .close(Report(text: error.message(notDone: "Not saved"), role: .error))
        }
        form.session.edited(now: now)
        let saved = save(form, quietly: true, now: now, circumstances: circumstances)
        let done: String = switch outcome {
        case .restore: "Restored the record with your values."
        case .merge: "Merged: your edited fields won, every other field took theirs."
        case .keepMine: "Kept yours: your whole record was written."
        default: "Saved with your choices."
        }
        return .saved(saved, done: Report(text: done, role: .success))
    }
}
