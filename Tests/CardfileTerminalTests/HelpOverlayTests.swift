import CardfileTestSupport
import Testing
@testable import CardfileTerminal

/// The help is wrapped, never cut: at any width every entry's keys and description can be
/// read whole by scrolling, and nothing is drawn past the box.
@Suite("Help overlay")
struct HelpOverlayTests {
    enum Action: Hashable, Sendable { case one }

    static let words = ["save", "the", "record", "Ctrl-S", "→", "données", "記録を保存", "a", "very-long-word-without-any-space-in-it", "🇫🇷", "Esc"]

    static func phrase(_ random: inout SeededRandom, words count: ClosedRange<Int>) -> String {
        (0..<Int.random(in: count, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
    }

    /// Seeded: random entries, random boxes; the wrapped lines give back each entry whole, in
    /// order, and each line fits the width it is drawn in.
    @Test func everyEntryCanBeReadWholeAtAnyWidth() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(100) {
            let entries: [HelpOverlay.Entry] = (0..<Int.random(in: 1...12, using: &random)).map { index in
                (section: "Section \(index / 4)", keys: Self.phrase(&random, words: 1...4), help: Self.phrase(&random, words: 1...14))
            }
            var help = HelpOverlay(keyMap: KeyMap<Action>([]), more: entries)
            let area = Rect(x: 0, y: 0, width: Int.random(in: 6...130, using: &random), height: Int.random(in: 3...40, using: &random))
            let box = help.frame(in: area)
            let width = max(1, box.width - 4)
            let lines = help.lines(width: width)
            // Each line fits: the keys from the left, the text from its indent (only a single
            // glyph wider than the whole width cannot).
            for line in lines {
                #expect(line.keys.displayWidth <= width || line.keys.count == 1, "seed \(seed) round \(round): \(line) in \(width)")
                #expect(line.indent + line.text.displayWidth <= width || (line.text.count == 1 && line.indent == 0),
                        "seed \(seed) round \(round): \(line) in \(width)")
            }
            // Reading the lines in order gives each entry back.
            var keys: [String] = []
            var texts: [String] = []
            for line in lines where !line.isHeading {
                if !line.keys.isEmpty { keys.append(line.keys) }
                if !line.text.isEmpty { texts.append(line.text) }
            }
            let squeezed = { (text: String) in text.split(separator: " ").joined() }
            #expect(squeezed(keys.joined()) == squeezed(entries.map(\.keys).joined()), "seed \(seed) round \(round)")
            #expect(squeezed(texts.joined()) == squeezed(entries.map(\.help).joined()), "seed \(seed) round \(round)")
            // Scrolling through draws every line once, inside the box.
            let shown = max(0, box.height - 2)
            var seen = 0
            help.scroll = 0
            while shown > 0 {
                var buffer = Buffer(size: area.size)
                help.render(in: area, buffer: &buffer)
                for y in 0..<area.height {
                    for x in 0..<area.width where x < box.x || x >= box.maxX || y < box.y || y >= box.maxY {
                        #expect(buffer[x, y].text == " ", "seed \(seed) round \(round): drawn outside the box at \(x),\(y)")
                    }
                }
                seen = min(lines.count, help.scroll + shown)
                if help.scroll >= help.maximumScroll(in: area) { break }
                help.scroll += shown
            }
            #expect(shown == 0 || seen == lines.count, "seed \(seed) round \(round)")
        }
    }

    @Test func aNarrowBoxStacksKeysAndWrapsTheDescription() {
        let keys = KeyMap<Action>([KeyBinding([.control("s")], .one, help: "Save the record now, through the editor context", section: "Form")])
        var buffer = Buffer(size: Size(width: 24, height: 10))
        HelpOverlay(title: "Help", keyMap: keys).render(in: buffer.area, buffer: &buffer)
        #expect(buffer.lines == [
            "                        ",
            "┌─ Help ───────────────┐",
            "│ Form                 │",
            "│ Ctrl-S               │",
            "│   Save the record    │",
            "│   now, through the   │",
            "│   editor context     │",
            "└──────────────────────┘",
            "                        ",
            "                        ",
        ])
    }
}
