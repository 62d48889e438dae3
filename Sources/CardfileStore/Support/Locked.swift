import Foundation
import GRDB

/// A value guarded by a mutex. Every access goes through ``withLock(_:)``; the lock is not
/// recursive, so code running inside must not lock the same instance again.
final class Locked<State>: @unchecked Sendable {
    private var state: State
    private let lock = NSLock()

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// A copy of the current value.
    var value: State {
        withLock { $0 }
    }
}

/// Runs `body`, turning any error into a ``StoreError`` so public API throws only those.
func storeErrors<T>(path: String, _ body: () throws -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw error
    } catch let error as DatabaseError {
        throw StoreError.working(error, path: path)
    } catch {
        throw StoreError.database(code: -1, message: String(describing: error))
    }
}
