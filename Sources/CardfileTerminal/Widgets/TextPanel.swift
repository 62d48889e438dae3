/// Lines of text in a titled box over the screen (a report, a command's help), wrapped to
/// the box and scrolled by the caller (`scroll` is the first wrapped line shown; it is held
/// in range when drawn).
public struct TextPanel: Widget, Sendable {
    public var title: String
    public var lines: [String]
    public var scroll: Int

    public init(title: String, lines: [String], scroll: Int = 0) {
        self.title = title
        self.lines = lines
        self.scroll = scroll
    }

    /// The box: as wide as the longest line allows (up to the area less a margin), as tall as
    /// the wrapped text (up to the area).
    public func frame(in area: Rect) -> Rect {
        let widest = lines.map(\.displayWidth).max() ?? 0
        let width = min(max(widest, title.displayWidth + 2) + 4, max(0, area.width - 2))
        let height = min(wrapped(width: max(1, width - 4)).count + 2, area.height)
        return area.centered(Size(width: width, height: height))
    }

    /// The text as the box shows it, one entry per screen line.
    public func wrapped(width: Int) -> [String] {
        lines.flatMap { $0.isEmpty ? [""] : Dialog.wrap($0, width: max(1, width)) }
    }

    /// The largest useful ``scroll`` for `area`.
    public func maximumScroll(in area: Rect) -> Int {
        let box = frame(in: area)
        return max(0, wrapped(width: max(1, box.width - 4)).count - max(0, box.height - 2))
    }

    public func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)   // nothing is drawn outside the buffer
        let box = frame(in: area)
        let inner = Block(title: title).render(in: box, buffer: &buffer)
        guard !inner.isEmpty else { return }
        let text = wrapped(width: max(1, inner.width - 2))
        let first = min(max(0, scroll), max(0, text.count - inner.height))
        let style = Style(foreground: .text, background: .surface)
        for (offset, line) in text.dropFirst(first).prefix(inner.height).enumerated() {
            buffer.write(line, x: inner.x + 1, y: inner.y + offset, maxWidth: max(0, inner.width - 2), style: style)
        }
        if first + inner.height < text.count, inner.width > 2 {
            buffer.write("↓ more", x: inner.maxX - 7, y: inner.maxY - 1, maxWidth: 6, style: Style(foreground: .muted, background: .surface))
        }
    }
}
