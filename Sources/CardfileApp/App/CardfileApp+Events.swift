import CardfileStore
import CardfileTerminal
import Foundation

/// Events: each goes to what has the keys (an overlay, else the top screen).
extension CardfileApp {
    func handle(_ event: Event, hits: HitMap, now: ContinuousClock.Instant) -> [AppCommand] {
        switch event {
        case .resize(let newSize):
            size = newSize
            for form in screens.forms {
                form.visibleHeight = listHeight
                form.areaWidth = size.width
            }
            do {
                for list in screens.lists {
                    try list.setHeight(listHeight)
                    list.areaWidth = size.width
                }
            } catch {
                show(error.message, role: .error, now: now)
            }
            return []
        case .terminate:
            // A signal or a terminal that went away: nobody is there to answer a question.
            // Keep what can be kept (save the form), then end whatever that save said.
            if picking != nil { goBack() }
            // Every form, the ones under the SQL screen or a list of references too.
            for form in screens.forms where form.session.hasPersistentChanges && form.readOnly == nil { save(form, now: now, quietly: true) }
            stopTransferNow()
            return quit(force: true, now: now)
        case .paste(let text):
            return paste(text, now: now)
        case .mouse(let mouse):
            return handle(mouse, hits: hits, now: now)
        case .key(let key):
            return handle(key, now: now)
        }
    }

    private func paste(_ text: String, now: ContinuousClock.Instant) -> [AppCommand] {
        switch overlay {
        case .commandLine(var line)?:
            line.prompt.field.insert(text)
            overlay = .commandLine(line)
        case .filter(var prompt)?:
            prompt.field.insert(text)
            prompt.problem = applyFilter(prompt.field.text, now: now)
            prompt.refused = false
            overlay = .filter(prompt)
        case .find(var prompt)?:
            prompt.field.insert(text)
            overlay = .find(prompt)
        case nil:
            if let form { report(form.paste(text, now: now), now: now) }
            screens.sql?.paste(text)
        default:
            break
        }
        return []
    }

    func handle(_ key: KeyEvent, now: ContinuousClock.Instant) -> [AppCommand] {
        if let overlay { return handle(key, in: overlay, now: now) }
        switch screens.top {
        case .tables: return handleTables(key, now: now)
        case .list(let list), .picker(let list, _, _): return handle(key, list: list, now: now)
        case .form(let form): return handle(key, form: form, now: now)
        case .sql(let sql): return handle(key, sql: sql, now: now)
        }
    }

    /// Keys every screen shares.
    func common(_ action: AppAction, now: ContinuousClock.Instant) -> [AppCommand]? {
        switch action {
        case .help: overlay = .help(HelpPanel()); return []
        case .quit: return quit(force: false, now: now)
        case .redraw: return [.redraw]
        case .suspend: return [.suspend]
        case .commandLine: overlay = .commandLine(CommandLinePrompt(prompt: commandHistory)); return []
        case .importFile: openCommandLine(typed: "import "); return []
        case .exportFile: openCommandLine(typed: "export "); return []
        case .report: showReport(now: now); return []
        case .sqlScreen: openSQL(now: now); return []
        default: return nil
        }
    }

    // MARK: - Tables

    private func handleTables(_ key: KeyEvent, now: ContinuousClock.Instant) -> [AppCommand] {
        guard let action = KeyMaps.tables.action(for: key) else { return [] }
        if let commands = common(action, now: now) { return commands }
        switch action {
        case .open:
            guard let table = tables?.selectedTable else { return [] }
            do { try openList(table) } catch { show(error.message, role: .error, now: now) }
        case .back:
            return quit(force: false, now: now)
        case .filter:
            overlay = .filter(FilterPrompt(field: TextFieldState(text: tables?.filter ?? ""), forTables: true))
        default:
            let page = listHeight
            screens.updateTables { _ = $0.handle(action, page: page) }
        }
        return []
    }

    // MARK: - List

    private func handle(_ key: KeyEvent, list: ListScreen, now: ContinuousClock.Instant) -> [AppCommand] {
        if picking != nil, key.key == .escape {
            goBack()
            return []
        }
        guard let action = KeyMaps.list.action(for: key) else { return [] }
        if picking != nil, [.add, .delete, .importFile, .exportFile, .toggleMark, .undo, .redo, .sqlScreen].contains(action) {
            show("Picking a record: Enter chooses it, Esc goes back without changing the field.", role: .warning, now: now)
            return []
        }
        if let query = list.query, [.add, .delete, .importFile, .undo, .redo].contains(action) {
            show(Self.refusal(action == .add ? .insert : .delete, inResultOf: query) ?? "", role: .warning, now: now)
            return []
        }
        if let commands = common(action, now: now) { return commands }
        do {
            if try list.handle(action) {
                if action == .last, list.live.isWaitingToJump {
                    show("Going to the last row once the sort is done.", role: .muted, now: now, aboutAWaitingJump: true)
                }
                return []
            }
        } catch {
            show(error.message, role: .error, now: now)
            return []
        }
        switch action {
        case .toggleMark:
            toggleMark(list, now: now)
        case .describeColumn:
            describeFocusedColumn(of: list, now: now)
        case .frequencyTable:
            countValuesOfFocusedColumn(of: list, now: now)
        case .undo, .redo:
            if container.history != nil {
                replayHistory(in: list, redo: action == .redo, now: now)
            } else {
                replayBulkChange(in: list, redo: action == .redo, now: now)
            }
        case .open:
            openSelected(now: now)
        case .add:
            openForm(nil, now: now)
        case .delete:
            guard let id = list.selection else { return [] }
            switch coordinator.deleteQuestion(id, in: list.table, container: container, readOnlyReason: readOnlyReason) {
            case .success(let question): overlay = .question(question)
            case .failure(let refusal): show(refusal.report, now: now)
            }
        case .filter:
            overlay = .filter(FilterPrompt(field: TextFieldState(text: list.spec.filter)))
        case .find:
            overlay = .find(FindPrompt(field: TextFieldState(text: lastSearch ?? "")))
        case .findNext, .findPrevious:
            findAgain(backward: action == .findPrevious, now: now)
        case .copyCell:
            return copyCell(now: now)
        case .hideColumn, .showColumns, .pinKey, .toggleWidth, .narrowColumn, .widenColumn:
            changeColumns(action, now: now)
        case .copyRecord, .copyRecordJSON:
            return copyRecord(json: action == .copyRecordJSON, now: now)
        case .leave:
            // Esc leaves a list opened from a form (Ctrl-R) or a result for its SQL; a table's
            // own list stays (q leaves it).
            switch screens.belowTop {
            case .form?, .sql?: goBack()
            default: break
            }
        case .back where screens.isAtBottom:
            return quit(force: false, now: now)
        case .back:
            goBack()
        default:
            break
        }
        return []
    }

    /// Makes `text` the list's filter; when it cannot be read, the list keeps its last good
    /// filter and the returned problem says why (the prompt shows it).
    func applyFilter(_ text: String, now: ContinuousClock.Instant) -> FilterProblem? {
        if case .tables = screens.top {
            screens.updateTables { $0.setFilter(text) }
            return nil
        }
        guard let list else { return nil }
        do {
            try list.setFilter(text)
            return nil
        } catch {
            return FilterProblem(error, typed: text, shown: list.spec.filter)
        }
    }

    // MARK: - Form

    private func handle(_ key: KeyEvent, form: FormScreen, now: ContinuousClock.Instant) -> [AppCommand] {
        switch form.handle(key, now: now) {
        case .handled:
            return []
        case .refused(let message):
            show(message, role: .warning, now: now)
            return []
        case .said(let message):
            show(message, role: .muted, now: now)
            return []
        case .action(let action):
            if let commands = common(action, now: now) { return commands }
            switch action {
            case .save: save(form, now: now, quietly: false)
            case .editExternally: return startExternalEdit(in: form, now: now)
            case .followReference: followReference(from: form, now: now)
            case .pickReference: pickReference(for: form, now: now)
            case .listReferencing: listReferencing(form, now: now)
            case .leave: leaveForm(then: .toList, now: now)
            case .nextRecord: leaveForm(then: .step(1), now: now)
            case .previousRecord: leaveForm(then: .step(-1), now: now)
            default: break
            }
            return []
        }
    }

    func report(_ outcome: FormScreen.Outcome, now: ContinuousClock.Instant) {
        switch outcome {
        case .refused(let message): show(message, role: .warning, now: now)
        case .said(let message): show(message, role: .muted, now: now)
        default: break
        }
    }

    /// Opens the command line with `typed` already in it (the keys that ask for a file).
    func openCommandLine(typed: String) {
        var prompt = commandHistory
        prompt.field = TextFieldState(text: typed)
        overlay = .commandLine(CommandLinePrompt(prompt: prompt))
    }

    /// The command line's state between uses (its history).
    var commandHistory: CommandPromptState {
        get { savedPrompt }
        set {
            var kept = newValue
            kept.field = TextFieldState()
            savedPrompt = kept
        }
    }
}
