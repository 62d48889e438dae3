import CardfileTerminal
import Foundation

/// Ctrl-O: the focused field's text, or the SQL screen's statement, in the person's own editor.
extension CardfileApp {
    func startExternalEdit(of sql: SQLScreen) -> [AppCommand] {
        var request = ExternalEdit(field: "The statement", text: sql.editor.text, readOnly: false, command: options.editor, fileStem: "cardfile-statement")
        request.fileExtension = "sql"
        return [.editExternally(request)]
    }

    func startExternalEdit(in form: FormScreen, now: ContinuousClock.Instant) -> [AppCommand] {
        switch form.externalEditRequest(command: options.editor) {
        case .success(let request):
            return [.editExternally(request)]
        case .failure(let refusal):
            show(refusal.message, role: .warning, now: now)
            return []
        }
    }

    func finishExternalEdit(_ request: ExternalEdit, _ outcome: ExternalEdit.Outcome, now: ContinuousClock.Instant) {
        // The program's name, not its folder: the message line is short.
        let program = request.command.split(separator: " ").first.map(String.init) ?? request.command
        let editor = program.split(separator: "/").last.map(String.init) ?? program
        switch outcome {
        case .changed(let text) where request.fileExtension == "sql":
            guard let sql = screens.sql else { return }
            sql.replaceText(with: text)
            show("The statement was edited in \(editor): F5 runs it.", role: .success, now: now)
        case .changed(let text):
            guard let form else { return }
            switch form.applyExternalText(text, to: request.field, now: now) {
            case .refused(let message): show(message, role: .warning, now: now)
            default: show("\(request.field) edited in \(editor). Alt-U undoes it.", role: .success, now: now)
            }
        case .unchanged:
            show(request.readOnly ? "\(request.field) was shown read-only; nothing is kept." : "\(request.field) unchanged: the file came back as it went.", role: .muted, now: now)
        case .failed(let status):
            show("\(editor) exited with status \(status): \(request.field) unchanged.", role: .warning, now: now)
        case .couldNotRun(let reason):
            show("Could not edit \(request.field) outside: \(reason).", role: .error, now: now)
        }
    }
}
