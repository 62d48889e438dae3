/// How a list hears of what other connections commit to its table, for the status bar
/// (``Container/liveRefresh(of:)``).
public enum LiveRefresh: Sendable, Equatable {
    /// Each commit is announced by the server as it happens (on PostgreSQL, the triggers of
    /// `cardfile pg-setup`).
    case announced
    /// Nothing announces commits: the table is read again now and then (about every second)
    /// when the server shows that something was written.
    case polled
    /// The server cannot be reached: nothing is heard, and nothing can be saved, until it
    /// answers again (connections are tried again, waiting longer after each failure).
    case unreachable
}
