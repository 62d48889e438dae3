import CardfileTerminal

/// What reaches the app's ``CardfileApp/update(_:)``: terminal events and the results of
/// background work. Stale results carry the token of the request they answer and are dropped
/// when it is no longer current.
public enum Message: Sendable {
    /// A key, a paste, a mouse event, a resize or a request to end, from the backend.
    case event(Event)
    /// A table's row count, counted in the background for the tables screen.
    case rowCount(table: String, count: Int, token: Int)
    /// A background import's or export's progress or result.
    case transfer(TransferUpdate)
    /// What work sent off the loop found (see ``ErrandResult``).
    case errand(ErrandResult)
    /// The person's editor returned (``AppCommand/editExternally(_:)``).
    case externalEdit(ExternalEdit, ExternalEdit.Outcome)
}

/// What the app asks of the loop that runs it: things only the loop (which owns the
/// terminal) can do.
public enum AppCommand: Equatable, Sendable {
    /// Give the terminal back to the shell (Ctrl-Z).
    case suspend
    /// Repaint every cell (Ctrl-L).
    case redraw
    /// Show the screen in another theme.
    case setTheme(Theme)
    /// Hand the terminal to the person's editor for a field's text (Ctrl-O), then report
    /// back with ``Message/externalEdit(_:_:)``.
    case editExternally(ExternalEdit)
    /// Write a control sequence to the terminal (OSC 52: copy to the clipboard).
    case writeControl(String)
}
