import CardfileStore
import CardfileTerminal
import Foundation

/// Saving, leaving a form, quitting, deleting, and the `:` commands.
extension CardfileApp {
    /// Saves the form's record (Ctrl-S, `:w`, autosave) and says how it went.
    @discardableResult
    func save(_ form: FormScreen, now: ContinuousClock.Instant, quietly: Bool) -> EditSession.Outcome {
        if let reason = form.readOnly, form.session.hasPersistentChanges {
            show("Read-only: \(reason). Nothing can be saved.", role: .warning, now: now)
            return .failed("read-only")
        }
        let outcome = form.session.save(now: now, wallTime: clock.wallTime)
        switch outcome {
        case .saved:
            form.reload()
            form.endUndoRun()
            if notice?.aboutAFailedSave == true { notice = nil }
            if !quietly { show("Saved.", role: .success, now: now) }
            if let id = form.session.id { try? list?.live.select(id) }
        case .nothingToSave:
            if !quietly { show("Nothing to save.", now: now) }
        case .invalid(let failures):
            form.show(failures)
            show("Not saved: \(failures.map(\.message).joined(separator: " "))", role: .error, now: now, aboutAFailedSave: true)
        case .conflict(let conflicts):
            form.refreshMarks()
            let fields = conflicts.flatMap { $0.fields.filter(\.isContested).map(\.name) }
            let names = fields.isEmpty ? "the record" : fields.joined(separator: ", ")
            notice = Notice(text: "Not saved: \(names) changed elsewhere since you opened it. Your edits are kept; autosave is paused.", role: .error, expires: nil)
            showConflict(conflicts, in: form)
        case .busy:
            if let job = transfer?.job, job.holdsTheLock {
                show("The database is busy: the all-or-nothing import of \(job.fileName) holds it until it ends. Your edits are kept; saving again shortly.", role: .warning, now: now, aboutAFailedSave: true)
            } else {
                show("The database is busy (another program holds it). Your edits are kept; saving again shortly.", role: .warning, now: now, aboutAFailedSave: true)
            }
        case .failed(let message):
            if let fileGone {
                notice = Notice(text: Self.fileGoneNotice(fileGone), role: .error, expires: nil)
            } else {
                show("Not saved: \(message)", role: .error, now: now, aboutAFailedSave: true)
            }
        }
        return outcome
    }

    /// Leaves the form, then goes where `then` says. With changes pending: autosave on saves at
    /// once (and asks only when that fails); autosave off asks Save / Discard / Cancel.
    func leaveForm(then: Leaving, now: ContinuousClock.Instant) {
        guard let form else { return finishLeaving(then, now: now) }
        guard form.session.hasPersistentChanges, form.readOnly == nil else {
            form.session.discard()
            return finishLeaving(then, now: now)
        }
        var failure: String?
        if form.session.autosaveDelay != nil {
            let outcome = save(form, now: now, quietly: true)
            if outcome == .saved { return finishLeaving(then, now: now) }
            // A conflict is answered in its own dialog, which save() opened.
            if case .conflict = outcome { return }
            failure = notice?.text
        }
        let fields = form.session.changedFields
        let what = fields.isEmpty ? "the new record" : fields.joined(separator: ", ")
        var message = "Save your changes to \(what) of \(form.title)? Discarding loses them."
        if let failure { message = failure + "\n\n" + message }
        let dialog = Dialog(title: "Unsaved changes", message: message,
                            buttons: [DialogButton("Save", hotkey: "s", role: .success), DialogButton("Discard", hotkey: "d", role: .error), DialogButton("Cancel", hotkey: "c")],
                            selected: 0, cancelButton: 2)
        overlay = .question(QuestionDialog(dialog: dialog, question: .leaveForm(then: then)))
    }

    private func finishLeaving(_ then: Leaving, now: ContinuousClock.Instant) {
        guard let leaving = form else { return }
        let id = leaving.session.id
        switch then {
        case .quit:
            isRunning = false
        case .follow(let target):
            // The form stays, under the referenced record's.
            guard let table = container.schema.table(named: target.table) else { return }
            openForm(target, table: table, now: now)
        case .referencing(let name, let filter):
            guard let table = container.schema.table(named: name) else { return }
            do {
                let referencing = try makeList(table)
                try referencing.setFilter(filter)
                screens.push(.list(referencing))
                show("The \(name) records that reference \(leaving.title): q or Esc goes back.", role: .accent, now: now)
            } catch {
                show(error.message, role: .error, now: now)
            }
        case .toList, .step:
            goBack()
            // A form opened by following a reference goes back to the form it came from.
            guard let list = screens.list, form == nil else { return }
            if let id, !id.isTemporary { try? list.live.select(id) }
            guard case .step(let delta) = then else { return }
            let before = list.selection
            do { try list.live.moveSelection(by: delta) } catch { show(error.message, role: .error, now: now) }
            if let next = list.selection {
                if next == before { show(delta > 0 ? "That was the last record." : "That was the first record.", now: now) }
                openForm(next, now: now)
            }
        }
    }

    func answer(_ question: Question, button: Int, now: ContinuousClock.Instant) -> [AppCommand] {
        switch question {
        case .leaveForm(let then):
            guard let form else { return [] }
            switch button {
            case 0:
                // (A conflict opens its own dialog.)
                if save(form, now: now, quietly: false) == .saved { finishLeaving(then, now: now) }
            case 1:
                form.session.discard()
                finishLeaving(then, now: now)
            default:
                break
            }
        case .chooseReferencing(let choices):
            guard choices.indices.contains(button) else { return [] }
            leaveForm(then: choices[button], now: now)
        case .quitWithFileGone:
            guard button == 0 else { return [] }
            return quit(force: true, now: now)
        case .stopTransferAndQuit:
            guard button == 0 else { return [] }
            stopTransferForQuit()
            return quit(force: false, now: now)
        case .deleteRecord(let id):
            guard button == 0 else { return [] }
            do {
                try view.delete(id)
                try view.save()
                show("Deleted.", role: .success, now: now)
            } catch {
                view.rollback()
                show("Not deleted: \(error.message)", role: .error, now: now)
            }
        }
        return []
    }

    /// Quits; with a form's changes pending, asks first (unless `force`, which discards them).
    func quit(force: Bool, now: ContinuousClock.Instant) -> [AppCommand] {
        if let job = transfer?.job {
            guard force else {
                let progress = transfer?.progress.map { " (\(ValueText.count($0.rows)) rows so far)" } ?? ""
                let kept = job.isImport ? (job.holdsTheLock ? " An all-or-nothing import leaves the table as it was." : " Batches already imported stay.") : " The file is not written."
                let dialog = Dialog(title: job.isImport ? "Import running" : "Export running",
                                    message: "\(job.activity.capitalizedFirst) is still running\(progress). Stop it and quit?\(kept)",
                                    buttons: [DialogButton("Stop and quit", hotkey: "y", role: .error), DialogButton("Keep working", hotkey: "n")],
                                    selected: 1, cancelButton: 1)
                overlay = .question(QuestionDialog(dialog: dialog, question: .stopTransferAndQuit))
                return []
            }
            stopTransferForQuit()
        }
        if !force, let fileGone {
            // Nothing can be saved at the path; a copy holding the latest work is enough.
            guard copiedAtTokens != editorTokens else { return quit(force: true, now: now) }
            let dialog = Dialog(title: fileGone == .replaced ? "File replaced" : "File deleted",
                                message: Self.fileGoneSentence(fileGone) + " What was saved before and your unsaved edits are only in this session now. Quit without a copy? (:saveas FILE writes one.)",
                                buttons: [DialogButton("Quit", hotkey: "q", role: .error), DialogButton("Cancel", hotkey: "c")],
                                selected: 1, cancelButton: 1)
            overlay = .question(QuestionDialog(dialog: dialog, question: .quitWithFileGone))
            return []
        }
        if picking != nil { screens.pop() }      // the form behind a picker is the one to ask about
        if force || form == nil {
            form?.session.discard()
            isRunning = false
            return []
        }
        leaveForm(then: .quit, now: now)
        return []
    }

    func run(_ command: CommandLineCommands.Parsed, now: ContinuousClock.Instant) -> [AppCommand] {
        switch command {
        case .write:
            if let form { save(form, now: now, quietly: false) } else { show("Nothing to save here: edits are saved from a record's form.", now: now) }
        case .quit:
            return quit(force: false, now: now)
        case .forceQuit:
            return quit(force: true, now: now)
        case .writeQuit:
            if let form, form.session.hasPersistentChanges, save(form, now: now, quietly: false) != .saved { return [] }
            return quit(force: true, now: now)
        case .theme(let name):
            switch options.loadTheme(name) {
            case .success(let theme):
                options.themeName = name
                show("Theme: \(name).", now: now)
                return [.setTheme(theme)]
            case .failure(let problem):
                show(problem.description, role: .error, now: now)
            }
        case .autosave(let delay):
            options.autosave = delay
            form?.session.setAutosave(delay, now: now)
            show(delay.map { "Autosave \(Self.seconds($0)) after the last edit." } ?? "Autosave is off: save with Ctrl-S.", now: now)
        case .help:
            overlay = .help(HelpPanel())
        case .importFile(let words):
            startImport(words, now: now)
        case .exportFile(let words, let replace):
            startExport(words, replacing: replace, now: now)
        case .cancelTransfer:
            cancelTransfer(now: now)
        case .report:
            showReport(now: now)
        case .saveCopy(let typed, let replace):
            saveCopy(typed, replacing: replace, now: now)
        case .jump(let row):
            jump(toRow: row, now: now)
        case .find(let text):
            find(text, backward: false, now: now)
        case .copy(let json):
            return copyRecord(json: json, now: now)
        case .columns(let names):
            chooseColumns(names, now: now)
        case .problem(let message):
            show(message, role: .warning, now: now)
        }
        return []
    }

    static func seconds(_ duration: Duration) -> String {
        let value = duration.seconds
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
