import Testing
@testable import CardfileTerminal

/// Cases found in review: each failed (or crashed) before its fix.
@Suite("Terminal edge cases")
struct TerminalEdgeCaseTests {
    @Test func writingWithNoRoomDrawsNothing() {
        var buffer = Buffer(size: Size(width: 5, height: 1))
        let negative = buffer.write("abc", x: 2, y: 0, maxWidth: -1)
        let zero = buffer.write("abc", x: 2, y: 0, maxWidth: 0)
        #expect(negative == 0 && zero == 0)
        #expect(buffer.line(0) == "     ")
    }

    @Test func dialogsAndHelpInNarrowAreas() {
        var dialog = Dialog(title: "Unsaved changes", message: "Save?", buttons: [.init("Save", hotkey: "s")])
        func drawn(_ width: Int) -> [String] {
            var buffer = Buffer(size: Size(width: width, height: 8))
            dialog.render(in: buffer.area, buffer: &buffer)
            return buffer.lines
        }
        #expect(drawn(0) == Array(repeating: "", count: 8))
        #expect(drawn(3) == ["┌─┐"] + Array(repeating: "│ │", count: 6) + ["└─┘"])
        // The message wraps inside the box, the title and the button are cut with …, never past the edge.
        #expect(drawn(6) == ["┌─ …─┐", "│    │", "│ Sa │", "│ ve │", "│ ?  │", "│    │", "│  […│", "└────┘"])
        for width in 0...6 { #expect(drawn(width).allSatisfy { $0.displayWidth == width }, "width \(width)") }
        _ = dialog.handle(.char("s"))

        enum Action: Hashable, Sendable { case one }
        let keys = KeyMap<Action>([KeyBinding([.control("q")], .one, help: "A long help text", section: "Section")])
        func help(_ width: Int) -> [String] {
            var buffer = Buffer(size: Size(width: width, height: 6))
            HelpOverlay(keyMap: keys, scroll: -3).render(in: Rect(x: 0, y: 0, width: width / 2, height: 6), buffer: &buffer)
            return buffer.lines
        }
        #expect(help(8) == ["┌──┐    "] + Array(repeating: "│  │    ", count: 4) + ["└──┘    "])
        #expect(help(12) == ["┌─ …─┐      ", "│ Se │      ", "│ ct │      ", "│ io │      ", "│ n  │      ", "└────┘      "])
        // Whatever the width, nothing is drawn outside the area it was given.
        for width in 0...12 {
            #expect(help(width).allSatisfy { $0.dropFirst(width / 2).allSatisfy { $0 == " " } }, "width \(width)")
        }
    }

    @Test func wrappingAWordWiderThanTheLineKeepsEveryCharacter() {
        #expect(Dialog.wrap("ab漢cd", width: 3) == ["ab", "漢c", "d"])
        #expect(Dialog.wrap("ab漢cd", width: 3).joined() == "ab漢cd")
        #expect(Dialog.wrap("one two three", width: 7) == ["one two", "three"])
    }

    @Test func endOfAWrappedLineStaysOnIt() {
        var state = TextAreaState(text: "abcdefgh\nxy")
        var buffer = Buffer(size: Size(width: 4, height: 3))
        TextArea(style: .plain).render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.lines == ["abcd", "efgh", "xy  "])
        // End goes to the end of the text line (after "h"), not down the display lines.
        state.handle(KeyEvent(.end))
        state.handle(KeyEvent(.end))
        #expect(state.cursor == 8)
        // Ctrl-K at the start deletes to the line break only.
        state.handle(KeyEvent(.home))
        state.handle(.control("k"))
        #expect(state.text == "\nxy")
        // ↓ from the end of a full soft-wrapped line lands on the line below, not two down.
        var wrapped = TextAreaState(text: "abcdefghij")
        TextArea(style: .plain).render(in: buffer.area, buffer: &buffer, state: &wrapped)
        wrapped.handle(KeyEvent(.right))
        wrapped.handle(KeyEvent(.right))
        wrapped.handle(KeyEvent(.right))
        wrapped.handle(KeyEvent(.down))
        #expect(TextArea().cursor(in: buffer.area, state: &wrapped) == Point(x: 3, y: 1))
    }

    @Test func pastedCarriageReturnsBecomeLineBreaks() {
        var state = TextAreaState()
        state.insert("one\rtwo\r\nthree")
        #expect(state.text == "one\ntwo\nthree")
        var field = TextFieldState()
        field.insert("a\rb")
        #expect(field.text == "a b")
    }

    @Test func spacingVowelSignsAreKept() {
        #expect(Glyph("कि").text == "कि")
        #expect(Glyph("कि").width == 2)
        #expect(Glyph("กำ").text == "กำ")
        var buffer = Buffer(size: Size(width: 6, height: 1))
        buffer.write("किab", x: 0, y: 0)
        #expect(buffer.line(0) == "किab  ")
    }

    @Test func sidewaysWheelAndKeypadKeys() {
        var decoder = KeyDecoder()
        let wheel = decoder.feed(Array("\u{1B}[<66;1;1M\u{1B}[<67;1;1Mz".utf8))
        #expect(wheel == [.key(.char("z"))])
        let keypad = decoder.feed(Array("\u{1B}Ok\u{1B}Op\u{1B}Oy\u{1B}OX".utf8))
        #expect(keypad == [.key(.char("+")), .key(.char("0")), .key(.char("9")), .key(.char("="))])
        #expect(decoder.feed(Array("\u{1B}Ox".utf8)) == [.key(.char("8"))])
        // An SS3 sequence it does not know: Alt-O, then the third byte as typed.
        let unknown = decoder.feed(Array("\u{1B}Oz".utf8))
        #expect(unknown == [.key(.alt("O")), .key(.char("z"))])
    }

    @Test func formStateSurvivesRemovedFields() {
        var state = FormState(fields: [FormField(label: "A"), FormField(label: "B"), FormField(label: "C")], focus: 2)
        state.scroll = 2
        state.fields.removeLast(2)
        var buffer = Buffer(size: Size(width: 20, height: 3))
        Form().render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(state.focus == 0 && state.scroll == 0)
        #expect(buffer.line(0).hasPrefix("A"))
        let handled = state.handle(.char("x"))
        #expect(handled)
        #expect(state.fields[0].state.text == "x")
    }
}
