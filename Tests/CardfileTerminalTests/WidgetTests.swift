import Testing
@testable import CardfileTerminal

@Suite("Widgets")
struct WidgetTests {
    func render(_ width: Int, _ height: Int, _ widget: some Widget) -> [String] {
        var buffer = Buffer(size: Size(width: width, height: height))
        widget.render(in: buffer.area, buffer: &buffer)
        return buffer.lines
    }

    let table = Table(
        columns: [TableColumn("Name"), TableColumn("City"), TableColumn("Age", alignment: .right)],
        rows: [["Ada", "London", "36"], ["山田太郎", "東京", "41"], ["Zoë \u{1B}[31m", "Paris 🇫🇷", "7"]],
        marks: [nil, .modified, .deleted],
        selectedRow: 1, focusedColumn: 1)

    @Test func tableFitsColumnsToTheData() {
        #expect(render(30, 4, table) == [
            "  Name      City     Age      ",
            "  Ada       London    36      ",
            "● 山田太郎  東京      41      ",
            "✗ Zoë ␛[31m Paris 🇫🇷   7      ",
        ])
    }

    /// Short columns are never squeezed: when they do not all fit, whole ones from the
    /// focused column's side show (the sideways scroll), wide characters whole.
    @Test func tableScrollsSidewaysRatherThanSqueezingShortColumns() {
        #expect(render(17, 4, table) == [
            "  City     Age   ",
            "  London    36   ",
            "● 東京      41   ",
            "✗ Paris 🇫🇷   7   ",
        ])
    }

    /// Long text (wider than the cap) takes the cap when there is room and narrows first,
    /// down to its title; short columns stay whole meanwhile.
    @Test func longTextNarrowsFirstAndShortColumnsStayWhole() {
        let long = Table(
            columns: [TableColumn("id", maxWidth: 10, alignment: .right), TableColumn("notes", maxWidth: 10), TableColumn("isbn", maxWidth: 16)],
            rows: [["1", "a long note about the book", "9781000000009"], ["22", "short", "9781000000016"]])
        #expect(long.layout(width: 40).map(\.width) == [3, 10, 13], "the cap when there is room")
        #expect(long.layout(width: 26).map(\.width) == [3, 8, 13], "narrower, down to its least (8 cells)")
        #expect(render(28, 2, long) == ["   id notes    isbn         ", "    1 a long … 9781000000009"])
        // One cell less and the three no longer fit: whole columns, the long one at its cap.
        #expect(render(27, 2, long) == ["   id notes                ", "    1 a long no…           "])
        // Too narrow even then: whole columns, the focused one among them.
        let narrow = Table(columns: long.columns, rows: long.rows, focusedColumn: 2, firstColumn: 0)
        #expect(narrow.layout(width: 22).map(\.index) == [1, 2])
        #expect(narrow.layout(width: 20).map(\.index) == [2])
    }

    @Test func tableStylesSelectionMarksAndFocus() {
        var buffer = Buffer(size: Size(width: 30, height: 4))
        table.render(in: buffer.area, buffer: &buffer)
        #expect(buffer[2, 2].style.background == .selection)
        #expect(buffer[15, 2].style.attributes.contains(.underline))   // focused column of the selected row
        #expect(buffer[0, 2].style.foreground == .modified)
        #expect(buffer[0, 3].style.foreground == .deleted)
        #expect(buffer[2, 0].style.foreground == .accent)
        #expect(buffer[6, 3].style == Style(foreground: .muted, background: .background, attributes: [.dim]))   // the ESC placeholder
    }

    @Test func tableInZeroSizeAndOneColumnAreas() {
        var buffer = Buffer(size: Size(width: 5, height: 3))
        table.render(in: Rect(x: 1, y: 1, width: 0, height: 0), buffer: &buffer)
        #expect(buffer.lines == ["     ", "     ", "     "])
        #expect(render(1, 3, table) == ["…", "…", "…"])
        #expect(render(3, 2, table) == ["Ci…", "Lo…"])
    }

    @Test func tableShowsTheFocusedColumnWhenColumnsDoNotFit() {
        let wide = Table(
            columns: (1...6).map { TableColumn("Column \($0)", minWidth: 8) },
            rows: [(1...6).map { "value \($0)" }], focusedColumn: 5)
        let lines = render(30, 2, wide)
        #expect(lines[0].contains("Column 6"))
        #expect(!lines[0].contains("Column 1"))
    }

    @Test func scrollIndicatorShowsThePlace() {
        let rows = (0..<4).map { ["row \($0)"] }
        let top = Table(columns: [TableColumn("N")], rows: rows, scroll: ScrollPosition(first: 0, total: 100))
        let bottom = Table(columns: [TableColumn("N")], rows: rows, scroll: ScrollPosition(first: 96, total: 100))
        #expect(render(10, 5, top).map { String($0.last!) } == [" ", "█", "░", "░", "░"])
        #expect(render(10, 5, bottom).map { String($0.last!) } == [" ", "░", "░", "░", "█"])
    }

    @Test func dialogIsCentredWithHotkeys() {
        var dialog = Dialog(title: "Unsaved changes", message: "Save your changes to “Ada”?",
                            buttons: [.init("Save", hotkey: "s"), .init("Discard", hotkey: "d", role: .error), .init("Cancel", hotkey: "c")],
                            cancelButton: 2)
        let lines = render(40, 9, dialog)
        #expect(lines == [
            "                                        ",
            " ┌─ Unsaved changes ─────────────────┐  ",
            " │                                   │  ",
            " │ Save your changes to “Ada”?       │  ",
            " │                                   │  ",
            " │  [S]ave    [D]iscard    [C]ancel  │  ",
            " └───────────────────────────────────┘  ",
            "                                        ",
            "                                        ",
        ])
        #expect(dialog.handle(.char("d")) == 1)
        #expect(dialog.handle(.char("D")) == 1)
        #expect(dialog.handle(KeyEvent(.escape)) == 2)
        #expect(dialog.handle(KeyEvent(.tab)) == nil)
        #expect(dialog.handle(KeyEvent(.enter)) == 1)
        // A dialog on a tiny screen draws what fits, and nothing on an empty one.
        #expect(render(12, 3, dialog).count == 3)
        _ = render(0, 0, dialog)
    }

    @Test func formShowsMarksMessagesAndTheCursor() {
        var state = FormState(fields: [
            FormField(label: "Name", text: "Ada", isChanged: true),
            FormField(label: "Born", text: "1815", message: "Changed elsewhere to 1816", messageRole: .conflict, hasConflict: true),
            FormField(label: "Notes", text: ""),
        ], focus: 1)
        var buffer = Buffer(size: Size(width: 30, height: 5))
        Form().render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.lines == [
            "Name  ● Ada                   ",
            "Born  ! 1815                  ",
            "        Changed elsewhere to …",
            "Notes                         ",
            "                              ",
        ])
        #expect(Form().cursor(in: buffer.area, state: &state) == Point(x: 12, y: 1))
        #expect(buffer[9, 1].style.background == .selection)
        #expect(buffer[6, 1].style.foreground == .conflict)
        #expect(buffer[8, 2].style.foreground == .conflict)
        state.handle(KeyEvent(.tab))
        #expect(state.focus == 2)
        state.handle(.char("x"))
        #expect(state.fields[2].state.text == "x")
        #expect(Form().cursor(in: buffer.area, state: &state) == Point(x: 9, y: 3))
        // In a two-line area the focused field is scrolled into view.
        var small = Buffer(size: Size(width: 30, height: 2))
        Form().render(in: small.area, buffer: &small, state: &state)
        #expect(small.line(0).hasPrefix("Notes"))
        #expect(Form().cursor(in: small.area, state: &state) == Point(x: 9, y: 0))
    }

    @Test func statusAndProgressBars() {
        let status = StatusBar(left: "people", center: "row 5 of 1,000", right: "saved ✓")
        #expect(render(40, 1, status) == ["people       row 5 of 1,000      saved ✓"])
        #expect(render(10, 1, status) == ["p… saved ✓"])
        var buffer = Buffer(size: Size(width: 20, height: 1))
        ProgressBar(fraction: 0.5, label: "Sorting").render(in: buffer.area, buffer: &buffer)
        #expect(buffer.line(0) == "    Sorting 50%     ")
        #expect(buffer[9, 0].style.background == .accent)
        #expect(buffer[10, 0].style.background == .surface)
        ProgressBar(fraction: nil, label: "", tick: 3).render(in: buffer.area, buffer: &buffer)
        #expect((0..<20).filter { buffer[$0, 0].style.background == .accent } == [3, 4, 5, 6])
    }

    @Test func helpOverlayComesFromTheKeyMap() {
        enum Action: Hashable, Sendable { case quit, save, help }
        let keys = KeyMap<Action>([
            KeyBinding([.char("q")], .quit, help: "Quit", section: "General"),
            KeyBinding([.control("s")], .save, help: "Save now", section: "General"),
            KeyBinding([.char("?"), KeyEvent(.function(1))], .help, help: "Show this help", section: "Help"),
        ])
        #expect(keys.action(for: .control("s")) == .save)
        #expect(keys.action(for: KeyEvent(.function(1))) == .help)
        #expect(keys.action(for: .char("x")) == nil)
        #expect(keys.markdownTable() == """
            | Keys | Action |
            |---|---|
            | q | Quit |
            | Ctrl-S | Save now |
            | ?, F1 | Show this help |
            """)
        let lines = render(34, 9, HelpOverlay(keyMap: keys))
        #expect(lines == [
            "   ┌─ Keys ──────────────────┐    ",
            "   │ General                 │    ",
            "   │ q       Quit            │    ",
            "   │ Ctrl-S  Save now        │    ",
            "   │                         │    ",
            "   │ Help                    │    ",
            "   │ ?, F1   Show this help  │    ",
            "   └─────────────────────────┘    ",
            "                                  ",
        ])
    }

    @Test func toastsExpireByTheCallersClock() {
        let start = ContinuousClock.now
        var stack = ToastStack()
        stack.show(Toast("Saved", role: .success, expires: start + .seconds(2)))
        stack.show(Toast("Conflict in Ada", role: .conflict, expires: start + .seconds(5)))
        #expect(stack.nextDeadline == start + .seconds(2))
        #expect(render(20, 3, ToastView(stack)) == [
            "                    ",
            "              Saved ",
            "    Conflict in Ada ",
        ])
        let expired = stack.expire(now: start + .seconds(3))
        #expect(expired)
        #expect(stack.toasts.map(\.message) == ["Conflict in Ada"])
        let expiredAgain = stack.expire(now: start + .seconds(4))
        #expect(!expiredAgain)
    }
}
