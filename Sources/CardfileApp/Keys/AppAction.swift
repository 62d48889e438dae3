/// Everything a key can ask the app to do. Each screen's key map binds a subset; the help
/// screen and the README's key tables are generated from those maps.
public enum AppAction: Hashable, Sendable {
    // Anywhere
    case help, quit, redraw, suspend, commandLine
    // Imports and exports (the tables and the list)
    case importFile, exportFile, report
    // Lists of tables and records
    case up, down, pageUp, pageDown, first, last, open, back
    // Records
    case left, right, sortAscending, sortDescending, addSortAscending, addSortDescending, filter, add, delete
    case find, findNext, findPrevious, copyCell, copyRecord, copyRecordJSON, hideColumn, showColumns, pinKey
    case toggleWidth, narrowColumn, widenColumn, toggleMark, describeColumn, frequencyTable
    // SQL
    case sqlScreen, runQuery
    // Forms
    case nextField, previousField, save, leave, nextRecord, previousRecord, setNull, newLine, undo, redo, editExternally
    case followReference, pickReference, listReferencing
    /// A key the focused text field handles itself (listed in the help, not intercepted).
    case editText
    // The conflict dialog
    case chooseLeft, chooseRight, saveChoices, mergeMine, keepMine, takeTheirs, restore
    // Overlays: prompts, dialogs, the help and reports
    /// Enter in a prompt or dialog: run, find, keep, press the chosen button.
    case accept
    /// Esc in a prompt or dialog: leave it (each says what that undoes).
    case cancel
    /// Close the help or a report.
    case close
    /// Tab on the command line.
    case complete
    /// A dialog's button letter (the dialog reads the letter itself).
    case pressHotkey
}
