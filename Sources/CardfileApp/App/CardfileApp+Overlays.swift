import CardfileStore
import CardfileTerminal
import Foundation

/// Keys over an overlay: its key map names the action, and the overlay's case handles it.
/// Keys a map leaves to the widget (text editing, a dialog's letters) go to the widget.
extension CardfileApp {
    func handle(_ key: KeyEvent, in overlay: Overlay, now: ContinuousClock.Instant) -> [AppCommand] {
        let action = overlay.keyMap.action(for: key)
        switch action {
        case .help?:
            self.overlay = .help(HelpPanel(over: overlay))
            return []
        case .redraw?: return [.redraw]
        case .suspend?: return [.suspend]
        default: break
        }
        switch overlay {
        case .help(var help):
            let limit = helpOverlay(help).maximumScroll(in: mainArea)
            let page = max(1, size.height - 4)
            switch action {
            case .down?: help.scroll(by: 1, limit: limit)
            case .up?: help.scroll(by: -1, limit: limit)
            case .pageDown?: help.scroll(by: page, limit: limit)
            case .pageUp?: help.scroll(by: -page, limit: limit)
            case .quit?: return quit(force: false, now: now)
            default:
                self.overlay = help.over
                return []
            }
            self.overlay = .help(help)
        case .panel(var reading):
            let area = mainArea
            switch action {
            case .down?: reading.scroll(by: 1, in: area)
            case .up?: reading.scroll(by: -1, in: area)
            case .pageDown?: reading.scroll(by: readingPage, in: area)
            case .pageUp?: reading.scroll(by: -readingPage, in: area)
            case .quit?:
                self.overlay = nil
                return quit(force: false, now: now)
            default:
                self.overlay = nil
                return []
            }
            self.overlay = .panel(reading)
        case .schema(var panel):
            let area = mainArea
            let page = max(1, area.height - 4)
            switch action {
            case .down?: panel.step(1, in: area)
            case .up?: panel.step(-1, in: area)
            case .pageDown?: panel.scrollBy(page, in: area)
            case .pageUp?: panel.scrollBy(-page, in: area)
            case .open?:
                guard let table = panel.selectedTable else {
                    show(panel.links.isEmpty ? "No other table is named here." : "↓ chooses a line naming a table; Enter opens it.", role: .muted, now: now)
                    break
                }
                self.overlay = nil
                open(table, now: now)
                return []
            case .leave?:
                self.overlay = nil
                return []
            case .quit?:
                self.overlay = nil
                return quit(force: false, now: now)
            default: break
            }
            self.overlay = .schema(panel)
        case .history(var panel):
            if panel.navigate(action, in: mainArea) {
                self.overlay = .history(panel)
                return []
            }
            self.overlay = nil
            switch action {
            case .open?: restore(panel, now: now)
            case .quit?: return quit(force: false, now: now)
            case .leave?: break
            default: self.overlay = .history(panel)
            }
        case .frequencies(var panel):
            if panel.navigate(action, in: mainArea) {
                self.overlay = .frequencies(panel)
                return []
            }
            self.overlay = nil
            switch action {
            case .open?: filter(to: panel, now: now)
            case .quit?: return quit(force: false, now: now)
            case .leave?: break
            default: self.overlay = .frequencies(panel)
            }
        case .question(var asked):
            guard let chosen = asked.dialog.handle(key) else {
                self.overlay = .question(asked)
                return []
            }
            self.overlay = nil
            return answer(asked.question, button: chosen, now: now)
        case .commandLine(var line):
            switch action {
            case .complete?:
                complete(&line, now: now)
                self.overlay = .commandLine(line)
            case .quit?:
                commandHistory = line.prompt
                self.overlay = nil
                return quit(force: false, now: now)
            default:
                switch line.prompt.handle(key) {
                case .submitted(let text):
                    commandHistory = line.prompt
                    self.overlay = nil
                    return run(CommandLineCommands.parse(text), now: now)
                case .cancelled:
                    commandHistory = line.prompt
                    self.overlay = nil
                default:
                    self.overlay = .commandLine(line)
                }
            }
        case .conflict(var dialog):
            if action == .quit { return quit(force: false, now: now) }
            let outcome = dialog.handle(key)
            answer(dialog, outcome, now: now)
        case .find(var prompt):
            switch action ?? Self.promptAction(key) {
            case .accept?:
                self.overlay = nil
                if !prompt.field.text.isEmpty { find(prompt.field.text, backward: false, now: now) }
            case .cancel?:
                self.overlay = nil
            case .quit?:
                self.overlay = nil
                return quit(force: false, now: now)
            default:
                _ = prompt.field.handle(key)
                self.overlay = .find(prompt)
            }
        case .filter(var prompt):
            switch action ?? Self.promptAction(key) {
            case .accept?:
                if prompt.problem != nil {
                    // Not a filter the list can show: the prompt stays, with the reason.
                    prompt.refused = true
                    self.overlay = .filter(prompt)
                } else {
                    self.overlay = nil
                }
            case .cancel?:
                self.overlay = nil
                _ = applyFilter("", now: now)
            case .quit?:
                self.overlay = nil
                return quit(force: false, now: now)
            default:
                if prompt.field.handle(key) {
                    prompt.problem = applyFilter(prompt.field.text, now: now)
                    prompt.refused = false
                    self.overlay = .filter(prompt)
                }
            }
        }
        return []
    }

    /// Enter and Esc with a modifier (Alt-Enter) still accept or cancel a prompt.
    private static func promptAction(_ key: KeyEvent) -> AppAction? {
        switch key.key {
        case .enter: .accept
        case .escape: .cancel
        default: nil
        }
    }

    /// Lines PgUp and PgDn move reports by.
    private var readingPage: Int { max(1, size.height - 6) }

    /// Tab on the command line: completes the word, and lists the choices when several fit.
    private func complete(_ line: inout CommandLinePrompt, now: ContinuousClock.Instant) {
        let completion = CommandLineCommands.complete(line.prompt.field.text, themes: options.themes, folder: options.workingFolder)
        line.prompt.field = TextFieldState(text: completion.text)      // the cursor at its end
        guard !completion.alternatives.isEmpty else { return }
        let shown = completion.alternatives.prefix(8).joined(separator: "  ")
        show(completion.alternatives.count > 8 ? shown + "  … (\(completion.alternatives.count))" : shown, role: .muted, now: now)
    }

    /// What the help lists: the keys of the overlay it covers, of the screen, and of every
    /// prompt and dialog the screen can open, each key listed once.
    func helpKeyMap(over covered: Overlay?) -> KeyMap<AppAction> {
        let opened: [KeyMap<AppAction>] = switch screens.top {
        case .tables: [KeyMaps.tablesFilter, KeyMaps.commandLine, KeyMaps.dialog, KeyMaps.reading, KeyMaps.schema]
        case .list, .picker: [KeyMaps.filter, KeyMaps.find, KeyMaps.commandLine, KeyMaps.dialog, KeyMaps.reading, KeyMaps.frequencies, KeyMaps.schema, KeyMaps.history]
        case .form: [KeyMaps.commandLine, KeyMaps.dialog, KeyMaps.conflict, KeyMaps.history]
        case .sql: [KeyMaps.dialog]
        }
        // (The help's own keys too: it scrolls.)
        var maps = [currentKeyMap] + opened + [KeyMaps.reading]
        if let covered { maps.insert(covered.keyMap, at: 0) }
        var seen = Set<String>()
        var bindings: [KeyBinding<AppAction>] = []
        for map in maps {
            for binding in map.bindings where seen.insert(binding.section + "\u{0}" + binding.help).inserted {
                bindings.append(binding)
            }
        }
        // The keys that work anywhere, once, at the end.
        let anywhere = bindings.filter { $0.section == "Anywhere" }
        return KeyMap(bindings.filter { $0.section != "Anywhere" } + anywhere)
    }
}
