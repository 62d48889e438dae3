import Foundation

/// Something that receives every ``ContextDidSave`` synchronously, on the thread that
/// published it (usually the writer's): contexts and live queries, which only queue the event
/// and apply it later on their own thread.
protocol SaveEventSink: AnyObject, Sendable {
    func receive(_ event: ContextDidSave)
}

/// Delivers each commit's event to the registered sinks (weakly held) and to observers on
/// the queues they chose.
final class EventBus: Sendable {
    private struct WeakSink {
        weak var sink: (any SaveEventSink)?
    }
    private struct Observer {
        let queue: DispatchQueue
        let handler: @Sendable (ContextDidSave) -> Void
    }
    private struct State {
        var sinks: [WeakSink] = []
        var observers: [UInt64: Observer] = [:]
        var nextObserver: UInt64 = 1
    }
    private let state = Locked(State())

    func register(_ sink: any SaveEventSink) {
        state.withLock { state in
            state.sinks.removeAll { $0.sink == nil }
            state.sinks.append(WeakSink(sink: sink))
        }
    }

    func addObserver(queue: DispatchQueue, handler: @escaping @Sendable (ContextDidSave) -> Void) -> UInt64 {
        state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = Observer(queue: queue, handler: handler)
            return id
        }
    }

    func removeObserver(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    func publish(_ event: ContextDidSave) {
        let (sinks, observers) = state.withLock { state in
            (state.sinks.compactMap(\.sink), Array(state.observers.values))
        }
        for sink in sinks { sink.receive(event) }
        for observer in observers {
            let handler = observer.handler
            observer.queue.async { handler(event) }
        }
    }
}

/// Keeps an observer of saves registered; cancelling it, or letting it go, stops delivery.
public final class SaveObservation: Sendable {
    private let cancelAction: Locked<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = Locked(cancel)
    }

    /// Stops delivery. Events already dispatched to the observer's queue may still arrive.
    public func cancel() {
        let action = cancelAction.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { cancel() }
}
