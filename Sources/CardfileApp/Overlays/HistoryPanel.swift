import CardfileStore
import CardfileTerminal
import Foundation

/// A record's saved versions (`:history`), newest first, then the record as first seen: each
/// with its time, what made it (and who, on a shared journal), and the fields it changed, old → new. ↑ ↓ choose one, End
/// goes to the oldest, Enter puts its values in the record's form as edits.
struct HistoryPanel: ChoosingPanel {
    let id: ObjectID
    /// `people 3`.
    let title: String
    /// Newest first.
    let versions: [RecordVersion]
    var selected = 0
    var scroll = 0
    /// Each row's text, made once (a frame draws them all; a date's formatter is costly).
    private var texts: [(when: String, what: String, fields: String)] = []

    /// `timeText` formats each version's time.
    init(id: ObjectID, title: String, versions: [RecordVersion], timeText: (Date) -> String) {
        self.id = id
        self.title = title
        self.versions = versions
        texts = (0...versions.count).map { makeText(of: $0, timeText: timeText) }
    }

    /// The rows: each version, then the record as it was before the oldest one kept.
    var rowCount: Int { versions.count + 1 }

    /// Whether the chosen row is the record as first seen (before every version kept).
    var isFirstSeen: Bool { selected == versions.count }

    /// The record's values at the chosen row, field by field, for the fields any version
    /// changed (the others are not known, and stay as they are); nil when the record did not
    /// exist then (the version deleted it, or it was added by the oldest one).
    func values(at row: Int) -> [String: Value]? { Self.values(at: row, of: versions) }

    private static func values(at row: Int, of versions: [RecordVersion]) -> [String: Value]? {
        if row < versions.count, versions[row].change.kind == .delete { return nil }
        if row == versions.count, versions.last?.change.kind == .insert { return nil }
        var names: [String] = []
        for version in versions.reversed() {
            for field in version.change.fields where !names.contains(field.name) { names.append(field.name) }
        }
        var values: [String: Value] = [:]
        for name in names {
            // The newest change at or before the row that set it…
            if row < versions.count, let set = versions[row...].lazy.compactMap({ $0.change.fields.first { $0.name == name } }).first {
                if let new = set.new { values[name] = new }
                continue
            }
            // …else what the oldest change after the row found in it.
            if let found = versions[..<row].reversed().lazy.compactMap({ $0.change.fields.first { $0.name == name } }).first, let old = found.old {
                values[name] = old
            }
        }
        return values
    }

    /// The entry id of the row ``changeOutside(_:versions:now:at:)`` makes (no journal's).
    static let outsideEntry: Int64 = -1

    /// The record as it is now, as a version of its own at the top of `:history`, when it
    /// differs from the newest version kept: a change no journal saw (another program's, on a
    /// record the editor was not showing, or on a server whose journal keeps Cardfile's saves
    /// only). Nil when the record is as the history leaves it.
    static func changeOutside(_ id: ObjectID, versions: [RecordVersion], now current: Record?, at time: Date) -> RecordVersion? {
        guard let newest = versions.first else { return nil }
        let entry = HistoryEntry(id: outsideEntry, time: time, source: .elsewhere, recordCount: 1, isComplete: false)
        let known = values(at: 0, of: versions)
        guard let current else {
            guard newest.change.kind != .delete else { return nil }
            let fields = (known ?? [:]).sorted { $0.key < $1.key }.map { RecordedChange.Field(name: $0.key, old: $0.value, new: nil) }
            return RecordVersion(entry: entry, change: RecordedChange(id: id, kind: .delete, fields: fields))
        }
        guard let known else {
            // Deleted by the newest version, there again now.
            let fields = zip(current.fieldNames, current.values).map { RecordedChange.Field(name: $0, old: nil, new: $1) }
            return RecordVersion(entry: entry, change: RecordedChange(id: id, kind: .insert, fields: fields))
        }
        let changed = known.sorted { $0.key < $1.key }.compactMap { name, value -> RecordedChange.Field? in
            guard let now = current[name], now != value else { return nil }
            return RecordedChange.Field(name: name, old: value, new: now)
        }
        guard !changed.isEmpty else { return nil }
        return RecordVersion(entry: entry, change: RecordedChange(id: id, kind: .update, fields: changed))
    }

    /// Lines under the rows for the chosen version's fields in full (the rows cut them).
    static let detailLines = 4

    func frame(in area: Rect) -> Rect {
        let width = min(max(40, area.width - 8), area.width)
        let height = min(rowCount + 5 + Self.detailLines, area.height)
        return area.centered(Size(width: width, height: height))
    }

    /// Rows of versions the box shows in `area`: what is left beside the footer, and the
    /// chosen version's detail when there is room for it.
    func visibleRows(in area: Rect) -> Int {
        let inner = max(0, frame(in: area).height - 2)
        let detail = inner - 1 >= 2 + Self.detailLines + 1 ? Self.detailLines + 1 : 0
        return max(1, inner - 1 - detail)
    }

    mutating func move(by rows: Int, in area: Rect) {
        selected = min(rowCount - 1, max(0, selected + rows))
        let visible = visibleRows(in: area)
        if selected < scroll { scroll = selected }
        if selected >= scroll + visible { scroll = selected - visible + 1 }
    }

    /// One row's text: `12:04:31  form    city: London → Paris; age: 36 → 37`.
    func text(of row: Int) -> (when: String, what: String, fields: String) { texts[row] }

    private func makeText(of row: Int, timeText: (Date) -> String) -> (when: String, what: String, fields: String) {
        guard row < versions.count else {
            let values = self.values(at: row)
            let fields = values.map { values in
                values.isEmpty ? "as it is now: no change of it is kept"
                    : values.sorted { $0.key < $1.key }.map { "\($0.key): \(Self.shown($0.value))" }.joined(separator: "; ")
            } ?? "not yet added"
            return ("", "as first seen", fields)
        }
        let version = versions[row]
        let change = version.change
        let fields: String = switch change.kind {
        case .update: change.fields.map { "\($0.name): \(Self.shown($0.old ?? .null)) → \(Self.shown($0.new ?? .null))" }.joined(separator: "; ")
        case .insert: "added: " + change.fields.map { "\($0.name): \(Self.shown($0.new ?? .null))" }.joined(separator: "; ")
        case .delete: "deleted"
        }
        // (On a journal a team shares, who made it: `form by alice`.)
        let what = version.entry.source.words + (version.entry.author.map { " by \($0)" } ?? "")
        // (The record as it is now, changed where no journal saw: see `changeOutside`.)
        if version.entry.id == Self.outsideEntry { return ("now", "changed outside", fields) }
        return (timeText(version.entry.time), what, fields)
    }

    private static func shown(_ value: Value) -> String {
        if value == .text("") { return "“”" }
        return TerminalText.visible(ValueText.cell(value))
    }

    func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)
        let box = frame(in: area)
        let count = "\(ValueText.count(versions.count)) version\(versions.count == 1 ? "" : "s") kept"
        let inner = Block(title: "History of \(title): \(count)").render(in: box, buffer: &buffer)
        guard inner.height > 0, inner.width > 4 else { return }
        let surface = Style(foreground: .text, background: .surface)
        let rows = texts
        let whenWidth = min(19, rows.map(\.when.displayWidth).max() ?? 0)
        let whatWidth = min(24, rows.map(\.what.displayWidth).max() ?? 0)
        let shown = visibleRows(in: area)
        for offset in 0..<min(shown, max(0, rowCount - scroll)) {
            let row = scroll + offset
            let isSelected = row == selected
            let style = isSelected ? Style(foreground: .text, background: .selection, attributes: [.bold]) : surface
            let muted = Style(foreground: .muted, background: style.background, attributes: style.attributes)
            let y = inner.y + offset
            for x in inner.x..<(inner.x + inner.width) { buffer.set(Cell(text: " ", style: style), x: x, y: y) }
            var x = inner.x + 1
            x += buffer.write(isSelected ? "›" : " ", x: x, y: y, maxWidth: 1, style: style) + 1
            let (when, what, fields) = rows[row]
            _ = buffer.write(when, x: x, y: y, maxWidth: whenWidth, style: muted)
            x += whenWidth + (whenWidth > 0 ? 2 : 0)
            _ = buffer.write(what, x: x, y: y, maxWidth: whatWidth, style: style)
            x += whatWidth + 2
            _ = buffer.write(fields, x: x, y: y, maxWidth: max(0, inner.x + inner.width - x - 1), style: style)
        }
        // The chosen version's fields in full, a field to a line, under the rows.
        let detailTop = inner.y + shown + 1
        let room = inner.y + inner.height - 1 - detailTop
        if room > 0, rows.indices.contains(selected) {
            let (when, what, fields) = rows[selected]
            let heading = [when, what].filter { !$0.isEmpty }.joined(separator: " · ")
            let parts = fields.components(separatedBy: "; ")
            var lines = [heading + ":"] + parts.flatMap { Dialog.wrap("  " + $0, width: max(1, inner.width - 2)) }
            if lines.count > room { lines = Array(lines.prefix(room - 1)) + ["  …"] }
            for (index, line) in lines.prefix(room).enumerated() {
                _ = buffer.write(line, x: inner.x + 1, y: detailTop + index, maxWidth: max(0, inner.width - 2),
                                 style: index == 0 ? Style(foreground: .accent, background: .surface) : surface)
            }
        }
        let footer = versions.isEmpty
            ? "No saved change of this record is kept yet."
            : "Enter puts its values in the form as edits; Ctrl-S saves."
        _ = buffer.write(footer, x: inner.x + 1, y: inner.y + inner.height - 1, maxWidth: max(0, inner.width - 2), style: Style(foreground: .muted, background: .surface))
    }
}
