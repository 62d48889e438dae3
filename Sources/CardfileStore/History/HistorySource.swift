/// What made a journaled change (see ``HistoryJournal``).
public enum HistorySource: String, Hashable, Sendable, CaseIterable {
    /// A record saved from its form (or deleted from a list, one record at a time).
    case form
    /// `:set` or `:delete` on marked records.
    case bulk
    /// An import of a CSV or JSON file.
    case `import`
    /// A statement run on the SQL screen.
    case sql
    /// `:undo` (Alt-U): what an earlier change wrote, put back.
    case undo
    /// Alt-R: an undone change written again.
    case redo
    /// Another program's change, merged into a record the editor was showing.
    case elsewhere

    /// How `:history` names it.
    public var words: String {
        switch self {
        case .form: "form"
        case .bulk: "bulk edit"
        case .import: "import"
        case .sql: "SQL"
        case .undo: "undo"
        case .redo: "redo"
        case .elsewhere: "changed elsewhere"
        }
    }
}

/// How a write is to be journaled, when the writer says more than its origin does.
package struct HistoryNote: Hashable, Sendable {
    package var source: HistorySource
    /// Entries that this write undoes (for `.undo`) or writes again (for `.redo`).
    package var undoing: [Int64] = []
    /// Writes of one action journaled apart (an import's batches) share a group, which
    /// `:undo` takes whole.
    package var group: String?
    /// False when the write is known to be too large to keep (an import of a large file):
    /// listed, its records not recorded at all (an engine's journal would record them, then
    /// drop them at its limit).
    package var keepsRecords = true

    package init(source: HistorySource, undoing: [Int64] = [], group: String? = nil, keepsRecords: Bool = true) {
        self.source = source
        self.undoing = undoing
        self.group = group
        self.keepsRecords = keepsRecords
    }

    /// True for a form's save, which a journal takes as the default: nothing to say first.
    package var isDefault: Bool { source == .form && undoing.isEmpty && group == nil && keepsRecords }
}
