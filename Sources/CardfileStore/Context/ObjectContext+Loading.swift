import Foundation

/// An object's values as a parent context shows them to a child.
struct SourceObject {
    /// Every field, columns then transient.
    var values: [Value]
    /// The parent's version of the object: a child re-synchronises when it changes.
    var version: UInt64
    /// The parent holds it as an unsaved insert.
    var isInserted = false
}

extension ObjectContext {
    /// The registered object for `id`, loading and registering it from the source (the store,
    /// or the parent) when needed.
    func registeredObject(_ id: ObjectID, entity: Entity, in state: inout ContextState) throws -> ManagedObject? {
        if let object = state.objects[id] { return object }
        guard let source = try loadFromSource([id], db: nil)[id] else { return nil }
        var object = ManagedObject(snapshot: source.values)
        object.sourceVersion = source.version
        object.sourceIsInserted = source.isInserted
        object.version = state.changeCount
        state.register(object, for: id)
        return object
    }

    /// Current values of `ids` from the source: rows read from the store for a root context
    /// (through `db` when given, else a read transaction), the parent's objects for a child.
    /// Missing objects are absent from the result.
    func loadFromSource(_ ids: [ObjectID], db: (any EngineSession)?) throws -> [ObjectID: SourceObject] {
        if let parent {
            return try parent.sourceObjects(ids, ifChangedSince: nil)?.objects ?? [:]
        }
        var result: [ObjectID: SourceObject] = [:]
        let byTable = Dictionary(grouping: ids.filter { !$0.isTemporary }, by: \.table)
        for (table, tableIDs) in byTable {
            let entity = try core.entity(table)
            let transient = Array(repeating: Value.null, count: entity.fieldNames.count - entity.columnCount)
            let rows: [ObjectID: [Value]]
            if let db, entity.reader == nil {
                rows = try Self.readRows(tableIDs, entity: entity, db: db)
            } else {
                rows = try core.session(for: entity) { try Self.readRows(tableIDs, entity: entity, db: $0) }
            }
            for (id, columns) in rows {
                result[id] = SourceObject(values: columns + transient, version: 0)
            }
        }
        return result
    }

    /// Reads whole rows by key, in chunks that stay under SQLite's argument limit.
    static func readRows(_ ids: [ObjectID], entity: Entity, db: any EngineSession) throws -> [ObjectID: [Value]] {
        let table = entity.table
        var rows: [ObjectID: [Value]] = [:]
        let width = table.keyWidth
        let chunkSize = max(1, 500 / width)
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(ids.count, start + chunkSize)]
            start += chunkSize
            let arguments = chunk.flatMap { $0.primaryKeyValues ?? [] }
            let sql = "SELECT \(table.selectList) FROM \(table.fromSQL) WHERE \(table.keyInSQL(count: chunk.count))"
            for row in try db.rows(sql, arguments) {
                rows[entity.objectID(fromKey: row[0..<width])] = Array(row[width...])
            }
        }
        return rows
    }

    /// For a child: the objects' current values here, registering any not yet registered.
    /// With `ifChangedSince`, returns nil when nothing changed since that change count.
    func sourceObjects(_ ids: [ObjectID], ifChangedSince count: UInt64?) throws -> (changeCount: UInt64, objects: [ObjectID: SourceObject])? {
        try state.withLock { state in
            try catchUp(&state, reading: nil)
            if let count, state.changeCount == count { return nil }
            let missing = ids.filter { state.objects[$0] == nil && !$0.isTemporary }
            if !missing.isEmpty {
                for (id, source) in try loadFromSource(missing, db: nil) {
                    var object = ManagedObject(snapshot: source.values)
                    object.sourceVersion = source.version
                    object.sourceIsInserted = source.isInserted
                    object.version = state.changeCount
                    state.register(object, for: id)
                }
            }
            var result: [ObjectID: SourceObject] = [:]
            for id in ids {
                guard let object = state.objects[id], !object.isDeleted else { continue }
                result[id] = SourceObject(values: object.values(entity: try core.entity(id.table)), version: object.version, isInserted: object.isInserted)
            }
            return (state.changeCount, result)
        }
    }

    /// Applies queued events and, for a child, the parent's changes.
    func catchUp(_ state: inout ContextState, reading db: (any EngineSession)?) throws {
        let events = takeInbox()
        if !events.isEmpty {
            do {
                try apply(events, to: &state, db: db)
            } catch {
                // The events wait to be read again at the next catch-up (after an outage,
                // they name every table). For a server that cannot be reached the records stay
                // as they were meanwhile, and edits go on.
                requeue(events)
                if case StoreError.serverUnreachable = error {} else { throw error }
            }
        }
        if let parent {
            try synchronise(&state, from: parent)
        }
    }

    /// Re-keys saved inserts and, when merging automatically, refreshes registered objects that
    /// the events name.
    private func apply(_ events: [ContextDidSave], to state: inout ContextState, db: (any EngineSession)?) throws {
        for event in events {
            for (temporary, permanent) in event.permanentIDs {
                if let object = state.take(temporary) {
                    state.store(object, for: permanent)
                }
            }
        }
        guard parent == nil, automaticallyMergesChanges else { return }
        // Look each registered object up in the events rather than merging the events' sets:
        // a batch names every row it touched, the context holds a few of them.
        let ids = state.objects.compactMap { id, object -> ObjectID? in
            guard !object.isInserted else { return nil }
            let named = events.contains { event in
                event.updated.contains(id) || event.deleted.contains(id) || event.invalidatedTables.contains(id.table)
            }
            return named ? id : nil
        }
        guard !ids.isEmpty else { return }
        let fresh = try loadFromSource(ids, db: db)
        // The view context journals what another program changed of the records it holds:
        // once, since every record shown or edited is registered here.
        let journal = identity.role == .view ? core.journal : nil
        var elsewhere: [RecordedChange] = []
        for id in ids {
            let entity = try core.entity(id.table)
            let before = state.objects[id]?.snapshot
            merge(id, source: fresh[id], entity: entity, into: &state)
            guard journal != nil, let before, Self.onlyExternal(events, name: id) else { continue }
            if let change = Self.externalChange(id, before: before, after: fresh[id]?.values, entity: entity) { elsewhere.append(change) }
        }
        if let journal, !elsewhere.isEmpty { journal.append(changes: elsewhere, note: HistoryNote(source: .elsewhere), time: Date()) }
    }

    /// True when only other programs' commits among `events` name the record.
    private static func onlyExternal(_ events: [ContextDidSave], name id: ObjectID) -> Bool {
        events.allSatisfy { event in
            event.origin == .external || !(event.updated.contains(id) || event.deleted.contains(id) || event.invalidatedTables.contains(id.table))
        }
    }

    /// Another program's change of one record, from the values held before and read after
    /// (nil after: deleted); nil when no column moved.
    private static func externalChange(_ id: ObjectID, before: [Value], after: [Value]?, entity: Entity) -> RecordedChange? {
        let names = Array(entity.fieldNames[0..<entity.columnCount])
        // (Generated columns are computed: a version restored does not write them.)
        let writable = names.indices.filter { entity.table.columns[$0].generation == .none }
        guard let after else {
            return RecordedChange(id: id, kind: .delete, fields: writable.map { .init(name: names[$0], old: before[$0], new: nil) })
        }
        let fields = writable.filter { before[$0] != after[$0] }.map { RecordedChange.Field(name: names[$0], old: before[$0], new: after[$0]) }
        return fields.isEmpty ? nil : RecordedChange(id: id, kind: .update, fields: fields)
    }

    /// Merges a newer source state of one registered object: unedited fields take the new
    /// values; edited fields keep the edit and its base, so a store value that moved shows as
    /// *changed elsewhere* and the next save of the field conflicts. A vanished row removes an
    /// unedited object and flags an edited one as deleted elsewhere.
    func merge(_ id: ObjectID, source: SourceObject?, entity: Entity, into state: inout ContextState) {
        guard var object = state.objects[id] else { return }
        guard let source else {
            if object.isDeleted || !object.hasPersistentChanges(entity: entity) {
                state.remove(id)
            } else if !object.isDeletedElsewhere {
                object.isDeletedElsewhere = true
                state.store(object, for: id)
            }
            return
        }
        // Transient fields are the context's own; only columns come from the source.
        let columns = parent == nil ? entity.columnCount : entity.fieldNames.count
        var snapshot = object.snapshot ?? source.values
        var changed = object.isDeletedElsewhere
        for field in 0..<columns where snapshot[field] != source.values[field] {
            snapshot[field] = source.values[field]
            changed = true
        }
        object.sourceVersion = source.version
        guard changed else {
            state.register(object, for: id)
            return
        }
        object.snapshot = snapshot
        object.sourceIsInserted = source.isInserted
        object.isDeletedElsewhere = false
        // An edit whose value the source now holds is no longer pending: the person's change
        // is already there.
        object.dropSettledEdits()
        state.store(object, for: id)
    }

    /// Brings a child's registered objects up to date with its parent.
    private func synchronise(_ state: inout ContextState, from parent: ObjectContext) throws {
        let ids = state.objects.compactMap { $0.value.isInserted ? nil : $0.key }
        guard let (count, sources) = try parent.sourceObjects(ids, ifChangedSince: state.parentChangeCount) else { return }
        state.parentChangeCount = count
        for id in ids {
            let object = state.objects[id]!
            let source = sources[id]
            if let source, source.version == object.sourceVersion { continue }
            merge(id, source: source, entity: try core.entity(id.table), into: &state)
        }
    }
}
