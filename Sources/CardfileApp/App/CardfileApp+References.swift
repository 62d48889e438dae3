import CardfileStore
import CardfileTerminal
import Foundation

/// Foreign keys: following one to its record, picking the referenced record from a list, and
/// listing the records that reference this one. Each opens a screen over the current one;
/// Esc (or q) comes back.
extension CardfileApp {
    /// Looks up, off the loop, the labels the form on top wants (its referencing fields'
    /// records, named beside their values): each in the form's editor context, so its
    /// unsaved changes count, and back as an errand's result.
    func lookUpLabels() {
        guard let form else { return }
        let requests = form.takeLabelRequests()
        guard !requests.isEmpty else { return }
        let formID = form.session.editor.identity
        let errands = self.errands
        for request in requests {
            errands.begin()
            form.session.editor.perform { editor in
                let label = request.reference.label(for: request.value, in: editor)
                errands.finish(.label(form: formID, field: request.field, value: request.value, label: label))
            }
        }
    }

    /// Ctrl-G: the referenced record's form, stacked on this one. Leaving this form first asks
    /// as leaving always does, so no form waiting under another holds unsaved edits.
    func followReference(from form: FormScreen, now: ContinuousClock.Instant) {
        guard let (reference, value) = form.focusedReference else {
            return show("This field references no other table.", role: .warning, now: now)
        }
        switch reference.label(for: value, in: form.session.editor) {
        case .found(_, let id)?: leaveForm(then: .follow(id), now: now)
        case .missing(let why)?: show("Nothing to go to: \(why).", role: .warning, now: now)
        case nil: show("\(reference.field) is NULL: it references nothing. Ctrl-P picks a record.", role: .warning, now: now)
        }
    }

    /// Ctrl-P: the referenced table's list as a picker, the current record selected; Enter
    /// puts the chosen record's key into the field. The form behind keeps its edits.
    func pickReference(for form: FormScreen, now: ContinuousClock.Instant) {
        guard let (reference, value) = form.focusedReference else {
            return show("This field references no other table.", role: .warning, now: now)
        }
        if let reason = readOnlyReason { return show("Read-only: \(reason).", role: .warning, now: now) }
        do {
            let picker = try makeList(reference.parent)
            if case .found(_, let id)? = reference.label(for: value, in: form.session.editor) { try picker.live.select(id) }
            screens.push(.picker(picker, field: reference.field, column: reference.parentColumn))
            show("Pick the \(reference.parent.name) record for \(reference.field): Enter chooses, / filters, Esc goes back.", role: .accent, now: now)
        } catch {
            show(error.message, role: .error, now: now)
        }
    }

    /// Ctrl-R: the records of other tables that reference this one. With several such
    /// tables, a dialog asks which.
    func listReferencing(_ form: FormScreen, now: ContinuousClock.Instant) {
        guard let id = form.session.id, !id.isTemporary, let record = form.session.record() else {
            return show("Save the new record first: nothing can reference it yet.", role: .warning, now: now)
        }
        let name = form.session.table.name.lowercased()
        let sides = container.schema.tables.flatMap { table in
            Reference.all(of: table, in: container.schema).values.filter { $0.parent.name.lowercased() == name }.map { (table: table.name, reference: $0) }
        }.sorted { ($0.table, $0.reference.field) < ($1.table, $1.reference.field) }
        guard !sides.isEmpty else { return show("No table references \(form.session.table.name).", role: .warning, now: now) }
        let leavings = sides.map { side in
            Leaving.referencing(table: side.table, filter: Reference.filter(field: side.reference.field, value: record[side.reference.parentColumn] ?? .null))
        }
        if leavings.count == 1 { return leaveForm(then: leavings[0], now: now) }
        let shown = Array(zip(sides, leavings).prefix(9))
        let buttons = shown.enumerated().map { index, pair in
            DialogButton("\(pair.0.table).\(pair.0.reference.field)", hotkey: Character(String(index + 1)))
        } + [DialogButton("Cancel", hotkey: "c")]
        let dialog = Dialog(title: "Records that reference this one", message: "Which relation? (\(sides.count) tables point at \(form.session.table.name).)",
                            buttons: buttons, selected: 0, cancelButton: buttons.count - 1)
        overlay = .question(QuestionDialog(dialog: dialog, question: .chooseReferencing(shown.map(\.1))))
    }

    /// Enter in a list: the record's form, or, in a picker, the chosen record for the field.
    func openSelected(now: ContinuousClock.Instant) {
        guard let list else { return }
        guard let (field, column) = picking else {
            if let id = list.selection { openForm(id, now: now) }
            return
        }
        let window = list.live.window
        guard let line = window.selectedLine, window.rows.indices.contains(line),
              let index = window.columns.firstIndex(where: { $0.caseInsensitiveCompare(column) == .orderedSame }) else { return }
        let value = window.rows[line].values[index]
        goBack()
        guard let form else { return }
        switch form.applyPicked(value, to: field, now: now) {
        case .refused(let message): show(message, role: .warning, now: now)
        default: show("\(field) set to \(ValueText.quoted(value)). Alt-U undoes it.", role: .success, now: now)
        }
    }

    /// Takes the top screen off: back to the list a form was opened from, the form a
    /// reference, picker or referencing list was opened from, or the tables (counted again).
    func goBack() {
        // A result's list closed: its query no longer runs again at each commit.
        if case .list(let list)? = screens.pop(), let query = list.query { container.closeQuery(query) }
        switch screens.top {
        case .form(let form): form.followSource()
        case .tables: countRows()
        case .list, .picker, .sql: break
        }
    }
}
