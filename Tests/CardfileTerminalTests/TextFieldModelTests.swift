import CardfileTestSupport
import Testing
@testable import CardfileTerminal

/// The text field keeps its count and cursor edit by edit (so a key costs the same in a
/// megabyte as in a word); a plain model that counts everything again after every edit is
/// its oracle, over an alphabet chosen to join across edits (combining marks, flag halves,
/// ZWJ sequences, Hangul jamo, wide characters).
@Suite("Text field model")
struct TextFieldModelTests {
    static let alphabet: [String] = ["a", "b", " ", "é", "e", "\u{301}", "🇫", "🇷", "👩", "\u{200D}", "中", "_", "1", "\n", "ᄀ", "ᅡ", "ᆨ", "🧙", "\t", "\u{1}"]

    /// The model: the text, and the cursor as a character offset.
    struct Model {
        var text = ""
        var cursor = 0

        /// The character offset of the first boundary at or after UTF-8 offset `utf8`.
        func boundary(atOrAfter utf8: Int) -> Int {
            var used = 0
            var characters = 0
            for character in text {
                if used >= utf8 { return characters }
                used += character.utf8.count
                characters += 1
            }
            return characters
        }

        func utf8(of characters: Int) -> Int { text.prefix(characters).utf8.count }

        mutating func replace(from: Int, to: Int, with new: String, cursorAfter: Bool) {
            let start = text.index(text.startIndex, offsetBy: from)
            let end = text.index(text.startIndex, offsetBy: to)
            let anchor = utf8(of: from) + (cursorAfter ? new.utf8.count : 0)
            text.replaceSubrange(start..<end, with: new)
            cursor = boundary(atOrAfter: anchor)
        }

        mutating func apply(_ event: KeyEvent) {
            let characters = Array(text)
            switch (event.key, event.modifiers) {
            case (.left, []): cursor = max(0, cursor - 1)
            case (.right, []): cursor = min(characters.count, cursor + 1)
            case (.home, _), (.character("a"), .control): cursor = 0
            case (.end, _), (.character("e"), .control): cursor = characters.count
            case (.backspace, _): if cursor > 0 { replace(from: cursor - 1, to: cursor, with: "", cursorAfter: false) }
            case (.delete, _): if cursor < characters.count { replace(from: cursor, to: cursor + 1, with: "", cursorAfter: false) }
            case (.character("k"), .control): replace(from: cursor, to: characters.count, with: "", cursorAfter: false)
            case (.character("u"), .control): replace(from: 0, to: cursor, with: "", cursorAfter: false)
            case (.character("w"), .control):
                var start = cursor
                while start > 0, characters[start - 1].isWhitespace { start -= 1 }
                while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
                replace(from: start, to: cursor, with: "", cursorAfter: false)
            case (.character("b"), .alt), (.left, .control): cursor = WordMotion.move(.backward, in: characters, from: cursor)
            case (.character("f"), .alt), (.right, .control): cursor = WordMotion.move(.forward, in: characters, from: cursor)
            case (.character(let character), []): insert(String(character))
            default: break
            }
        }

        mutating func insert(_ typed: String) {
            replace(from: cursor, to: cursor, with: String(typed.map { $0.isNewline ? " " : $0 }), cursorAfter: true)
        }
    }

    static func randomEvent(_ random: inout SeededRandom) -> (KeyEvent?, String?, Int?) {
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<7: return (KeyEvent(.character(Character(alphabet.randomElement(using: &random)!))), nil, nil)
        case 7: return (nil, (0..<Int.random(in: 1...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined(), nil)
        case 8: return (KeyEvent(.left), nil, nil)
        case 9: return (KeyEvent(.right), nil, nil)
        case 10: return (KeyEvent(.backspace), nil, nil)
        case 11: return (KeyEvent(.delete), nil, nil)
        case 12: return ([KeyEvent(.home), KeyEvent(.end), .control("a"), .control("e")].randomElement(using: &random)!, nil, nil)
        case 13: return ([.control("k"), .control("u"), .control("w")].randomElement(using: &random)!, nil, nil)
        case 14: return ([.alt("b"), .alt("f"), KeyEvent(.left, modifiers: .control), KeyEvent(.right, modifiers: .control)].randomElement(using: &random)!, nil, nil)
        case 15: return (nil, nil, Int.random(in: -2...40, using: &random))
        default: return (KeyEvent(.backspace), nil, nil)
        }
    }

    @Test func editsKeepTheCountAndCursorOfTheModel() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(300) {
            var state = TextFieldState()
            var model = Model()
            if Bool.random(using: &random) {
                let start = (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! }.joined()
                    .replacingOccurrences(of: "\n", with: " ")
                state = TextFieldState(text: start)
                model = Model(text: start, cursor: start.count)
            }
            for step in 0..<60 {
                let (event, paste, target) = Self.randomEvent(&random)
                var what = ""
                if let event {
                    state.handle(event)
                    model.apply(event)
                    what = "\(event)"
                } else if let paste {
                    state.insert(paste)
                    model.insert(paste)
                    what = "insert \(paste.unicodeScalars.map { String($0.value, radix: 16) })"
                } else if let target {
                    state.moveCursor(to: target)
                    model.cursor = min(max(0, target), model.text.count)
                    what = "move to \(target)"
                }
                let context = "seed \(seed) round \(round) step \(step) after \(what): \(model.text.unicodeScalars.map { String($0.value, radix: 16) })"
                #expect(state.text == model.text, "\(context)")
                #expect(state.count == model.text.count, "\(context)")
                #expect(state.cursor == model.cursor, "\(context)")
                if state.text != model.text || state.count != model.text.count || state.cursor != model.cursor { return }
                // Drawn at a random size, the rows are the text from the scroll on, and the
                // cursor is inside the field.
                let width = Int.random(in: 1...12, using: &random)
                let rows = Int.random(in: 1...4, using: &random)
                let cursor = state.fit(width: width, rows: rows)
                #expect(cursor.x >= 0 && cursor.x < width && cursor.y >= 0 && cursor.y < rows, "\(context) at \(width)×\(rows): \(cursor)")
                let shown = state.visibleRows(width: width, rows: rows)
                #expect(shown.count <= rows, "\(context)")
                #expect(String(state.text.dropFirst(state.scroll)).hasPrefix(shown.joined()), "\(context) at \(width)×\(rows): \(shown)")
                #expect(state.scroll <= state.cursor, "\(context)")
            }
        }
    }

    @Test func aTextFillingItsRowsNeedsNoRowForTheCursor() {
        #expect(TextFieldState(text: String(repeating: "a", count: 20)).rowsNeeded(width: 10, limit: 4) == 2)
        #expect(TextFieldState(text: String(repeating: "a", count: 21)).rowsNeeded(width: 10, limit: 4) == 3)
        #expect(TextFieldState(text: String(repeating: "中", count: 10)).rowsNeeded(width: 10, limit: 4) == 2)
        #expect(TextFieldState(text: String(repeating: "a", count: 41)).rowsNeeded(width: 10, limit: 4) == 5, "beyond the limit")
        #expect(TextFieldState(text: "short").rowsNeeded(width: 10, limit: 4) == 1)
    }

    @Test func aMegabyteFieldEditsInPlace() {
        // One line of a million characters: typing at either end, deleting and moving keep
        // their bookkeeping (the benchmark times it).
        let big = String(repeating: "word ", count: 200_000)
        var state = TextFieldState(text: big)
        #expect(state.count == 1_000_000 && state.cursor == 1_000_000)
        state.insert("!")
        state.handle(KeyEvent(.home))
        state.insert("¡")
        #expect(state.count == 1_000_002 && state.cursor == 1)
        state.handle(KeyEvent(.end))
        state.handle(KeyEvent(.backspace))
        #expect(state.text.hasSuffix("word ") && state.count == 1_000_001)
        #expect(state.fit(width: 40, rows: 3).y == 2, "the end on the last row")
        #expect(state.visibleRows(width: 40, rows: 3).joined().hasSuffix("word "))
    }
}
