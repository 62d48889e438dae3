import Dispatch
import GRDB

/// A scratchpad of records over the store or over a parent context, with Core Data's
/// editing semantics.
///
/// A context tracks, for every object it has read (its *registered* objects), the snapshot of
/// the values it read and the edits made since. Nothing reaches the parent or the disk until
/// ``save()``. A root context's save is one write transaction that checks every update and
/// delete against its snapshot and resolves conflicts by its ``mergePolicy``; a child
/// context's save moves its changes into the parent.
///
/// Contexts are internally synchronised: any thread may call them. ``perform(_:)`` runs work
/// on the context's own serial queue, for work that must stay off the UI loop. Hand other
/// contexts ``ObjectID``s, never ``Record``s.
///
/// Changes committed elsewhere are queued as they happen and applied at the start of the
/// next call (or by ``processPendingChanges()``), on the caller's thread.
public final class ObjectContext: @unchecked Sendable {
    let core: StoreCore
    /// The parent of a child (editor) context; nil for root contexts.
    public let parent: ObjectContext?
    /// Names this context in events and messages.
    public let identity: ContextIdentity

    let state: Locked<ContextState>
    private let inbox = Locked<[ContextDidSave]>([])
    private let settings: Locked<(policy: MergePolicy, merges: Bool)>
    private let busyWait = Locked<Duration?>(nil)
    /// How this root context's saves are journaled, when not as a form's (see ``HistoryNote``).
    let historyNote = Locked<HistoryNote?>(nil)
    /// The serial queue `perform` runs work on (internal: tests check where work ran).
    let queue: DispatchQueue

    init(core: StoreCore, parent: ObjectContext?, identity: ContextIdentity, mergePolicy: MergePolicy, automaticallyMergesChanges: Bool) {
        self.core = core
        self.parent = parent
        self.identity = identity
        self.state = Locked(ContextState())
        self.settings = Locked((mergePolicy, automaticallyMergesChanges))
        self.queue = DispatchQueue(label: "cardfile.context.\(identity.number)")
        core.bus.register(self)
    }

    /// How a root save resolves conflicts. See ``MergePolicy`` for the rules.
    public var mergePolicy: MergePolicy {
        get { settings.withLock { $0.policy } }
        set { settings.withLock { $0.policy = newValue } }
    }

    /// When true, commits by other contexts, batch operations and other processes refresh
    /// this context's registered objects: unedited fields take the new values, edited fields
    /// keep the edit and are flagged when the store's value moved (see ``Record/changedElsewhere``).
    public var automaticallyMergesChanges: Bool {
        get { settings.withLock { $0.merges } }
        set { settings.withLock { $0.merges = newValue } }
    }

    /// How long a root save of this context waits for another connection's lock before it
    /// fails with ``StoreError/busy`` (keeping every change); nil waits the container's
    /// ``StoreOptions/busyTimeout``. A UI loop sets tens of milliseconds and retries later, so
    /// a lock held by another program never freezes the screen.
    public var saveBusyTimeout: Duration? {
        get { busyWait.withLock { $0 } }
        set { busyWait.withLock { $0 = newValue } }
    }

    // MARK: - Work on the context's queue

    /// Runs `work` asynchronously on the context's serial queue.
    public func perform(_ work: @escaping @Sendable (ObjectContext) -> Void) {
        queue.async { work(self) }
    }

    /// Runs `work` on the context's serial queue and waits for it.
    public func performAndWait<T>(_ work: (ObjectContext) throws -> T) rethrows -> T {
        try queue.sync { try work(self) }
    }

    /// Runs `work` on the context's serial queue and returns its result.
    public func perform<T: Sendable>(_ work: @escaping @Sendable (ObjectContext) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work(self) }) }
        }
    }

    // MARK: - Access to the state

    /// Runs `body` on the state after applying queued events and, for a child, the parent's
    /// changes. Every public operation goes through here.
    func withState<T>(_ body: (inout ContextState) throws -> T) throws(StoreError) -> T {
        try storeErrors(path: core.path) {
            try state.withLock { state in
                try catchUp(&state, reading: nil)
                return try body(&state)
            }
        }
    }

    /// Events queued since the last call, removed from the inbox.
    func takeInbox() -> [ContextDidSave] {
        inbox.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    /// Puts `events`, taken by ``takeInbox()`` and not applied, back before any queued since.
    func requeue(_ events: [ContextDidSave]) {
        inbox.withLock { $0.insert(contentsOf: events, at: 0) }
    }

    /// The entity of an ID's table, and the ID with the table spelled as in the schema.
    func canonical(_ id: ObjectID) throws(StoreError) -> (Entity, ObjectID) {
        let entity = try core.entity(id.table)
        return (entity, entity.name == id.table ? id : ObjectID(table: entity.name, key: id.key))
    }

    // MARK: - Editing

    /// Inserts a new object and returns its temporary ID.
    ///
    /// Fields not given are left out of the INSERT, so the column defaults apply.
    /// - Throws: ``StoreError/noSuchTable(_:)``, ``StoreError/noSuchField(table:field:)``,
    ///   ``StoreError/tableNotEditable(_:)``, ``StoreError/viewNotWritable(view:kind:)``.
    @discardableResult
    public func insert(into table: String, values: [String: Value] = [:]) throws(StoreError) -> ObjectID {
        let entity = try core.entity(table)
        guard entity.table.isIdentifiable else { throw StoreError.tableNotEditable(entity.name, isView: entity.table.isView) }
        if entity.table.view?.insert == false { throw StoreError.viewNotWritable(view: entity.name, kind: .insert) }
        var edits: [Int: Edit] = [:]
        for (name, value) in values {
            guard let field = entity.fieldIndex(named: name) else {
                throw StoreError.noSuchField(table: entity.name, field: name)
            }
            edits[field] = Edit(value: value, base: .null)
        }
        let id = core.temporaryID(table: entity.name)
        let sequence = core.nextInsertSequence()
        try withState { state in
            var object = ManagedObject(edits: edits, isInserted: true)
            object.insertSequence = sequence
            state.store(object, for: id)
        }
        return id
    }

    /// Sets fields of an object. A field set to the value its edit started from (the stored
    /// value, for a field not edited yet) is no edit at all: the edit is removed at once, so
    /// ``hasChanges`` clears when nothing else is pending and merges reach the field again.
    /// - Throws: ``StoreError/noSuchObject(_:)`` when the object does not exist,
    ///   ``StoreError/noSuchField(table:field:)`` for an unknown field.
    public func update(_ id: ObjectID, values: [String: Value]) throws(StoreError) {
        let (entity, id) = try canonical(id)
        var fields: [(Int, Value)] = []
        for (name, value) in values {
            guard let field = entity.fieldIndex(named: name) else {
                throw StoreError.noSuchField(table: entity.name, field: name)
            }
            fields.append((field, value))
        }
        try withState { state in
            guard var object = try registeredObject(id, entity: entity, in: &state) else {
                throw StoreError.noSuchObject(id)
            }
            let before = object.edits
            for (field, value) in fields {
                object.set(field, to: value, entity: entity)
            }
            // Writing a form back whole changes nothing when every value is the same.
            guard object.edits != before else { return }
            if object.isDeletedElsewhere, !object.hasPersistentChanges(entity: entity) {
                // Its row is gone and nothing of it is left to save.
                state.remove(id)
            } else {
                state.store(object, for: id)
            }
        }
    }

    /// Sets fields as edits that started from `bases` rather than from the values the source
    /// holds: a save then checks the store against `bases`, so a field moved since to a third
    /// value is met as a conflict (the three-way rule), and one already at its new value is
    /// no edit. What `:undo` and `:history` stage: the values a change replaced, over the
    /// values it wrote.
    /// - Throws: as ``update(_:values:)``.
    public func update(_ id: ObjectID, values: [String: Value], startingFrom bases: [String: Value]) throws(StoreError) {
        let (entity, id) = try canonical(id)
        var fields: [(Int, Value, Value)] = []
        for (name, value) in values {
            guard let field = entity.fieldIndex(named: name) else { throw StoreError.noSuchField(table: entity.name, field: name) }
            fields.append((field, value, bases[name] ?? value))
        }
        try withState { state in
            guard var object = try registeredObject(id, entity: entity, in: &state) else { throw StoreError.noSuchObject(id) }
            for (field, value, base) in fields where entity.isPersistent(field) {
                object.set(field, to: value, base: object.isInserted ? .null : base)
            }
            state.store(object, for: id)
        }
    }

    /// Marks an object for deletion, checked against `expected` (columns by name; the others
    /// as the source holds them) rather than the values read: a row changed since to other
    /// values is met as a conflict.
    /// - Throws: as ``delete(_:)``.
    public func delete(_ id: ObjectID, expecting expected: [String: Value]) throws(StoreError) {
        let (entity, id) = try canonical(id)
        try withState { state in
            guard var object = try registeredObject(id, entity: entity, in: &state) else { throw StoreError.noSuchObject(id) }
            guard !object.isInserted else { return state.remove(id) }
            var base = object.baseValues(entity: entity)
            for (name, value) in expected {
                if let field = entity.fieldIndex(named: name), field < base.count { base[field] = value }
            }
            object.deletionBase = base
            state.store(object, for: id)
        }
    }

    /// Marks an object for deletion. Deleting an object inserted in this context forgets it.
    public func delete(_ id: ObjectID) throws(StoreError) {
        let (entity, id) = try canonical(id)
        try withState { state in
            guard var object = try registeredObject(id, entity: entity, in: &state) else {
                throw StoreError.noSuchObject(id)
            }
            if object.isInserted {
                state.remove(id)
                return
            }
            if !object.isDeleted {
                object.deletionBase = object.baseValues(entity: entity)
            }
            state.store(object, for: id)
        }
    }

    // MARK: - Reading

    /// The object as this context sees it, registering it if needed; nil when it exists
    /// neither here nor in the source. An object marked for deletion is returned with status
    /// `.deleted`.
    public func record(for id: ObjectID) throws(StoreError) -> Record? {
        let (entity, id) = try canonical(id)
        return try withState { state in
            try registeredObject(id, entity: entity, in: &state)?.record(id: id, entity: entity)
        }
    }

    /// IDs of every registered object.
    public var registeredObjects: Set<ObjectID> {
        (try? withState { Set($0.objects.keys) }) ?? []
    }

    /// Objects inserted and not yet saved.
    public var insertedObjects: Set<ObjectID> {
        (try? withState { Set($0.dirtyObjects.filter { $0.object.isInserted }.map(\.id)) }) ?? []
    }

    /// Objects with changed fields (persistent or transient) and not inserted or deleted.
    public var updatedObjects: Set<ObjectID> {
        (try? withState { state in
            Set(state.dirtyObjects.filter { !$0.object.isInserted && !$0.object.isDeleted && $0.object.edits.keys.contains(where: $0.object.isChanged) }.map(\.id))
        }) ?? []
    }

    /// Objects marked for deletion.
    public var deletedObjects: Set<ObjectID> {
        (try? withState { Set($0.dirtyObjects.filter { $0.object.isDeleted }.map(\.id)) }) ?? []
    }

    /// True when anything is pending: inserts, deletes, or any edit, transient ones included.
    /// (A field edited back to its starting value carries no edit.)
    public var hasChanges: Bool {
        (try? withState { state in
            state.dirtyObjects.contains { $0.object.isInserted || $0.object.isDeleted || !$0.object.edits.isEmpty }
        }) ?? false
    }

    /// True when a save would write something: inserts, deletes, or edited persistent fields.
    /// Transient fields do not count.
    public var hasPersistentChanges: Bool {
        (try? withState { state in try RootSave.hasWork(state, core: core) }) ?? false
    }

    /// The new values of the object's changed fields (transient ones included).
    public func changedValues(of id: ObjectID) throws(StoreError) -> [String: Value] {
        let (entity, id) = try canonical(id)
        return try withState { state in
            guard let object = state.objects[id] else { return [:] }
            var values: [String: Value] = [:]
            for (field, edit) in object.edits where object.isChanged(field) {
                values[entity.fieldNames[field]] = edit.value
            }
            return values
        }
    }

    /// The object's values as last read from its source (columns and transient fields);
    /// nil for an unregistered or newly inserted object.
    public func committedValues(of id: ObjectID) throws(StoreError) -> [String: Value]? {
        let (entity, id) = try canonical(id)
        return try withState { state in
            guard let snapshot = state.objects[id]?.snapshot else { return nil }
            return Dictionary(uniqueKeysWithValues: zip(entity.fieldNames, snapshot))
        }
    }

    /// A number that changes whenever anything this context shows changes: edits, merges,
    /// saves. Live queries compare it to know when to re-run.
    public var changeToken: UInt64 {
        (try? withState { $0.changeCount }) ?? 0
    }

    /// Applies queued changes from other commits (and, for a child, from the parent) now.
    /// Returns true when anything this context shows changed.
    @discardableResult
    public func processPendingChanges() throws(StoreError) -> Bool {
        try storeErrors(path: core.path) {
            try state.withLock { state in
                let before = state.changeCount
                try catchUp(&state, reading: nil)
                return state.changeCount != before
            }
        }
    }
}

extension ObjectContext: SaveEventSink {
    func receive(_ event: ContextDidSave) {
        if case .context(let origin) = event.origin, origin == identity { return }
        inbox.withLock { $0.append(event) }
    }
}

/// Everything a context knows, guarded by its lock.
///
/// Objects change only through the methods below, which keep ``dirty`` (the objects with
/// anything pending) exact, so saves and change queries never scan clean objects.
struct ContextState {
    private(set) var objects: [ObjectID: ManagedObject] = [:]
    /// Objects with edits, inserts, deletes or a vanished row.
    private(set) var dirty: Set<ObjectID> = []
    /// Bumped on every change; stamps objects' versions.
    var changeCount: UInt64 = 1
    /// For a child: the parent's change counter when it last synchronised.
    var parentChangeCount: UInt64 = 0

    mutating func bump() {
        changeCount += 1
    }

    /// Stores an object, stamping it as changed now.
    mutating func store(_ object: ManagedObject, for id: ObjectID) {
        bump()
        var object = object
        object.version = changeCount
        register(object, for: id)
    }

    /// Stores an object without marking a change (registration, bookkeeping).
    mutating func register(_ object: ManagedObject, for id: ObjectID) {
        objects[id] = object
        if object.isInserted || object.isDeleted || object.isDeletedElsewhere || !object.edits.isEmpty {
            dirty.insert(id)
        } else {
            dirty.remove(id)
        }
    }

    /// Forgets an object, marking a change.
    mutating func remove(_ id: ObjectID) {
        guard objects.removeValue(forKey: id) != nil else { return }
        dirty.remove(id)
        bump()
    }

    /// Removes and returns an object without marking a change (it is about to be stored again).
    mutating func take(_ id: ObjectID) -> ManagedObject? {
        dirty.remove(id)
        return objects.removeValue(forKey: id)
    }

    mutating func removeAll() {
        objects.removeAll()
        dirty.removeAll()
        bump()
    }

    /// The dirty objects, as pairs.
    var dirtyObjects: [(id: ObjectID, object: ManagedObject)] {
        dirty.compactMap { id in objects[id].map { (id, $0) } }
    }
}
