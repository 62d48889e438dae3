import CardfileStore
import CardfileTerminal

/// One field of a form: the column it edits and what the person sees and types.
struct FieldModel {
    let column: ColumnDescription
    var field = TextFieldState()
    var area = TextAreaState()
    /// Shown as a text area: the text holds line breaks.
    var isMultiline = false
    /// The field is NULL (drawn as ∅; typing replaces it).
    var isNull = false
    /// Why the field cannot be edited (a stored record's key, a generated column, a blob).
    var readOnlyReason: String?
    /// A validation failure for this field, shown under it.
    var message: String?
    var isChanged = false
    var changedElsewhere = false
    /// The value stored elsewhere now, when it moved under the person's edit.
    var theirs: Value?
    /// The value as loaded, which decides how text becomes a value in an untyped column.
    var original: Value = .null
    /// The stored value the form last showed (at load, after a save, or on news from
    /// elsewhere); undo does not move it. A first edit starts from it (see ``EditSession``).
    var shown: Value = .null

    var name: String { column.name }
    var text: String { isMultiline ? area.text : field.text }

    /// The value the field stands for now.
    var value: Value {
        isNull ? .null : ValueText.value(from: text, affinity: column.affinity, original: original)
    }

    /// Shows `value` after a save or a reload: a field whose text already reads that value
    /// keeps its text, cursor and scroll (the person typing goes on where they were); any
    /// other is shown afresh (``show(_:width:)``), so the field shows what is stored.
    mutating func refresh(to value: Value, width: Int) {
        let text = ValueText.editable(value)
        guard isNull == value.isNull, self.text == text, isMultiline == text.contains("\n") else { return show(value, width: width) }
        original = value
        shown = value
    }

    /// Shows `value` in a field `width` cells wide, the cursor at the end of the text, or at
    /// its start when the text is longer than its rows show (so it is read from the start) or
    /// cannot be edited (nothing is typed at its end).
    mutating func show(_ value: Value, width: Int) {
        original = value
        shown = value
        isNull = value.isNull
        if case .blob = value { readOnlyReason = readOnlyReason ?? "a blob is shown by its size and first bytes, not edited" }
        let text = ValueText.editable(value)
        isMultiline = text.contains("\n")
        field = TextFieldState(text: isMultiline ? "" : text)
        if !isMultiline, readOnlyReason != nil || !field.fits(width: width, rows: Self.wrapRows) { field.moveCursor(to: 0) }
        area = TextAreaState(text: isMultiline ? text : "")
        area.moveCursor(to: text.count)
    }

    /// Turns a one-line field into a text area (a line break was typed or pasted).
    mutating func becomeMultiline() {
        guard !isMultiline else { return }
        let text = field.text
        let cursor = field.cursor
        isMultiline = true
        area = TextAreaState(text: text)
        area.moveCursor(to: cursor)
    }

    /// Rows a one-line value wraps over at most; a longer one scrolls within them, and the
    /// line under it says how long it is.
    static let wrapRows = 4

    /// Rows the value takes in a field `width` cells wide (a one-line value wraps).
    func valueRows(width: Int) -> Int {
        if isMultiline { return min(6, max(2, area.text.split(separator: "\n", omittingEmptySubsequences: false).count)) }
        if isNull { return 1 }
        return min(Self.wrapRows, field.rowsNeeded(width: width, limit: Self.wrapRows))
    }

    /// The line under a one-line value too long for its rows: its length, and how to read it.
    func lengthLine(width: Int) -> String? {
        guard !isMultiline, !isNull, field.rowsNeeded(width: width, limit: Self.wrapRows) > Self.wrapRows else { return nil }
        return "⋯ \(ValueText.count(field.count)) characters: Home and End go to its ends, Ctrl-O edits it in your editor"
    }

    /// Lines the field takes on screen in a field `width` cells wide: its rows, and a line
    /// under them for a message, a change made elsewhere or the length of a long value.
    func height(width: Int) -> Int {
        valueRows(width: width) + (message != nil || changedElsewhere || lengthLine(width: width) != nil ? 1 : 0)
    }
}
