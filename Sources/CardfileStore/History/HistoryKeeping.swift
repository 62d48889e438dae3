/// A journal of a store's writes, as `:history`, Alt-U and Alt-R read it: a SQLite file's
/// own (``HistoryJournal``, kept beside it in the user's state folder) or an engine's
/// (PostgreSQL's, kept on the server by `cardfile pg-setup`'s triggers and shared by the team).
///
/// Reads see every entry of a save that returned (``flush()`` first where entries are
/// written after their save).
public protocol HistoryKeeping: AnyObject, Sendable {
    /// Waits until every entry handed over so far is written.
    func flush()
    /// Why the journal last failed to keep an entry, in the words of what refused it (the
    /// database's), once: nil afterwards, and when it never failed.
    func takeProblem() -> String?
    /// The versions of a record, newest first: every kept change of it.
    func versions(of id: ObjectID) throws(StoreError) -> [RecordVersion]
    /// The entries (newest first), at most `limit`.
    func entries(limit: Int) throws(StoreError) -> [HistoryEntry]
    /// What `:undo` in `table`'s list would undo: the newest change of the table made here
    /// (by this user, on a shared journal) that is not undone, whole, with its changes
    /// inverted, newest record first. Nil when there is none.
    func nextUndo(table: String) throws(StoreError) -> HistoryStep?
    /// What Alt-R in `table`'s list would write again: the oldest undone change of the table
    /// when every change made after it is undone too. Nil when there is none.
    func nextRedo(table: String) throws(StoreError) -> HistoryStep?
    /// Why the journal keeps no changes of `table`, in a person's words; nil when it does.
    func whyNotKept(_ table: TableSchema) -> String?
}

extension HistoryKeeping {
    /// The newest 100 entries.
    public func entries() throws(StoreError) -> [HistoryEntry] { try entries(limit: 100) }
}

/// A journal an engine keeps itself, in the same transactions as the writes it records.
package protocol EngineJournal: HistoryKeeping {
    /// The most records one change keeps.
    var recordLimit: Int { get }
    /// Names the write transaction `session` is in (first in it, before anything is written)
    /// as `note` says: called for every write but a form's save, which is the default.
    /// Returns why the write will not be kept when the journal refused (the write goes on);
    /// the caller hands that to ``keepProblem(_:)`` once the write has committed.
    func begin(_ note: HistoryNote, in session: any EngineSession) throws -> String?
    /// Keeps `problem` for ``HistoryKeeping/takeProblem()``: a committed write was not kept.
    func keepProblem(_ problem: String)
    /// Journals an undo or redo that wrote nothing (every record already as it leaves them):
    /// its entries count as undone (or redone) all the same.
    func markWithoutWriting(_ note: HistoryNote, lockWait: Duration) throws
}
