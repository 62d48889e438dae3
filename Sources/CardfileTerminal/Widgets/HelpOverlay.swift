/// The help screen: every binding of a key map (and any further entries, such as commands),
/// by section, in a centred box. Descriptions are wrapped, never cut: a narrow box puts each
/// entry's keys on a line of their own with the description under them. It scrolls when the
/// screen is too small (`scroll` is the first line shown; it is held in range when drawn).
public struct HelpOverlay: Widget {
    public typealias Entry = (section: String, keys: String, help: String)

    public var title: String
    public var entries: [Entry]
    public var scroll: Int

    /// The help of `keyMap`'s bindings, then `more` (for instance the `:` commands).
    public init<Action>(title: String = "Keys", keyMap: KeyMap<Action>, more: [Entry] = [], scroll: Int = 0) {
        self.title = title
        self.entries = keyMap.helpEntries + more
        self.scroll = scroll
    }

    /// One screen line of the help.
    struct Line: Equatable {
        var keys = ""
        var text = ""
        var isHeading = false
        /// The description starts this many cells in (stacked entries indent it).
        var indent = 0
    }

    /// The widest the keys column gets; longer keys wrap within it.
    static let keysColumn = 24
    /// Below this many cells for descriptions (fewer when no description needs them), keys and
    /// description are stacked.
    static let narrowestText = 16

    /// The box the help takes in `area`.
    public func frame(in area: Rect) -> Rect { layout(in: area).box }

    /// The box in `area` and the lines wrapped to it, worked out once for each use.
    private func layout(in area: Rect) -> (box: Rect, lines: [Line]) {
        let keysWidth = min(Self.keysColumn, entries.map(\.keys.displayWidth).max() ?? 0)
        let textWidth = max(entries.map(\.help.displayWidth).max() ?? 0, entries.map(\.section.displayWidth).max() ?? 0)
        let width = min(area.width, max(keysWidth + textWidth + 7, title.displayWidth + 4))
        let lines = self.lines(width: max(1, width - 4))
        return (area.centered(Size(width: width, height: min(area.height, lines.count + 2))), lines)
    }

    /// The help as the box shows it, `width` cells wide (the box less its borders and margins).
    func lines(width: Int) -> [Line] {
        let keysWidth = min(Self.keysColumn, entries.map(\.keys.displayWidth).max() ?? 0, max(1, width / 2))
        let textWidth = entries.map(\.help.displayWidth).max() ?? 0
        let stacked = width - keysWidth - 2 < min(Self.narrowestText, textWidth)
        var lines: [Line] = []
        var section: String?
        for entry in entries {
            if entry.section != section, !entry.section.isEmpty {
                if section != nil { lines.append(Line()) }
                lines += Dialog.wrap(entry.section, width: max(1, width)).map { Line(text: $0, isHeading: true) }
            }
            section = entry.section
            if stacked {
                let indent = width > 8 ? 2 : 0
                lines += Dialog.wrap(entry.keys, width: max(1, width)).map { Line(keys: $0) }
                lines += Dialog.wrap(entry.help, width: max(1, width - indent)).map { Line(text: $0, indent: indent) }
            } else {
                let keys = Dialog.wrap(entry.keys, width: max(1, keysWidth))
                let text = Dialog.wrap(entry.help, width: max(1, width - keysWidth - 2))
                for index in 0..<max(keys.count, text.count) {
                    lines.append(Line(keys: index < keys.count ? keys[index] : "", text: index < text.count ? text[index] : "",
                                      indent: keysWidth + 2))
                }
            }
        }
        return lines
    }

    /// The largest useful ``scroll`` in `area`.
    public func maximumScroll(in area: Rect) -> Int {
        let (box, lines) = layout(in: area)
        return max(0, lines.count - max(0, box.height - 2))
    }

    /// The line (for ``scroll``) where `section` begins in `area`, nil when there is none.
    public func firstLine(of section: String, in area: Rect) -> Int? {
        let (box, lines) = layout(in: area)
        let heading = Dialog.wrap(section, width: max(1, box.width - 4)).first
        return lines.firstIndex { $0.isHeading && $0.text == heading }
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        guard !area.isEmpty else { return }
        let (box, lines) = layout(in: area)
        let shown = max(0, box.height - 2)
        let first = min(max(0, scroll), max(0, lines.count - shown))
        var title = self.title
        if lines.count > shown, shown > 0 {
            // Where the view is, even when the title must give way to say it.
            let position = "\(first + 1)–\(first + shown) of \(lines.count)"
            title = (title + " (\(position))").displayWidth + 6 <= box.width ? title + " (\(position))" : "Help \(position)"
        }
        let inner = Block(title: title).render(in: box, buffer: &buffer)
        guard !inner.isEmpty else { return }
        let surface = Style(background: .surface)
        let width = max(0, inner.width - 2)
        for (offset, line) in lines.dropFirst(first).prefix(inner.height).enumerated() {
            let y = inner.y + offset
            let x = inner.x + 1
            if line.isHeading {
                buffer.write(line.text, x: x, y: y, maxWidth: width, style: surface.with(foreground: .accent).adding(.bold))
                continue
            }
            if !line.keys.isEmpty { buffer.write(line.keys, x: x, y: y, maxWidth: width, style: surface.adding(.bold)) }
            if !line.text.isEmpty, line.indent < width {
                buffer.write(line.text, x: x + line.indent, y: y, maxWidth: width - line.indent, style: surface.with(foreground: .text))
            }
        }
    }
}
