import CardfileStore
import CardfileTerminal
import Foundation

/// The conflict dialog's choices, applied to the form's editor context and saved.
extension CardfileApp {
    /// Applies the person's answer to the conflict dialog (see ``SaveCoordinator/answer(_:_:form:now:circumstances:)``).
    func answer(_ dialog: ConflictDialog, _ outcome: ConflictDialog.Outcome, now: ContinuousClock.Instant) {
        guard let form else {
            overlay = nil
            return
        }
        overlay = nil
        switch coordinator.answer(dialog, outcome, form: form, now: now, circumstances: circumstances) {
        case .stay(let dialog):
            overlay = .conflict(dialog)
        case .close(let report):
            if let report { show(report, now: now) }
        case .closeTheForm(let report):
            goBack()
            show(report, now: now)
        case .saved(let saved, let done):
            // A new conflict opens its dialog again; a failure says why.
            let outcome = apply(saved, to: form, now: now)
            guard outcome == .saved || outcome == .nothingToSave else { return }
            form.reload()
            show(done, now: now)
        }
    }
}
