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

    /// Restores the terminal as it was before the program started. Safe to call twice.
    func shutdown()
}
