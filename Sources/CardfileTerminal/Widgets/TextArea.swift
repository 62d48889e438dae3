/// The text and cursor of a multi-line text area (long notes), by grapheme cluster.
///
/// Keys: the arrows (↑/↓ by displayed line), Home/End (start and end of the line), PgUp/PgDn,
/// Enter (new line), Backspace/Delete, and the one-line field's Ctrl-A/E/K/U.
public struct TextAreaState: Hashable, Sendable {
    public private(set) var characters: [Character]
    public private(set) var cursor: Int
    /// First displayed (wrapped) line shown, kept up to date by drawing.
    public var scroll: Int = 0
    /// The width the text was last wrapped to, for ↑/↓.
    var wrapWidth: Int = 80

    public init(text: String = "") {
        characters = Array(text)
        cursor = 0
    }

    public var text: String { String(characters) }

    /// Displayed lines as character ranges, wrapping at `width` cells and at line breaks.
    func lines(width: Int) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var start = 0
        var column = 0
        for (index, character) in characters.enumerated() {
            if character.isNewline {
                lines.append(start..<index)
                start = index + 1
                column = 0
                continue
            }
            let cells = Glyph(character).width
            if column + cells > max(1, width), index > start {
                lines.append(start..<index)
                start = index
                column = 0
            }
            column += cells
        }
        lines.append(start..<characters.count)
        return lines
    }

    /// The displayed line and column (in characters) of the cursor.
    func location(width: Int) -> (line: Int, offset: Int) {
        let all = lines(width: width)
        for (number, range) in all.enumerated() where cursor >= range.lowerBound && cursor <= range.upperBound {
            if cursor == range.upperBound, number + 1 < all.count, all[number + 1].lowerBound == cursor { continue }
            return (number, cursor - range.lowerBound)
        }
        return (all.count - 1, cursor - (all.last?.lowerBound ?? 0))
    }

    public mutating func insert(_ text: String) {
        let clean = Array(text.replacingOccurrences(of: "\r\n", with: "\n"))
        characters.insert(contentsOf: clean, at: cursor)
        cursor += clean.count
    }

    @discardableResult
    public mutating func handle(_ event: KeyEvent, pageHeight: Int = 10) -> Bool {
        let all = lines(width: wrapWidth)
        let here = location(width: wrapWidth)
        func moveToLine(_ target: Int) {
            let line = min(max(0, target), all.count - 1)
            cursor = min(all[line].lowerBound + here.offset, all[line].upperBound)
        }
        switch (event.key, event.modifiers.contains(.control)) {
        case (.left, _): cursor = max(0, cursor - 1)
        case (.right, _): cursor = min(characters.count, cursor + 1)
        case (.up, _): moveToLine(here.line - 1)
        case (.down, _): moveToLine(here.line + 1)
        case (.pageUp, _): moveToLine(here.line - pageHeight)
        case (.pageDown, _): moveToLine(here.line + pageHeight)
        case (.home, _), (.character("a"), true): cursor = all[here.line].lowerBound
        case (.end, _), (.character("e"), true): cursor = all[here.line].upperBound
        case (.character("k"), true):
            let end = all[here.line].upperBound
            if end > cursor { characters.removeSubrange(cursor..<end) } else if cursor < characters.count { characters.remove(at: cursor) }
        case (.character("u"), true):
            let start = all[here.line].lowerBound
            characters.removeSubrange(start..<cursor)
            cursor = start
        case (.enter, _): insert("\n")
        case (.backspace, _):
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case (.delete, _):
            guard cursor < characters.count else { return true }
            characters.remove(at: cursor)
        case (.character(let character), false) where !event.modifiers.contains(.alt):
            insert(String(character))
        default:
            return false
        }
        return true
    }
}

/// A multi-line text area with soft wrapping and vertical scrolling.
public struct TextArea: StatefulWidget {
    public var style: Style

    public init(style: Style = Style(background: .surface)) {
        self.style = style
    }

    public func render(in area: Rect, buffer: inout Buffer, state: inout TextAreaState) {
        guard !area.isEmpty else { return }
        buffer.fill(area, style: style)
        state.wrapWidth = area.width
        let lines = state.lines(width: area.width)
        let line = state.location(width: area.width).line
        if line < state.scroll { state.scroll = line }
        if line >= state.scroll + area.height { state.scroll = line - area.height + 1 }
        for (offset, range) in lines.dropFirst(state.scroll).prefix(area.height).enumerated() {
            buffer.write(String(state.characters[range]), x: area.x, y: area.y + offset, maxWidth: area.width, style: style, overflow: .clip)
        }
    }

    public func cursor(in area: Rect, state: inout TextAreaState) -> Point? {
        guard !area.isEmpty else { return nil }
        state.wrapWidth = area.width
        let (line, offset) = state.location(width: area.width)
        let lines = state.lines(width: area.width)
        let range = lines[line]
        let column = state.characters[range.lowerBound..<(range.lowerBound + offset)].reduce(0) { $0 + Glyph($1).width }
        let y = line - state.scroll
        guard y >= 0, y < area.height else { return nil }
        return Point(x: area.x + min(column, area.width - 1), y: area.y + y)
    }
}
