/// The text and cursor of a one-line field, edited by grapheme cluster (an emoji, a flag or a
/// letter with accents moves and deletes as one).
///
/// Keys: ←/→ by character, Home/End and Ctrl-A/Ctrl-E to the ends, Alt-B/Alt-F and Ctrl-←/Ctrl-→ by word,
/// Backspace/Delete, Ctrl-K (delete to the end), Ctrl-U (delete to the start), Ctrl-W (delete
/// the previous word).
public struct TextFieldState: Hashable, Sendable {
    public private(set) var characters: [Character]
    /// The cursor, as a character index (0 is before the first).
    public private(set) var cursor: Int
    /// The first character shown (horizontal scrolling), kept up to date by drawing.
    public var scroll: Int = 0 {
        didSet { scroll = Swift.min(Swift.max(0, scroll), characters.count) }
    }

    public init(text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    public var text: String {
        get { String(characters) }
        set {
            characters = Array(newValue)
            cursor = min(cursor, characters.count)
        }
    }

    public mutating func moveCursor(to index: Int) {
        cursor = min(max(0, index), characters.count)
    }

    /// Inserts text at the cursor. Line breaks become spaces (the field is one line).
    public mutating func insert(_ text: String) {
        let clean = text.map { $0.isNewline ? " " : $0 }
        characters.insert(contentsOf: clean, at: cursor)
        cursor += clean.count
    }

    /// Applies an editing key; returns false for keys a field does not handle.
    @discardableResult
    public mutating func handle(_ event: KeyEvent) -> Bool {
        let control = event.modifiers.contains(.control)
        let alt = event.modifiers.contains(.alt)
        if let direction = WordMotion.direction(of: event) {
            cursor = WordMotion.move(direction, in: characters, from: cursor)
            return true
        }
        switch event.key {
        case .left: moveCursor(to: cursor - 1)
        case .right: moveCursor(to: cursor + 1)
        case .home: cursor = 0
        case .end: cursor = characters.count
        case .backspace:
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .delete:
            guard cursor < characters.count else { return true }
            characters.remove(at: cursor)
        case .character(let character) where control:
            switch character {
            case "a": cursor = 0
            case "e": cursor = characters.count
            case "k": characters.removeSubrange(cursor...)
            case "u":
                characters.removeSubrange(..<cursor)
                cursor = 0
            case "w":
                var start = cursor
                while start > 0, characters[start - 1].isWhitespace { start -= 1 }
                while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
                characters.removeSubrange(start..<cursor)
                cursor = start
            default: return false
            }
        case .character where alt:
            return false
        case .character(let character):
            insert(String(character))
        default:
            return false
        }
        return true
    }

    /// Adjusts ``scroll`` so the cursor is visible in `width` cells; returns the cursor's
    /// column relative to the start of the field.
    mutating func fit(width: Int) -> Int {
        guard width > 0 else { return 0 }
        scroll = min(scroll, cursor)
        // Every walk below stops once it has measured `width` cells, so a field holding a
        // whole book costs no more than a short one.
        // The cursor needs one cell of its own: the first character that can be shown with it.
        var used = 1
        var start = cursor
        while start > 0 {
            let cells = Glyph(characters[start - 1]).width
            if used + cells > width { break }
            used += cells
            start -= 1
        }
        scroll = max(scroll, start)
        // Scroll back left while the text from there to its end fits (the field grew wider).
        var tail = 1
        var index = scroll
        while index < characters.count, tail <= width {
            tail += Glyph(characters[index]).width
            index += 1
        }
        if tail <= width {
            while scroll > 0 {
                let cells = Glyph(characters[scroll - 1]).width
                if tail + cells > width { break }
                tail += cells
                scroll -= 1
            }
        }
        return characters[scroll..<cursor].reduce(0) { $0 + Glyph($1).width }
    }
}

/// A one-line text field. Draw it with its state; ``cursor(in:state:)`` tells where the
/// terminal cursor goes.
public struct TextField: StatefulWidget {
    public var style: Style
    public var placeholder: String?
    /// A character index to draw in ``markStyle`` (where a problem was found); at the end of
    /// the text, the cell after it is marked. Nothing is marked when it is scrolled out of view.
    public var mark: Int?
    public var markStyle: Style

    public init(style: Style = Style(background: .surface), placeholder: String? = nil, mark: Int? = nil,
                markStyle: Style = Style(foreground: .error, attributes: [.reverse, .underline])) {
        self.style = style
        self.placeholder = placeholder
        self.mark = mark
        self.markStyle = markStyle
    }

    public func render(in area: Rect, buffer: inout Buffer, state: inout TextFieldState) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        buffer.fill(Rect(x: area.x, y: area.y, width: area.width, height: 1), style: style)
        _ = state.fit(width: area.width)
        if state.characters.isEmpty, let placeholder {
            buffer.write(placeholder, x: area.x, y: area.y, maxWidth: area.width, style: style.with(foreground: .muted))
            return
        }
        let visible = String(state.characters[state.scroll...])
        buffer.write(visible, x: area.x, y: area.y, maxWidth: area.width, style: style, overflow: .clip)
        if let mark, mark >= state.scroll, mark <= state.characters.count {
            // Cells up to the mark; the walk stops at the field's edge.
            var x = area.x
            var index = state.scroll
            while index < mark, x < area.maxX {
                x += Glyph(state.characters[index]).width
                index += 1
            }
            let cells = mark < state.characters.count ? max(1, Glyph(state.characters[mark]).width) : 1
            if x + cells <= area.maxX {
                buffer.restyle(Rect(x: x, y: area.y, width: cells, height: 1)) { _ in markStyle }
            }
        }
    }

    /// The screen position of the cursor for a field drawn in `area`.
    public func cursor(in area: Rect, state: inout TextFieldState) -> Point? {
        guard !area.isEmpty else { return nil }
        return Point(x: area.x.saturatingAdd(min(area.width - 1, state.fit(width: area.width))), y: area.y)
    }
}
