import Foundation

/// One journaled change: one write transaction of Cardfile's (or, for
/// ``HistorySource/elsewhere``, another program's change merged into what the editor showed).
public struct HistoryEntry: Hashable, Sendable {
    public let id: Int64
    public let time: Date
    public let source: HistorySource
    /// How many records it changed.
    public let recordCount: Int
    /// False when the change was too large for the journal's cap (or not all of it could be
    /// named): its records were not kept, so it can be listed but not undone.
    public let isComplete: Bool
    /// Who made it, on a journal a team shares (the server's user name); nil on a file's.
    public let author: String?

    public init(id: Int64, time: Date, source: HistorySource, recordCount: Int, isComplete: Bool, author: String? = nil) {
        self.id = id
        self.time = time
        self.source = source
        self.recordCount = recordCount
        self.isComplete = isComplete
        self.author = author
    }
}

/// A record's version as `:history` lists it: the entry that made it and what it did to the
/// record.
public struct RecordVersion: Hashable, Sendable {
    public let entry: HistoryEntry
    public let change: RecordedChange

    public init(entry: HistoryEntry, change: RecordedChange) {
        self.entry = entry
        self.change = change
    }
}

/// What `:undo` or Alt-R would write: the entries it undoes (or writes again) and their
/// changes, already turned the way to write them.
public struct HistoryStep: Hashable, Sendable {
    /// The entries, oldest first (an import's batches are one step).
    public let entries: [HistoryEntry]
    /// The record changes to write, in the order to write them.
    public let changes: [RecordedChange]
    /// True for a redo: the entries' own changes written again.
    public let isRedo: Bool

    public init(entries: [HistoryEntry], changes: [RecordedChange], isRedo: Bool) {
        self.entries = entries
        self.changes = changes
        self.isRedo = isRedo
    }

    /// False when an entry's records were not kept (see ``HistoryEntry/isComplete``).
    public var isComplete: Bool { entries.allSatisfy(\.isComplete) }
    /// What made the newest entry.
    public var source: HistorySource { entries.last?.source ?? .form }
    public var time: Date { entries.last?.time ?? .distantPast }
    public var recordCount: Int { entries.reduce(0) { $0 + $1.recordCount } }
}
