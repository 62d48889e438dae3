import GRDB

/// What the code running a write transaction knows about it, handed to the
/// ``CommitObserver`` so the commit's event is complete.
struct WriteAnnotation {
    var origin: SaveOrigin
    var inserted: Set<ObjectID> = []
    var updated: Set<ObjectID> = []
    var deleted: Set<ObjectID> = []
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// Row changes the code made itself, per table (schema spelling), to tell cascades apart.
    var rowChanges: [String: Int] = [:]
    /// Tables the code changed too many rows of to name them (a large bulk edit): the commit
    /// names the table as invalidated instead, as for an import, so every context re-reads
    /// what it shows of it rather than sifting a hundred thousand names on the UI's loop.
    var invalidated: Set<String> = []
    /// How the journal names this write, when its origin does not say enough (see
    /// ``StoreCore/historyNote(for:)``).
    var history: HistoryNote?
    /// What records the transaction's changes for the journal (nil without one): code that
    /// catches a failed statement and goes on rewinds it (see ``ChangeRecorder/rewind(to:)``).
    var recorder: ChangeRecorder?

    mutating func note(inserted id: ObjectID) { inserted.insert(id); count(id.table) }
    mutating func note(updated id: ObjectID) { updated.insert(id); count(id.table) }
    mutating func note(deleted id: ObjectID) { deleted.insert(id); count(id.table) }
    private mutating func count(_ table: String) { rowChanges[table, default: 0] += 1 }
}

/// Turns each commit on the writer connection into one ``ContextDidSave``.
///
/// SQLite's update hook names changed rows by rowid; for tables keyed by the rowid that is the
/// ObjectID, so changes made by triggers and cascades are named too. Tables keyed otherwise are
/// named by the writing code's annotation, and marked invalidated when the hook saw more row
/// changes than the code made. All state is touched only on the writer's queue.
final class CommitObserver: TransactionObserver, @unchecked Sendable {
    private struct RowChanges {
        var inserted: Set<Int64> = []
        var updated: Set<Int64> = []
        var deleted: Set<Int64> = []
        var count: Int { inserted.count + updated.count + deleted.count }
    }

    /// The schema now (it is read again after a statement changes it).
    private let currentSchema: @Sendable () -> DatabaseSchema
    private let publish: (ContextDidSave) -> Void
    private var changes: [String: RowChanges] = [:]
    /// Set by ``StoreCore/write(origin:_:)`` just before the transaction commits.
    var annotation: WriteAnnotation?
    /// Tables written in bulk in the current transaction (an import): their rows are not
    /// collected one by one (SQLite's hook is not even installed for them); the commit names
    /// the table as invalidated instead, and everything showing it re-reads.
    var bulkTables: Set<String> = []

    init(schema: @escaping @Sendable () -> DatabaseSchema, publish: @escaping (ContextDidSave) -> Void) {
        currentSchema = schema
        self.publish = publish
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        bulkTables.isEmpty || !bulkTables.contains(eventKind.tableName)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        // SQLite names the table as the schema spells it.
        let table = event.tableName
        switch event.kind {
        case .insert: changes[table, default: RowChanges()].inserted.insert(event.rowID)
        case .update: changes[table, default: RowChanges()].updated.insert(event.rowID)
        case .delete: changes[table, default: RowChanges()].deleted.insert(event.rowID)
        }
    }

    func databaseDidCommit(_ db: Database) {
        let note = annotation ?? WriteAnnotation(origin: .batch)
        let hooked = changes
        annotation = nil
        changes = [:]

        let schema = currentSchema()
        var inserted = note.inserted
        var updated = note.updated
        var deleted = note.deleted
        var invalidated: Set<String> = bulkTables.union(note.invalidated)
        var touched: Set<String> = Set(note.rowChanges.keys).union(bulkTables).union(note.invalidated)
        bulkTables = []
        for (name, rows) in hooked {
            guard let table = schema.table(named: name) else { continue }
            touched.insert(table.name)
            if note.invalidated.contains(table.name) { continue }
            if table.primaryKey.isRowid {
                for rowid in rows.inserted { inserted.insert(ObjectID(table: table.name, rowid: rowid)) }
                for rowid in rows.deleted { deleted.insert(ObjectID(table: table.name, rowid: rowid)) }
                for rowid in rows.updated where !rows.inserted.contains(rowid) {
                    updated.insert(ObjectID(table: table.name, rowid: rowid))
                }
            } else if rows.count > note.rowChanges[table.name, default: 0] {
                invalidated.insert(table.name)
            }
        }
        if let event = Self.event(
            origin: note.origin, inserted: inserted, updated: updated, deleted: deleted, permanentIDs: note.permanentIDs,
            invalidated: invalidated, touched: touched, schema: schema) {
            publish(event)
        }
    }

    /// A commit's event, nil when it names nothing: a row inserted or deleted is not also
    /// updated, and every table a change to a `touched` table can reach silently (cascades,
    /// triggers, views over it) is invalidated.
    static func event(
        origin: SaveOrigin, inserted: Set<ObjectID>, updated: Set<ObjectID>, deleted: Set<ObjectID>, permanentIDs: [ObjectID: ObjectID],
        invalidated: Set<String>, touched: Set<String>, schema: DatabaseSchema
    ) -> ContextDidSave? {
        var invalidated = invalidated
        for table in touched { invalidated.formUnion(schema.silentlyAffectedTables(by: table)) }
        let event = ContextDidSave(
            origin: origin, inserted: inserted, updated: updated.subtracting(inserted).subtracting(deleted), deleted: deleted,
            permanentIDs: permanentIDs, invalidatedTables: invalidated)
        return event.isEmpty && event.permanentIDs.isEmpty ? nil : event
    }

    func databaseDidRollback(_ db: Database) {
        annotation = nil
        changes = [:]
        bulkTables = []
    }
}
