import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// The mouse on the headless backend, from bytes decoded as the terminal sends them (SGR).
@Suite("Mouse", .timeLimit(.minutes(10)))
struct MouseTests {
    /// A click (press and release) at a zero-based cell, as SGR bytes through the decoder.
    static func click(_ harness: AppHarness, x: Int, y: Int) throws {
        try send(harness, "\u{1B}[<0;\(x + 1);\(y + 1)M\u{1B}[<0;\(x + 1);\(y + 1)m")
    }

    static func wheel(_ harness: AppHarness, down: Bool, x: Int = 5, y: Int = 5) throws {
        try send(harness, "\u{1B}[<\(down ? 65 : 64);\(x + 1);\(y + 1)M")
    }

    static func send(_ harness: AppHarness, _ bytes: String) throws {
        var decoder = KeyDecoder()
        let events = decoder.feed(Array(bytes.utf8)[...]) + decoder.flush()
        #expect(events.allSatisfy { if case .mouse = $0 { true } else { false } }, "\(events)")
        harness.backend.enqueue(events)
        try harness.settle()
    }

    /// Where `text` is drawn: (column, line) of its first character.
    static func place(of text: String, in harness: AppHarness) -> (x: Int, y: Int)? {
        for (y, line) in harness.lines.enumerated() {
            if let range = line.range(of: text) { return (line.distance(from: line.startIndex, to: range.lowerBound), y) }
        }
        return nil
    }

    @Test func aClickSelectsARowAndAColumnAndTheWheelScrolls() throws {
        let harness = try AppHarness()
        let linus = try #require(Self.place(of: "Linus", in: harness))
        try Self.click(harness, x: linus.x + 1, y: linus.y)
        #expect(harness.statusLine.contains("row 3 of 4"), "\(harness.statusLine)")
        try harness.press(.char("y"))
        #expect(String(decoding: Data(base64Encoded: String(harness.backend.controlWrites.last!.dropFirst(7).dropLast()))!, as: UTF8.self) == "Linus",
                "the clicked column has the focus")
        try Self.wheel(harness, down: false)
        #expect(harness.statusLine.contains("row 1 of 4"))
        try Self.wheel(harness, down: true)
        #expect(harness.statusLine.contains("row 4 of 4"))
        // Below the rows: nothing happens.
        try Self.click(harness, x: 3, y: 15)
        #expect(harness.statusLine.contains("row 4 of 4"))
    }

    @Test func aDoubleClickOpensTheRecordTwoSlowClicksDoNot() throws {
        let harness = try AppHarness()
        let grace = try #require(Self.place(of: "Grace", in: harness))
        try Self.click(harness, x: grace.x, y: grace.y)
        try harness.advance(.milliseconds(600))
        try Self.click(harness, x: grace.x, y: grace.y)
        #expect(harness.lines[0].contains("name"), "still the list: \(harness.lines[0])")
        try Self.click(harness, x: grace.x, y: grace.y)
        #expect(harness.lines[0].contains("cards › 2"), "\(harness.lines[0])")
    }

    @Test func inAFormAClickFocusesAFieldAndTheWheelMovesBetweenFields() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        let age = try #require(Self.place(of: "age", in: harness))

        try Self.click(harness, x: age.x + 10, y: age.y)
        try harness.type("0")
        try harness.press(.control("s"))
        #expect(try harness.disk("SELECT age FROM cards WHERE id = 1") == 360.databaseValue)
        try Self.wheel(harness, down: true)
        try harness.type("!")
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT notes FROM cards WHERE id = 1") == "first!")
    }

    @Test func aScrolledFormTakesTheClickOnTheFieldDrawnThereAndScrollsOnlyWhenItMust() throws {
        // 6 lines: the title, three lines of fields, the status bar and the message line, for
        // five fields.
        let harness = try AppHarness(size: Size(width: 60, height: 6))
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), KeyEvent(.tab), KeyEvent(.tab))   // notes
        #expect(harness.lines.contains { $0.hasPrefix("notes") }, "\(harness.screen)")
        #expect(!harness.lines.contains { $0.hasPrefix("id ") }, "scrolled: \(harness.screen)")
        let shown = harness.lines.prefix(4).joined(separator: "\n")
        // Up within what is shown moves the focus, not the fields.
        try harness.press(KeyEvent(.backTab))
        #expect(harness.lines.prefix(4).joined(separator: "\n") == shown, "\(harness.screen)")
        // A click on the first field shown focuses that field, not the form's first.
        let first = try #require(harness.lines.dropFirst().first.flatMap { $0.split(separator: " ").first }.map(String.init))
        let place = try #require(Self.place(of: first, in: harness))
        try Self.click(harness, x: place.x + 20, y: place.y)
        try harness.type("7")
        try harness.press(.control("s"))
        #expect(first == "phone", "\(harness.screen)")
        #expect(try harness.diskText("SELECT phone FROM cards WHERE id = 1") == "1117", "clicked \(first)")
    }

    @Test func aClickOnADialogButtonPressesIt() throws {
        let harness = try AppHarness()
        try harness.press(.char("d"))
        #expect(harness.screen.contains("Delete record"))
        // Outside the buttons: nothing.
        try Self.click(harness, x: 0, y: 0)
        #expect(harness.screen.contains("Delete record"))
        let keep = try #require(Self.place(of: "Keep", in: harness))
        try Self.click(harness, x: keep.x, y: keep.y)
        #expect(!harness.screen.contains("Delete record"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 4.databaseValue)
        try harness.press(.char("d"))
        let delete = try #require(Self.place(of: "] Delete", in: harness).map { ($0.x + 2, $0.y) }, "the button's label")
        #expect(delete.1 > 1)
        try Self.click(harness, x: delete.0, y: delete.1)
        #expect(try harness.disk("SELECT count(*) FROM cards") == 3.databaseValue)
    }

    @Test func onTheTablesScreenAClickSelectsAndADoubleClickOpens() throws {
        let harness = try AppHarness(demoRows: 20)
        let loans = try #require(Self.place(of: "loans", in: harness))
        try Self.click(harness, x: loans.x, y: loans.y)
        try Self.click(harness, x: loans.x, y: loans.y)
        #expect(harness.statusLine.contains("loans"), "\(harness.statusLine)")
    }
}
