import Dispatch

/// The thread-safe side of a live query: it hears commits (as a bus sink), runs the slow work
/// on its own queue, and holds results until the owner's next `update`. It never touches the
/// live query itself, so the live query needs no lock.
final class LiveQueryWorker: SaveEventSink, Sendable {
    /// A finished background job.
    /// A finished job, stamped with the spec and data versions it was started at.
    enum Result: Sendable {
        case positions(PositionIndex, UInt64, UInt64)
        case sorted(SortedKeys, UInt64, UInt64)
        /// The first page of an order no index serves (a top-N query's rows).
        case firstPage([[Value]], UInt64)
        case failed(StoreError, UInt64)
    }

    private struct State {
        var dirty = false
        /// A commit heard since the last ``takeDirty()`` was another process's.
        var outside = false
        /// Temporary IDs of this table's saved inserts, mapped to their permanent IDs.
        var permanentIDs: [ObjectID: ObjectID] = [:]
        var results: [Result] = []
        var activity: LiveQueryActivity = .idle
        var running: Cancellation?
        var lastProgressWake: UInt64 = 0
    }

    let table: String
    /// The tables (lowercased) whose commits make the query dirty.
    private let watched: Set<String>
    private let wake: @Sendable () -> Void
    private let state = Locked(State())
    /// Where jobs run, one at a time. (Tests hold it to keep a sort from finishing.)
    let queue = DispatchQueue(label: "cardfile.livequery", qos: .utility)

    init(table: String, watching: Set<String>, wake: @escaping @Sendable () -> Void) {
        self.table = table
        watched = watching
        self.wake = wake
    }

    func receive(_ event: ContextDidSave) {
        guard watched.contains(where: { event.touches(table: $0) }) else { return }
        state.withLock { state in
            state.dirty = true
            if event.origin == .external { state.outside = true }
            for (temporary, permanent) in event.permanentIDs where temporary.table == table {
                state.permanentIDs[temporary] = permanent
            }
        }
        wake()
    }

    /// Saved inserts' permanent IDs heard since the last call.
    func takePermanentIDs() -> [ObjectID: ObjectID] {
        state.withLock { state in
            defer { state.permanentIDs.removeAll() }
            return state.permanentIDs
        }
    }

    /// Whether a commit touched the table since the last call, and whether one of those was
    /// another process's (each reported once).
    func takeDirty() -> (dirty: Bool, outside: Bool) {
        state.withLock { state in
            defer {
                state.dirty = false
                state.outside = false
            }
            return (state.dirty, state.outside)
        }
    }

    func takeResults() -> [Result] {
        state.withLock { state in
            defer { state.results.removeAll() }
            return state.results
        }
    }

    var activity: LiveQueryActivity { state.value.activity }

    var isBusy: Bool { state.value.running != nil }

    /// True while a job runs or a finished job's result waits for ``takeResults()``. Read
    /// under one lock: a job ends by clearing `running` and appending its result in one step,
    /// so a job that finishes between two separate checks cannot be missed.
    var hasPendingWork: Bool { state.withLock { $0.running != nil || !$0.results.isEmpty } }

    /// Starts `work`, cancelling the job running before it (only the newest result matters).
    func start(_ activity: LiveQueryActivity, _ work: @escaping @Sendable (Cancellation, _ progress: @escaping @Sendable (LiveQueryActivity) -> Void) -> Result?) {
        let cancellation = Cancellation()
        state.withLock { state in
            state.running?.cancel()
            state.running = cancellation
            state.activity = activity
        }
        queue.async { [self] in
            guard !cancellation.isCancelled else { return }
            let result = work(cancellation) { [self] progress in
                let shouldWake = state.withLock { state -> Bool in
                    guard state.running === cancellation else { return false }
                    state.activity = progress
                    let now = DispatchTime.now().uptimeNanoseconds
                    guard now - state.lastProgressWake > 100_000_000 else { return false }
                    state.lastProgressWake = now
                    return true
                }
                if shouldWake { wake() }
            }
            let delivered = state.withLock { state -> Bool in
                guard state.running === cancellation else { return false }
                state.running = nil
                state.activity = .idle
                if let result { state.results.append(result) }
                return result != nil
            }
            if delivered { wake() }
        }
    }

    /// Stops the running job, if any.
    func cancel() {
        state.withLock { state in
            state.running?.cancel()
            state.running = nil
            state.activity = .idle
        }
    }

    /// Blocks until queued jobs have finished (tests and benchmarks).
    func waitUntilIdle() {
        queue.sync {}
    }
}
