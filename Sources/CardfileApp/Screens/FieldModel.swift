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

    var name: String { column.name }
    var text: String { isMultiline ? area.text : field.text }

    /// The value the field stands for now.
    var value: Value {
        isNull ? .null : ValueText.value(from: text, affinity: column.affinity, original: original)
    }

    /// Shows `value` after a save or a reload: a field whose text already reads that value
    /// keeps its text, cursor and scroll (the person typing goes on where they were); any
    /// other is shown afresh (``show(_:)``), so the field shows what is stored.
    mutating func refresh(to value: Value) {
        let text = ValueText.editable(value)
        guard isNull == value.isNull, self.text == text, isMultiline == text.contains("\n") else { return show(value) }
        original = value
    }

    /// Shows `value`, the cursor at the end of the text.
    mutating func show(_ value: Value) {
        original = value
        isNull = value.isNull
        if case .blob = value { readOnlyReason = readOnlyReason ?? "a blob is shown by its size and first bytes, not edited" }
        let text = ValueText.editable(value)
        isMultiline = text.contains("\n")
        field = TextFieldState(text: isMultiline ? "" : text)
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

    /// Lines the field takes on screen.
    var height: Int {
        let body = isMultiline ? min(6, max(2, area.text.split(separator: "\n", omittingEmptySubsequences: false).count)) : 1
        return body + (message != nil || changedElsewhere ? 1 : 0)
    }
}
