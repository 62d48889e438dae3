import CardfileStore
import CardfileTerminal
import Foundation

/// The conflict dialog's choices, applied to the form's editor context and saved.
extension CardfileApp {
    /// Opens the dialog for the form's record after a save met `conflicts`.
    func showConflict(_ conflicts: [MergeConflict], in form: FormScreen) {
        guard let conflict = conflicts.first(where: { $0.objectID == form.session.id }) ?? conflicts.first else { return }
        overlay = .conflict(ConflictDialog(conflict: conflict, recordTitle: form.title))
    }

    func answer(_ dialog: ConflictDialog, _ outcome: ConflictDialog.Outcome, now: ContinuousClock.Instant) {
        guard let form, let id = form.session.id else {
            overlay = nil
            return
        }
        let editor = form.session.editor
        switch outcome {
        case .none:
            overlay = .conflict(dialog)
            return
        case .cancel:
            overlay = nil
            notice = Notice(text: "Nothing written; your edits are kept. Autosave waits for your next edit.", role: .warning, expires: nil)
            return
        case .takeTheirs:
            overlay = nil
            form.session.discard()
            form.reload()
            show("Took their version: your changes to this record were dropped.", role: .success, now: now)
            return
        case .acceptDeletion:
            overlay = nil
            form.session.discard()
            goBack()
            show("Accepted the deletion.", role: .success, now: now)
            return
        case .saveChoices, .merge, .keepMine, .restore:
            break
        }
        overlay = nil
        do {
            // The contexts learn the stored row first: the choices are made against it.
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
                for (name, choice) in dialog.choices {
                    try editor.resolveConflict(of: id, field: name, choosing: choice.side)
                }
            }
        } catch {
            show("Not saved: \(error.message)", role: .error, now: now)
            return
        }
        form.session.edited(now: now)
        let result = save(form, now: now, quietly: true)
        guard result == .saved || result == .nothingToSave else { return }
        form.reload()
        let done: String = switch outcome {
        case .restore: "Restored the record with your values."
        case .merge: "Merged: your edited fields won, every other field took theirs."
        case .keepMine: "Kept yours: your whole record was written."
        default: "Saved with your choices."
        }
        show(done, role: .success, now: now)
    }
}
