import Testing
@testable import CardfileTerminal

@Suite("Text editing")
struct TextEditingTests {
    func field(_ text: String, cursor: Int? = nil) -> TextFieldState {
        var state = TextFieldState(text: text)
        if let cursor { state.moveCursor(to: cursor) }
        return state
    }

    @Test func movesAndDeletesByGraphemeCluster() {
        var state = field("a🇫🇷é👨‍👩‍👧b")
        #expect(state.count == 5)
        state.handle(KeyEvent(.left))
        state.handle(KeyEvent(.left))
        #expect(state.cursor == 3)
        state.handle(KeyEvent(.backspace))
        #expect(state.text == "a🇫🇷👨‍👩‍👧b")
        state.handle(KeyEvent(.delete))
        #expect(state.text == "a🇫🇷b")
        state.handle(KeyEvent(.home))
        state.handle(KeyEvent(.right))
        state.handle(KeyEvent(.delete))
        #expect(state.text == "ab")
    }

    @Test func readlineKeys() {
        var state = field("hello brave new world")
        state.handle(.control("a"))
        #expect(state.cursor == 0)
        state.handle(.alt("f"))
        #expect(state.cursor == 5)
        state.handle(.alt("f"))
        #expect(state.cursor == 11)
        state.handle(.alt("b"))
        #expect(state.cursor == 6)
        state.handle(.control("k"))
        #expect(state.text == "hello ")
        state.handle(.control("e"))
        state.insert("big world")
        state.handle(.control("w"))
        #expect(state.text == "hello big ")
        state.handle(.control("u"))
        #expect(state.text.isEmpty && state.cursor == 0)
        #expect(state.handle(.control("x")) == false)
        #expect(state.handle(KeyEvent(.up)) == false)
    }

    @Test func ctrlArrowsMoveByWordLikeAltBAndF() {
        var state = field("hello, brave_new wörld 42", cursor: 0)
        state.handle(KeyEvent(.right, modifiers: .control))
        #expect(state.cursor == 5)
        state.handle(KeyEvent(.right, modifiers: .control))
        #expect(state.cursor == 16, "brave_new is one word")
        state.handle(KeyEvent(.right, modifiers: .alt))
        #expect(state.cursor == 22)
        state.handle(KeyEvent(.left, modifiers: .control))
        #expect(state.cursor == 17)
        state.handle(KeyEvent(.left, modifiers: [.control, .shift]))
        #expect(state.cursor == 7)
        // Plain arrows still move by one character.
        state.handle(KeyEvent(.left))
        #expect(state.cursor == 6)
    }

    @Test func aTextAreaMovesByWordAcrossLines() {
        var state = TextAreaState(text: "one two\nthree")
        state.moveCursor(to: 0)
        state.handle(.alt("f"))
        #expect(state.cursor == 3)
        state.handle(KeyEvent(.right, modifiers: .control))
        #expect(state.cursor == 7)
        state.handle(.alt("f"))
        #expect(state.cursor == 13, "over the line break to the end of three")
        state.handle(.alt("b"))
        #expect(state.cursor == 8)
        state.handle(KeyEvent(.left, modifiers: .control))
        #expect(state.cursor == 4)
        // A word key never types its letter.
        #expect(state.text == "one two\nthree")
    }

    @Test func theDecoderGivesCtrlArrowsTheirModifier() {
        var decoder = KeyDecoder()
        let events = decoder.feed(Array("\u{1B}[1;5D\u{1B}[1;5C\u{1B}b".utf8)) + decoder.flush()
        #expect(events == [.key(KeyEvent(.left, modifiers: .control)), .key(KeyEvent(.right, modifiers: .control)), .key(.alt("b"))])
    }

    @Test func typingAndPastingInsertAtTheCursor() {
        var state = field("ac", cursor: 1)
        state.handle(.char("b"))
        #expect(state.text == "abc" && state.cursor == 2)
        state.insert("1\n2")
        #expect(state.text == "ab1 2c")
    }

    @Test func fieldScrollsToKeepTheCursorVisible() {
        var state = field("0123456789abcdef")
        var buffer = Buffer(size: Size(width: 6, height: 1))
        TextField(style: .plain).render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.line(0) == "bcdef ")
        #expect(TextField().cursor(in: buffer.area, state: &state) == Point(x: 5, y: 0))
        state.handle(KeyEvent(.home))
        TextField(style: .plain).render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.line(0) == "012345")
        #expect(TextField().cursor(in: buffer.area, state: &state) == Point(x: 0, y: 0))
        // When the field grows wider, it scrolls back to show all it can.
        state.handle(KeyEvent(.end))
        var narrow = Buffer(size: Size(width: 3, height: 1))
        TextField(style: .plain).render(in: narrow.area, buffer: &narrow, state: &state)
        #expect(narrow.line(0) == "ef ")
        var wider = Buffer(size: Size(width: 20, height: 1))
        TextField(style: .plain).render(in: wider.area, buffer: &wider, state: &state)
        #expect(wider.line(0) == "0123456789abcdef    ")
        #expect(TextField().cursor(in: wider.area, state: &state) == Point(x: 16, y: 0))
        // Wide characters scroll whole.
        var wide = field("中文字")
        var small = Buffer(size: Size(width: 4, height: 1))
        TextField(style: .plain).render(in: small.area, buffer: &small, state: &wide)
        #expect(small.line(0) == "字  ")
        #expect(TextField().cursor(in: small.area, state: &wide) == Point(x: 2, y: 0))
    }

    /// The mark restyles the cells of the character at its index (or the cell after the text),
    /// counting wide characters as two, and nothing when it is scrolled out of view.
    @Test func fieldMarksOneCharacter() {
        func marked(_ text: String, mark: Int, width: Int = 10, home: Bool = true) -> [Int] {
            var state = field(text)
            if home { state.handle(KeyEvent(.home)) }
            var buffer = Buffer(size: Size(width: width, height: 1))
            TextField(style: .plain, mark: mark).render(in: buffer.area, buffer: &buffer, state: &state)
            return (0..<width).filter { buffer[$0, 0].style.attributes.contains(.reverse) }
        }
        #expect(marked("abc", mark: 1) == [1])
        #expect(marked("abc", mark: 3) == [3], "at the end: the cell after the text")
        #expect(marked("中文x", mark: 1) == [2, 3], "a wide character is marked whole")
        #expect(marked("中文x", mark: 2) == [4])
        #expect(marked("0123456789abcdef", mark: 2, width: 6, home: false) == [], "scrolled out of view")
        #expect(marked("0123456789abcdef", mark: 16, width: 6, home: false) == [5])
        #expect(marked("abcdefghij", mark: 10, width: 10) == [], "past the field's edge")
    }

    @Test func textAreaWrapsAndMovesByLine() {
        var state = TextAreaState(text: "first line\nsecond")
        var buffer = Buffer(size: Size(width: 6, height: 3))
        TextArea(style: .plain).render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.lines == ["first ", "line  ", "second"])
        #expect(TextArea().cursor(in: buffer.area, state: &state) == Point(x: 0, y: 0))
        state.handle(KeyEvent(.down))
        state.handle(KeyEvent(.end))
        state.insert("!")
        #expect(state.text == "first line!\nsecond")
        state.handle(KeyEvent(.enter))
        state.insert("new")
        TextArea(style: .plain).render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.lines == ["first ", "line! ", "new   "])
        #expect(TextArea().cursor(in: buffer.area, state: &state) == Point(x: 3, y: 2))
        // Moving below the last line shown scrolls.
        state.handle(KeyEvent(.down))
        TextArea(style: .plain).render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(buffer.lines == ["line! ", "new   ", "second"])
        #expect(TextArea().cursor(in: buffer.area, state: &state) == Point(x: 3, y: 2))
    }

    @Test func commandPromptHistory() {
        var prompt = CommandPromptState()
        for character in "sort name" { _ = prompt.handle(.char(character)) }
        #expect(prompt.handle(KeyEvent(.enter)) == .submitted("sort name"))
        for character in "filter" { _ = prompt.handle(.char(character)) }
        #expect(prompt.handle(KeyEvent(.enter)) == .submitted("filter"))
        for character in "dra" { _ = prompt.handle(.char(character)) }
        #expect(prompt.handle(KeyEvent(.up)) == .edited)
        #expect(prompt.field.text == "filter")
        _ = prompt.handle(KeyEvent(.up))
        #expect(prompt.field.text == "sort name")
        _ = prompt.handle(KeyEvent(.up))
        #expect(prompt.field.text == "sort name")
        _ = prompt.handle(KeyEvent(.down))
        _ = prompt.handle(KeyEvent(.down))
        #expect(prompt.field.text == "dra")
        #expect(prompt.handle(KeyEvent(.escape)) == .cancelled)
        #expect(prompt.history == ["sort name", "filter"])
    }
}
