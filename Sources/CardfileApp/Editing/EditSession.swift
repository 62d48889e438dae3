import CardfileStore
import Foundation

/// The store side of an open form: an editor context (a child of the view context) holding
/// one record's edits, and the autosave state.
///
/// Nothing a person types reaches the view context or the disk until ``save(now:wallTime:)``,
/// which goes through to the disk in one step (``ObjectContext/saveToStore()``): it either
/// writes everything or moves nothing, keeping every edit.
final class EditSession {
    let editor: ObjectContext
    let table: TableSchema
    /// The record; nil for a new record nobody has typed into yet (no insert is pending, so
    /// leaving asks nothing).
    private(set) var id: ObjectID?
    /// Autosave's delay after the last edit; nil when autosave is off.
    var autosaveDelay: Duration?
    /// When autosave fires next; nil when nothing waits.
    private(set) var deadline: ContinuousClock.Instant?
    /// Why autosave waits for the next edit instead of saving.
    private(set) var pause: Pause?
    /// A save of a new record was cut off as the server committed it, and whether it was
    /// stored is not known: nothing saves it again by itself (autosave, leaving the form) until
    /// the person saves it or discards it.
    private(set) var inDoubt = false
    /// When the record was last saved, as a time of day ("14:02:11"), formatted once per save
    /// rather than on every frame that shows it.
    private(set) var savedAt: String?

    enum Pause: Equatable {
        case invalid([ValidationFailure])
        case conflict([MergeConflict])
        /// The database was busy: the save is retried at the deadline.
        case busy
        /// The database server could not be reached: the save is retried at the deadline, a
        /// little later each time (``unreachableRetry(after:)``).
        case unreachable(attempts: Int)
        case failed(String)

        /// A pause that ends by itself: the save is tried again at the deadline.
        var retries: Bool {
            switch self {
            case .busy, .unreachable: return true
            case .invalid, .conflict, .failed: return false
            }
        }
    }

    enum Outcome: Equatable {
        case saved
        case nothingToSave
        case invalid([ValidationFailure])
        case conflict([MergeConflict])
        case busy
        /// The server could not be reached (`where` says which, and why): tried again later.
        case unreachable(where: String)
        case failed(String)
    }

    /// The undo (or redo) from the history whose values the edits are, when `:undo` met a
    /// record changed since (see ``CardfileApp/replayHistory(in:redo:now:)``): the save that
    /// writes them is journaled as that undo. Nil once saved or discarded.
    var writing: HistoryStep?

    /// How long a busy database is left alone before the save is tried again.
    static let busyRetry: Duration = .milliseconds(500)

    /// How long an unreachable server is left alone before the save is tried again, after
    /// `attempts` tries that failed: half a second, doubling up to five seconds.
    static func unreachableRetry(after attempts: Int) -> Duration {
        min(.milliseconds(500) * (1 << min(max(attempts - 1, 0), 4)), .seconds(5))
    }

    init(editor: ObjectContext, table: TableSchema, id: ObjectID?, autosaveDelay: Duration?) {
        self.editor = editor
        self.table = table
        self.id = id
        self.autosaveDelay = autosaveDelay
    }

    /// The record as the editor sees it; nil for a new record not begun.
    func record() -> Record? { lookUp().record }

    /// The record, and whether its row is known to be gone: a stored record the editor finds
    /// no row for. A read that failed (a lock elsewhere) says nothing about the row.
    func lookUp() -> (record: Record?, gone: Bool) {
        guard let id else { return (nil, false) }
        do {
            let record = try editor.record(for: id)
            return (record, record == nil && !id.isTemporary)
        } catch {
            return (nil, false)
        }
    }

    /// The record's values as its source (the view context) holds them now, under the edits.
    func storedValues() -> [String: Value]? {
        guard let id, !id.isTemporary else { return nil }
        return try? editor.committedValues(of: id)
    }

    /// True when leaving would lose something: asks the editor (a lock and a catch-up with
    /// its parent), so it is for decisions, not for every frame.
    var hasPersistentChanges: Bool { editor.hasPersistentChanges }

    /// ``hasPersistentChanges`` as of the last edit, save, discard or merge from elsewhere
    /// (``noteChanges()``): what the status bar shows, read without asking the store.
    private(set) var isModified = false

    /// Notes whether anything is pending now; call after the editor changed by any way.
    func noteChanges() {
        isModified = hasPersistentChanges
    }

    /// The names of the fields with unsaved changes.
    var changedFields: [String] {
        guard let record = record() else { return [] }
        return table.columns.map(\.name).filter { record.changedFields.contains($0) }
    }

    /// Sets one field (beginning the insert of a new record) and restarts the autosave delay.
    ///
    /// `shown` is the value the form showed for the field: a first edit starts from it, not
    /// from what the editor holds now, which may have moved without the form being told (a
    /// refused save reads the record again under it). A field changed elsewhere meanwhile is
    /// then met at the save as a conflict (Original / Mine / Theirs), never overwritten.
    func set(_ field: String, to value: Value, shown: Value? = nil, now: ContinuousClock.Instant) throws(StoreError) {
        if let id {
            if let shown, !(record()?.changedFields.contains(field) ?? true) {
                try editor.update(id, values: [field: value], startingFrom: [field: shown])
            } else {
                try editor.update(id, values: [field: value])
            }
        } else {
            id = try editor.insert(into: table.name, values: [field: value])
        }
        edited(now: now)
    }

    /// An edit happened: autosave waits its delay again, and a pause ends (the person may
    /// have fixed what stopped it).
    func edited(now: ContinuousClock.Instant) {
        // A save that found the database busy or the server gone stays asked for: its retry
        // keeps its time.
        let retrying = pause?.retries == true ? pause : nil
        let retry = retrying == nil ? nil : deadline
        pause = retry == nil ? nil : retrying
        deadline = [autosaveDelay.map { now + $0 }, retry].compactMap { $0 }.min()
        noteChanges()
        if !isModified {
            deadline = nil
            pause = nil
        }
    }

    /// The server answers again: a save waiting for it is tried now, not at its deadline.
    func serverAnswers(now: ContinuousClock.Instant) {
        if case .unreachable? = pause { deadline = now }
    }

    /// Changes the autosave delay (nil: off), rescheduling what waits.
    func setAutosave(_ delay: Duration?, now: ContinuousClock.Instant) {
        autosaveDelay = delay
        if hasPersistentChanges, pause == nil { deadline = delay.map { now + $0 } } else if delay == nil { deadline = nil }
    }

    /// True when autosave should save now.
    func isDue(now: ContinuousClock.Instant) -> Bool {
        guard let deadline, now >= deadline, !inDoubt else { return false }
        return pause == nil || pause?.retries == true
    }

    /// Saves to disk. On failure every edit is kept; autosave pauses until the next edit (or,
    /// for a busy database or an unreachable server, tries again at a deadline of its own).
    @discardableResult
    func save(now: ContinuousClock.Instant, wallTime: Date) -> Outcome {
        defer { noteChanges() }
        guard hasPersistentChanges else {
            deadline = nil
            pause = nil
            // An undo whose choices left nothing to write is done all the same.
            if let writing { editor.recordWritten(writing) }
            writing = nil
            return .nothingToSave
        }
        do {
            let permanent: [ObjectID: ObjectID]
            if let writing { permanent = try editor.saveToStore(writing: writing) } else { permanent = try editor.saveToStore() }
            writing = nil
            if let id, let newID = permanent[id] { self.id = newID }
            deadline = nil
            pause = nil
            inDoubt = false
            savedAt = Self.timeOfDay(wallTime)
            return .saved
        } catch {
            switch error {
            case .validationFailed(let failures):
                pause = .invalid(failures)
                deadline = nil
                return .invalid(failures)
            case .conflicts(let conflicts):
                pause = .conflict(conflicts)
                deadline = nil
                return .conflict(conflicts)
            case .busy, .busyReading, .lockedInProcess:
                pause = .busy
                deadline = now + Self.busyRetry
                return .busy
            case .saveOutcomeUnknown:
                inDoubt = true
                pause = .failed(error.message)
                deadline = nil
                return .failed(error.message)
            case .serverUnreachable(let server, let reason):
                let attempts = if case .unreachable(let before)? = pause { before + 1 } else { 1 }
                pause = .unreachable(attempts: attempts)
                deadline = now + Self.unreachableRetry(after: attempts)
                return .unreachable(where: "\(server): \(reason)")
            default:
                pause = .failed(error.message)
                deadline = nil
                return .failed(error.message)
            }
        }
    }

    static func timeOfDay(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// Drops every pending change.
    func discard() {
        editor.rollback()
        writing = nil
        inDoubt = false
        isModified = false
        deadline = nil
        pause = nil
        if let id, id.isTemporary { self.id = nil }
    }
}
