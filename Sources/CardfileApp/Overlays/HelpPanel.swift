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

    /// Scrolls by `lines` (negative: up), within the first line and `limit`.
    mutating func scroll(by lines: Int, limit: Int) {
        scroll = min(max(0, limit), max(0, scroll + lines))
    }

    /// Scrolls to `line` (`:help` starts at the commands).
    mutating func scroll(to line: Int) {
        scroll = max(0, line)
    }
}
