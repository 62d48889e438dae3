/// Where frames are shown and events come from: a real terminal, or a headless stand-in for
/// tests. Only the UI loop's thread calls a backend, except ``wake()``.
public protocol Backend: AnyObject {
    /// The screen size in cells.
    var size: Size { get }

    /// Shows `frame`, writing only the cells that differ from the previous frame, in one
    /// flush; places the cursor at `cursor` (hidden when nil).
    func draw(_ frame: Buffer, cursor: Point?) throws

    /// Makes the next ``draw(_:cursor:)`` repaint every cell (Ctrl-L).
    func invalidate()

    /// The next event, waiting at most `timeout` (forever when nil). Returns nil when the wait
    /// ended without an event: the timeout passed, or ``wake()`` was called.
    func nextEvent(timeout: Duration?) throws -> Event?

    /// Ends a pending ``nextEvent(timeout:)`` early. Safe from any thread: background work calls
    /// it after posting a message for the loop.
    func wake()

    /// Gives the terminal back to the shell until the program is resumed (Ctrl-Z).
    func suspend() throws

    /// Hands the terminal to `body` (a program that takes it over, such as `$EDITOR`), then
    /// takes it back and repaints. The terminal is as it was before the program started
    /// while `body` runs.
    func handOver(_ body: () -> Void) throws

    /// Writes a control sequence straight to the terminal, outside any frame (OSC 52 for the
    /// clipboard). The caller makes it safe: nothing in it may come raw from data.
    func writeControl(_ sequence: String)

    /// Restores the terminal as it was before the program started. Safe to call twice.
    func shutdown()
}
