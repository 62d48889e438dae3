/// A button of a ``Dialog``, with the key that presses it.
public struct DialogButton: Hashable, Sendable {
    public var title: String
    public var hotkey: Character
    public var role: Role

    public init(_ title: String, hotkey: Character, role: Role = .text) {
        self.title = title
        self.hotkey = hotkey
        self.role = role
    }
}

/// A modal question, centred on the screen: a title, a message, buttons bound to hotkeys.
///
/// The Save / Discard / Cancel prompt is one:
/// ```swift
/// Dialog(title: "Unsaved changes", message: "Save your changes to “Ada”?",
///        buttons: [.init("Save", hotkey: "s"), .init("Discard", hotkey: "d", role: .error),
///                  .init("Cancel", hotkey: "c")], cancelButton: 2)
/// ```
public struct Dialog: Widget, Sendable {
    public var title: String
    public var message: String
    public var buttons: [DialogButton]
    public var selected: Int
    /// The button Esc presses.
    public var cancelButton: Int?

    public init(title: String, message: String, buttons: [DialogButton], selected: Int = 0, cancelButton: Int? = nil) {
        self.title = title
        self.message = message
        self.buttons = buttons
        self.selected = min(max(0, selected), max(0, buttons.count - 1))
        self.cancelButton = cancelButton
    }

    /// What a key does: press a button (its index), move the selection (returns nil and
    /// changes ``selected``), or nothing.
    public mutating func handle(_ event: KeyEvent) -> Int? {
        switch event.key {
        case .enter, .character(" ") where event.modifiers.isEmpty: return buttons.isEmpty ? nil : selected
        case .escape: return cancelButton
        case .tab, .right: selected = (selected + 1) % max(1, buttons.count)
        case .backTab, .left: selected = (selected + max(1, buttons.count) - 1) % max(1, buttons.count)
        case .character(let character) where event.modifiers.isEmpty:
            return buttons.firstIndex { $0.hotkey.lowercased() == character.lowercased() }
        default: break
        }
        return nil
    }

    private var buttonLabels: [String] {
        buttons.map { button in
            // "[S]ave": the hotkey in brackets where it appears, else in front.
            let title = button.title
            if let index = title.firstIndex(where: { $0.lowercased() == button.hotkey.lowercased() }) {
                return String(title[..<index]) + "[" + String(title[index]) + "]" + String(title[title.index(after: index)...])
            }
            return "[\(button.hotkey)] \(title)"
        }
    }

    /// The area the dialog takes in `screen`.
    public func frame(in screen: Rect) -> Rect {
        let labels = buttonLabels
        let buttonsWidth = labels.reduce(0) { $0 + $1.displayWidth + 4 }
        let wanted = max(title.displayWidth + 6, min(60, max(message.displayWidth + 4, buttonsWidth + 2)))
        let width = min(screen.width, max(20, wanted))
        let lines = Dialog.wrap(message, width: max(1, width - 4))
        return screen.centered(Size(width: width, height: lines.count + 5))
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        let box = frame(in: area)
        guard !box.isEmpty else { return }
        let inner = Block(title: title).render(in: box, buffer: &buffer)
        guard !inner.isEmpty else { return }
        let style = Style(background: .surface)
        for (offset, line) in Dialog.wrap(message, width: max(1, inner.width - 2)).enumerated() where inner.y + 1 + offset < inner.maxY - 1 {
            buffer.write(line, x: inner.x + 1, y: inner.y + 1 + offset, maxWidth: inner.width - 2, style: style)
        }
        for (index, place) in buttonPlaces(inner: inner).enumerated() {
            let chosen = index == selected
            let buttonStyle = Style(foreground: buttons[index].role == .text ? .text : buttons[index].role,
                                    background: chosen ? .selection : .surface, attributes: chosen ? [.bold] : [])
            buffer.write(" \(buttonLabels[index]) ", x: place.x, y: place.y, maxWidth: place.width, style: buttonStyle)
        }
    }

    /// The button under `point` when the dialog is drawn in `area` (a mouse click), or nil.
    public func button(at point: Point, in area: Rect) -> Int? {
        let box = frame(in: area)
        guard box.width >= 2, box.height >= 2 else { return nil }
        return buttonPlaces(inner: box.inset(by: 1)).firstIndex { $0.contains(point) }
    }

    /// Where each button is drawn on the bottom line inside the border (cut at its right end).
    private func buttonPlaces(inner: Rect) -> [Rect] {
        guard !inner.isEmpty else { return [] }
        var places: [Rect] = []
        var x = inner.x + 1
        for label in buttonLabels {
            guard x < inner.maxX else { break }
            let width = min(label.displayWidth + 2, inner.maxX - x)
            places.append(Rect(x: x, y: inner.maxY - 1, width: width, height: 1))
            x += width + 2
        }
        return places
    }

    /// Wraps text at spaces to `width` cells (breaking words that are longer); a line break
    /// in the text starts a new line.
    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                let candidate = line.isEmpty ? String(word) : line + " " + word
                if candidate.displayWidth <= width {
                    line = candidate
                } else {
                    if !line.isEmpty { lines.append(line) }
                    // A word wider than the line breaks where it reaches the edge, in one pass.
                    line = ""
                    var used = 0
                    for character in word {
                        let cells = Glyph(character).width
                        if used + cells > width, !line.isEmpty {
                            lines.append(line)
                            line = ""
                            used = 0
                        }
                        line.append(character)
                        used += cells
                    }
                }
            }
            lines.append(line)
        }
        return lines
    }
}
