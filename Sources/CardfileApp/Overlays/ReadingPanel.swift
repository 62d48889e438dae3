import CardfileTerminal

/// A text to read over the screen (a report, a command's options), scrolled by the arrows;
/// any other key closes it.
struct ReadingPanel {
    var panel: TextPanel

    init(_ panel: TextPanel) {
        self.panel = panel
    }

    /// Scrolls by `lines` (negative: up) within what `area` can show.
    mutating func scroll(by lines: Int, in area: Rect) {
        let limit = panel.maximumScroll(in: area)
        panel.scroll = min(limit, max(0, panel.scroll + lines))
    }
}
