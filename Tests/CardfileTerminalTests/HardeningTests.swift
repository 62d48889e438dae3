import Foundation
import Testing
import CardfileTestSupport
@testable import CardfileTerminal

/// The terminal-hardening review's cases: text that crashed or shifted the screen, bytes that
/// became the wrong keys, state that trapped when set out of range. Each failed before its fix.
@Suite("Terminal hardening")
struct HardeningTests {
    // MARK: Data alone

    @Test func aClusterWiderThanTwoCellsNeitherTrapsNorShiftsTheRow() {
        var buffer = Buffer(size: Size(width: 300, height: 2))
        let jamo = String(repeating: "\u{1100}", count: 130)
        #expect(jamo.count == 1)                       // one grapheme cluster, 260 cells wide
        buffer.write(jamo, x: 0, y: 0)
        #expect(Self.rowProblems(buffer).isEmpty)
        #expect(buffer.line(0).unicodeScalars.filter { $0 == "\u{1100}" }.count == 130)

        var small = Buffer(size: Size(width: 10, height: 1))
        small.write("0123456789", x: 0, y: 0)
        small.write("\u{1100}\u{1100}", x: 0, y: 0, maxWidth: 4)
        #expect(small.line(0) == "\u{1100}\u{1100}456789")
        #expect(Self.rowProblems(small).isEmpty)
        for text in ["\u{600}कि", "क" + String(repeating: "ा", count: 3), "\u{1100}\u{1100}"] {
            var row = Buffer(size: Size(width: 10, height: 1))
            row.write("0123456789", x: 0, y: 0)
            row.write(text, x: 3, y: 0, maxWidth: text.displayWidth)
            #expect(Self.rowProblems(row).isEmpty, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            // Exactly the text in its cells, the digits around it untouched.
            #expect(row.line(0) == "012" + text + String("0123456789".dropFirst(3 + text.displayWidth)),
                    "\(row.line(0).unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func aWideClusterInATextAreaRenders() {
        var state = TextAreaState(text: "before " + String(repeating: "\u{1100}", count: 130) + " after")
        var buffer = Buffer(size: Size(width: 300, height: 5))
        TextArea().render(in: buffer.area, buffer: &buffer, state: &state)
        #expect(Self.rowProblems(buffer).isEmpty)
        var narrow = Buffer(size: Size(width: 7, height: 3))
        TextArea().render(in: narrow.area, buffer: &narrow, state: &state)
        #expect(Self.rowProblems(narrow).isEmpty)
    }

    // MARK: Bad input bytes

    @Test func anInvalidByteIsOneReplacementAndTheKeysAfterItSurvive() {
        #expect(Self.decode([0xF0, 0x1B, 0x5B, 0x41]) == [.key(KeyEvent(.character("\u{FFFD}"))), .key(KeyEvent(.up))])
        #expect(Self.decode([0xC3, 0x0D]) == [.key(KeyEvent(.character("\u{FFFD}"))), .key(KeyEvent(.enter))])
        #expect(Self.decode([0xC2, 0x9B]) == [.key(KeyEvent(.character("\u{FFFD}")))])
        #expect(Self.decode([0x80, 0x61]) == [.key(KeyEvent(.character("\u{FFFD}"))), .key(KeyEvent(.character("a")))])
        #expect(Self.decode([0xED, 0xA0, 0x80]) == Array(repeating: .key(KeyEvent(.character("\u{FFFD}"))), count: 3))
        #expect(Self.decode([0x1B, 0xC2, 0x9B, 0x62]) == [.key(KeyEvent(.escape)), .key(KeyEvent(.character("\u{FFFD}"))), .key(KeyEvent(.character("b")))])
    }

    @Test func aBrokenCSIGivesUpAtTheByteThatBreaksIt() {
        #expect(Self.decode("\u{1B}[\u{1B}[A") == [.key(KeyEvent(.up))])
        #expect(Self.decode("\u{1B}[12\u{03}x") == [.key(KeyEvent(.character("c"), modifiers: .control)), .key(KeyEvent(.character("x")))])
        #expect(Self.decode("\u{1B}[[\u{1B}[B") == [.key(KeyEvent(.down))])
    }

    @Test func anUnfinishedPasteEndsAndTheKeyboardComesBack() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[200~abc".utf8)).isEmpty)
        #expect(decoder.pendingDelay == KeyDecoder.pasteIdleDelay)
        #expect(decoder.flush() == [.paste("abc")])
        #expect(decoder.feed([0x03]) == [.key(KeyEvent(.character("c"), modifiers: .control))])
        #expect(!decoder.hasPending)

        // A huge paste arrives in bounded pieces, nothing held back grows without limit.
        var big = KeyDecoder()
        var pasted = 0
        var events = big.feed(Array("\u{1B}[200~".utf8))
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        for _ in 0..<40 {
            events += big.feed(chunk)
            #expect(big.heldBytes <= KeyDecoder.pasteChunkBytes + chunk.count)
        }
        events += big.feed(Array("\u{1B}[201~z".utf8))
        for event in events { if case .paste(let text) = event { pasted += text.utf8.count } }
        #expect(pasted == 40 * chunk.count)
        #expect(events.last == .key(KeyEvent(.character("z"))))
    }

    @Test func aRunawayCSIIsSkippedWithoutBeingKept() {
        var decoder = KeyDecoder()
        _ = decoder.feed(Array("\u{1B}[".utf8))
        let digits = [UInt8](repeating: 0x31, count: 4096)
        for _ in 0..<256 {                                      // 1 MiB of parameters
            #expect(decoder.feed(digits).isEmpty)
            #expect(decoder.heldBytes <= KeyDecoder.maximumSequenceLength)
        }
        // Its final byte ends it; what follows is decoded as usual.
        #expect(decoder.feed(Array("Ax\u{1B}[A".utf8)) == [.key(KeyEvent(.character("x"))), .key(KeyEvent(.up))])
    }

    @Test func pastesKeepLineBreaksAndTabsAndDropOtherControls() {
        let events = Self.decode("\u{1B}[200~a\r\nb\rc\td\u{07}e\u{7F}f\u{85}g\u{1B}[201~")
        #expect(events == [.paste("a\nb\nc\tdefg")])
    }

    // MARK: Public state out of range

    @Test func stateSetOutOfRangeIsClamped() {
        var buffer = Buffer(size: Size(width: 40, height: 10))
        var bar = ProgressBar(fraction: 0.5)
        bar.fraction = .nan
        #expect(bar.fraction == nil)
        bar.render(in: buffer.area, buffer: &buffer)
        bar.fraction = -0.5
        #expect(bar.fraction == 0)
        bar.fraction = 7
        #expect(bar.fraction == 1)
        bar.tick = Int.min
        bar.fraction = nil
        bar.render(in: buffer.area, buffer: &buffer)

        var prompt = CommandPromptState()
        prompt.historyLimit = -1
        prompt.field.insert("w")
        _ = prompt.handle(KeyEvent(.enter))
        #expect(prompt.history.isEmpty)

        var toasts = ToastStack()
        toasts.limit = -1
        toasts.show(Toast("hello", expires: .now))
        #expect(toasts.toasts.isEmpty)

        var field = TextFieldState(text: "some text")
        field.scroll = -3
        TextField().render(in: Rect(x: 0, y: 0, width: 5, height: 1), buffer: &buffer, state: &field)
        var area = TextAreaState(text: "one\ntwo\nthree")
        area.scroll = -3
        TextArea().render(in: Rect(x: 0, y: 0, width: 10, height: 2), buffer: &buffer, state: &area)
        #expect(area.scroll >= 0)

        StatusBar(left: "left", center: "mid", right: "right").render(in: Rect(x: Int.max - 5, y: 0, width: 100, height: 1), buffer: &buffer)
        StatusBar(left: "left", right: "right").render(in: Rect(x: Int.min + 2, y: 0, width: Int.max, height: 1), buffer: &buffer)
        #expect(Rect(x: Int.max - 1, y: 0, width: 10, height: 1).maxX == Int.max)

        let table = Table(columns: [TableColumn("a")], rows: [["1"], ["2"]], selectedRow: 0, scroll: ScrollPosition(first: Int.max / 2, total: Int.max))
        table.render(in: buffer.area, buffer: &buffer)
        Table(columns: [TableColumn("a")], rows: [["1"]], scroll: ScrollPosition(first: -5, total: 50)).render(in: buffer.area, buffer: &buffer)

        var long = TextAreaState(text: String(repeating: "line\n", count: 50))
        for _ in 0..<60 { _ = long.handle(KeyEvent(.down)) }
        var tall = Buffer(size: Size(width: 10, height: 5))
        TextArea().render(in: Rect(x: 0, y: 0, width: 10, height: Int.max), buffer: &tall, state: &long)
        #expect(Self.rowProblems(tall).isEmpty)
    }

    // MARK: Found by a second review

    @Test func aRunawayCSIEndsTheSameWholeOrSplit() {
        let bytes: [UInt8] = [0x1B, 0x5B] + Array(repeating: 0x31, count: 70) + [0x20, 0x39, 0x41]
        let whole = Self.decode(bytes)
        var decoder = KeyDecoder()
        let split = decoder.feed(bytes[..<72]) + decoder.feed(bytes[72...]) + decoder.flush()
        #expect(whole == split)
        #expect(whole == [.key(KeyEvent(.character("9"))), .key(KeyEvent(.character("A")))])
    }

    @Test func anX10ReportWithAControlByteGivesUp() {
        #expect(Self.decode([0x1B, 0x5B, 0x4D, 0x1B, 0x5B, 0x41]) == [.key(KeyEvent(.up))])
    }

    @Test func aHugePasteInOneReadStillComesInBoundedPieces() {
        let body = [UInt8](repeating: 0x62, count: 3 * KeyDecoder.pasteChunkBytes + 5)
        let events = Self.decode(Array("\u{1B}[200~".utf8) + body + Array("\u{1B}[201~".utf8))
        var total = 0
        for event in events {
            guard case .paste(let text) = event else { Issue.record("not a paste: \(event)"); continue }
            #expect(text.utf8.count <= KeyDecoder.pasteChunkBytes)
            total += text.utf8.count
        }
        #expect(total == body.count)
    }

    @Test(.timeLimit(.minutes(10))) func longTextIsMeasuredOnlyAsFarAsItShows() {
        // Quadratic measuring made each of these take hours; they must take no time at all.
        var field = TextFieldState(text: String(repeating: "a", count: 200_000))
        var buffer = Buffer(size: Size(width: 80, height: 3))
        TextField().render(in: Rect(x: 0, y: 0, width: 80, height: 1), buffer: &buffer, state: &field)
        #expect(buffer.line(0).hasSuffix("a "))
        #expect(buffer.line(0) == String(repeating: "a", count: 79) + " ", "the end of the text, then the cursor's cell")
        let dialog = Dialog(title: "t", message: String(repeating: "x", count: 200_000), buttons: [DialogButton("OK", hotkey: "o")])
        buffer = Buffer(size: Size(width: 80, height: 3))
        dialog.render(in: buffer.area, buffer: &buffer)
        // Three lines: the box keeps its title, its button and its border; the text gives way.
        #expect(buffer.line(0).contains("┌─ t ─") && buffer.line(1).contains("[O]K") && buffer.line(2).contains("└──"), "\(buffer.lines)")
        var area = TextAreaState(text: "one\ntwo")
        _ = area.handle(KeyEvent(.pageDown), pageHeight: .max)
        #expect(area.cursor == 4, "to the last line, same column")
        _ = area.handle(KeyEvent(.pageUp), pageHeight: .min)
        #expect(area.cursor == 0, "up one line: a page is at least one")
        buffer = Buffer(size: Size(width: 80, height: 3))
        Table(columns: [TableColumn("a", minWidth: .max), TableColumn("b", minWidth: .max)], rows: [["1", "2"]]).render(in: buffer.area, buffer: &buffer)
        #expect(buffer.line(0).trimmingCharacters(in: .whitespaces).hasPrefix("a") && buffer.line(1).contains("1"), "\(buffer.lines)")
        #expect(Self.rowProblems(buffer).isEmpty)
    }

    // MARK: - Seeded fuzzing

    @Test func keyDecoderFuzz() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(400) {
            let bytes = Self.randomInput(&random, length: 1 + random.next(below: 300))
            var whole = KeyDecoder()
            let wholeEvents = whole.feed(bytes) + whole.flush()
            var split = KeyDecoder()
            var splitEvents: [Event] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + 1 + random.next(below: 12))
                splitEvents += split.feed(bytes[start..<end])
                start = end
            }
            splitEvents += split.flush()
            let hex = bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
            #expect(Self.merged(wholeEvents) == Self.merged(splitEvents), "seed \(seed) round \(round): whole vs split differ for \(hex)")
            for event in wholeEvents + splitEvents {
                if let problem = Self.controlProblem(event) {
                    Issue.record("seed \(seed) round \(round): \(problem) from \(hex)")
                }
            }
            #expect(!whole.hasPending && !split.hasPending, "seed \(seed) round \(round): flush leaves nothing")
        }
    }

    @Test func bufferFuzz() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(300) {
            var buffer = Buffer(size: Size(width: random.next(below: 90), height: random.next(below: 6)))
            for _ in 0..<(1 + random.next(below: 8)) {
                let text = Self.randomText(&random)
                let x = random.next(below: 4) == 0 ? [Int.min, -3, Int.max, Int.max - 2][random.next(below: 4)] : random.next(below: 100) - 5
                let maxWidth = random.next(below: 4) == 0 ? [Int.max, 0, -1, 1][random.next(below: 4)] : random.next(below: 100)
                buffer.write(text, x: x, y: random.next(below: 8) - 1, maxWidth: maxWidth, overflow: random.next(below: 2) == 0 ? .clip : .ellipsis)
            }
            let problems = Self.rowProblems(buffer)
            #expect(problems.isEmpty, "seed \(seed) round \(round): \(problems)")
        }
    }

    @Test func widgetFuzz() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(200) {
            var buffer = Buffer(size: Size(width: random.next(below: 120), height: random.next(below: 30)))
            let areas = [buffer.area, Rect(x: random.next(below: 50) - 10, y: random.next(below: 20) - 5, width: random.next(below: 200), height: random.next(below: 40)),
                         Rect(x: Int.max - random.next(below: 10), y: 0, width: Int.max, height: 3), Rect(x: 0, y: Int.min, width: 5, height: Int.max)]
            let area = areas[random.next(below: areas.count)]
            let text = { Self.randomText(&random) }
            switch random.next(below: 8) {
            case 0:
                let columns = (0..<(1 + random.next(below: 4))).map { _ in TableColumn(text(), minWidth: random.next(below: 6) - 1, maxWidth: random.next(below: 50) - 1) }
                let rows = (0..<random.next(below: 30)).map { _ in columns.map { _ in text() } }
                let table = Table(columns: columns, rows: rows, selectedRow: random.next(below: 40) - 5, focusedColumn: random.next(below: 6) - 1,
                                  scroll: ScrollPosition(first: Int(truncatingIfNeeded: random.next()), total: Int(truncatingIfNeeded: random.next())),
                                  pinnedColumns: random.next(below: 7) - 1)
                table.render(in: area, buffer: &buffer)
                // Hit-testing (clicks) anywhere, also off the table, never traps.
                _ = table.hit(Point(x: random.next(below: 300) - 50, y: random.next(below: 100) - 20), in: area)
                // Every column is placed at most once, inside the width.
                let placed = table.layout(width: max(0, min(area.width, 400)))
                #expect(Set(placed.map(\.index)).count == placed.count && placed.allSatisfy { columns.indices.contains($0.index) })
            case 1:
                var state = TextFieldState(text: text())
                for _ in 0..<random.next(below: 10) { _ = state.handle(Self.randomKey(&random)) }
                state.scroll = random.next(below: 40) - 20
                TextField(placeholder: text()).render(in: area, buffer: &buffer, state: &state)
            case 2:
                var state = TextAreaState(text: text() + "\n" + text())
                for _ in 0..<random.next(below: 10) { _ = state.handle(Self.randomKey(&random)) }
                state.scroll = random.next(below: 40) - 20
                TextArea().render(in: area, buffer: &buffer, state: &state)
                _ = TextArea().cursor(in: area, state: &state)
            case 3:
                var state = FormState(fields: (0..<random.next(below: 6)).map { _ in FormField(label: text(), text: text(), message: random.next(below: 2) == 0 ? text() : nil) },
                                      focus: random.next(below: 8) - 1)
                for _ in 0..<random.next(below: 6) { _ = state.handle(Self.randomKey(&random)) }
                Form().render(in: area, buffer: &buffer, state: &state)
            case 4:
                var dialog = Dialog(title: text(), message: text(), buttons: [DialogButton(text(), hotkey: "s"), DialogButton(text(), hotkey: "d")],
                                    selected: random.next(below: 5) - 1, cancelButton: random.next(below: 4) - 1)
                _ = dialog.handle(Self.randomKey(&random))
                dialog.render(in: area, buffer: &buffer)
            case 5:
                StatusBar(left: text(), center: text(), right: text()).render(in: area, buffer: &buffer)
                var bar = ProgressBar(fraction: [Double.nan, -1, 0.3, 2, .infinity, -.infinity][random.next(below: 6)], label: text(), tick: Int(truncatingIfNeeded: random.next()))
                bar.render(in: area, buffer: &buffer)
                bar.fraction = nil
                bar.render(in: area, buffer: &buffer)
            case 6:
                var prompt = CommandPromptState(history: [text(), text()])
                prompt.historyLimit = random.next(below: 6) - 3
                for _ in 0..<random.next(below: 12) { _ = prompt.handle(Self.randomKey(&random)) }
                CommandPrompt().render(in: area, buffer: &buffer, state: &prompt)
            default:
                var toasts = ToastStack()
                toasts.limit = random.next(below: 6) - 3
                for _ in 0..<random.next(below: 5) { toasts.show(Toast(text(), expires: .now + .seconds(5))) }
                ToastView(toasts).render(in: area, buffer: &buffer)
            }
            let problems = Self.rowProblems(buffer)
            #expect(problems.isEmpty, "seed \(seed) round \(round): \(problems)")
        }
    }

    // MARK: - Helpers

    static func decode(_ text: String) -> [Event] { decode(Array(text.utf8)) }

    static func decode(_ bytes: [UInt8]) -> [Event] {
        var decoder = KeyDecoder()
        return decoder.feed(bytes) + decoder.flush()
    }

    /// What is wrong with a buffer's rows: a cell wider than two, a wide cell without its
    /// continuation, a stray continuation, or a control character in a cell.
    static func rowProblems(_ buffer: Buffer) -> [String] {
        var problems: [String] = []
        for y in 0..<buffer.size.height {
            for x in 0..<buffer.size.width {
                let cell = buffer[x, y]
                if cell.isContinuation {
                    if x == 0 || buffer[x - 1, y].width != 2 { problems.append("stray continuation at \(x),\(y)") }
                    continue
                }
                if cell.width > 2 { problems.append("cell \(cell.width) wide at \(x),\(y)") }
                if cell.width == 2, x + 1 >= buffer.size.width || !buffer[x + 1, y].isContinuation {
                    problems.append("wide cell without continuation at \(x),\(y)")
                }
                if cell.text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                    problems.append("control character in cell at \(x),\(y)")
                }
            }
        }
        return problems
    }

    /// Consecutive unmodified character events joined into one text, so a grapheme cluster
    /// split across two reads compares equal to the whole one.
    static func merged(_ events: [Event]) -> [String] {
        var result: [String] = []
        var text = ""
        for event in events {
            if case .key(let key) = event, case .character(let character) = key.key, key.modifiers.isEmpty {
                text.append(character)
                continue
            }
            if !text.isEmpty { result.append("text \(text.unicodeScalars.map { String($0.value, radix: 16) })"); text = "" }
            result.append(String(describing: event))
        }
        if !text.isEmpty { result.append("text \(text.unicodeScalars.map { String($0.value, radix: 16) })") }
        return result
    }

    /// A control character delivered as text, or in a paste other than LF and tab.
    static func controlProblem(_ event: Event) -> String? {
        switch event {
        case .key(let key):
            if case .character(let character) = key.key,
               character.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }),
               key.modifiers.isEmpty || character.unicodeScalars.first!.value >= 0x7F {
                return "control character \(character.unicodeScalars.map { $0.value }) as a key"
            }
        case .paste(let text):
            if let bad = text.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }) {
                return "control character \(bad.value) in a paste"
            }
        default:
            break
        }
        return nil
    }

    /// Bytes biased towards what breaks decoders: escape sequences whole and broken, paste
    /// markers, C0 and C1 bytes, valid and invalid UTF-8.
    static func randomInput(_ random: inout SeededRandom, length: Int) -> [UInt8] {
        let pieces: [[UInt8]] = [
            [0x1B], [0x1B, 0x5B], [0x1B, 0x4F], Array("\u{1B}[1;5A".utf8), Array("\u{1B}[200~".utf8), Array("\u{1B}[201~".utf8),
            Array("\u{1B}[<0;12;5M".utf8), [0x1B, 0x5B, 0x4D, 0x20, 0x21, 0x22], Array("\u{1B}[[A".utf8), Array("\u{1B}[15~".utf8),
            [0x0D], [0x0A], [0x09], [0x03], [0x7F], [0x00], [0x9B], [0xC2, 0x9B], [0xC3], [0xF0], [0xF0, 0x9F], [0xE2, 0x82],
            [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xFF], Array("é".utf8), Array("漢".utf8), Array("👍🏽".utf8), Array("e\u{301}".utf8),
            Array("0;".utf8), Array("12".utf8), [0x41], [0x7E], [0x5B],
        ]
        var bytes: [UInt8] = []
        while bytes.count < length {
            if random.next(below: 3) == 0 {
                bytes.append(UInt8(truncatingIfNeeded: random.next()))
            } else {
                bytes += pieces[random.next(below: pieces.count)]
            }
        }
        return bytes
    }

    static func randomText(_ random: inout SeededRandom) -> String {
        let pieces = ["a", "Zz", " ", "漢字", "👍🏽", "👨‍👩‍👧", "🇫🇷", "e\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}", "\u{1100}\u{1100}\u{1100}",
                      "\u{600}कि", "का", "क" + String(repeating: "ा", count: 4), "\u{1B}[31m", "\u{07}", "\r\n", "\t", "\u{85}", "\u{202E}",
                      "\u{FEFF}", "\u{200B}", "…", "ﾊﾝｶｸ", "\u{E0100}", String(repeating: "\u{1100}", count: 40)]
        return (0..<random.next(below: 8)).map { _ in pieces[random.next(below: pieces.count)] }.joined()
    }

    static func randomKey(_ random: inout SeededRandom) -> KeyEvent {
        let keys: [KeyEvent] = [
            KeyEvent(.left), KeyEvent(.right), KeyEvent(.up), KeyEvent(.down), KeyEvent(.home), KeyEvent(.end), KeyEvent(.backspace),
            KeyEvent(.delete), KeyEvent(.enter), KeyEvent(.tab), KeyEvent(.backTab), KeyEvent(.pageUp), KeyEvent(.pageDown), KeyEvent(.escape),
            KeyEvent(.character("x")), KeyEvent(.character("漢")), KeyEvent(.character("k"), modifiers: .control),
            KeyEvent(.character("u"), modifiers: .control), KeyEvent(.character("w"), modifiers: .control),
        ]
        return keys[random.next(below: keys.count)]
    }
}
