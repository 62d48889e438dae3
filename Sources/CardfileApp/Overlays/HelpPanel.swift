/// The help: the keys of the screen, of the overlay it was opened over, and of the prompts and
/// dialogs the screen can open. Esc (or F1) goes back to what it covered.
struct HelpPanel {
    /// The first line shown.
    private(set) var scroll = 0
    /// The overlay the help was opened over, shown again when it closes.
    var over: Overlay?

    init(over: Overlay? = nil) {
        self.over = over
    }

    /// Scrolls by `lines` (negative: up), never above the first line.
    mutating func scroll(by lines: Int) {
        scroll = max(0, scroll + lines)
    }
}
