import CardfileTerminal

/// The key maps of the app's screens and of the overlays that cover them (prompts, dialogs,
/// the help), each ending with the keys that work anywhere. Key handling, the help screen and
/// the README's tables all read these.
public enum KeyMaps {
    private static let anywhere: [KeyBinding<AppAction>] = [
        KeyBinding([KeyEvent(.function(1))], .help, help: "Show or hide the help", section: "Anywhere"),
        KeyBinding([.control("q")], .quit, help: "Quit (asks when changes would be lost)", section: "Anywhere"),
        KeyBinding([.control("l")], .redraw, help: "Redraw the screen", section: "Anywhere"),
        KeyBinding([.control("z")], .suspend, help: "Suspend to the shell", section: "Anywhere"),
    ]

    /// The tables screen.
    public static let tables = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.up), .char("k")], .up, help: "Previous table", section: "Tables"),
        KeyBinding([KeyEvent(.down), .char("j")], .down, help: "Next table", section: "Tables"),
        KeyBinding([KeyEvent(.pageUp)], .pageUp, help: "Previous page", section: "Tables"),
        KeyBinding([KeyEvent(.pageDown)], .pageDown, help: "Next page", section: "Tables"),
        KeyBinding([KeyEvent(.home), .char("g")], .first, help: "First table", section: "Tables"),
        KeyBinding([KeyEvent(.end), .char("G")], .last, help: "Last table", section: "Tables"),
        KeyBinding([KeyEvent(.enter)], .open, help: "Open the table", section: "Tables"),
        KeyBinding([.char("/")], .filter, help: "Show only the tables whose names contain what you type (Esc shows all)", section: "Tables"),
        KeyBinding([.char("i")], .importFile, help: "Import a file into the table (asks for its name)", section: "Tables"),
        KeyBinding([.char("x")], .exportFile, help: "Export the table to a file (asks for its name)", section: "Tables"),
        KeyBinding([.char("R")], .report, help: "The last import's or export's report", section: "Tables"),
        KeyBinding([.char("Q")], .sqlScreen, help: "SQL: run a statement, its result as a list (:sql)", section: "Tables"),
        KeyBinding([.char("q")], .back, help: "Quit", section: "Tables"),
        KeyBinding([.char(":")], .commandLine, help: "Command line (:help lists the commands)", section: "Tables"),
        KeyBinding([.char("?")], .help, help: "Show or hide the help", section: "Tables"),
    ] + anywhere)

    /// The list of a table's records.
    public static let list = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.up), .char("k")], .up, help: "Previous record", section: "List"),
        KeyBinding([KeyEvent(.down), .char("j")], .down, help: "Next record", section: "List"),
        KeyBinding([KeyEvent(.pageUp)], .pageUp, help: "Previous page", section: "List"),
        KeyBinding([KeyEvent(.pageDown)], .pageDown, help: "Next page", section: "List"),
        KeyBinding([KeyEvent(.home), .char("g")], .first, help: "First record", section: "List"),
        KeyBinding([KeyEvent(.end), .char("G")], .last, help: "Last record", section: "List"),
        KeyBinding([KeyEvent(.left), .char("h")], .left, help: "Previous column (scrolls sideways)", section: "List"),
        KeyBinding([KeyEvent(.right), .char("l")], .right, help: "Next column (scrolls sideways)", section: "List"),
        KeyBinding([.char("[")], .sortAscending, help: "Sort by this column, ascending (a click on its header too)", section: "List"),
        KeyBinding([.char("]")], .sortDescending, help: "Sort by this column, descending", section: "List"),
        KeyBinding([.char("F")], .frequencyTable, help: "This column's frequency table (of the marked records when there are marks)", section: "List"),
        KeyBinding([.char("I")], .describeColumn, help: "This column's statistics (of the marked records when there are marks)", section: "List"),
        KeyBinding([.char(" ")], .toggleMark, help: "Mark or unmark the record and go down (:select marks many)", section: "List"),
        KeyBinding([.alt("u")], .undo, help: "Undo the table's last saved change (form, :set, import…), even after a restart", section: "List"),
        KeyBinding([.alt("r")], .redo, help: "Redo: put back what the last Alt-U changed", section: "List"),
        KeyBinding([.char("{")], .addSortAscending, help: "Add this column as the next sort key, ascending", section: "List"),
        KeyBinding([.char("}")], .addSortDescending, help: "Add this column as the next sort key, descending", section: "List"),
        KeyBinding([.char("/")], .filter, help: "Filter (Enter keeps it, Esc clears it)", section: "List"),
        KeyBinding([.char("-")], .hideColumn, help: "Hide the focused column (:columns chooses and orders them)", section: "List"),
        KeyBinding([.char("+")], .showColumns, help: "Show every column again", section: "List"),
        KeyBinding([.char("P")], .pinKey, help: "Pin the key's columns at the left, or unpin them", section: "List"),
        KeyBinding([.char("_")], .toggleWidth, help: "Widen the focused column to its longest value shown, or back", section: "List"),
        KeyBinding([.char("<")], .narrowColumn, help: "Narrow the focused column", section: "List"),
        KeyBinding([.char(">")], .widenColumn, help: "Widen the focused column", section: "List"),
        KeyBinding([.char("f")], .find, help: "Find: select the next record matching a search, without filtering", section: "List"),
        KeyBinding([.char("n")], .findNext, help: "Next record matching the search", section: "List"),
        KeyBinding([.char("N")], .findPrevious, help: "Previous record matching the search", section: "List"),
        KeyBinding([.char("y")], .copyCell, help: "Copy the focused cell to the clipboard (OSC 52)", section: "List"),
        KeyBinding([.char("Y")], .copyRecord, help: "Copy the record (or the marked ones) as tab-separated values", section: "List"),
        KeyBinding([.alt("y")], .copyRecordJSON, help: "Copy the record (or the marked ones) as JSON", section: "List"),
        KeyBinding([KeyEvent(.enter)], .open, help: "Open the record's form", section: "List"),
        KeyBinding([.char("a")], .add, help: "Add a record", section: "List"),
        KeyBinding([.char("d")], .delete, help: "Delete the record (asks first)", section: "List"),
        KeyBinding([.char("i")], .importFile, help: "Import a file into this table, in the background (asks for its name)", section: "List"),
        KeyBinding([.char("x")], .exportFile, help: "Export the list as shown (filter, sort, marks) to a file", section: "List"),
        KeyBinding([.char("R")], .report, help: "The last import's or export's report", section: "List"),
        KeyBinding([.char("Q")], .sqlScreen, help: "SQL: run a statement, its result as a list (:sql)", section: "List"),
        KeyBinding([.char("q")], .back, help: "Back to the tables (quits at the top)", section: "List"),
        KeyBinding([KeyEvent(.escape)], .leave, help: "Back to the form (Ctrl-R, Ctrl-P) or the SQL the list was opened from", section: "List"),
        KeyBinding([.char(":")], .commandLine, help: "Command line (:123 goes to row 123; :help lists the commands)", section: "List"),
        KeyBinding([.char("?")], .help, help: "Show or hide the help", section: "List"),
    ] + anywhere)

    /// A record's form.
    public static let form = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.tab), KeyEvent(.down)], .nextField, help: "Next field (↓ from a text area's last line)", section: "Form"),
        KeyBinding([KeyEvent(.backTab), KeyEvent(.up)], .previousField, help: "Previous field (↑ from a text area's first line)", section: "Form"),
        KeyBinding([.control("s")], .save, help: "Save the record", section: "Form"),
        KeyBinding([KeyEvent(.escape)], .leave, help: "Back to the list (asks when changes would be lost)", section: "Form"),
        KeyBinding([KeyEvent(.pageDown)], .nextRecord, help: "Next record of the list", section: "Form"),
        KeyBinding([KeyEvent(.pageUp)], .previousRecord, help: "Previous record of the list", section: "Form"),
        KeyBinding([.alt("u"), .control("_")], .undo, help: "Undo the last edit of this record (Ctrl-_ is Ctrl-/ in most terminals; Ctrl-Z suspends)", section: "Form"),
        KeyBinding([.alt("r"), .control("y")], .redo, help: "Redo what was undone", section: "Form"),
        KeyBinding([.control("n")], .setNull, help: "Set the field to NULL (typing replaces it)", section: "Form"),
        KeyBinding([.control("g")], .followReference, help: "Go to the record this field references (a form stacked on this one; Esc comes back)", section: "Form"),
        KeyBinding([.control("p")], .pickReference, help: "Pick the referenced record from its table's list (Enter chooses, Esc cancels)", section: "Form"),
        KeyBinding([.control("r")], .listReferencing, help: "List the records that reference this one", section: "Form"),
        KeyBinding([.control("o")], .editExternally, help: "Edit the field in $VISUAL or $EDITOR (vi when neither is set)", section: "Form"),
        KeyBinding([KeyEvent(.enter, modifiers: .alt)], .newLine, help: "Line break in a text field (makes it a text area)", section: "Form"),
        KeyBinding([KeyEvent(.function(2)), .alt(":")], .commandLine, help: "Command line (:help lists the commands)", section: "Form"),
    ] + textEditing + anywhere)

    /// Keys a text field handles itself: in forms and in every prompt.
    private static let textEditing: [KeyBinding<AppAction>] = [
        KeyBinding([KeyEvent(.left), KeyEvent(.right)], .editText, help: "Move in the text", section: "Editing text"),
        KeyBinding([.alt("b"), .alt("f"), KeyEvent(.left, modifiers: .control), KeyEvent(.right, modifiers: .control)], .editText, help: "Back or forward by word", section: "Editing text"),
        KeyBinding([KeyEvent(.home), KeyEvent(.end), .control("a"), .control("e")], .editText, help: "Start or end of the line", section: "Editing text"),
        KeyBinding([KeyEvent(.backspace), KeyEvent(.delete)], .editText, help: "Delete a character", section: "Editing text"),
        KeyBinding([.control("w"), .control("u"), .control("k")], .editText, help: "Delete a word, to the start, to the end", section: "Editing text"),
    ]

    /// What works over every prompt and dialog.
    private static let overAnything: [KeyBinding<AppAction>] = [
        KeyBinding([KeyEvent(.function(1))], .help, help: "Show the help (Esc comes back)", section: "Anywhere"),
        KeyBinding([.control("l")], .redraw, help: "Redraw the screen", section: "Anywhere"),
        KeyBinding([.control("z")], .suspend, help: "Suspend to the shell", section: "Anywhere"),
    ]

    /// The list's filter being typed (`/`); the list follows as it is typed.
    public static let filter = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.enter)], .accept, help: "Keep the filter and go back to the list", section: "Filter prompt"),
        KeyBinding([KeyEvent(.escape)], .cancel, help: "Clear the filter: every record again", section: "Filter prompt"),
        KeyBinding([.control("q")], .quit, help: "Quit, keeping the filter typed so far", section: "Filter prompt"),
    ] + textEditing + overAnything)

    /// The tables screen's filter being typed (`/`); the tables follow as it is typed.
    public static let tablesFilter = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.enter)], .accept, help: "Keep the filter and go back to the tables", section: "Tables filter prompt"),
        KeyBinding([KeyEvent(.escape)], .cancel, help: "Clear the filter: every table again", section: "Tables filter prompt"),
        KeyBinding([.control("q")], .quit, help: "Quit", section: "Tables filter prompt"),
    ] + textEditing + overAnything)

    /// A search being typed (`f`).
    public static let find = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.enter)], .accept, help: "Select the next record matching it (n and N repeat it)", section: "Find prompt"),
        KeyBinding([KeyEvent(.escape)], .cancel, help: "Close without finding", section: "Find prompt"),
        KeyBinding([.control("q")], .quit, help: "Quit", section: "Find prompt"),
    ] + textEditing + overAnything)

    /// The `:` command line.
    public static let commandLine = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.enter)], .accept, help: "Run the command", section: "Command line"),
        KeyBinding([KeyEvent(.escape)], .cancel, help: "Close without running anything", section: "Command line"),
        KeyBinding([KeyEvent(.tab)], .complete, help: "Complete a command, theme, option or file name", section: "Command line"),
        KeyBinding([KeyEvent(.up), KeyEvent(.down)], .editText, help: "Earlier and later commands", section: "Command line"),
        KeyBinding([.control("q")], .quit, help: "Quit", section: "Command line"),
    ] + textEditing + overAnything)

    /// A question (unsaved changes, a delete, quitting while an import runs, which relation).
    public static let dialog = KeyMap<AppAction>([
        KeyBinding(described: "y, n, s, d, c…", .pressHotkey, help: "Press the button with that letter", section: "Questions"),
        KeyBinding([KeyEvent(.left), KeyEvent(.right), KeyEvent(.tab), KeyEvent(.backTab)], .editText, help: "Choose a button", section: "Questions"),
        KeyBinding([KeyEvent(.enter), .char(" ")], .accept, help: "Press the chosen button", section: "Questions"),
        KeyBinding([KeyEvent(.escape)], .cancel, help: "Cancel: the same as the last button", section: "Questions"),
    ] + overAnything)

    /// The help and text panels (a report, a command's options).
    public static let reading = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.up)], .up, help: "Scroll up", section: "Help and reports"),
        KeyBinding([KeyEvent(.down)], .down, help: "Scroll down", section: "Help and reports"),
        KeyBinding([KeyEvent(.pageUp)], .pageUp, help: "Previous page", section: "Help and reports"),
        KeyBinding([KeyEvent(.pageDown)], .pageDown, help: "Next page", section: "Help and reports"),
        KeyBinding(described: "Esc, F1, any other key", .close, help: "Close", section: "Help and reports"),
        KeyBinding([.control("q")], .quit, help: "Quit", section: "Help and reports"),
    ])

    /// A column's frequency table (`F`).
    public static let frequencies = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.up), .char("k")], .up, help: "Previous value", section: "Frequency table"),
        KeyBinding([KeyEvent(.down), .char("j")], .down, help: "Next value", section: "Frequency table"),
        KeyBinding([KeyEvent(.pageUp)], .pageUp, help: "Previous page of values", section: "Frequency table"),
        KeyBinding([KeyEvent(.pageDown)], .pageDown, help: "Next page of values", section: "Frequency table"),
        KeyBinding([KeyEvent(.home), .char("g")], .first, help: "The most frequent value", section: "Frequency table"),
        KeyBinding([KeyEvent(.end), .char("G")], .last, help: "The least frequent value listed", section: "Frequency table"),
        KeyBinding([KeyEvent(.enter)], .open, help: "Filter the list to the value (within its filter)", section: "Frequency table"),
        KeyBinding([KeyEvent(.escape), .char("q")], .leave, help: "Back to the list", section: "Frequency table"),
    ] + anywhere)

    /// A record's saved versions (`:history`).
    public static let history = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.up), .char("k")], .up, help: "Newer version", section: "History"),
        KeyBinding([KeyEvent(.down), .char("j")], .down, help: "Older version", section: "History"),
        KeyBinding([KeyEvent(.pageUp)], .pageUp, help: "A page of newer versions", section: "History"),
        KeyBinding([KeyEvent(.pageDown)], .pageDown, help: "A page of older versions", section: "History"),
        KeyBinding([KeyEvent(.home), .char("g")], .first, help: "The newest version", section: "History"),
        KeyBinding([KeyEvent(.end), .char("G")], .last, help: "The oldest: the record as first seen", section: "History"),
        KeyBinding([KeyEvent(.enter)], .open, help: "Put the version's values in the record's form as edits (Ctrl-S saves them)", section: "History"),
        KeyBinding([KeyEvent(.escape), .char("q")], .leave, help: "Close", section: "History"),
    ] + anywhere)

    /// A table's schema (`:schema`).
    public static let schema = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.up), .char("k")], .up, help: "Previous line naming a table", section: "Schema"),
        KeyBinding([KeyEvent(.down), .char("j")], .down, help: "Next line naming a table", section: "Schema"),
        KeyBinding([KeyEvent(.pageUp)], .pageUp, help: "Scroll up a page", section: "Schema"),
        KeyBinding([KeyEvent(.pageDown)], .pageDown, help: "Scroll down a page", section: "Schema"),
        KeyBinding([KeyEvent(.enter)], .open, help: "Open the table the line names", section: "Schema"),
        KeyBinding([KeyEvent(.escape), .char("q")], .leave, help: "Close", section: "Schema"),
    ] + anywhere)

    /// The SQL screen (`:sql`, `Q`): a statement in a multi-line editor.
    public static let sql = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.function(5)), .control("e")], .runQuery, help: "Run the statement: a result opens as a list, a write says what it will change and asks", section: "SQL"),
        KeyBinding([KeyEvent(.escape)], .leave, help: "Cancel the statement running; else back to where :sql was typed", section: "SQL"),
        KeyBinding([KeyEvent(.up)], .up, help: "A line up; on the first line, the statement run before (per database)", section: "SQL"),
        KeyBinding([KeyEvent(.down)], .down, help: "A line down; on the last line, the statement run after", section: "SQL"),
        KeyBinding([KeyEvent(.tab)], .complete, help: "Complete a table's or column's name", section: "SQL"),
        KeyBinding([.control("o")], .editExternally, help: "Edit the statement in $VISUAL or $EDITOR (vi when neither is set)", section: "SQL"),
        KeyBinding([KeyEvent(.enter)], .editText, help: "A new line", section: "SQL"),
        KeyBinding([KeyEvent(.left), KeyEvent(.right)], .editText, help: "Move in the text", section: "Editing text"),
        KeyBinding([.alt("b"), .alt("f"), KeyEvent(.left, modifiers: .control), KeyEvent(.right, modifiers: .control)], .editText, help: "Back or forward by word", section: "Editing text"),
        KeyBinding([KeyEvent(.home), KeyEvent(.end), .control("a")], .editText, help: "Start or end of the line", section: "Editing text"),
        KeyBinding([KeyEvent(.pageUp), KeyEvent(.pageDown)], .editText, help: "A page up or down", section: "Editing text"),
        KeyBinding([KeyEvent(.backspace), KeyEvent(.delete)], .editText, help: "Delete a character", section: "Editing text"),
        KeyBinding([.control("u"), .control("k")], .editText, help: "Delete to the start or the end of the line", section: "Editing text"),
    ] + anywhere)

    /// The conflict dialog: a save met changes made elsewhere.
    public static let conflict = KeyMap<AppAction>([
        KeyBinding([KeyEvent(.up), .char("k")], .up, help: "Previous field changed on both sides", section: "Conflict"),
        KeyBinding([KeyEvent(.down), .char("j")], .down, help: "Next field changed on both sides", section: "Conflict"),
        KeyBinding([KeyEvent(.left), .char("h")], .chooseLeft, help: "Choose Original / Mine / Theirs for the field (←)", section: "Conflict"),
        KeyBinding([KeyEvent(.right), .char("l")], .chooseRight, help: "Choose Original / Mine / Theirs for the field (→)", section: "Conflict"),
        KeyBinding([KeyEvent(.enter)], .saveChoices, help: "Save with these choices", section: "Conflict"),
        KeyBinding([.char("m")], .mergeMine, help: "Merge: my edited fields win, every other field takes theirs", section: "Conflict"),
        KeyBinding([.char("K")], .keepMine, help: "Keep mine: my whole record is written", section: "Conflict"),
        KeyBinding([.char("t")], .takeTheirs, help: "Take theirs: drop my changes (or accept their deletion)", section: "Conflict"),
        KeyBinding([.char("r")], .restore, help: "Restore a record deleted elsewhere, with my values", section: "Conflict"),
        KeyBinding([KeyEvent(.escape)], .leave, help: "Back to the form: nothing written, edits kept", section: "Conflict"),
    ] + anywhere)

    /// Every map with its title, for the README and `cardfile keys`.
    public static let all: [(title: String, map: KeyMap<AppAction>)] = [
        ("Tables", tables), ("List", list), ("Form", form), ("Conflict", conflict), ("SQL", sql),
        ("Filter prompt", filter), ("Tables filter prompt", tablesFilter), ("Find prompt", find), ("Command line", commandLine), ("Questions", dialog), ("Help and reports", reading), ("Frequency table", frequencies), ("Schema", schema), ("History", history),
    ]

    /// The README's key tables: one Markdown table per screen, then the `:` commands.
    public static func markdown() -> String {
        (all.map { "### \($0.title)\n\n\($0.map.markdownTable())" } + ["### Commands (type `:` first)\n\n" + CommandLineCommands.markdownTable()])
            .joined(separator: "\n\n")
    }
}
