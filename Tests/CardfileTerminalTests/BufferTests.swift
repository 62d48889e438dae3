import Testing
@testable import CardfileTerminal

@Suite("Buffer and text")
struct BufferTests {
    func lines(_ width: Int, _ height: Int = 1, _ draw: (inout Buffer) -> Void) -> [String] {
        var buffer = Buffer(size: Size(width: width, height: height))
        draw(&buffer)
        return buffer.lines
    }

    @Test func widthsByGraphemeCluster() {
        #expect("abc".displayWidth == 3)
        #expect("中文".displayWidth == 4)
        #expect("😀".displayWidth == 2)
        #expect("e\u{301}".displayWidth == 1)              // e + combining acute
        #expect("👨‍👩‍👧".displayWidth == 2)                 // ZWJ sequence: its first emoji
        #expect("🇫🇷".displayWidth == 2)                   // flag: two regional indicators
        #expect("👍🏽".displayWidth == 2)                   // skin tone dropped
        #expect("❤️".displayWidth == 1)                   // VS16 dropped: the text heart
        #expect("\u{200B}".displayWidth == 0)             // zero-width space dropped
        #expect("a\u{1B}[31mb".displayWidth == 7)          // ESC becomes one placeholder cell
    }

    @Test func controlCharactersAndEscapesBecomeMutedPlaceholders() {
        var buffer = Buffer(size: Size(width: 20, height: 1))
        buffer.write("a\u{1B}[2Jb\u{7}\u{7F}\u{85}\u{202E}c", x: 0, y: 0)
        #expect(buffer.line(0) == "a␛[2Jb␇␡��c         ")
        #expect(buffer[1, 0].style == Style.placeholder)
        #expect(buffer[0, 0].style == .plain)
        // Nothing in the buffer is a control character.
        #expect(buffer.cells.allSatisfy { cell in cell.text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) } })
        #expect(Glyph("\r\n").text == "␍" && Glyph("\r\n").width == 1, "one cluster, one placeholder: its first control's")
    }

    @Test func zeroSizeAndOneColumnAreas() {
        var empty = Buffer(size: Size(width: 0, height: 0))
        #expect(empty.write("hello", x: 0, y: 0) == 0)
        #expect(empty.lines.isEmpty)
        #expect(lines(1) { $0.write("hello", x: 0, y: 0) } == ["…"])
        #expect(lines(1) { $0.write("hello", x: 0, y: 0, overflow: .clip) } == ["h"])
        // A wide glyph never fits in one column.
        #expect(lines(1) { $0.write("中", x: 0, y: 0) } == ["…"])
        #expect(lines(1) { $0.write("中", x: 0, y: 0, overflow: .clip) } == [" "])
        #expect(lines(3) { $0.write("x", x: 5, y: 0) } == ["   "])
        #expect(lines(3) { $0.write("x", x: 0, y: 4) } == ["   "])
    }

    @Test func truncationNeverSplitsAWideCharacter() {
        #expect(lines(5) { $0.write("中文字", x: 0, y: 0) } == ["中文…"])
        #expect(lines(4) { $0.write("中文字", x: 0, y: 0) } == ["中… "])
        #expect(lines(6) { $0.write("ab中文字", x: 0, y: 0) } == ["ab中… "])
        #expect(lines(5) { $0.write("中文字", x: 0, y: 0, overflow: .clip) } == ["中文 "])
        #expect(lines(6) { $0.write("abcdef", x: 0, y: 0) } == ["abcdef"])
        #expect(lines(6) { $0.write("abcdefg", x: 0, y: 0) } == ["abcde…"])
        #expect(lines(8) { $0.write("x😀y👨‍👩‍👧z", x: 1, y: 0, maxWidth: 6) } == [" x😀y…  "])
    }

    @Test func wideCharacterAtTheRightEdge() {
        // Column 4 is the last: a wide glyph cannot start there.
        #expect(lines(5) { $0.write("abcd中", x: 0, y: 0, overflow: .clip) } == ["abcd "])
        var buffer = Buffer(size: Size(width: 5, height: 1))
        buffer.set(Cell(text: "中", width: 2), x: 4, y: 0)
        #expect(buffer.line(0) == "     ")
        #expect(buffer[4, 0].width == 1)
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = Buffer(size: Size(width: 6, height: 1))
        buffer.write("中文字", x: 0, y: 0)
        buffer.write("x", x: 1, y: 0)        // the right half of 中
        #expect(buffer.line(0) == " x文字")
        buffer.write("y", x: 2, y: 0)        // the left half of 文
        #expect(buffer.line(0) == " xy 字")
        buffer.fill(Rect(x: 5, y: 0, width: 1, height: 1), style: .plain, text: "z")
        #expect(buffer.line(0) == " xy  z")
        #expect(buffer.cells.count == 6)
    }

    @Test func combiningMarksFlagsAndZWJStayInOneCell() {
        var buffer = Buffer(size: Size(width: 10, height: 1))
        buffer.write("e\u{301}🇫🇷👨‍👩‍👧!", x: 0, y: 0)
        #expect(buffer[0, 0].text == "e\u{301}")
        #expect(buffer[1, 0].text == "🇫🇷" && buffer[1, 0].width == 2 && buffer[2, 0].text.isEmpty)
        #expect(buffer[3, 0].text == "👨" && buffer[3, 0].width == 2)
        #expect(buffer[5, 0].text == "!")
    }

    @Test func diffWritesOnlyChangedCells() {
        var before = Buffer(size: Size(width: 40, height: 3))
        before.write("The quick brown fox", x: 0, y: 1)
        var after = before
        after.write("Q", x: 4, y: 1)
        let runs = after.changes(since: before)
        #expect(runs.count == 1)
        #expect(runs[0].x == 4 && runs[0].y == 1 && runs[0].cells.map(\.text) == ["Q"])
        // A wide glyph changed by its second half is rewritten whole.
        var wide = Buffer(size: Size(width: 10, height: 1))
        wide.write("ab中", x: 0, y: 0)
        var changed = wide
        changed.write("文", x: 2, y: 0)
        let wideRuns = changed.changes(since: wide)
        #expect(wideRuns.map(\.x) == [2])
        #expect(wideRuns[0].cells.count == 2)
        // No previous frame, or another size: everything.
        #expect(after.changes(since: nil).count == 3)
        #expect(after.changes(since: Buffer(size: Size(width: 39, height: 3))).count == 3)
        #expect(after.changes(since: after).isEmpty)
    }
}
