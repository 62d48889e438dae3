import CardfileStore

/// The bulk changes (`:set`, `:delete`) that Alt-U undoes and Alt-R redoes in a table's list,
/// newest last, for each table.
///
/// Each stack holds the changes to apply as they are: an undo entry is a change's
/// ``BulkChange/reversed``, and a redo entry the reverse of what an undo wrote. A change holds
/// every record's values from before and after it, so a table keeps its last ``depth`` changes
/// only; a new change forgets what could be redone, as in any editor.
struct BulkHistory {
    static let depth = 20

    private var undos: [String: [BulkChange]] = [:]
    private var redos: [String: [BulkChange]] = [:]

    private static func key(_ table: String) -> String { table.lowercased() }

    /// A new bulk change was done just now: `undo` (its reverse) is the next undo. One that
    /// wrote no record (its marks matched none any more) changed nothing, and what could be
    /// redone stays.
    mutating func record(undo: BulkChange) {
        guard !undo.records.isEmpty else { return }
        Self.push(undo, onto: &undos)
        redos[Self.key(undo.table)] = nil
    }

    /// An undo was done (or a redo failed and is put back): `redo` is the next redo.
    mutating func undone(redo: BulkChange) { Self.push(redo, onto: &redos) }

    /// A redo was done (or an undo failed and is put back): `undo` is the next undo.
    mutating func redone(undo: BulkChange) { Self.push(undo, onto: &undos) }

    mutating func takeUndo(table: String) -> BulkChange? { undos[Self.key(table)]?.popLast() }

    mutating func takeRedo(table: String) -> BulkChange? { redos[Self.key(table)]?.popLast() }

    /// Adds records to the last redo (or undo) of the table: what a confirmed overwrite of
    /// records changed since also wrote. When that entry is not the same kind of change (the
    /// part written first made none), `change` becomes an entry of its own.
    mutating func extendLast(with change: BulkChange, redo: Bool) {
        // (Taken out, so the entry's records are not copied to be merged into.)
        var stacks = redo ? redos : undos
        if redo { redos = [:] } else { undos = [:] }
        let key = Self.key(change.table)
        if let last = stacks[key]?.indices.last, stacks[key]![last].kind == change.kind, stacks[key]![last].columns == change.columns,
           stacks[key]![last].isUndo == change.isUndo {
            stacks[key]![last].records.merge(change.records) { _, new in new }
        } else {
            Self.push(change, onto: &stacks)
        }
        if redo { redos = stacks } else { undos = stacks }
    }

    private static func push(_ change: BulkChange, onto stacks: inout [String: [BulkChange]]) {
        guard !change.records.isEmpty else { return }
        var stack = stacks[key(change.table)] ?? []
        stack.append(change)
        stacks[key(change.table)] = Array(stack.suffix(Self.depth))
    }
}
