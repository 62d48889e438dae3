import Foundation

/// Runs a result's query again when a table it reads changes, and tells the result's lists.
///
/// It hears every commit (as a bus sink). A commit that touches a table or view the query
/// names starts a new run in the background, at most one at a time and no sooner than
/// ``pause`` after the last (an import commits a batch every few tenths of a second); commits
/// heard meanwhile make one more run. Once the rows are copied, it publishes a commit that
/// invalidates the result's table, which its lists follow like any other.
final class QueryRefresher: SaveEventSink, Sendable {
    static let pause: Duration = .milliseconds(500)

    private let result: QueryResult
    private let generation: UInt64
    // (Both weak: the store keeps its refreshers, and the core keeps the store.)
    private weak let core: StoreCore?
    private weak let store: ResultStore?
    private let queue = DispatchQueue(label: "cardfile.query-refresh", qos: .utility)
    private struct State {
        var running = false
        var again = false
        var stopped = false
        var cancellation = Cancellation()
    }
    private let state = Locked(State())

    init(result: QueryResult, generation: UInt64, core: StoreCore, store: ResultStore) {
        self.result = result
        self.generation = generation
        self.core = core
        self.store = store
    }

    func receive(_ event: ContextDidSave) {
        guard result.readTables.contains(where: { event.touches(table: $0) }) else { return }
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        if start { queue.async { [self] in refill() } }
    }

    /// No more runs; the one running stops.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.cancellation.cancel()
        }
    }

    private func refill() {
        while true {
            let cancellation = state.withLock { state -> Cancellation? in
                guard !state.stopped else { return nil }
                state.again = false
                state.cancellation = Cancellation()
                return state.cancellation
            }
            guard let cancellation, let core, let store else { break }
            // (A run that fails keeps the rows shown: the next commit tries again.)
            if (try? store.fill(result, generation: generation, from: core, cancellation: cancellation)) != nil {
                core.bus.publish(ContextDidSave(origin: .batch, invalidatedTables: [result.table.name]))
            }
            Thread.sleep(forTimeInterval: Double(Self.pause.components.attoseconds) / 1e18 + Double(Self.pause.components.seconds))
            let more = state.withLock { state -> Bool in
                if state.again, !state.stopped { return true }
                state.running = false
                return false
            }
            if !more { break }
        }
        state.withLock { $0.running = false }
    }
}
