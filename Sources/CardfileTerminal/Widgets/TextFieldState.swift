/// The text and cursor of a one-line field, edited by grapheme cluster (an emoji, a flag or a
/// letter with accents moves and deletes as one).
///
/// Keys: ←/→ by character, Home/End and Ctrl-A/Ctrl-E to the ends, Alt-B/Alt-F and Ctrl-←/Ctrl-→ by word,
/// Backspace/Delete, Ctrl-K (delete to the end), Ctrl-U (delete to the start), Ctrl-W (delete
/// the previous word).
///
/// The text is kept as a `String` with the cursor's place in it, and the character count and
/// cursor are kept up to date edit by edit: a key costs the same in a field of a megabyte as
/// in a short one (as an array of characters, a 1 MB field took 16 MB, and 130–200 ms a key
/// to copy and join it again: the benchmark's `field` section).
public struct TextFieldState: Hashable, Sendable {
    /// The text.
    public private(set) var text: String
    /// How many characters (grapheme clusters) the text holds.
    public private(set) var count: Int
    /// The cursor, as a character index (0 is before the first).
    public private(set) var cursor: Int
    /// The cursor's place as a UTF-8 offset into ``text``: always between two characters.
    private var cursorUTF8: Int
    /// The first character shown, and its UTF-8 offset (kept by drawing).
    private var scrollCharacters = 0
    private var scrollUTF8 = 0

    public init(text: String = "") {
        self.text = text
        count = text.count
        cursor = count
        cursorUTF8 = text.utf8.count
    }

    /// The first character shown (scrolling), kept up to date by drawing; set, it is held to
    /// the text.
    public var scroll: Int {
        get { scrollCharacters }
        set {
            scrollCharacters = Swift.min(Swift.max(0, newValue), count)
            scrollUTF8 = offset(text.index(text.startIndex, offsetBy: scrollCharacters))
        }
    }

    // MARK: - Places

    private func index(_ utf8: Int) -> String.Index { text.utf8.index(text.utf8.startIndex, offsetBy: utf8) }
    private func offset(_ index: String.Index) -> Int { text.utf8.distance(from: text.utf8.startIndex, to: index) }
    private var cursorIndex: String.Index { index(cursorUTF8) }

    /// Moves the cursor to character `index` (held to the text). It walks from where the
    /// cursor is, so a step costs a step however long the text.
    public mutating func moveCursor(to target: Int) {
        let target = Swift.min(Swift.max(0, target), count)
        if target == cursor { return }
        let from: String.Index
        let distance: Int
        switch target {
        case 0: (from, distance) = (text.startIndex, 0)
        case count: (from, distance) = (text.endIndex, 0)
        case _ where target < cursor / 2: (from, distance) = (text.startIndex, target)
        case _ where target > cursor + (count - cursor) / 2: (from, distance) = (text.endIndex, target - count)
        default: (from, distance) = (cursorIndex, target - cursor)
        }
        cursorUTF8 = offset(text.index(from, offsetBy: distance))
        cursor = target
    }

    // MARK: - Editing

    /// Inserts text at the cursor, which goes after it. Line breaks become spaces (the field
    /// is one line).
    public mutating func insert(_ typed: String) {
        let clean = typed.contains(where: \.isNewline) ? String(typed.map { $0.isNewline ? " " : $0 }) : typed
        replace(utf8: cursorUTF8..<cursorUTF8, characters: 0, startingAtCharacter: cursor, with: clean, cursorAfterInsert: true)
    }

    /// Replaces the UTF-8 range `range` (from character `start`, `removed` characters long)
    /// with `new`, keeping the count and cursor right where characters join across the edit
    /// (a combining mark typed after a letter, half a flag next to the other half): only the
    /// characters around the edit are counted again.
    private mutating func replace(utf8 range: Range<Int>, characters removed: Int, startingAtCharacter start: Int, with new: String, cursorAfterInsert: Bool) {
        // The window: the character before the edit (and any flags before it, which pair from
        // the start of their run) to the two characters after it (and any flags after those,
        // which pair anew).
        var windowStart = index(range.lowerBound)
        var before = 0
        if windowStart > text.startIndex {
            windowStart = text.index(before: windowStart)
            before = 1
            while windowStart > text.startIndex, Self.isFlagHalf(text[windowStart]) {
                let previous = text.index(before: windowStart)
                guard Self.isFlagHalf(text[previous]) else { break }
                windowStart = previous
                before += 1
            }
        }
        var windowEnd = index(range.upperBound)
        var after = 0
        // Two characters after it: a joiner that stood alone can join what follows it.
        while windowEnd < text.endIndex, after < 2 {
            windowEnd = text.index(after: windowEnd)
            after += 1
        }
        if after > 0 {
            // Flags after it pair anew too.
            while windowEnd < text.endIndex, Self.isFlagHalf(text[windowEnd]) {
                windowEnd = text.index(after: windowEnd)
                after += 1
            }
        }
        let windowStartUTF8 = offset(windowStart)
        let windowEndUTF8 = offset(windowEnd) - range.count + new.utf8.count
        text.replaceSubrange(index(range.lowerBound)..<index(range.upperBound), with: new)
        // (The text before the window is as it was: a scroll there still stands.)
        if scrollUTF8 > windowStartUTF8 { (scrollCharacters, scrollUTF8) = (0, 0) }
        // Count the window again, and find the cursor's place in it: after the inserted text,
        // or where the removed text was, moved to the end of a character it now falls inside.
        let anchor = range.lowerBound + (cursorAfterInsert ? new.utf8.count : 0)
        var characters = 0
        var cursorCharacters: Int?
        var cursorPlace = windowStartUTF8
        var place = index(windowStartUTF8)
        let end = index(windowEndUTF8)
        if offset(place) >= anchor { cursorCharacters = 0 }
        while place < end {
            place = text.index(after: place)
            characters += 1
            if cursorCharacters == nil, offset(place) >= anchor {
                cursorCharacters = characters
                cursorPlace = offset(place)
            }
        }
        count += characters - (before + removed + after)
        cursor = start - before + (cursorCharacters ?? characters)
        cursorUTF8 = cursorCharacters == nil ? offset(end) : (cursorCharacters == 0 ? windowStartUTF8 : cursorPlace)
    }

    /// A regional indicator: two of them make one flag.
    private static func isFlagHalf(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { (0x1F1E6...0x1F1FF).contains($0.value) }
    }

    /// Deletes the characters from character `from` to `to` (`from` ≤ `to`); the cursor goes
    /// where they were.
    private mutating func delete(from: Int, to: Int, fromUTF8: Int, toUTF8: Int) {
        guard from < to else { return }
        replace(utf8: fromUTF8..<toUTF8, characters: to - from, startingAtCharacter: from, with: "", cursorAfterInsert: false)
    }

    /// Applies an editing key; returns false for keys a field does not handle.
    @discardableResult
    public mutating func handle(_ event: KeyEvent) -> Bool {
        let control = event.modifiers.contains(.control)
        let alt = event.modifiers.contains(.alt)
        if let direction = WordMotion.direction(of: event) {
            let (place, moved) = direction == .backward
                ? WordMotion.previousStart(in: text, from: cursorIndex)
                : WordMotion.nextEnd(in: text, from: cursorIndex)
            cursorUTF8 = offset(place)
            cursor += direction == .backward ? -moved : moved
            return true
        }
        switch event.key {
        case .left:
            guard cursor > 0 else { return true }
            cursorUTF8 = offset(text.index(before: cursorIndex))
            cursor -= 1
        case .right:
            guard cursor < count else { return true }
            cursorUTF8 = offset(text.index(after: cursorIndex))
            cursor += 1
        case .home: moveCursor(to: 0)
        case .end: moveCursor(to: count)
        case .backspace:
            guard cursor > 0 else { return true }
            delete(from: cursor - 1, to: cursor, fromUTF8: offset(text.index(before: cursorIndex)), toUTF8: cursorUTF8)
        case .delete:
            guard cursor < count else { return true }
            delete(from: cursor, to: cursor + 1, fromUTF8: cursorUTF8, toUTF8: offset(text.index(after: cursorIndex)))
        case .character(let character) where control:
            switch character {
            case "a": moveCursor(to: 0)
            case "e": moveCursor(to: count)
            case "k": delete(from: cursor, to: count, fromUTF8: cursorUTF8, toUTF8: text.utf8.count)
            case "u": delete(from: 0, to: cursor, fromUTF8: 0, toUTF8: cursorUTF8)
            case "w":
                var start = cursorIndex
                var moved = 0
                while start > text.startIndex, text[text.index(before: start)].isWhitespace {
                    start = text.index(before: start)
                    moved += 1
                }
                while start > text.startIndex, !text[text.index(before: start)].isWhitespace {
                    start = text.index(before: start)
                    moved += 1
                }
                delete(from: cursor - moved, to: cursor, fromUTF8: offset(start), toUTF8: cursorUTF8)
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

    // MARK: - Layout

    /// The cells a character takes.
    private static func cells(_ character: Character) -> Int { Glyph(character).width }

    /// Lays out the text from UTF-8 offset `start` in `rows` rows of `width` cells (a
    /// character that does not fit at the end of a row starts the next), stopping after the
    /// rows are full. Returns each row's UTF-8 range, and where the cursor falls (nil when
    /// beyond the rows); `end` is true when the whole rest of the text was laid out.
    func layout(from start: Int, width: Int, rows: Int) -> (rows: [Range<Int>], cursor: (x: Int, y: Int)?, end: Bool) {
        var lines: [Range<Int>] = []
        var place = index(start)
        var lineStart = start
        var x = 0
        var cursorAt: (x: Int, y: Int)?
        while lines.count < rows {
            let here = offset(place)
            if here == cursorUTF8 {
                // The cursor needs a cell of its own.
                if x >= width {
                    lines.append(lineStart..<here)
                    lineStart = here
                    x = 0
                    if lines.count >= rows { break }
                }
                cursorAt = (x, lines.count)
            }
            guard place < text.endIndex else {
                lines.append(lineStart..<here)
                return (lines, cursorAt, true)
            }
            let cells = Self.cells(text[place])
            if x + cells > width, x > 0 {
                lines.append(lineStart..<here)
                lineStart = here
                x = 0
                continue
            }
            x += cells
            place = text.index(after: place)
        }
        return (lines, cursorAt, false)
    }

    /// Adjusts the scroll so the cursor shows in `rows` rows of `width` cells; returns the
    /// cursor's cell (column, row) from the field's top left. Every walk stops once it has
    /// measured the rows, so a field holding a whole book costs no more than a short one.
    mutating func fit(width: Int, rows: Int = 1) -> (x: Int, y: Int) {
        guard width > 0, rows > 0 else { return (0, 0) }
        if scrollCharacters > cursor { (scrollCharacters, scrollUTF8) = (cursor, cursorUTF8) }
        // Not showing the cursor: start again from a little before it.
        if layout(from: scrollUTF8, width: width, rows: rows).cursor == nil {
            var start = cursorIndex
            var characters = cursor
            var used = 1
            while start > text.startIndex {
                let previous = text.index(before: start)
                let cells = Self.cells(text[previous])
                if used + cells > width * rows - (rows - 1) { break }    // a row's end may go unused
                used += cells
                start = previous
                characters -= 1
            }
            (scrollCharacters, scrollUTF8) = (characters, offset(start))
            while layout(from: scrollUTF8, width: width, rows: rows).cursor == nil, scrollCharacters < cursor {
                scrollUTF8 = offset(text.index(after: index(scrollUTF8)))
                scrollCharacters += 1
            }
        }
        // Scroll back while the text from an earlier character to the end still fits (the
        // field grew wider, or text was deleted).
        while scrollCharacters > 0, layout(from: scrollUTF8, width: width, rows: rows).end {
            let previous = offset(text.index(before: index(scrollUTF8)))
            let candidate = layout(from: previous, width: width, rows: rows)
            guard candidate.end, candidate.cursor != nil else { break }
            (scrollCharacters, scrollUTF8) = (scrollCharacters - 1, previous)
        }
        return layout(from: scrollUTF8, width: width, rows: rows).cursor ?? (0, 0)
    }

    /// True when `text` and the cursor after it fit one row of `width` cells whatever the text
    /// holds: a scalar takes at least a byte and at most two cells. (Most fields: no walk.)
    private static func surelyFits(_ text: String, width: Int) -> Bool { text.utf8.count * 2 + 1 <= width }

    /// The rows drawn in `rows` rows of `width` cells from the scroll, as text.
    func visibleRows(width: Int, rows: Int) -> [String] {
        layout(from: scrollUTF8, width: width, rows: rows).rows.map { String(text[index($0.lowerBound)..<index($0.upperBound)]) }
    }

    /// True when the whole text fits in `rows` rows of `width` cells with the cursor at its end.
    public func fits(width: Int, rows: Int) -> Bool {
        guard width > 0, rows > 0 else { return text.isEmpty }
        if Self.surelyFits(text, width: width) { return true }
        var copy = self
        copy.cursorUTF8 = text.utf8.count
        copy.cursor = count
        let laid = copy.layout(from: 0, width: width, rows: rows)
        return laid.end && laid.cursor != nil
    }

    /// The rows the whole text needs at `width` cells, counted up to `limit` (the walk stops
    /// there; more is `limit + 1`). No cell is kept for the cursor: a text that fills its last
    /// row exactly takes no row more (typing at its end scrolls by a row).
    public func rowsNeeded(width: Int, limit: Int) -> Int {
        guard width > 0 else { return 1 }
        if Self.surelyFits(text, width: width) { return 1 }
        var copy = self
        copy.cursorUTF8 = -1
        let laid = copy.layout(from: 0, width: width, rows: limit)
        return laid.end ? max(1, laid.rows.count) : limit + 1
    }
}

/// A text field. Draw it with its state; ``cursor(in:state:)`` tells where the terminal
/// cursor goes. A field of one row scrolls sideways; a taller one wraps the text over its
/// rows (by character) and scrolls by row.
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
        buffer.fill(area, style: style)
        _ = state.fit(width: area.width, rows: area.height)
        if state.text.isEmpty, let placeholder {
            buffer.write(placeholder, x: area.x, y: area.y, maxWidth: area.width, style: style.with(foreground: .muted))
            return
        }
        let rows = state.visibleRows(width: area.width, rows: area.height)
        for (row, text) in rows.enumerated() {
            buffer.write(text, x: area.x, y: area.y + row, maxWidth: area.width, style: style, overflow: .clip)
        }
        if let mark, area.height == 1, mark >= state.scroll, mark <= state.count {
            // Cells up to the mark; the walk stops at the field's edge.
            var x = area.x
            var characters = Array(rows.first ?? "")
            if mark - state.scroll >= characters.count { characters += [" "] }
            var index = 0
            while index < mark - state.scroll, index < characters.count, x < area.maxX {
                x += Glyph(characters[index]).width
                index += 1
            }
            let cells = index < characters.count ? max(1, Glyph(characters[index]).width) : 1
            if index == mark - state.scroll, x + cells <= area.maxX {
                buffer.restyle(Rect(x: x, y: area.y, width: cells, height: 1)) { _ in markStyle }
            }
        }
    }

    /// The screen position of the cursor for a field drawn in `area`.
    public func cursor(in area: Rect, state: inout TextFieldState) -> Point? {
        guard !area.isEmpty else { return nil }
        let (x, y) = state.fit(width: area.width, rows: area.height)
        return Point(x: area.x.saturatingAdd(min(area.width - 1, x)), y: area.y.saturatingAdd(min(area.height - 1, y)))
    }
}
