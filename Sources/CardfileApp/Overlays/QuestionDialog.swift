import CardfileStore
import CardfileTerminal

/// A dialog that asks before something happens (leaving unsaved changes, deleting, quitting
/// while an import runs, choosing a relation); the button pressed goes to
/// ``CardfileApp/answer(_:button:now:)`` with the question.
struct QuestionDialog {
    var dialog: Dialog
    let question: Question
}

/// What a dialog asks.
enum Question {
    /// Unsaved changes in the form: save, discard or stay; then do `then`.
    case leaveForm(then: Leaving)
    case deleteRecord(ObjectID)
    /// An import or export is running: stop it, then quit.
    case stopTransferAndQuit
    /// Which table's records that reference this one to list (one button each).
    case chooseReferencing([Leaving])
    /// The file is gone and no copy holds the latest work: quit anyway?
    case quitWithFileGone
    /// A bulk edit (`:set`, `:delete`, or overwriting records changed since an undone one).
    case bulk(BulkRequest)
    /// A write typed on the SQL screen, counted and not yet run.
    case sqlWrite(SQLStatement)
    /// Records changed since the change Alt-U / Alt-R writes back: overwrite, leave, or nothing.
    case historyChangedSince(HistoryStep, table: String)
    /// `:index` on this column.
    case createIndex(table: String, column: String)
}

/// Where leaving a form goes.
enum Leaving: Equatable {
    case toList
    case quit
    /// The next (1) or previous (-1) record of the list.
    case step(Int)
    /// The record a foreign key points at, in a form stacked on this one.
    case follow(ObjectID)
    /// The list of `table`'s records that reference this one (`filter` selects them).
    case referencing(table: String, filter: String)
}
