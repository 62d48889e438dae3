import CardfileStore
import CardfileTerminal

/// A column's frequency table (`F`) over the list: each value with its count, its share and a
/// bar, most frequent first. ↑ ↓ choose a value, Enter filters the list to it, Esc goes back.
struct FrequencyPanel: ChoosingPanel {
    let table: String
    let column: String
    /// Over which rows, in words: `every record`, `the marked records`.
    let scope: String
    var frequencies: ColumnFrequencies
    var selected = 0
    /// The first value shown.
    var scroll = 0

    init(table: String, column: String, scope: String, frequencies: ColumnFrequencies) {
        self.table = table
        self.column = column
        self.scope = scope
        self.frequencies = frequencies
    }

    var rowCount: Int { frequencies.values.count }

    /// The chosen value; none when the table is empty. (Not `? … : nil`: `Value` takes `nil`
    /// as its NULL, so that read an empty table's choice as NULL, found by the monkey test.)
    var selectedValue: Value? {
        guard frequencies.values.indices.contains(selected) else { return Optional<Value>.none }
        return frequencies.values[selected].value
    }

    /// The box over `area`: most of the screen, less a margin.
    func frame(in area: Rect) -> Rect {
        let width = min(max(40, area.width - 8), area.width)
        let height = min(frequencies.values.count + 4, area.height)
        return area.centered(Size(width: width, height: height))
    }

    /// Rows of values the box shows in `area`.
    func visibleRows(in area: Rect) -> Int { max(1, frame(in: area).height - 4) }

    /// Moves the choice by `rows` (negative: up), keeping it on screen.
    mutating func move(by rows: Int, in area: Rect) {
        guard !frequencies.values.isEmpty else { return }
        selected = min(frequencies.values.count - 1, max(0, selected + rows))
        let visible = visibleRows(in: area)
        if selected < scroll { scroll = selected }
        if selected >= scroll + visible { scroll = selected - visible + 1 }
    }

    func render(in area: Rect, buffer: inout Buffer) {
        let area = area.intersection(buffer.area)
        let box = frame(in: area)
        let distinct = frequencies.distinct.map { "\(ValueText.count($0)) value\($0 == 1 ? "" : "s")" } ?? "values being counted"
        let inner = Block(title: "\(column) in \(table): \(scope), \(distinct)").render(in: box, buffer: &buffer)
        guard inner.height > 0, inner.width > 4 else { return }
        let counts = frequencies.values.map { ValueText.count($0.count) }
        let countWidth = max(5, counts.map(\.count).max() ?? 0)
        let barWidth = max(0, min(20, inner.width / 4))
        // The marker, the value, the count, the share (100.0%), the bar, with a space between.
        let valueWidth = max(4, inner.width - 3 - 1 - countWidth - 1 - 6 - 1 - barWidth - 1)
        let surface = Style(foreground: .text, background: .surface)
        func line(_ y: Int, marker: String, value: String, count: String, share: String, bar: Int, style: Style, valueStyle: Style) {
            var x = inner.x + 1
            x += buffer.write(marker, x: x, y: y, maxWidth: 1, style: style)
            buffer.set(Cell(text: " ", style: style), x: x, y: y)
            x = inner.x + 3
            _ = buffer.write(value, x: x, y: y, maxWidth: valueWidth, style: valueStyle)
            for column in x + min(value.displayWidth, valueWidth)..<(x + valueWidth) { buffer.set(Cell(text: " ", style: style), x: column, y: y) }
            x += valueWidth + 1
            _ = buffer.write(String(repeating: " ", count: max(0, countWidth - count.count)) + count, x: x, y: y, maxWidth: countWidth, style: style)
            x += countWidth + 1
            _ = buffer.write(String(repeating: " ", count: max(0, 6 - share.count)) + share, x: x, y: y, maxWidth: 6, style: style)
            x += 7
            _ = buffer.write(String(repeating: "█", count: bar), x: x, y: y, maxWidth: barWidth, style: Style(foreground: .accent, background: style.background))
        }
        let header = Style(foreground: .accent, background: .surface, attributes: [.bold])
        line(inner.y, marker: " ", value: "value", count: "count", share: "%", bar: 0, style: header, valueStyle: header)
        let most = max(1, frequencies.values.first?.count ?? 1)
        let shown = max(0, inner.height - 2)
        for offset in 0..<min(shown, max(0, frequencies.values.count - scroll)) {
            let index = scroll + offset
            let (value, count) = frequencies.values[index]
            let isSelected = index == selected
            let style = isSelected ? Style(foreground: .text, background: .selection, attributes: [.bold]) : surface
            let text: String = value == .text("") ? "“”" : TerminalText.visible(ValueText.cell(value))
            let share = frequencies.rows == 0 ? "" : String(format: "%.1f%%", Double(count) * 100 / Double(frequencies.rows))
            let bar = Int((Double(count) / Double(most) * Double(barWidth)).rounded(.up))
            let valueStyle = value.isNull ? Style(foreground: .muted, background: style.background, attributes: style.attributes) : style
            line(inner.y + 1 + offset, marker: isSelected ? "›" : " ", value: text, count: counts[index], share: share, bar: bar,
                 style: style, valueStyle: valueStyle)
        }
        // The last line: what is left out, or that every value is listed.
        let rows = "\(ValueText.count(frequencies.rows)) row\(frequencies.rows == 1 ? "" : "s")"
        let footer: String
        if let all = frequencies.distinct, all <= frequencies.values.count {
            footer = "\(rows); Enter filters the list to the value."
        } else {
            footer = "The \(ValueText.count(frequencies.values.count)) most frequent of \(distinct), \(rows); Enter filters."
        }
        _ = buffer.write(footer, x: inner.x + 1, y: inner.y + inner.height - 1, maxWidth: max(0, inner.width - 2), style: Style(foreground: .muted, background: .surface))
    }
}
