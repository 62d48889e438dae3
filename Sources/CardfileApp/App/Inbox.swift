import Foundation

/// Results of work done off the loop, waiting for the loop. Background work posts a message
/// here and then wakes the backend; only the loop takes messages out.
public final class Inbox: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [Message] = []
    private let wake: @Sendable () -> Void

    /// `wake` ends the loop's wait for input (the backend's `wake()`).
    public init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Adds a message and wakes the loop. Safe from any thread.
    public func post(_ message: Message) {
        lock.withLock { messages.append(message) }
        wake()
    }

    /// Wakes the loop without a message (a live query has work for its next update).
    public func poke() {
        wake()
    }

    /// Everything posted so far, in order (the loop's side: pass each to
    /// ``CardfileApp/update(_:hits:)``).
    public func take() -> [Message] {
        lock.withLock {
            defer { messages.removeAll() }
            return messages
        }
    }
}
