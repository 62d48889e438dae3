import Testing
import CardfileTestSupport
@testable import CardfileTerminal

@Suite("Key decoding")
struct KeyDecoderTests {
    func decode(_ bytes: [UInt8], flush: Bool = true) -> [Event] {
        var decoder = KeyDecoder()
        var events = decoder.feed(bytes)
        if flush { events += decoder.flush() }
        return events
    }

    func decode(_ text: String) -> [Event] { decode(Array(text.utf8)) }

    func key(_ key: Key, _ modifiers: Modifiers = []) -> Event { .key(KeyEvent(key, modifiers: modifiers)) }

    @Test func textAndUTF8() {
        #expect(decode("aZ ") == [key(.character("a")), key(.character("Z")), key(.character(" "))])
        #expect(decode("é中😀") == [key(.character("é")), key(.character("中")), key(.character("😀"))])
    }

    @Test func controlKeys() {
        #expect(decode([0x0D, 0x09, 0x7F, 0x08]) == [key(.enter), key(.tab), key(.backspace), key(.backspace)])
        #expect(decode([0x01, 0x13, 0x11, 0x1A]) == [
            .key(.control("a")), .key(.control("s")), .key(.control("q")), .key(.control("z")),
        ])
        #expect(decode([0x00]) == [key(.character(" "), .control)])
    }

    @Test func escapeAloneNeedsAFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [key(.escape)])
        #expect(!decoder.hasPending)
    }

    @Test func sequencesSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B, 0x5B]).isEmpty)
        #expect(decoder.feed([0x31, 0x3B, 0x35]).isEmpty)
        #expect(decoder.feed([0x41, 0x62]) == [key(.up, .control), key(.character("b"))])
        #expect(decoder.feed([0xE4, 0xB8]).isEmpty)
        #expect(decoder.feed([0xAD]) == [key(.character("中"))])
    }

    @Test func cursorAndFunctionKeysFromXtermTmuxAndTheConsole() {
        #expect(decode("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [key(.up), key(.down), key(.right), key(.left)])
        #expect(decode("\u{1B}OA\u{1B}OH\u{1B}OF") == [key(.up), key(.home), key(.end)])
        #expect(decode("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~") == [key(.home), key(.end), key(.home), key(.end), key(.home), key(.end)])
        #expect(decode("\u{1B}[2~\u{1B}[3~\u{1B}[5~\u{1B}[6~\u{1B}[Z") == [key(.insert), key(.delete), key(.pageUp), key(.pageDown), key(.backTab)])
        #expect(decode("\u{1B}OP\u{1B}OS\u{1B}[15~\u{1B}[21~\u{1B}[24~") == [key(.function(1)), key(.function(4)), key(.function(5)), key(.function(10)), key(.function(12))])
        #expect(decode("\u{1B}[[A\u{1B}[[E") == [key(.function(1)), key(.function(5))])
        #expect(decode("\u{1B}[1;2C\u{1B}[1;3D\u{1B}[5;5~\u{1B}[1;5P") == [key(.right, .shift), key(.left, .alt), key(.pageUp, .control), key(.function(1), .control)])
    }

    @Test func altCombinations() {
        #expect(decode("\u{1B}b\u{1B}F\u{1B}é") == [.key(.alt("b")), .key(.alt("F")), .key(.alt("é"))])
        #expect(decode([0x1B, 0x7F]) == [key(.backspace, .alt)])
        #expect(decode([0x1B, 0x01]) == [key(.character("a"), [.control, .alt])])
        #expect(decode([0x1B, 0x1B]) == [key(.escape), key(.escape)])
    }

    @Test func bracketedPasteIsOneEvent() {
        // The paste's ESC is a control character: dropped, so "[A" stays text, never a key.
        let pasted = "line one\nline two\u{1B}[A not a key"
        #expect(decode("x\u{1B}[200~\(pasted)\u{1B}[201~y") == [key(.character("x")), .paste("line one\nline two[A not a key"), key(.character("y"))])
        // Split anywhere, even inside the end marker.
        var decoder = KeyDecoder()
        var events: [Event] = []
        for byte in Array("\u{1B}[200~héllo\u{1B}[201~".utf8) { events += decoder.feed([byte]) }
        #expect(events == [.paste("héllo")])
    }

    /// A paste whose end marker never comes: keys pressed after a pause end it and are keys
    /// (they used to be stored as paste text, `[3~`); plain text after a pause stays paste
    /// text until the idle flush, since pasted text must never turn into commands.
    @Test func anUnterminatedPasteEndsAtAKeyAfterAPauseOrAtTheIdleFlush() {
        var decoder = KeyDecoder()
        var events = decoder.feed(Array("\u{1B}[200~pasted".utf8))
        events += decoder.feed(Array("\u{1B}[3~".utf8), afterPause: .milliseconds(40))
        events += decoder.feed(Array("\u{1B}[A\u{1B}[1;5B".utf8), afterPause: .milliseconds(200))
        #expect(events == [.paste("pasted"), key(.delete), key(.up), key(.down, .control)])
        #expect(!decoder.hasPending)

        // Without a pause the same bytes are part of the paste's stream.
        var streaming = KeyDecoder()
        var streamed = streaming.feed(Array("\u{1B}[200~pasted".utf8))
        streamed += streaming.feed(Array("\u{1B}[3~more".utf8))
        streamed += streaming.feed(Array("\u{1B}[3~".utf8), afterPause: .milliseconds(1))
        streamed += streaming.flush()
        #expect(streamed == [.paste("pasted[3~more[3~")])

        // Text after a pause is not a key sequence: it stays in the paste until the flush,
        // after which everything is decoded as keys again.
        var typed = KeyDecoder()
        var keys = typed.feed(Array("\u{1B}[200~abc".utf8))
        keys += typed.feed(Array("dy".utf8), afterPause: .seconds(1))
        keys += typed.flush()
        keys += typed.feed(Array("\u{1B}[3~q".utf8))
        #expect(keys == [.paste("abcdy"), key(.delete), key(.character("q"))])
        // The end marker after a pause ends the paste as usual.
        var ended = KeyDecoder()
        let marker = ended.feed(Array("\u{1B}[200~abc".utf8)) + ended.feed(Array("\u{1B}[201~".utf8), afterPause: .seconds(1))
        #expect(marker == [.paste("abc")])
    }

    /// Seeded: an unterminated paste of random text (any reads, no pauses), then random key
    /// sequences each read after a pause: the paste is the text, and every key is a key.
    @Test func keysAfterAnUnterminatedPasteAreKeys() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let sequences: [(String, Event)] = [
            ("\u{1B}[3~", key(.delete)), ("\u{1B}[A", key(.up)), ("\u{1B}OB", key(.down)), ("\u{1B}[1;5C", key(.right, .control)),
            ("\u{1B}[15~", key(.function(5))), ("\u{1B}[H", key(.home)), ("\u{1B}[6~", key(.pageDown)),
        ]
        let pieces = ["a", "é", "漢", " ", "\n", "[3~", "~", "0", "line\n"]
        for round in 0..<Fuzz.scaled(300) {
            let text = (0..<random.next(below: 30)).map { _ in pieces[random.next(below: pieces.count)] }.joined()
            let bytes = Array(("\u{1B}[200~" + text).utf8)
            var decoder = KeyDecoder()
            var events: [Event] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + 1 + random.next(below: 9))
                events += decoder.feed(bytes[start..<end])
                start = end
            }
            var expected: [Event] = []
            for index in 0..<(1 + random.next(below: 4)) {
                let (sequence, event) = sequences[random.next(below: sequences.count)]
                events += decoder.feed(Array(sequence.utf8), afterPause: .milliseconds(25 + random.next(below: 500)))
                if index == 0 { expected.append(.paste(text)) }
                expected.append(event)
            }
            events += decoder.flush()
            #expect(events == expected, "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round): \(text.debugDescription)")
        }
    }

    @Test func mouseReports() {
        #expect(decode("\u{1B}[<0;10;5M\u{1B}[<0;10;5m") == [
            .mouse(MouseEvent(kind: .press(button: 1), position: Point(x: 9, y: 4))),
            .mouse(MouseEvent(kind: .release, position: Point(x: 9, y: 4))),
        ])
        #expect(decode("\u{1B}[<64;3;4M\u{1B}[<65;3;4M\u{1B}[<18;1;1M") == [
            .mouse(MouseEvent(kind: .wheelUp, position: Point(x: 2, y: 3))),
            .mouse(MouseEvent(kind: .wheelDown, position: Point(x: 2, y: 3))),
            .mouse(MouseEvent(kind: .press(button: 3), position: Point(x: 0, y: 0), modifiers: .control)),
        ])
        #expect(decode([0x1B, 0x5B, 0x4D, 32, 33 + 4, 33 + 2]) == [.mouse(MouseEvent(kind: .press(button: 1), position: Point(x: 4, y: 2)))])
    }

    @Test func keyNamesForHelp() {
        #expect(KeyEvent.control("s").description == "Ctrl-S")
        #expect(KeyEvent.alt("b").description == "Alt-b")
        #expect(KeyEvent(.pageDown).description == "PgDn")
        #expect(KeyEvent(.function(1)).description == "F1")
        #expect(KeyEvent.char("?").description == "?")
    }
}
