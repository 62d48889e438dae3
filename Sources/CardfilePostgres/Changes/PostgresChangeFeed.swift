import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// One notification of ``NotifySetup``'s triggers: a statement's changes to one table, committed.
public struct PostgresChange: Sendable, Equatable {
    public var schema: String
    public var table: String
    /// `insert`, `update`, `delete` or `truncate`.
    public var operation: String
    /// The changed records' keys, each as its columns' text (nil for a NULL part); nil when the
    /// statement changed too many records to list, or emptied the table.
    public var keys: [[String?]]?
    /// The server process of the connection that made the change.
    public var backend: Int32

    /// Reads a notification's payload; nil when it is not one of ours.
    static func read(payload: String, backend: Int32) -> PostgresChange? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
              let schema = object["schema"] as? String, let table = object["table"] as? String,
              let operation = object["op"] as? String else { return nil }
        var keys: [[String?]]?
        if let list = object["keys"] as? [[Any]] {
            keys = list.map { key in key.map { $0 as? String } }
        }
        return PostgresChange(schema: schema, table: table, operation: operation, keys: keys, backend: backend)
    }
}

/// What changed in each table since the feed was last drained: the keys, or everything.
public struct PendingChanges: Sendable, Equatable {
    public enum Extent: Sendable, Equatable {
        case records(Set<[String?]>)
        case everything
    }

    /// By `schema.table` (each part as the catalog names it).
    public var tables: [QualifiedName: Extent] = [:]
    /// The feed's connection ended: what was committed since is not announced, so everything
    /// shown must be read again, and the feed opened again.
    public var connectionLost = false

    public struct QualifiedName: Hashable, Sendable {
        public var schema: String
        public var table: String
        public init(schema: String, table: String) {
            self.schema = schema
            self.table = table
        }
    }

    public init() {}

    public var isEmpty: Bool { tables.isEmpty && !connectionLost }

    mutating func add(_ change: PostgresChange) {
        let name = QualifiedName(schema: change.schema, table: change.table)
        guard let keys = change.keys else {
            tables[name] = .everything
            return
        }
        switch tables[name] {
        case .everything:
            break
        case .records(let known):
            tables[name] = .records(known.union(keys))
        case nil:
            tables[name] = .records(Set(keys))
        }
    }
}

/// Listens for ``NotifySetup``'s notifications on a connection of its own, which never opens a
/// transaction (a notification waits until the listening connection is outside one).
///
/// Notifications are gathered as they arrive, from the connection's event loop, and handed
/// over coalesced by ``drain()``: an editor drains once a frame, so a burst of a thousand
/// statements costs it one refresh. `wake` is called (on the event loop) when the first
/// change after a drain arrives, for a loop to wake up.
public final class PostgresChangeFeed: Sendable {
    let session: PostgresSession
    private let pending = NIOLockedValueBox(PendingChanges())
    private let context: NIOLockedValueBox<PostgresListenContext?> = NIOLockedValueBox(nil)

    /// Opens the feed's connection and starts listening; what is committed from when this
    /// returns is announced. (An editor listens first and reads its window after, so nothing
    /// committed in between is missed.)
    ///
    /// `answerWithin` bounds the wait for each answer on the feed's connection (see
    /// ``PostgresSession/answerWithin``).
    public init(location: PostgresLocation, answerWithin: Duration? = nil, wake: @escaping @Sendable () -> Void) throws(PostgresProblem) {
        session = try PostgresSession.open(location, answerWithin: answerWithin)
        let pending = self.pending
        let listener = session.connection.addListener(channel: NotifySetup.channel) { _, notification in
            guard let change = PostgresChange.read(payload: notification.payload, backend: notification.backendPID) else { return }
            let wasEmpty = pending.withLockedValue { changes in
                let empty = changes.isEmpty
                changes.add(change)
                return empty
            }
            if wasEmpty { wake() }
        }
        context.withLockedValue { $0 = listener }
        // postgres-nio ends a listener silently when its connection goes: say so instead.
        session.connection.closeFuture.whenComplete { _ in
            let wasEmpty = pending.withLockedValue { changes in
                let empty = changes.isEmpty
                changes.connectionLost = true
                return empty
            }
            if wasEmpty { wake() }
        }
        do {
            try session.run(PostgresQuery(unsafeSQL: "LISTEN \(NotifySetup.channel)"))
        } catch {
            listener.stop()
            session.close()
            throw error
        }
    }

    /// Waits until every notification of a commit that ended before this call has arrived: one
    /// round trip on the feed's connection, whose answer the server sends after any
    /// notification waiting for it (and postgres-nio hands those to the listener first). A
    /// poll that must not miss a commit just made elsewhere calls this before ``drain()``.
    ///
    /// Returns the server's snapshot as text (`txid_current_snapshot()`), which changes
    /// whenever a transaction anywhere on the server starts or ends writing: a poller of
    /// tables no trigger announces reads them again only then.
    @discardableResult
    public func catchUp() throws(PostgresProblem) -> String {
        let rows = try session.rows("SELECT txid_current_snapshot()::text")
        return (try? rows.first?.decode(String.self)) ?? ""
    }

    /// Everything announced since the last drain, coalesced per table; the feed starts empty again.
    public func drain() -> PendingChanges {
        pending.withLockedValue { changes in
            defer { changes = PendingChanges() }
            return changes
        }
    }

    /// Stops listening and closes the feed's connection.
    public func close() {
        context.withLockedValue { $0?.stop() }
        session.close()
    }
}
