import CardfileStore
import CardfileTerminal

/// The conflict dialog: a save met changes made elsewhere. Per field it shows Original (what
/// the edit started from), Mine and Theirs (stored now), the fields changed on both sides
/// highlighted, and lets the person choose.
struct ConflictDialog {
    enum Choice: Int, CaseIterable {
        case original, mine, theirs

        var name: String { ["Original", "Mine", "Theirs"][rawValue] }

        /// The side of the three-way merge this choice takes.
        var side: ThreeWayMerge.Side { [.original, .mine, .theirs][rawValue] }
    }

    struct Row {
        let name: String
        let original: Value
        let mine: Value
        let theirs: Value?
        let isContested: Bool
        var choice: Choice
    }

    /// What the person asked for.
    enum Outcome: Equatable {
        case none
        case saveChoices
        case merge
        case keepMine
        case takeTheirs
        case restore
        case acceptDeletion
        case cancel
    }

    /// The conflict as the save reported it.
    let conflict: MergeConflict
    let recordTitle: String
    /// Words in place of the editor's (`cardfile merge` speaks of branches, not of programs):
    /// the title, the line that explains, and the keys.
    var wording: (title: String, explanation: String, keys: String)?
    let kind: MergeConflict.Kind
    private(set) var rows: [Row]
    /// Index into ``rows`` of the focused contested field.
    private(set) var focus: Int

    init(conflict: MergeConflict, recordTitle: String) {
        self.conflict = conflict
        self.recordTitle = recordTitle
        kind = conflict.kind
        rows = conflict.fields.map { field in
            Row(name: field.name, original: field.original, mine: field.mine, theirs: field.theirs, isContested: field.isContested,
                choice: field.changedByMe ? .mine : .theirs)
        }
        focus = rows.firstIndex(where: \.isContested) ?? 0
    }

    var isDeletion: Bool { kind == .updateDelete }

    /// The choice made for each contested field.
    var choices: [(name: String, choice: Choice)] {
        rows.filter(\.isContested).map { ($0.name, $0.choice) }
    }

    mutating func handle(_ key: KeyEvent) -> Outcome {
        guard let action = KeyMaps.conflict.action(for: key) else { return .none }
        switch action {
        case .up: moveFocus(by: -1)
        case .down: moveFocus(by: 1)
        case .chooseLeft, .chooseRight:
            guard !isDeletion, rows.indices.contains(focus), rows[focus].isContested else { return .none }
            let step = action == .chooseLeft ? -1 : 1
            let next = (rows[focus].choice.rawValue + step + Choice.allCases.count) % Choice.allCases.count
            rows[focus].choice = Choice(rawValue: next)!
        case .saveChoices: return isDeletion ? .none : .saveChoices
        case .mergeMine: return isDeletion ? .none : .merge
        case .keepMine: return isDeletion ? .restore : .keepMine
        case .takeTheirs: return isDeletion ? .acceptDeletion : .takeTheirs
        case .restore: return isDeletion ? .restore : .none
        case .leave: return .cancel
        default: break
        }
        return .none
    }

    private mutating func moveFocus(by delta: Int) {
        let contested = rows.indices.filter { rows[$0].isContested }
        guard let at = contested.firstIndex(of: focus) else { return }
        focus = contested[min(max(0, at + delta), contested.count - 1)]
    }

    // MARK: - Drawing

    func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)
        guard !area.isEmpty else { return }
        let width = min(area.width, max(40, min(120, area.width - 4)))
        let nameWidth = min(max(6, rows.map { $0.name.displayWidth }.max() ?? 0), max(4, (width - 2) / 4))
        let valueWidth = max(1, (width - 2 - nameWidth - 2 - 4) / 3)
        let allKeys = wording?.keys ?? (isDeletion
            ? "r restore with my values · t accept the deletion · Esc back"
            : "↑↓ field · ←→ choose · Enter save · m merge · K keep mine · t take theirs · Esc back")
        var keys = Dialog.wrap(allKeys, width: max(1, width - 3))
        var detail = detailLines(valueWidth: valueWidth, width: max(1, width - 3))
        let wanted = rows.count + 4 + keys.count + (detail.isEmpty ? 0 : detail.count + 1)
        let box = area.centered(Size(width: width, height: min(area.height, wanted)))
        let title = wording?.title ?? (isDeletion ? "Deleted elsewhere: \(recordTitle)" : "Changed elsewhere: \(recordTitle)")
        let inner = Block(title: title, style: Style(background: .surface), borderStyle: Style(foreground: .conflict, background: .surface))
            .render(in: box, buffer: &buffer)
        guard !inner.isEmpty else { return }
        // Where room is short, the values come first: the keys shrink to one line (F1 lists
        // them all), then the explanation goes.
        var explains = true
        func needed() -> Int { (explains ? 1 : 0) + 1 + rows.count + keys.count + (detail.isEmpty ? 0 : detail.count + 1) }
        if needed() > inner.height, keys.count > 1 {
            keys = [isDeletion ? "r restore · t accept the deletion · Esc back" : "←→ choose · Enter save · F1 all keys"]
        }
        if needed() > inner.height { explains = false }
        if needed() > inner.height, !detail.isEmpty {
            // Each side gets its share of what is left beside one row, the heading and a gap.
            let left = inner.height - 1 - 1 - keys.count - 2
            detail = detailLines(valueWidth: valueWidth, width: max(1, width - 3), linesPerSide: min(Self.detailLinesPerSide, max(1, left / 3)))
        }
        let surface = Style(background: .surface)
        func column(_ index: Int) -> Int { inner.x + 2 + nameWidth + 1 + index * (valueWidth + 1) }
        var y = inner.y
        if explains {
            let explanation = wording?.explanation ?? (isDeletion
                ? "Another program deleted this record while you edited it."
                : "Fields in bold were changed here and elsewhere; the others merge by themselves.")
            buffer.write(explanation, x: inner.x + 1, y: y, maxWidth: inner.width - 1, style: surface.with(foreground: .muted))
            y += 1
        }
        guard y < inner.maxY else { return }
        for choice in Choice.allCases {
            buffer.write(choice.name, x: column(choice.rawValue), y: y, maxWidth: valueWidth, style: surface.with(foreground: .accent).adding(.bold))
        }
        y += 1
        // Below the rows: the focused field's values in full (when the columns cut them), then
        // the keys. The rows keep at least one line; the full values take what is left.
        let footer = min(keys.count, max(0, inner.maxY - y - 1))
        let available = max(0, inner.maxY - y - footer)
        let room = min(rows.count, max(min(1, available), available - (detail.isEmpty ? 0 : detail.count + 1)))
        // The rows scroll so the focused one shows (derived each frame: nothing to keep).
        let scroll = focus < room ? 0 : focus - room + 1
        for index in rows.indices.dropFirst(scroll).prefix(room) {
            let row = rows[index]
            let focused = index == focus && row.isContested
            buffer.write(focused ? "▸" : " ", x: inner.x, y: y, maxWidth: 1, style: surface.with(foreground: .accent))
            buffer.write(row.name, x: inner.x + 2, y: y, maxWidth: nameWidth,
                         style: row.isContested ? surface.with(foreground: .conflict).adding(.bold) : surface.with(foreground: .muted))
            let values: [Value?] = [row.original, row.mine, row.theirs]
            for choice in Choice.allCases {
                let text = values[choice.rawValue].map(ValueText.cell) ?? "(deleted)"
                let chosen = row.isContested && row.choice == choice && !isDeletion
                var style = chosen ? Style(foreground: .text, background: .selection, attributes: [.bold]) : surface
                if !row.isContested { style = style.with(foreground: .muted) }
                buffer.write(text, x: column(choice.rawValue), y: y, maxWidth: valueWidth, style: style)
            }
            y += 1
        }
        let detailRoom = inner.maxY - footer - y - 1
        if !detail.isEmpty, detailRoom > 0 {
            y += 1
            for line in detail.prefix(detailRoom) {
                buffer.write(line.label, x: inner.x + 1, y: y, maxWidth: inner.width - 1, style: surface.with(foreground: .accent).adding(.bold))
                if !line.text.isEmpty {
                    buffer.write(line.text, x: inner.x + 1 + Self.detailIndent, y: y, maxWidth: max(0, inner.width - 1 - Self.detailIndent), style: surface)
                }
                y += 1
            }
        }
        for (index, line) in keys.suffix(footer).enumerated() {
            buffer.write(line, x: inner.x + 1, y: inner.maxY - footer + index, maxWidth: inner.width - 1, style: surface.with(foreground: .muted))
        }
    }

    /// One line of the focused field's values in full: a side's name (on its first line) and
    /// a piece of its value, or the heading (`label` alone).
    struct DetailLine: Equatable {
        var label = ""
        var text = ""
    }

    /// The focused field's three values written out in full, wrapped to `width`, when the
    /// table's columns (`valueWidth` cells) cut one of them: at 80 columns long titles looked
    /// the same on all three sides. Empty when every value fits its column.
    func detailLines(valueWidth: Int, width: Int, linesPerSide: Int = Self.detailLinesPerSide) -> [DetailLine] {
        guard rows.indices.contains(focus) else { return [] }
        let row = rows[focus]
        let texts = [row.original, row.mine, row.theirs].map { value -> String in
            guard let value else { return "(deleted)" }
            if case .text(let text) = value { return text }
            return ValueText.cell(value)
        }
        guard texts.contains(where: { $0.displayWidth > valueWidth || $0.contains("\n") }) else { return [] }
        var lines = [DetailLine(label: "\(row.name) in full:")]
        for choice in Choice.allCases {
            // A few lines each at most (`linesPerSide`); the form shows the rest. Only what
            // can show is wrapped: a 1 MB value costs no more than a line's worth.
            let text = texts[choice.rawValue]
            let room = (linesPerSide + 1) * max(1, width - Self.detailIndent)
            let shown = text.prefix(room)
            var wrapped = Dialog.wrap(String(shown), width: max(1, width - Self.detailIndent))
            if wrapped.count > linesPerSide || shown.endIndex < text.endIndex {
                let more = "… (\(ValueText.count(text.utf8.count)) bytes in all)"
                // One line: cut where the line ends (drawing marks it …), not at a word.
                wrapped = linesPerSide == 1
                    ? [String(shown).replacingOccurrences(of: "\n", with: " ")]
                    : Array(wrapped.prefix(linesPerSide - 1)) + [more]
            }
            for (index, text) in wrapped.enumerated() {
                lines.append(DetailLine(label: index == 0 ? choice.name : "", text: text))
            }
        }
        return lines
    }

    /// Lines each side's value may take under the table.
    static let detailLinesPerSide = 4

    /// Where a value starts in the lines of ``detailLines(valueWidth:width:)``: after the
    /// longest side's name and two spaces.
    static let detailIndent = (Choice.allCases.map(\.name.displayWidth).max() ?? 0) + 2
}
