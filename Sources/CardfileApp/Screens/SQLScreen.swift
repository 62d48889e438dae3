import CardfileStore
import CardfileTerminal
import Foundation

/// The SQL screen (`:sql`, `Q`): a statement typed in a multi-line editor, the earlier ones of
/// this database under ↑ and ↓, names completed with Tab. A result opens as a list over it
/// (Esc comes back here, the text kept); a write is asked about first.
final class SQLScreen {
    /// What a key did.
    enum Outcome: Equatable {
        /// The editor or the history took it.
        case handled
        /// Run the statement (F5, Ctrl-E).
        case run
        /// Esc: cancel the statement running, else leave the screen.
        case leave
        /// Ctrl-O: the statement in the person's own editor.
        case editExternally
        /// Tab found several names: the ones it could be (completed as far as they agree).
        case candidates([String])
        /// Tab found nothing to complete.
        case noCompletion
        /// A key the screen does not use (the app's keys that work anywhere).
        case action(AppAction)
        case ignored
    }

    var editor: TextAreaState
    /// The statements run before on this database, oldest first.
    private(set) var history: [String]
    /// Where ↑ and ↓ are in ``history``; nil while the text is the person's own.
    private var browsing: Int?
    /// The text typed before ↑ went into the history, given back by ↓ past the newest.
    private var draft = ""
    /// Where SQLite stopped reading the last statement (a character of the text), marked.
    var errorOffset: Int?
    /// Why the last statement did not run, shown whole under the text (the message line
    /// cuts it on a narrow screen) until the text changes or another run starts.
    var problem: String?
    /// The statement running off the loop; Esc cancels it.
    var running: RunningStatement?

    /// A statement on its way: being compiled and counted (a result's rows, a write's), or
    /// written after the person said yes.
    struct RunningStatement {
        let text: String
        let cancellation = Cancellation()
        let started: ContinuousClock.Instant
        /// `running`, `counting`, `writing`.
        let activity: String
    }

    init(history: [String], text: String = "") {
        self.history = history
        editor = TextAreaState(text: text)
        editor.moveCursor(to: text.count)
    }

    /// Remembers `query` as the newest run (as the file will).
    func remember(_ query: String) {
        history.removeAll { $0 == query }
        history.append(query)
        if history.count > QueryHistory.limit { history.removeFirst(history.count - QueryHistory.limit) }
        browsing = nil
    }

    func handle(_ key: KeyEvent, names: () -> [String], pageHeight: Int) -> Outcome {
        let action = KeyMaps.sql.action(for: key)
        switch action {
        case .runQuery?: return .run
        case .leave?: return .leave
        case .editExternally?: return running == nil ? .editExternally : .ignored
        case .complete?: return complete(names())
        case .up? where editor.isCursorOnFirstLine: return showHistory(step: -1)
        case .down? where editor.isCursorOnLastLine && browsing != nil: return showHistory(step: 1)
        case .help?, .quit?, .redraw?, .suspend?: return .action(action!)
        default: break
        }
        let before = editor.text
        guard editor.handle(key, pageHeight: pageHeight) else { return .ignored }
        if editor.text != before {
            errorOffset = nil
            problem = nil
            browsing = nil
        }
        return .handled
    }

    /// The whole text, as another editor gave it back (the cursor at its end).
    func replaceText(with text: String) {
        editor = TextAreaState(text: text)
        editor.moveCursor(to: text.count)
        errorOffset = nil
        problem = nil
        browsing = nil
    }

    /// Pasted text goes into the editor as typed.
    func paste(_ text: String) {
        editor.insert(text)
        errorOffset = nil
        problem = nil
        browsing = nil
    }

    /// ↑ on the first line, ↓ on the last: the earlier or later statement, and past the newest
    /// the text that was being typed.
    private func showHistory(step: Int) -> Outcome {
        guard !history.isEmpty else { return step < 0 ? .handled : .ignored }
        var current = browsing ?? history.count
        if browsing == nil {
            draft = editor.text
            // The statement just run is on screen already: ↑ goes to the one before it.
            if step < 0, history.last == draft { current -= 1 }
        }
        let next = min(max(0, current + step), history.count)
        browsing = next == history.count ? nil : next
        let text = browsing.map { history[$0] } ?? draft
        editor = TextAreaState(text: text)
        // Going back, the cursor starts on the first line, so ↑ goes on back; forward, on the last.
        editor.moveCursor(to: step < 0 ? 0 : text.count)
        errorOffset = nil
        return .handled
    }

    /// Tab: completes the word before the cursor to a table's or column's name; several
    /// names that start alike complete as far as they agree, and are listed.
    private func complete(_ names: [String]) -> Outcome {
        // (The editor's own characters: the text rebuilt could join a combining mark to the
        // letter before it and count one fewer.)
        let characters = editor.characters
        var start = editor.cursor
        while start > 0, characters[start - 1].isLetter || characters[start - 1].isNumber || characters[start - 1] == "_" { start -= 1 }
        let typed = String(characters[start..<editor.cursor])
        guard !typed.isEmpty else { return .noCompletion }
        var seen: Set<String> = []
        let matches = names.filter { $0.lowercased().hasPrefix(typed.lowercased()) && seen.insert($0.lowercased()).inserted }
        guard let first = matches.first else { return .noCompletion }
        var common = first
        for name in matches.dropFirst() {
            while !name.lowercased().hasPrefix(common.lowercased()) { common.removeLast() }
        }
        let needsQuotes = common.contains { !($0.isLetter || $0.isNumber || $0 == "_") } || common.first?.isNumber == true
        // Names that need quotes complete whole or not at all: half a quoted name is no name.
        if needsQuotes, matches.count > 1 { return .candidates(matches) }
        let replacement = needsQuotes ? "\"\(common.replacingOccurrences(of: "\"", with: "\"\""))\"" : common
        for _ in 0..<typed.count { editor.handle(KeyEvent(.backspace)) }
        editor.insert(replacement)
        errorOffset = nil
        return matches.count == 1 ? .handled : .candidates(matches)
    }

    /// Draws the title and the editor; returns where the cursor goes.
    func render(in area: Rect, buffer: inout Buffer, now: ContinuousClock.Instant) -> Point? {
        guard !area.isEmpty else { return nil }
        let (header, body) = area.splitTop(min(1, area.height))
        let title = running.map { "SQL · \($0.activity)… Esc cancels" } ?? "SQL · F5 or Ctrl-E runs · Tab completes · ↑ earlier statements · Esc back"
        buffer.write(title, x: header.x, y: header.y, maxWidth: header.width, style: Style(foreground: .accent, attributes: [.bold]))
        guard !body.isEmpty else { return nil }
        var text = body
        if let problem, body.height > 2 {
            // Under the text, wrapped, at most half the screen.
            let lines = Dialog.wrap(problem, width: body.width).prefix(max(1, body.height / 2))
            let style = Style(foreground: .error, attributes: [.bold])
            for (index, line) in lines.enumerated() {
                buffer.write(line, x: body.x, y: body.maxY - lines.count + index, maxWidth: body.width, style: style)
            }
            text = Rect(x: body.x, y: body.y, width: body.width, height: body.height - lines.count - 1)
        }
        let area = TextArea(mark: errorOffset)
        area.render(in: text, buffer: &buffer, state: &editor)
        return running == nil ? area.cursor(in: text, state: &editor) : nil
    }
}
