import CardfileStore
import CardfileTerminal
import Foundation

/// A record's form: every column a labelled, typed field, edited in the session's editor
/// context. Keys the form does not handle itself (save, leave, next record…) go back to the
/// app as actions.
final class FormScreen {
    let session: EditSession
    private(set) var fields: [FieldModel]
    private(set) var focus = 0 {
        didSet { keepFocusVisible() }
    }
    /// The first field shown, kept so that moving the focus scrolls only when it must.
    private var scroll = 0
    /// Lines the fields have on screen (the app sets it on opening and on a resize); 0 until known.
    var visibleHeight = 0 {
        didSet { keepFocusVisible() }
    }
    /// The form's width in cells (the app sets it on opening and on a resize): long one-line
    /// values wrap to the values' column.
    var areaWidth: Int {
        didSet { keepFocusVisible() }
    }
    /// Why nothing here can be edited (the database is read-only); nil when it can.
    let readOnly: String?
    /// Undo and redo of this record's edits.
    private(set) var history = FormHistory()

    enum Outcome: Equatable {
        /// The key was handled here.
        case handled
        /// The app handles this action.
        case action(AppAction)
        /// The edit was refused; the message says why.
        case refused(String)
        /// Handled; the message says what happened (undo and redo name the field).
        case said(String)
    }

    /// The fields that reference another table, by name.
    let references: [String: Reference]
    /// What each referencing field shows beside its value, and the value it was looked up
    /// for: looked up off the loop (``takeLabelRequests()``), it is drawn only while the field
    /// holds that value, so a label never names the record of a value no longer there.
    private(set) var labels: [String: (value: Value, label: Reference.Label)] = [:]
    /// Referencing fields whose label must be looked up again (their value, or what it
    /// references, may have changed).
    private var staleLabels: Set<String> = []
    /// The record's row was deleted elsewhere while it was edited here; kept up to date with
    /// the marks, so drawing asks the store nothing.
    private(set) var isDeletedElsewhere = false

    init(session: EditSession, readOnly: String?, schema: DatabaseSchema, areaWidth: Int = 80) {
        self.session = session
        self.areaWidth = areaWidth
        self.readOnly = readOnly
        references = Reference.all(of: session.table, in: schema)
        let keyColumns = Set(session.table.primaryKey.columnNames)
        let view = session.table.view
        fields = session.table.columns.filter { !$0.isHidden }.map { column in
            var field = FieldModel(column: column)
            if column.generation != .none { field.readOnlyReason = "computed by the database" }
            if session.id != nil, let view, view.update != .none, !view.canUpdate(column.name) {
                field.readOnlyReason = "no INSTEAD OF UPDATE trigger of the view covers it"
            }
            if session.id != nil, keyColumns.contains(column.name) { field.readOnlyReason = "the record's key" }
            return field
        }
        reload()
        // The focus starts on the first field a person fills in: not a key the database
        // assigns (an INTEGER PRIMARY KEY of a new record), not a read-only one.
        let assigned: String? = if case .rowidAlias(let column) = session.table.primaryKey { column } else { nil }
        focus = fields.firstIndex { $0.readOnlyReason == nil && $0.name != assigned } ?? fields.firstIndex { $0.readOnlyReason == nil } ?? 0
    }

    var title: String {
        guard let id = session.id, !id.isTemporary else { return "\(session.table.name) › new record" }
        // A row without a key is named by its whole content: no title to read.
        guard session.table.isIdentifiable else { return "\(session.table.name) › a row without a key" }
        let key = id.primaryKeyValues?.map(\.description).joined(separator: "/") ?? ""
        return "\(session.table.name) › \(key)"
    }

    /// The record for the status bar: `record 12`, `new record`.
    var recordText: String {
        guard let id = session.id, !id.isTemporary else { return "new record" }
        guard session.table.isIdentifiable, let key = id.primaryKeyValues else { return "a row without a key" }
        return "record " + key.map(\.description).joined(separator: "/")
    }

    /// Shows the editor's values (after opening, saving or discarding), keeping the focus, and
    /// the text, cursor and scroll of every field whose value did not change.
    func reload() {
        session.noteChanges()
        let (record, gone) = session.lookUp()
        isDeletedElsewhere = record?.isDeletedElsewhere ?? gone
        for index in fields.indices {
            let name = fields[index].name
            fields[index].refresh(to: record?[name] ?? .null, width: valueWidth)
            fields[index].isChanged = record?.changedFields.contains(name) ?? false
            fields[index].changedElsewhere = record?.changedElsewhere.contains(name) ?? false
            fields[index].message = nil
        }
        refreshLabels()
        keepFocusVisible()
    }

    /// Has the records the referencing fields point at named again (after opening, a save, a
    /// change made elsewhere, or coming back from another form).
    func refreshLabels() {
        staleLabels.formUnion(references.keys)
    }

    /// The labels to look up now, each for the field's current value: the app looks them up
    /// in the editor context off the loop and hands each back through ``take(_:for:lookedUpFor:)``.
    /// A NULL references nothing: its label goes at once.
    func takeLabelRequests() -> [(field: String, value: Value, reference: Reference)] {
        guard !staleLabels.isEmpty else { return [] }
        defer { staleLabels.removeAll() }
        return fields.compactMap { field in
            guard staleLabels.contains(field.name), let reference = references[field.name] else { return nil }
            guard !field.value.isNull else {
                labels[field.name] = nil
                return nil
            }
            return (field.name, field.value, reference)
        }
    }

    /// A label looked up for `value`: shown while the field still holds that value.
    func take(_ label: Reference.Label?, for field: String, lookedUpFor value: Value) {
        guard let current = fields.first(where: { $0.name == field }), current.value == value else { return }
        labels[field] = label.map { (value, $0) }
    }

    /// The focused field's reference, when it has one.
    var focusedReference: (reference: Reference, value: Value)? {
        guard fields.indices.contains(focus), let reference = references[fields[focus].name] else { return nil }
        return (reference, fields[focus].value)
    }

    /// Shows validation failures at their fields.
    func show(_ failures: [ValidationFailure]) {
        for index in fields.indices {
            fields[index].message = failures.first { $0.field?.caseInsensitiveCompare(fields[index].name) == .orderedSame }?.message
        }
    }

    /// After changes made elsewhere reached the editor: fields the person has not edited take
    /// the new values in place; edited ones keep the person's value and are marked *changed
    /// elsewhere*, with the other value shown under them.
    /// Returns what happened to this record, nil when nothing did.
    @discardableResult
    func followSource() -> SourceNews? {
        defer { refreshLabels() }
        let wasDeleted = isDeletedElsewhere
        let wasContested = Set(fields.filter(\.changedElsewhere).map(\.name))
        let (found, gone) = session.lookUp()
        guard let record = found else {
            isDeletedElsewhere = gone
            session.noteChanges()
            return isDeletedElsewhere && !wasDeleted ? .deleted(edited: false) : nil
        }
        var took: [String] = []
        for index in fields.indices {
            let name = fields[index].name
            let value = record[name] ?? .null
            if !record.changedFields.contains(name), value != fields[index].value {
                let focused = index == focus
                let cursor = fields[index].field.cursor
                fields[index].show(value, width: valueWidth)
                if focused { fields[index].field.moveCursor(to: cursor) }
                took.append(name)
            }
        }
        refreshMarks()
        if isDeletedElsewhere { return wasDeleted ? nil : .deleted(edited: true) }
        let contested = fields.filter { $0.changedElsewhere && !wasContested.contains($0.name) }.map(\.name)
        return took.isEmpty && contested.isEmpty ? nil : .changed(took: took, contested: contested)
    }

    /// What a change made elsewhere did to the form's record (``followSource()``).
    enum SourceNews: Equatable {
        /// `took`: fields that now show the value stored elsewhere; `contested`: fields edited
        /// here that were changed there too (saving asks which to keep).
        case changed(took: [String], contested: [String])
        /// The record was deleted elsewhere; `edited`: it has edits here.
        case deleted(edited: Bool)

        /// The sentence for the message line.
        var sentence: String {
            switch self {
            case .deleted(let edited):
                return edited
                    ? "This record was deleted elsewhere. Your edits are kept: saving asks whether to restore it."
                    : "This record was deleted elsewhere; Esc goes back."
            case .changed(let took, let contested):
                var parts: [String] = []
                if !took.isEmpty { parts.append("Updated from elsewhere: \(took.joined(separator: ", ")).") }
                if !contested.isEmpty { parts.append("Also changed elsewhere: \(contested.joined(separator: ", ")), which you edited; saving asks which to keep.") }
                return parts.joined(separator: " ")
            }
        }
    }

    /// Refreshes the marks (changed, changed elsewhere) from the editor.
    func refreshMarks() {
        session.noteChanges()
        let (record, gone) = session.lookUp()
        isDeletedElsewhere = record?.isDeletedElsewhere ?? gone
        let stored = session.storedValues()
        for index in fields.indices {
            let name = fields[index].name
            fields[index].isChanged = record?.changedFields.contains(name) ?? false
            fields[index].changedElsewhere = record?.changedElsewhere.contains(name) ?? false
            fields[index].theirs = fields[index].changedElsewhere ? stored?[name] : nil
        }
        keepFocusVisible()
    }

    // MARK: - Keys

    func handle(_ key: KeyEvent, now: ContinuousClock.Instant) -> Outcome {
        // An edit can change a field's height (a line break, a message under it).
        defer { keepFocusVisible() }
        let action = KeyMaps.form.action(for: key)
        // Anything but typing ends a typing run: the next keystroke starts a new undo step.
        if action != .editText, action != nil { history.endRun() }
        switch action {
        case .undo?:
            return undo(now: now)
        case .redo?:
            return redo(now: now)
        case .nextField?, .previousField?:
            let forward = action == .nextField
            if fields.indices.contains(focus), fields[focus].isMultiline, key.key == .up || key.key == .down {
                // Up and Down move by line inside a text area; they leave it from its edge.
                let before = fields[focus].area.cursor
                fields[focus].area.handle(key)
                if fields[focus].area.cursor != before { return .handled }
            }
            moveFocus(by: forward ? 1 : -1)
            return .handled
        case .setNull?:
            return edit(kind: .single, now: now) { field in
                field.isNull = true
                field.field = TextFieldState()
                field.area = TextAreaState()
                field.isMultiline = false
            }
        case .newLine?:
            return edit(kind: .typing, now: now) { field in
                guard field.column.affinity == .text || field.column.affinity == .blob else { return }
                field.isNull = false
                field.becomeMultiline()
                field.area.insert("\n")
            }
        case .editText?:
            return edit(key: key, now: now)
        case nil:
            // Unbound Ctrl and Alt combinations are not text.
            if !key.modifiers.isDisjoint(with: [.control, .alt]) { return .handled }
            return edit(key: key, now: now)
        case let other?:
            return .action(other)
        }
    }

    /// Pasted text goes into the focused field (line breaks make a text field a text area).
    func paste(_ text: String, now: ContinuousClock.Instant) -> Outcome {
        history.endRun()
        return edit(kind: .single, now: now) { field in
            field.isNull = false
            if text.contains("\n"), field.column.affinity == .text || field.column.affinity == .blob { field.becomeMultiline() }
            if field.isMultiline { field.area.insert(text) } else { field.field.insert(text) }
        }
    }

    private func edit(key: KeyEvent, now: ContinuousClock.Instant) -> Outcome {
        guard fields.indices.contains(focus) else { return .handled }
        var field = fields[focus]
        let before = field.text
        let wasNull = field.isNull
        if wasNull, case .character = key.key, key.modifiers.isEmpty || key.modifiers == .shift {
            field.isNull = false
        }
        let handled = field.isMultiline ? field.area.handle(key) : field.field.handle(key)
        guard handled else { return .handled }
        guard field.text != before || field.isNull != wasNull else {
            fields[focus] = field        // the cursor moved: the typing run ends here
            history.endRun()
            return .handled
        }
        if let refusal = refusal(for: fields[focus]) { return .refused(refusal) }
        let kind: FormHistory.Kind = if case .character = key.key, key.modifiers.isDisjoint(with: [.control, .alt]) { .typing } else { .deleting }
        let previous = fields[focus]
        fields[focus] = field
        return push(recording: previous, kind: kind, now: now)
    }

    /// The key a picker chose, put into the field `name` as one edit (one undo step).
    func applyPicked(_ value: Value, to name: String, now: ContinuousClock.Instant) -> Outcome {
        editField(named: name, now: now) { field in
            field.isNull = value.isNull
            field.isMultiline = false
            field.field = TextFieldState(text: ValueText.editable(value))
        }
    }

    /// Focuses the field `name` and applies `change` to it as an undo step of its own (what
    /// comes from outside the keyboard: a picker, an editor).
    private func editField(named name: String, now: ContinuousClock.Instant, _ change: (inout FieldModel) -> Void) -> Outcome {
        guard let index = fields.firstIndex(where: { $0.name == name }) else { return .handled }
        focus = index
        history.endRun()
        return edit(kind: .single, now: now, change)
    }

    /// Applies `change` to the focused field as one edit (one undo step unless `kind` coalesces).
    private func edit(kind: FormHistory.Kind, now: ContinuousClock.Instant, _ change: (inout FieldModel) -> Void) -> Outcome {
        guard fields.indices.contains(focus) else { return .handled }
        if let refusal = refusal(for: fields[focus]) { return .refused(refusal) }
        let previous = fields[focus]
        change(&fields[focus])
        guard fields[focus].value != previous.value || fields[focus].isNull != previous.isNull || fields[focus].text != previous.text else { return .handled }
        return push(recording: previous, kind: kind, now: now)
    }

    // MARK: - $EDITOR

    /// Why the focused field cannot go to an editor.
    struct Refusal: Error { let message: String }

    /// The request to edit the focused field's text in `command`; read-only when nothing here
    /// can be changed.
    func externalEditRequest(command: String) -> Result<ExternalEdit, Refusal> {
        guard fields.indices.contains(focus) else { return .failure(Refusal(message: "No field to edit.")) }
        let field = fields[focus]
        if case .blob = field.original { return .failure(Refusal(message: "\(field.name) holds a blob, which is not text to edit.")) }
        let readOnly = readOnly != nil || field.readOnlyReason != nil
        return .success(ExternalEdit(field: field.name, text: field.isNull ? "" : field.text, readOnly: readOnly,
                                     command: command, fileStem: "\(session.table.name)-\(field.name)"))
    }

    /// The text an editor gave back, put into the field `name` as one edit (one undo step).
    func applyExternalText(_ text: String, to name: String, now: ContinuousClock.Instant) -> Outcome {
        editField(named: name, now: now) { field in
            field.isNull = false
            if text.contains("\n"), field.column.affinity == .text || field.column.affinity == .blob {
                field.isMultiline = true
                field.area = TextAreaState(text: text)
                field.area.moveCursor(to: text.count)
            } else {
                field.isMultiline = false
                field.field = TextFieldState(text: text)
            }
        }
    }

    // MARK: - Undo

    /// Ends the typing run (a save happened): the next keystroke is an undo step of its own.
    func endUndoRun() { history.endRun() }

    /// Takes back the last edit of this form (focusing its field).
    func undo(now: ContinuousClock.Instant) -> Outcome {
        if let refusal = readOnly.map({ "Read-only: \($0)." }) { return .refused(refusal) }
        guard let step = history.undo() else { return .said("Nothing to undo.") }
        return restore(step.before, of: step.field, saying: "Undid an edit of \(step.field).", now: now)
    }

    /// Does again the last edit undone.
    func redo(now: ContinuousClock.Instant) -> Outcome {
        if let refusal = readOnly.map({ "Read-only: \($0)." }) { return .refused(refusal) }
        guard let step = history.redo() else { return .said("Nothing to redo.") }
        return restore(step.after, of: step.field, saying: "Redid an edit of \(step.field).", now: now)
    }

    /// Puts `model`'s text and value back into the field named `name` and into the editor.
    private func restore(_ model: FieldModel, of name: String, saying message: String, now: ContinuousClock.Instant) -> Outcome {
        guard let index = fields.firstIndex(where: { $0.name == name }) else { return .handled }
        focus = index
        var field = fields[index]
        field.field = model.field
        field.area = model.area
        field.isMultiline = model.isMultiline
        field.isNull = model.isNull
        field.original = model.original
        fields[index] = field
        if case .refused(let problem) = push(now: now) { return .refused(problem) }
        // Every edit of a new record undone: no insert is left pending, so leaving asks nothing.
        if !history.canUndo, let id = session.id, id.isTemporary {
            session.discard()
            refreshMarks()
        }
        return .said(message)
    }

    /// Why the focused field cannot be edited, or nil.
    private func refusal(for field: FieldModel) -> String? {
        if let readOnly { return "Read-only: \(readOnly)." }
        if let reason = field.readOnlyReason { return "\(field.name) cannot be edited: \(reason)." }
        return nil
    }

    /// Writes the focused field's value into the editor context (only if it differs: the
    /// store drops an edit equal to the value it started from).
    private func push(recording previous: FieldModel? = nil, kind: FormHistory.Kind = .single, now: ContinuousClock.Instant) -> Outcome {
        let field = fields[focus]
        do {
            try session.set(field.name, to: field.value, shown: field.shown, now: now)
        } catch {
            if let previous { fields[focus] = previous }
            if case .noSuchObject = error { return .refused("This record was deleted elsewhere, so it cannot be edited. Esc goes back.") }
            return .refused(error.message)
        }
        if let previous { history.record(field: field.name, before: previous, after: field, kind: kind) }
        fields[focus].message = nil
        refreshMarks()
        if references[field.name] != nil { staleLabels.insert(field.name) }
        return .handled
    }

    private func moveFocus(by delta: Int) {
        guard !fields.isEmpty else { return }
        focus = min(max(0, focus + delta), fields.count - 1)
    }

    // MARK: - Mouse

    /// Focuses the field at `index` (a click on it).
    func focusField(_ index: Int) {
        guard fields.indices.contains(index) else { return }
        if index != focus { history.endRun() }
        focus = index
    }

    /// The wheel: the next (`delta` 1) or previous (-1) field.
    func scrollFields(by delta: Int) {
        history.endRun()
        moveFocus(by: delta)
    }

    // MARK: - Drawing

    /// Draws the form in `area`; returns where the terminal cursor goes, and each field's
    /// place (its label, value and message lines) for the mouse.
    func render(in area: Rect, buffer: inout Buffer, hits: inout HitMap) -> Point? {
        let area = area.intersection(buffer.area)
        guard !area.isEmpty else { return nil }
        buffer.fill(area, style: .plain)
        let (titleLine, body) = area.splitTop(1)
        buffer.write(title, x: titleLine.x, y: titleLine.y, maxWidth: titleLine.width, style: Style(foreground: .accent, attributes: [.bold]))
        if let notice = notice {
            let width = min(notice.text.displayWidth, max(0, titleLine.width - title.displayWidth - 2))
            buffer.write(notice.text, x: titleLine.maxX - width, y: titleLine.y, maxWidth: width, style: Style(foreground: notice.role, attributes: [.bold]))
        }
        guard !body.isEmpty, !fields.isEmpty else { return nil }
        let (labelWidth, valueWidth) = columns(width: body.width)
        let valueX = body.x + labelWidth + 2
        let first = Self.firstVisible(count: fields.count, focus: focus, scroll: scroll, height: body.height) { self.height(of: $0, valueWidth: valueWidth) }
        var y = body.y
        var cursor: Point?
        for index in first..<fields.count {
            guard y < body.maxY else { break }
            let field = fields[index]
            let focused = index == focus
            let labelStyle = focused ? Style(foreground: .accent, attributes: [.bold]) : Style(foreground: .muted)
            buffer.write(field.name, x: body.x, y: y, maxWidth: labelWidth, style: labelStyle)
            let mark: (String, Role)? = field.changedElsewhere ? ("!", .conflict) : field.isChanged ? ("●", .modified) : nil
            if let mark { buffer.write(mark.0, x: body.x + labelWidth, y: y, maxWidth: 1, style: Style(foreground: mark.1, attributes: [.bold])) }
            let (fieldWidth, label) = drawnWidth(of: index, valueWidth: valueWidth)
            let bodyHeight = min(field.valueRows(width: fieldWidth), body.maxY - y)
            let valueArea = Rect(x: valueX, y: y, width: fieldWidth, height: bodyHeight)
            if let label {
                // The referenced record beside the value: `→ name`, or why there is none.
                buffer.write(label.text, x: valueArea.maxX + 1, y: y, maxWidth: valueWidth - fieldWidth - 1, style: Style(foreground: label.role))
            }
            hits.add(Rect(x: body.x, y: y, width: body.width, height: min(field.height(width: fieldWidth), body.maxY - y)), .field(index))
            cursor = drawValue(index, in: valueArea, focused: focused, buffer: &buffer) ?? cursor
            y += bodyHeight
            let length = field.lengthLine(width: fieldWidth)
            if y < body.maxY, field.message != nil || field.changedElsewhere || length != nil {
                let elsewhere = "changed elsewhere to \(field.theirs.map { ValueText.quoted($0) } ?? "another value"); saving asks which to keep"
                let (text, role): (String, Role) = if let message = field.message { (message, .error) }
                    else if field.changedElsewhere { (elsewhere, .conflict) } else { (length ?? "", .muted) }
                buffer.write(text, x: valueX, y: y, maxWidth: valueWidth, style: Style(foreground: role))
                y += 1
            }
        }
        return cursor
    }

    /// The labels' and the values' columns in a form `width` cells wide.
    private func columns(width: Int) -> (label: Int, value: Int) {
        let label = min(max(1, width / 3), (fields.map { $0.name.displayWidth }.max() ?? 0) + 1)
        return (label, max(1, width - label - 2))
    }

    /// The values' column at the form's width.
    var valueWidth: Int { columns(width: areaWidth).value }

    /// The cells field `index`'s value is drawn in, in a values' column `valueWidth` wide: all
    /// of it, or what the referenced record's label beside it leaves (the label comes too).
    private func drawnWidth(of index: Int, valueWidth: Int) -> (width: Int, label: (text: String, role: Role)?) {
        let field = fields[index]
        guard let (value, label) = labels[field.name], value == field.value, valueWidth > 12 else { return (valueWidth, nil) }
        let (text, role): (String, Role) = switch label {
        case .found(let name, _): ("→ " + name, .muted)
        case .missing(let why): ("✗ " + why, .warning)
        }
        return (valueWidth - min(text.displayWidth, valueWidth / 2) - 1, (text, role))
    }

    /// The lines field `index` takes in a values' column `valueWidth` wide.
    private func height(of index: Int, valueWidth: Int) -> Int {
        fields[index].height(width: drawnWidth(of: index, valueWidth: valueWidth).width)
    }

    /// A notice for the title line: the record deleted elsewhere.
    private var notice: (text: String, role: Role)? {
        if isDeletedElsewhere { return ("deleted elsewhere", .conflict) }
        return nil
    }

    /// What a NULL field shows. A new record's untouched field is left out of the insert, so
    /// the database fills it: its default (`default: 'open'`), or the number an INTEGER
    /// PRIMARY KEY gets. Set to NULL on purpose (Ctrl-N), or in a stored record, it is NULL.
    func placeholder(for field: FieldModel) -> String {
        let isNew = session.id == nil || session.id?.isTemporary == true
        if isNew, !field.isChanged {
            if let defaultSQL = field.column.defaultSQL { return "default: \(defaultSQL)" }
            if case .rowidAlias(let column) = session.table.primaryKey, column == field.name { return "numbered when saved" }
        }
        return "\(ValueText.null) NULL"
    }

    private func drawValue(_ index: Int, in area: Rect, focused: Bool, buffer: inout Buffer) -> Point? {
        guard !area.isEmpty else { return nil }
        let field = fields[index]
        let style = Style(background: focused ? .selection : .surface)
        let muted = Style(foreground: .muted, background: style.background)
        buffer.fill(area, style: style)
        if field.isNull {
            buffer.write(placeholder(for: field), x: area.x, y: area.y, maxWidth: area.width, style: muted)
            return focused ? Point(x: area.x, y: area.y) : nil
        }
        let fieldStyle = field.readOnlyReason != nil ? muted : style
        if field.isMultiline {
            var state = fields[index].area
            TextArea(style: fieldStyle).render(in: area, buffer: &buffer, state: &state)
            let cursor = focused ? TextArea(style: fieldStyle).cursor(in: area, state: &state) : nil
            fields[index].area = state
            return cursor
        }
        // A long one-line value wraps over the rows it was given; a field without the focus
        // shows its start (its cursor is kept for when it has the focus again).
        guard focused else {
            var shown = fields[index].field
            shown.moveCursor(to: 0)
            TextField(style: fieldStyle).render(in: area, buffer: &buffer, state: &shown)
            return nil
        }
        var state = fields[index].field
        TextField(style: fieldStyle).render(in: area, buffer: &buffer, state: &state)
        let cursor = TextField(style: fieldStyle).cursor(in: area, state: &state)
        fields[index].field = state
        return cursor
    }

    /// Scrolls so the focused field shows, moving as little as it can.
    private func keepFocusVisible() {
        guard visibleHeight > 0 else { return }
        let valueWidth = self.valueWidth
        scroll = Self.firstVisible(count: fields.count, focus: focus, scroll: scroll, height: visibleHeight) { self.height(of: $0, valueWidth: valueWidth) }
    }

    /// The first field to show in `height` lines: `scroll`, moved just enough that the
    /// focused field fits below it.
    private static func firstVisible(count: Int, focus: Int, scroll: Int, height: Int, heightOf: (Int) -> Int) -> Int {
        guard count > 0 else { return 0 }
        let focus = min(max(0, focus), count - 1)
        var first = min(max(0, scroll), focus)
        while first < focus, (first...focus).reduce(0, { $0 + heightOf($1) }) > height { first += 1 }
        return first
    }
}
