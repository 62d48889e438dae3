import CardfileStore
import CardfileTerminal
import Foundation

/// Saving, leaving a form, quitting, deleting, and the `:` commands.
extension CardfileApp {
    /// Asks the store's questions (see ``SaveCoordinator``).
    var coordinator: SaveCoordinator { SaveCoordinator(view: view, clock: clock) }

    /// What stands in the way of saving now.
    var circumstances: SaveCoordinator.Circumstances {
        let job = transfer?.job
        return SaveCoordinator.Circumstances(fileGone: fileGone, importHoldingTheLock: job?.holdsTheLock == true ? job?.fileName : nil)
    }

    /// Puts a report on the message line.
    func show(_ report: SaveCoordinator.Report, now: ContinuousClock.Instant) {
        notice = Notice(text: report.text, role: report.role, expires: report.sticky ? nil : now + Self.noticeTime, aboutAFailedSave: report.aboutAFailedSave)
    }

    /// Saves the form's record (Ctrl-S, `:w`, autosave), says how it went, and opens the
    /// conflict dialog when the save met changes made elsewhere.
    @discardableResult
    func save(_ form: FormScreen, now: ContinuousClock.Instant, quietly: Bool) -> EditSession.Outcome {
        apply(coordinator.save(form, quietly: quietly, now: now, circumstances: circumstances), to: form, now: now)
    }

    @discardableResult
    func apply(_ saved: SaveCoordinator.Saved, to form: FormScreen, now: ContinuousClock.Instant) -> EditSession.Outcome {
        if saved.outcome == .saved {
            if notice?.aboutAFailedSave == true { notice = nil }
            if let id = form.session.id { try? list?.live.select(id) }
        }
        if let report = saved.report { show(report, now: now) }
        if let dialog = saved.conflict { overlay = .conflict(dialog) }
        return saved.outcome
    }

    /// Leaves the form, then goes where `then` says; asks first when changes would be lost.
    func leaveForm(then: Leaving, now: ContinuousClock.Instant) {
        guard let form else { return }
        switch coordinator.leave(form, then: then, now: now, circumstances: circumstances) {
        case .go(let saved):
            if let saved { apply(saved, to: form, now: now) }
            finishLeaving(then, now: now)
        case .answerTheConflict(let saved):
            apply(saved, to: form, now: now)
        case .ask(let question, let failed):
            if let failed { apply(failed, to: form, now: now) }
            overlay = .question(question)
        }
    }

    private func finishLeaving(_ then: Leaving, now: ContinuousClock.Instant) {
        guard let leaving = form else { return }
        let id = leaving.session.id
        switch then {
        case .quit:
            screens.pop()           // the last frame shows what the form stood on
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
            do { try list.live.moveSelection(by: delta) } catch { return show(error.message, role: .error, now: now) }
            if let next = list.selection {
                openForm(next, now: now)
                // Said on the form it opened (a message of the list would go with the list);
                // a form that could not open has said why.
                if next == before, form != nil { show(delta > 0 ? "That was the last record." : "That was the first record.", now: now) }
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
            // It may have ended while the question was open: then there is nothing to stop.
            guard transfer != nil else { return quit(force: false, now: now) }
            stopTransferThenQuit(force: false, now: now)
        case .deleteRecord(let id):
            guard button == 0 else { return [] }
            show(coordinator.delete(id), now: now)
        case .bulk(let request):
            guard button == 0 else { return [] }
            run(request, now: now)
        case .historyChangedSince(let step, let table):
            answerHistoryChangedSince(step, table: table, button: button, now: now)
        case .createIndex(let table, let column):
            if button == 0 { createIndex(on: column, of: table, now: now) }
        case .sqlWrite(let statement):
            guard button == 0 else {
                show("Not run: nothing was changed.", role: .muted, now: now)
                return []
            }
            write(statement, now: now)
        }
        return []
    }

    /// Quits; with a form's changes pending, a running import or export, or the file gone,
    /// asks first (unless `force`, which drops what the forms hold). A running import or
    /// export the person agreed to stop is stopped first: this returns at once, and the quit
    /// goes on when it has ended (``stopTransferThenQuit(force:now:)``).
    func quit(force: Bool, now: ContinuousClock.Instant) -> [AppCommand] {
        // A bulk edit is one transaction: quitting now would leave nothing of it (:q! does).
        if let bulk, !force {
            show("Wait until \(bulk.request.activity) is done: quitting now would undo it (:q! quits anyway).", role: .warning, now: now)
            return []
        }
        if let running = transfer, running.quitting != nil {
            if force { transfer?.quitting?.force = true }
            show("Quitting once \(running.job.activity) stops (\(running.job.isImport ? "a batch" : "a chunk") at most)…", role: .accent, now: now)
            return []
        }
        // A form with edits under the SQL screen or a list of references: back to it, so the
        // question is asked over it (and nothing it holds goes unasked).
        if !force, form == nil, screens.forms.contains(where: { $0.session.hasPersistentChanges }) {
            while form == nil, !screens.isAtBottom { goBack() }
        }
        let decision = coordinator.quit(force: force, hasForm: form != nil || picking != nil, transfer: transfer.map { ($0.job, $0.progress) }, fileGone: fileGone,
                                        copyHoldsTheWork: copiedAtTokens == editorTokens)
        if case .ask(let question) = decision {
            overlay = .question(question)
            return []
        }
        if transfer != nil { stopTransferThenQuit(force: force, now: now); return [] }
        if picking != nil { goBack() }      // the form behind a picker is the one to ask about
        if case .leaveTheForm = decision { leaveForm(then: .quit, now: now); return [] }
        form?.session.discard()
        isRunning = false
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
            // The keys are one F1 away; :help starts where the commands are listed.
            var help = HelpPanel()
            help.scroll(to: helpOverlay(help).firstLine(of: Self.commandsSection, in: mainArea) ?? 0)
            overlay = .help(help)
        case .importFile(let words):
            startImport(words, now: now)
        case .exportFile(let words, let replace):
            startExport(words, replacing: replace, now: now)
        case .cancelTransfer:
            cancelTransfer(now: now)
        case .report:
            showReport(now: now)
        case .messages:
            overlay = .panel(ReadingPanel(messages.panel))
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
        case .select(let filter, let marked):
            select(filter, marked: marked, now: now)
        case .set(let assignment):
            askToSet(assignment, now: now)
        case .deleteMarked:
            askToDeleteMarked(now: now)
        case .schema:
            describeSchema(now: now)
        case .history:
            showHistory(now: now)
        case .undo(let redo):
            guard let list, form == nil else {
                show("Undo and redo of saved changes are in a table's list (Alt-U, Alt-R); in a form they undo edits.", role: .warning, now: now)
                return []
            }
            if container.history != nil { replayHistory(in: list, redo: redo, now: now) } else { replayBulkChange(in: list, redo: redo, now: now) }
        case .sql:
            openSQL(now: now)
        case .index:
            askToIndex(now: now)
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
