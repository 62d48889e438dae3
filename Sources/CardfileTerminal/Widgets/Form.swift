/// One field of a ``Form``.
public struct FormField: Hashable, Sendable {
    public var label: String
    public var state: TextFieldState
    /// A line under the field: a validation failure, or what changed elsewhere.
    public var message: String?
    public var messageRole: Role
    /// The value differs from the stored one (drawn with the *modified* mark).
    public var isChanged: Bool
    /// The stored value changed elsewhere while this one was edited.
    public var hasConflict: Bool
    public var isReadOnly: Bool

    public init(label: String, text: String = "", message: String? = nil, messageRole: Role = .error, isChanged: Bool = false, hasConflict: Bool = false, isReadOnly: Bool = false) {
        self.label = label
        self.state = TextFieldState(text: text)
        self.message = message
        self.messageRole = messageRole
        self.isChanged = isChanged
        self.hasConflict = hasConflict
        self.isReadOnly = isReadOnly
    }
}

/// The fields of a form and which one has the focus.
public struct FormState: Hashable, Sendable {
    public var fields: [FormField]
    public var focus: Int
    /// First field shown, kept up to date by drawing.
    public var scroll: Int = 0

    public init(fields: [FormField], focus: Int = 0) {
        self.fields = fields
        self.focus = min(max(0, focus), max(0, fields.count - 1))
    }

    /// Tab and ↓ move to the next field, Shift-Tab and ↑ to the previous; other keys edit the
    /// focused field (unless it is read-only). Returns false for keys it does not handle.
    @discardableResult
    public mutating func handle(_ event: KeyEvent) -> Bool {
        guard !fields.isEmpty else { return false }
        focus = min(max(0, focus), fields.count - 1)
        switch event.key {
        case .tab, .down:
            focus = (focus + 1) % fields.count
            return true
        case .backTab, .up:
            focus = (focus + fields.count - 1) % fields.count
            return true
        default:
            guard !fields[focus].isReadOnly else { return false }
            return fields[focus].state.handle(event)
        }
    }
}

/// A form: a label column, fields, a mark per field (● changed, ! conflict) and a message line
/// under any field that has one.
public struct Form: StatefulWidget {
    public init() {}

    /// Lines each field takes.
    private func height(of field: FormField) -> Int { field.message == nil ? 1 : 2 }

    public func render(in area: Rect, buffer: inout Buffer, state: inout FormState) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty, !state.fields.isEmpty else { return }
        buffer.fill(area, style: .plain)
        let labelWidth = min(max(1, area.width / 3), (state.fields.map { $0.label.displayWidth }.max() ?? 0) + 1)
        let fieldX = area.x + labelWidth + 2
        let fieldWidth = area.maxX - fieldX
        keepFocusVisible(&state, height: area.height)
        var y = area.y
        for index in state.scroll..<state.fields.count {
            let field = state.fields[index]
            guard y < area.maxY else { break }
            let focused = index == state.focus
            let labelStyle = Style(foreground: focused ? .accent : .muted, attributes: focused ? [.bold] : [])
            buffer.write(field.label, x: area.x, y: y, maxWidth: labelWidth, style: labelStyle)
            let mark: (String, Role)? = field.hasConflict ? ("!", .conflict) : (field.isChanged ? ("●", .modified) : nil)
            if let (symbol, role) = mark {
                buffer.write(symbol, x: area.x + labelWidth, y: y, maxWidth: 1, style: Style(foreground: role, attributes: [.bold]))
            }
            if fieldWidth > 0 {
                let style = Style(foreground: field.isReadOnly ? .muted : .text, background: focused ? .selection : .surface)
                TextField(style: style).render(in: Rect(x: fieldX, y: y, width: fieldWidth, height: 1), buffer: &buffer, state: &state.fields[index].state)
            }
            y += 1
            if let message = field.message, y < area.maxY {
                buffer.write(message, x: fieldX, y: y, maxWidth: max(0, fieldWidth), style: Style(foreground: field.messageRole))
                y += 1
            }
        }
    }

    /// Where the terminal cursor goes: in the focused field.
    public func cursor(in area: Rect, state: inout FormState) -> Point? {
        guard !area.isEmpty, !state.fields.isEmpty else { return nil }
        let labelWidth = min(max(1, area.width / 3), (state.fields.map { $0.label.displayWidth }.max() ?? 0) + 1)
        let fieldX = area.x.saturatingAdd(labelWidth + 2)
        keepFocusVisible(&state, height: area.height)
        var y = area.y
        for index in state.scroll..<state.focus { y = y.saturatingAdd(height(of: state.fields[index])) }
        guard y < area.maxY, area.maxX > fieldX else { return nil }
        return TextField().cursor(in: Rect(x: fieldX, y: y, width: area.maxX - fieldX, height: 1), state: &state.fields[state.focus].state)
    }

    private func keepFocusVisible(_ state: inout FormState, height: Int) {
        // The caller may have removed fields: keep both inside the list.
        state.focus = min(max(0, state.focus), state.fields.count - 1)
        state.scroll = min(max(0, state.scroll), state.focus)
        if state.focus < state.scroll { state.scroll = state.focus }
        while state.scroll < state.focus,
              (state.scroll...state.focus).reduce(0, { $0 + self.height(of: state.fields[$1]) }) > height {
            state.scroll += 1
        }
    }
}
