import CardfileStore
import CardfileTerminal
import Foundation

/// Drawing: the whole screen from the state, every frame.
extension CardfileApp {
    /// Draws the screen into `buffer` and returns where the terminal cursor goes (nil hides it).
    public func view(into buffer: inout Buffer) -> Point? {
        render(into: &buffer).cursor
    }

    /// Draws the screen into `buffer`; returns where the terminal cursor goes and what a
    /// click can reach (pass it back with the next mouse event: ``update(_:hits:)``).
    /// Drawing reads the state and changes none of it.
    public func render(into buffer: inout Buffer) -> FrameInfo {
        var hits = HitMap()
        let cursor = draw(into: &buffer, hits: &hits)
        return FrameInfo(cursor: cursor, hits: hits)
    }

    private func draw(into buffer: inout Buffer, hits: inout HitMap) -> Point? {
        let area = buffer.area
        guard !area.isEmpty else { return nil }
        buffer.fill(area, style: .plain)
        // The last two lines: the status bar, then the message or command line. A screen of
        // one or two lines shows only what fits, from the top.
        let (main, bottom) = Self.parts(of: area)
        let (statusLine, messageLine) = bottom.splitTop(min(1, bottom.height))
        var cursor: Point?
        switch screens.top {
        case .form(let form):
            cursor = form.render(in: main, buffer: &buffer, hits: &hits)
        case .list(let list), .picker(let list, _, _):
            list.render(in: main, buffer: &buffer)
            hits.add(main, .list)
        case .tables(let tables):
            tables.render(in: main, buffer: &buffer)
            hits.add(main, .tables)
        case .sql(let sql):
            cursor = sql.render(in: main, buffer: &buffer, now: clock.now)
        }
        if !statusLine.isEmpty { statusBar(width: statusLine.width).render(in: statusLine, buffer: &buffer) }
        switch overlay {
        case .help(let help)?:
            helpOverlay(help).render(in: main, buffer: &buffer)
            drawMessage("↑ ↓ PgUp PgDn scroll · Esc or another key closes", role: .muted, in: messageLine, buffer: &buffer)
            return nil
        case .panel(let reading)?:
            reading.panel.render(in: main, buffer: &buffer)
            drawMessage("↑ ↓ PgUp PgDn scroll; any other key closes.", role: .muted, in: messageLine, buffer: &buffer)
            return nil
        case .schema(let panel)?:
            panel.render(in: main, buffer: &buffer)
            drawMessage(notice?.text ?? "↑ ↓ choose a table · Enter opens it · PgUp PgDn scroll · Esc closes", role: notice?.role ?? .muted, in: messageLine, buffer: &buffer)
            return nil
        case .history(let panel)?:
            panel.render(in: main, buffer: &buffer)
            drawMessage(notice?.text ?? "↑ ↓ choose a version · End the oldest · Enter puts it in the form · Esc closes", role: notice?.role ?? .muted, in: messageLine, buffer: &buffer)
            return nil
        case .frequencies(let panel)?:
            panel.render(in: main, buffer: &buffer)
            drawMessage(notice?.text ?? "↑ ↓ choose a value · Enter filters the list to it · Esc goes back", role: notice?.role ?? .muted, in: messageLine, buffer: &buffer)
            return nil
        case .conflict(let dialog)?:
            dialog.render(in: main, buffer: &buffer)
            drawMessage(notice?.text ?? "", role: notice?.role ?? .text, in: messageLine, buffer: &buffer)
            return nil
        case .question(let asked)?:
            asked.dialog.render(in: main, buffer: &buffer)
            drawMessage(notice?.text ?? "", role: notice?.role ?? .text, in: messageLine, buffer: &buffer)
            return nil
        case .commandLine(var line)?:
            guard !messageLine.isEmpty else { return nil }
            CommandPrompt().render(in: messageLine, buffer: &buffer, state: &line.prompt)
            return CommandPrompt().cursor(in: messageLine, state: &line.prompt)
        case .filter(var prompt)?:
            if let problem = prompt.problem, main.height > 1, main.width > 0 {
                // Over the list's last rows, wrapped (up to three): the list keeps its status
                // bar and the prompt its line.
                let lines = Dialog.wrap(problem.sentence(refused: prompt.refused), width: main.width).prefix(min(3, main.height - 1))
                let style = Style(foreground: prompt.refused ? .error : .warning, background: .surface, attributes: [.bold])
                for (index, text) in lines.enumerated() {
                    let y = main.maxY - lines.count + index
                    buffer.fill(Rect(x: main.x, y: y, width: main.width, height: 1), style: style)
                    buffer.write(text, x: main.x, y: y, maxWidth: main.width, style: style)
                }
            }
            return drawInput("Filter: ", field: &prompt.field,
                             placeholder: prompt.forTables ? "part of a table's name" : "words, or year >= 1990, name = 'x', notes is empty",
                             mark: prompt.problem?.offset, in: messageLine, buffer: &buffer)
        case .find(var prompt)?:
            return drawInput("Find: ", field: &prompt.field, placeholder: "words, or year >= 1990 (the list stays whole; n / N repeat)", in: messageLine, buffer: &buffer)
        case nil:
            drawMessage(notice?.text ?? hint, role: notice?.role ?? .muted, in: messageLine, buffer: &buffer)
            return cursor
        }
    }

    /// The screen's parts: the main area, and below it the status bar and the message line
    /// (a screen of one or two lines keeps its first line for the main area).
    static func parts(of area: Rect) -> (main: Rect, bottom: Rect) {
        let (main, bottom) = area.splitBottom(min(2, max(0, area.height - 1)))
        return (main, bottom)
    }

    /// A labelled one-line input on the message line; returns where the cursor goes.
    private func drawInput(_ label: String, field: inout TextFieldState, placeholder: String, mark: Int? = nil, in line: Rect, buffer: inout Buffer) -> Point? {
        guard !line.isEmpty else { return nil }
        buffer.write(label, x: line.x, y: line.y, maxWidth: line.width, style: Style(foreground: .accent, attributes: [.bold]))
        let input = Rect(x: line.x + label.count, y: line.y, width: max(0, line.width - label.count), height: 1)
        TextField(placeholder: placeholder, mark: mark).render(in: input, buffer: &buffer, state: &field)
        return TextField().cursor(in: input, state: &field)
    }

    private func drawMessage(_ text: String, role: Role, in line: Rect, buffer: inout Buffer) {
        guard !line.isEmpty else { return }
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        buffer.write(flat, x: line.x, y: line.y, maxWidth: line.width, style: Style(foreground: role))
    }

    private var hint: String {
        switch screens.top {
        case .form(let form): form.readOnly == nil ? "Ctrl-S save · Esc back · Ctrl-N NULL · F1 help" : "Esc back · F1 help"
        case .list(let list) where list.query != nil:
            "Enter open · / filter · [ ] sort · Esc back to the SQL · ? help"
        case .list(let list):
            // What cannot be done here is not offered.
            (["Enter open"]
                + (readOnlyReason == nil && Self.refusal(.insert, in: list.table) == nil ? ["a add"] : [])
                + (readOnlyReason == nil && Self.refusal(.delete, in: list.table) == nil ? ["d delete"] : [])
                + ["/ filter", "[ ] sort", ": commands", "? help"]).joined(separator: " · ")
        case .picker: "Enter chooses · / filter · [ ] sort · Esc back without changing the field · ? help"
        case .tables: tables?.tables.isEmpty == true ? "q quit · ? help" : "Enter open · / filter · Q SQL · q quit · ? help"
        case .sql(let sql): sql.running == nil ? "F5 or Ctrl-E run · Tab complete · ↑ earlier · Esc back · F1 help" : "Esc cancels"
        }
    }

    var currentKeyMap: KeyMap<AppAction> {
        switch screens.top {
        case .form: KeyMaps.form
        case .list, .picker: KeyMaps.list
        case .tables: KeyMaps.tables
        case .sql: KeyMaps.sql
        }
    }

    /// The help as drawn: the keys of the screen (and of what it can open), then every `:`
    /// command, from the table the command line reads.
    func helpOverlay(_ help: HelpPanel) -> HelpOverlay {
        let commands = CommandLineCommands.commands.map { (section: Self.commandsSection, keys: $0.shown, help: $0.help.capitalizedFirst) }
        let title = switch screens.top {
        case .tables: "Help: the tables"
        case .list(let list): "Help: the list of \(list.table.name)"
        case .picker(let list, _, _): "Help: choosing from \(list.table.name)"
        case .form(let form): "Help: the form of \(form.session.table.name)"
        case .sql: "Help: SQL"
        }
        return HelpOverlay(title: title, keyMap: helpKeyMap(over: help.over), more: commands, scroll: help.scroll)
    }

    /// The help's heading over the `:` commands (`:help` opens the help there).
    static let commandsSection = "Commands (type : first, Enter runs; F2 or Alt-: in a form)"

    /// The status bar for a line `width` cells wide: where you are on the left, the position
    /// in the middle, the save state (or why nothing can be saved) on the right.
    ///
    /// The row position and the save state are always kept; what does not fit goes first in
    /// this order: the transfer's details, the sort, the sort's or count's progress, the file
    /// name, the filter, the transfer, the table. Where even those two do not fit, the save state is said shorter.
    func statusBar(width: Int) -> StatusBar {
        var file = PathText.name(of: container.path)
        if file.count > 24 { file = file.prefix(12) + "…" + file.suffix(10) }
        // (Lower ranks stay longer.)
        var pieces: [(text: String, rank: Int, left: Bool)] = []
        var position: String?
        var table: String?
        if let form = screens.form, list?.table.name != form.session.table.name {
            // A form with no list of its table under it (Ctrl-G): its table and record.
            table = form.session.table.name
            position = form.recordText
        } else if let list {
            table = list.table.name
            position = list.positionText
        }
        pieces.append((file, 4, true))
        if let table { pieces.append((table, 1, true)) }
        if let position { pieces.append((position, 0, false)) }
        // The transfer's name and share stay longest; its rows, rate and time left go sooner.
        for (index, part) in transferStatus.enumerated() { pieces.append((part, index == 0 ? 2 : 7 + index, false)) }
        if let bulk { pieces.append((bulk.statusText, 2, false)) }
        if let list, form == nil || list.table.name == form?.session.table.name {
            if let marked = list.marks.statusText { pieces.append((marked, 1, false)) }
            if let summary = list.marks.summaryText { pieces.append((summary, 5, false)) }
            if !list.spec.filter.isEmpty { pieces.append(("filter: \(list.spec.filter)", 3, false)) }
            if let advice = list.live.indexAdvice { pieces.append((Self.indexHint(advice), 4, false)) }
            if let activity = list.activityText { pieces.append((activity, 5, false)) }
            if let sort = list.sortText { pieces.append((sort, 6, false)) }
            if let live = Self.liveText(container.liveRefresh(of: list.table.name)) { pieces.append((live, 5, false)) }
        }
        var right = saveState(short: false)
        func bar() -> StatusBar {
            StatusBar(left: pieces.filter(\.left).map(\.text).joined(separator: " · "),
                      center: pieces.filter { !$0.left }.map(\.text).joined(separator: " · "), right: right)
        }
        func fits() -> Bool {
            let shown = bar()
            let gaps = [shown.left, shown.center].filter { !$0.isEmpty }.count
            return shown.left.displayWidth + shown.center.displayWidth + shown.right.displayWidth + gaps <= width
        }
        while !fits(), let drop = pieces.indices.filter({ pieces[$0].rank > 0 }).max(by: { pieces[$0].rank < pieces[$1].rank }) {
            pieces.remove(at: drop)
        }
        if !fits() { right = saveState(short: true) }
        return bar()
    }

    /// How the list hears others' commits, where that can differ (a server's tables): with
    /// the server's announcements, or by looking again every second. Nothing for a file, or
    /// while the server is unreachable (the save state says so).
    static func liveText(_ refresh: LiveRefresh?) -> String? {
        switch refresh {
        case .announced?: return "live: notify"
        case .polled?: return "live: polling"
        case .unreachable?, nil: return nil
        }
    }

    /// The save state in words: modified, autosave in 1.4s, saved 14:02:11, or why it waits;
    /// `short` says it in a word or two, for a narrow status bar.
    func saveState(short: Bool = false) -> String {
        if let fileGone { return short ? "not saved" : fileGone == .replaced ? "file replaced: not saved" : "file deleted: not saved" }
        if let reason = shownReadOnlyReason { return short ? "read-only" : "read-only (\(reason))" }
        // (A form's own pause says more when the person must act: fields to fix, a conflict.)
        if container.isServerUnreachable, form?.session.pause?.retries ?? true {
            return short ? "offline" : "server unreachable: retrying"
        }
        guard let session = form?.session else {
            return options.autosave.map { short ? "autosave" : "autosave \(Self.seconds($0))" } ?? "autosave off"
        }
        switch session.pause {
        case .invalid?: return short ? "not saved" : "not saved: fix the fields in red"
        case .conflict?: return short ? "conflict" : session.autosaveDelay == nil ? "not saved: conflict" : "not saved: conflict, autosave paused"
        case .busy?: return short ? "busy" : "database busy: retrying"
        case .unreachable?: return short ? "offline" : "server unreachable: retrying"
        case .failed?: return "not saved"
        case nil: break
        }
        if session.isModified {
            if let deadline = session.deadline {
                let left = max(.zero, deadline - clock.now)
                let tenths = (left.components.seconds * 10) + left.components.attoseconds / 100_000_000_000_000_000
                return short ? "saving in \(tenths / 10).\(tenths % 10)s" : "autosave in \(tenths / 10).\(tenths % 10)s"
            }
            return "modified"
        }
        if let saved = session.savedAt { return short ? "saved" : "saved \(saved)" }
        return short ? "unchanged" : "no changes"
    }
}
