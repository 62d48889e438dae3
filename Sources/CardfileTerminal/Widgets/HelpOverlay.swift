/// The help screen: every binding of a key map, by section, in a centred box. Scrolls when the
/// screen is too small (`scroll` is the first line shown).
public struct HelpOverlay: Widget {
    public var title: String
    public var entries: [(section: String, keys: String, help: String)]
    public var scroll: Int

    public init<Action>(title: String = "Keys", keyMap: KeyMap<Action>, scroll: Int = 0) {
        self.title = title
        self.entries = keyMap.helpEntries
        self.scroll = scroll
    }

    /// The lines of the help text: section headings, then "keys  help".
    var lines: [(text: String, keys: String, isHeading: Bool)] {
        var lines: [(String, String, Bool)] = []
        var section: String?
        for entry in entries {
            if entry.section != section, !entry.section.isEmpty {
                if section != nil { lines.append(("", "", false)) }
                lines.append((entry.section, "", true))
            }
            section = entry.section
            lines.append((entry.help, entry.keys, false))
        }
        return lines
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        let lines = self.lines
        let keysWidth = min(24, (lines.map { $0.keys.displayWidth }.max() ?? 0))
        let textWidth = lines.map { $0.text.displayWidth }.max() ?? 0
        let box = area.centered(Size(width: keysWidth + textWidth + 7, height: lines.count + 2))
        let inner = Block(title: title).render(in: box, buffer: &buffer)
        guard !inner.isEmpty else { return }
        let surface = Style(background: .surface)
        for (offset, line) in lines.dropFirst(max(0, scroll)).prefix(inner.height).enumerated() {
            let y = inner.y + offset
            if line.isHeading {
                buffer.write(line.text, x: inner.x + 1, y: y, maxWidth: inner.width - 1, style: surface.with(foreground: .accent).adding(.bold))
            } else {
                buffer.write(line.keys, x: inner.x + 1, y: y, maxWidth: min(keysWidth, inner.width - 1), style: surface.adding(.bold))
                let x = inner.x + 1 + keysWidth + 2
                if x < inner.maxX {
                    buffer.write(line.text, x: x, y: y, maxWidth: inner.maxX - x, style: surface.with(foreground: .text))
                }
            }
        }
    }
}
