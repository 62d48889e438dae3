import Foundation

/// The `:` command line: a text field with a history of earlier commands (↑/↓).
public struct CommandPromptState: Hashable, Sendable {
    public var field = TextFieldState()
    public private(set) var history: [String] = []
    private var browsing: Int?
    private var draft = ""
    /// How many past commands are kept (never below 0).
    public var historyLimit = 100 {
        didSet { historyLimit = Swift.max(0, historyLimit) }
    }

    public init(history: [String] = []) {
        self.history = history
    }

    /// What a key did.
    public enum Outcome: Hashable, Sendable {
        case submitted(String)
        case cancelled
        case edited
        case ignored
    }

    public mutating func handle(_ event: KeyEvent) -> Outcome {
        switch event.key {
        case .enter:
            let command = field.text.trimmingCharacters(in: .whitespaces)
            if !command.isEmpty, history.last != command {
                history.append(command)
                if history.count > historyLimit { history.removeFirst(history.count - historyLimit) }
            }
            reset()
            return .submitted(command)
        case .escape:
            reset()
            return .cancelled
        case .up:
            guard !history.isEmpty else { return .ignored }
            if browsing == nil { draft = field.text }
            let index = max(0, (browsing ?? history.count) - 1)
            browsing = index
            field = TextFieldState(text: history[index])
            return .edited
        case .down:
            guard let index = browsing else { return .ignored }
            if index + 1 < history.count {
                browsing = index + 1
                field = TextFieldState(text: history[index + 1])
            } else {
                browsing = nil
                field = TextFieldState(text: draft)
            }
            return .edited
        default:
            return field.handle(event) ? .edited : .ignored
        }
    }

    private mutating func reset() {
        field = TextFieldState()
        browsing = nil
        draft = ""
    }
}

/// Draws the command line: a `:` prompt and the field.
public struct CommandPrompt: StatefulWidget {
    public init() {}

    public func render(in area: Rect, buffer: inout Buffer, state: inout CommandPromptState) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        let style = Style(background: .surface)
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), style: style)
        buffer.write(":", x: area.x, y: area.y, maxWidth: 1, style: style.with(foreground: .accent).adding(.bold))
        TextField(style: style).render(in: fieldArea(area), buffer: &buffer, state: &state.field)
    }

    public func cursor(in area: Rect, state: inout CommandPromptState) -> Point? {
        TextField().cursor(in: fieldArea(area), state: &state.field)
    }

    private func fieldArea(_ area: Rect) -> Rect {
        Rect(x: area.x.saturatingAdd(1), y: area.y, width: area.width - 1, height: min(1, area.height))
    }
}
