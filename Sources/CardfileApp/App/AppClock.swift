import Foundation

/// Where the app reads the time: every deadline (autosave, toasts, refreshes) is measured on
/// `now`, and `wallTime` names the time of day in messages ("saved 14:02:11"). Tests pass a
/// ``ManualClock`` and move it forward, so no timer needs a real wait.
public protocol AppClock: AnyObject, Sendable {
    var now: ContinuousClock.Instant { get }
    var wallTime: Date { get }
}

/// The real clock.
public final class SystemClock: AppClock {
    public init() {}
    public var now: ContinuousClock.Instant { ContinuousClock.now }
    public var wallTime: Date { Date() }
}

/// A clock that moves only when told to (tests and benchmarks).
public final class ManualClock: AppClock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant = ContinuousClock.now
    private var date = Date(timeIntervalSince1970: 1_800_000_000)

    public init() {}

    public var now: ContinuousClock.Instant { lock.withLock { instant } }
    public var wallTime: Date { lock.withLock { date } }

    /// Moves the clock forward.
    public func advance(_ duration: Duration) {
        lock.withLock {
            instant = instant + duration
            let (seconds, attoseconds) = duration.components
            date = date.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
        }
    }
}
