/// The text and cursor of a multi-line text area (long notes), by grapheme cluster.
///
/// Keys: the arrows (↑/↓ by displayed line), Home/End and Ctrl-A/Ctrl-E (start and end of the
/// line, between line breaks), Ctrl-K/Ctrl-U (delete to its end or start), PgUp/PgDn, Enter
/// (new line), Backspace/Delete.
public struct TextAreaState: Hashable, Sendable {
    public private(set) var characters: [Character]
    public private(set) var cursor: Int
    /// First displayed (wrapped) line shown, kept up to date by drawing.
    public var scroll: Int = 0 {
        didSet { scroll = Swift.max(0, scroll) }
    }
    /// The width the text was last wrapped to, for ↑/↓.
    var wrapWidth: Int = 80

    public init(text: String = "") {
        characters = Array(text)
        cursor = 0
    }

    public var text: String { String(characters) }

    /// Puts the cursor before character `index` (clamped to the text).
    public mutating func moveCursor(to index: Int) {
        cursor = min(max(0, index), characters.count)
    }

    /// True when the cursor is on the first displayed line (as last wrapped).
    public var isCursorOnFirstLine: Bool { location(width: wrapWidth).line == 0 }

    /// True when the cursor is on the last displayed line (as last wrapped).
    public var isCursorOnLastLine: Bool { location(width: wrapWidth).line == lines(width: wrapWidth).count - 1 }

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
        // Terminals send pasted line breaks as CR: store them as LF.
        let clean = Array(text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n"))
        characters.insert(contentsOf: clean, at: cursor)
        cursor += clean.count
    }

    @discardableResult
    public mutating func handle(_ event: KeyEvent, pageHeight: Int = 10) -> Bool {
        let all = lines(width: wrapWidth)
        let here = location(width: wrapWidth)
        func moveToLine(_ target: Int) {
            let line = min(max(0, target), all.count - 1)
            var end = all[line].upperBound
            // The end of a soft-wrapped line is the start of the next: stay on this one.
            if line + 1 < all.count, all[line + 1].lowerBound == end, end > all[line].lowerBound { end -= 1 }
            cursor = min(all[line].lowerBound + here.offset, end)
        }
        // The logical line (between line breaks) around the cursor.
        var lineStart = cursor
        while lineStart > 0, !characters[lineStart - 1].isNewline { lineStart -= 1 }
        var lineEnd = cursor
        while lineEnd < characters.count, !characters[lineEnd].isNewline { lineEnd += 1 }
        if let direction = WordMotion.direction(of: event) {
            cursor = WordMotion.move(direction, in: characters, from: cursor)
            return true
        }
        switch (event.key, event.modifiers.contains(.control)) {
        case (.left, _): cursor = max(0, cursor - 1)
        case (.right, _): cursor = min(characters.count, cursor + 1)
        case (.up, _): moveToLine(here.line - 1)
        case (.down, _): moveToLine(here.line + 1)
        case (.pageUp, _): moveToLine(here.line - min(max(1, pageHeight), all.count))
        case (.pageDown, _): moveToLine(here.line + min(max(1, pageHeight), all.count))
        case (.home, _), (.character("a"), true): cursor = lineStart
        case (.end, _), (.character("e"), true): cursor = lineEnd
        case (.character("k"), true):
            // Kill to the end of the line, or the line break itself at its end.
            if lineEnd > cursor { characters.removeSubrange(cursor..<lineEnd) } else if cursor < characters.count { characters.remove(at: cursor) }
        case (.character("u"), true):
            characters.removeSubrange(lineStart..<cursor)
            cursor = lineStart
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
    /// A character to draw in ``markStyle`` (where an error was found); nil marks none. At the
    /// end of the text, the cell after it is marked.
    public var mark: Int?
    public var markStyle: Style

    public init(style: Style = Style(background: .surface), mark: Int? = nil,
                markStyle: Style = Style(foreground: .error, attributes: [.reverse, .bold])) {
        self.style = style
        self.mark = mark
        self.markStyle = markStyle
    }

    public func render(in area: Rect, buffer: inout Buffer, state: inout TextAreaState) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        buffer.fill(area, style: style)
        state.wrapWidth = area.width
        let lines = state.lines(width: area.width)
        let line = state.location(width: area.width).line
        if line < state.scroll { state.scroll = line }
        if line - state.scroll >= area.height { state.scroll = line - area.height + 1 }
        state.scroll = min(state.scroll, max(0, lines.count - 1))
        for (offset, range) in lines.dropFirst(state.scroll).prefix(area.height).enumerated() {
            buffer.write(String(state.characters[range]), x: area.x, y: area.y + offset, maxWidth: area.width, style: style, overflow: .clip)
            guard let mark, mark >= range.lowerBound,
                  mark < range.upperBound || mark == range.upperBound && (mark == state.characters.count || state.characters[mark].isNewline) else { continue }
            let x = state.characters[range.lowerBound..<mark].reduce(0) { $0 + Glyph($1).width }
            guard x < area.width else { continue }
            let shown = mark < state.characters.count && !state.characters[mark].isNewline ? String(state.characters[mark]) : " "
            buffer.write(shown, x: area.x + x, y: area.y + offset, maxWidth: area.width - x, style: markStyle, overflow: .clip)
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
        return Point(x: area.x.saturatingAdd(min(column, area.width - 1)), y: area.y.saturatingAdd(y))
    }
}
