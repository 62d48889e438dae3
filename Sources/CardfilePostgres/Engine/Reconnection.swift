/// Whether the server answers, and when to try connecting again after it did not.
///
/// After a failed connection (or a lost one), a new connection is tried at once the first
/// time, then no sooner than a wait that doubles from ``firstWait`` up to ``longestWait``: a
/// list polling many times a second, or a form retrying its save, asks the server at that pace
/// at most, and is answered "unreachable" at once in between instead of waiting on a connect.
/// The first connection that works ends the outage.
struct Reconnection: Sendable {
    static let firstWait: Duration = .milliseconds(250)
    static let longestWait: Duration = .seconds(4)

    /// Why the server was last found unreachable; nil while it answers.
    private(set) var reason: String?
    /// No connection is tried before this.
    private var notBefore: ContinuousClock.Instant?
    private var wait: Duration = .zero

    var isUnreachable: Bool { reason != nil }

    /// True when a connection may be tried at `now`.
    func mayTry(at now: ContinuousClock.Instant) -> Bool {
        notBefore.map { now >= $0 } ?? true
    }

    /// The server did not answer, or a connection to it ended, at `now`.
    mutating func failed(_ why: String, at now: ContinuousClock.Instant) {
        reason = why
        notBefore = now + wait
        wait = wait == .zero ? Self.firstWait : min(wait * 2, Self.longestWait)
    }

    /// A connection was made (or a statement answered): the server is back.
    mutating func answered() {
        reason = nil
        notBefore = nil
        wait = .zero
    }
}
