/// A form's undo and redo: every field edit, in order, across fields.
///
/// A step keeps the field as it was before and after the edit (text, cursor, NULL), so undo
/// puts back exactly what was on screen. Typing runs coalesce: characters typed one after
/// another into one field are one step, and so are deletions; moving the cursor, another field,
/// another kind of edit or a save ends the run. Setting NULL, a paste and an `$EDITOR` round
/// trip are always steps of their own.
///
/// The history belongs to one record's form and goes with it: undo never reaches another
/// record. It outlives saves, so undoing past a save makes the form modified again.
struct FormHistory {
    /// What an edit was, for coalescing.
    enum Kind: Equatable {
        case typing, deleting
        /// Never merged with a neighbour (NULL, a paste, a line break, `$EDITOR`, the picker).
        case single
    }

    struct Step {
        let field: String
        var before: FieldModel
        var after: FieldModel
        let kind: Kind
    }

    private(set) var done: [Step] = []
    private(set) var undone: [Step] = []
    /// The field and kind of the open typing run; nil when the next edit starts a new step.
    private var run: (field: String, kind: Kind)?
    /// Steps kept; the oldest go first (a long session of typing stays bounded).
    static let limit = 1_000

    var canUndo: Bool { !done.isEmpty }
    var canRedo: Bool { !undone.isEmpty }

    /// Records an edit of `field` from `before` to `after`. A new edit clears what was undone.
    mutating func record(field: String, before: FieldModel, after: FieldModel, kind: Kind) {
        undone.removeAll()
        if kind != .single, let run, run.field == field, run.kind == kind, !done.isEmpty {
            done[done.count - 1].after = after
            return
        }
        done.append(Step(field: field, before: before, after: after, kind: kind))
        if done.count > Self.limit { done.removeFirst(done.count - Self.limit) }
        run = kind == .single ? nil : (field, kind)
    }

    /// Ends the typing run: the next edit is a step of its own.
    mutating func endRun() { run = nil }

    /// The step to take back, moved to the redo side.
    mutating func undo() -> Step? {
        run = nil
        guard let step = done.popLast() else { return nil }
        undone.append(step)
        return step
    }

    /// The step to do again, moved back to the undo side.
    mutating func redo() -> Step? {
        run = nil
        guard let step = undone.popLast() else { return nil }
        done.append(step)
        return step
    }
}
