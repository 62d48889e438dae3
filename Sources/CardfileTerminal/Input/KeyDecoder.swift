/// Turns the bytes a terminal sends into events.
///
/// Understands the sequences of xterm, tmux/screen and the Linux console: CSI and SS3 cursor
/// and function keys (with modifiers, `ESC [1;5A` for Ctrl-↑), Alt as an ESC prefix, Ctrl
/// letters as C0 bytes, UTF-8 text, bracketed paste (`ESC [200~ … ESC [201~`, delivered as one
/// ``Event/paste(_:)``), and SGR and X10 mouse reports.
///
/// Bad input never turns into keys it does not mean:
/// - an invalid UTF-8 sequence (its longest valid start) becomes one U+FFFD and decoding goes
///   on at the next byte, so a control byte or an escape sequence after it is still a key;
/// - a C1 control (U+0080–U+009F) is never a character: it arrives as U+FFFD;
/// - a malformed CSI sequence (a byte that cannot belong to one) is dropped up to that byte,
///   which is then decoded afresh; one longer than ``maximumSequenceLength`` is skipped to its
///   final byte without being kept, so no pending sequence grows or costs more than linear time;
/// - a paste keeps its line breaks (CR and CRLF become LF) and tabs and drops every other
///   control character, and a long one arrives in pieces of at most ``pasteChunkBytes``;
/// - a paste whose end marker never comes ends at ``flush()`` (after ``pasteIdleDelay`` with
///   no input), or as soon as a read that follows a pause of ``keyPause`` holds nothing but
///   whole key sequences (`ESC [3~`): those are keys pressed after it, never pasted text.
///
/// Decoding a stream whole or split into reads anywhere gives the same keys and the same text
/// (a grapheme cluster split across two reads arrives as two character events), as long as
/// the reads come without pauses.
///
/// A lone ESC is ambiguous (the Escape key, or the start of a sequence still arriving): the
/// decoder keeps it until more bytes come or the caller, after ``pendingDelay`` with no input,
/// calls ``flush()``.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    private var paste: [UInt8]?
    /// Inside a CSI sequence too long to be one the decoder knows: skipping to its final byte.
    private var discardingCSI = false
    /// The skipped sequence reached its intermediate bytes: a parameter byte now breaks it.
    private var discardingIntermediates = false

    /// The longest escape sequence kept while it arrives; longer ones are skipped.
    public static let maximumSequenceLength = 64
    /// The largest piece in which a long paste is delivered.
    public static let pasteChunkBytes = 1 << 20
    /// How long a caller waits for the rest of an escape sequence before ``flush()``.
    public static let escapeDelay: Duration = .milliseconds(25)
    /// How long a caller waits for more of a paste (or its end marker) before ``flush()``.
    public static let pasteIdleDelay: Duration = .milliseconds(500)

    public init() {}

    /// True while bytes are held back waiting for the rest of a sequence or a paste.
    public var hasPending: Bool { !pending.isEmpty || paste != nil || discardingCSI }

    /// How many bytes are held back (a sequence or a paste still arriving).
    var heldBytes: Int { pending.count + (paste?.count ?? 0) }

    /// How long to wait for more input before calling ``flush()``; nil when nothing waits.
    public var pendingDelay: Duration? {
        if paste != nil { return Self.pasteIdleDelay }
        return !pending.isEmpty || discardingCSI ? Self.escapeDelay : nil
    }

    /// The pause before a read after which, inside a paste, a read of nothing but key
    /// sequences is taken as keys: a terminal writes a paste as one stream.
    public static let keyPause: Duration = .milliseconds(25)

    /// Decodes `bytes` (appended to anything held back). `pause` is how long no input came
    /// before them (the caller's clock; zero when unknown).
    public mutating func feed(_ bytes: some Sequence<UInt8>, afterPause pause: Duration = .zero) -> [Event] {
        let chunk = Array(bytes)
        var events: [Event] = []
        if paste != nil, pause >= Self.keyPause, Self.isOnlyKeySequences(chunk) {
            events = endPaste()
        }
        pending.append(contentsOf: chunk)
        return events + decode(final: false)
    }

    /// True when `bytes` are one or more whole escape sequences that decode to keys or mouse
    /// reports (not the paste's end marker, not a lone ESC, not text).
    private static func isOnlyKeySequences(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, bytes[0] == 0x1B, bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O"),
              !bytes.starts(with: pasteEnd) else { return false }
        var probe = KeyDecoder()
        let events = probe.feed(bytes)
        guard !events.isEmpty, !probe.hasPending else { return false }
        return events.allSatisfy { event in
            switch event {
            case .key(let key): if case .character = key.key { return false } else { return true }
            case .mouse: return true
            default: return false
            }
        }
    }

    /// Delivers an unfinished paste as it is, with anything held back as a possible end marker.
    private mutating func endPaste() -> [Event] {
        guard var text = paste else { return [] }
        text.append(contentsOf: pending)
        pending.removeAll()
        paste = nil
        return [.paste(Self.pasteText(text))]
    }

    /// Decodes what is held back as if no more bytes were coming: a lone ESC is the Escape
    /// key, an unfinished UTF-8 sequence is U+FFFD, an unfinished paste is delivered as it is.
    public mutating func flush() -> [Event] {
        var events = decode(final: true)
        // What was held back as a possible end marker is part of the paste after all.
        events += endPaste()
        discardingCSI = false
        discardingIntermediates = false
        return events
    }

    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    private mutating func decode(final: Bool) -> [Event] {
        var events: [Event] = []
        var index = 0
        var text = String.UnicodeScalarView()

        func flushText() {
            guard !text.isEmpty else { return }
            for character in String(text) {
                events.append(.key(KeyEvent(.character(character))))
            }
            text.removeAll()
        }

        decoding: while index < pending.count {
            if paste != nil {
                if let end = find(Self.pasteEnd, in: pending, from: index) {
                    paste!.append(contentsOf: pending[index..<end])
                    while paste!.count > Self.pasteChunkBytes {
                        let cut = Self.chunkBoundary(Array(paste![..<Self.pasteChunkBytes]))
                        events.append(.paste(Self.pasteText(paste![..<cut])))
                        paste!.removeFirst(cut)
                    }
                    events.append(.paste(Self.pasteText(paste!)))
                    paste = nil
                    index = end + Self.pasteEnd.count
                    continue
                }
                // Keep the tail that could be the start of the end marker.
                let keep = min(Self.pasteEnd.count - 1, pending.count - index)
                paste!.append(contentsOf: pending[index..<(pending.count - keep)])
                index = pending.count - keep
                while paste!.count >= Self.pasteChunkBytes {
                    let cut = Self.chunkBoundary(Array(paste![..<Self.pasteChunkBytes]))
                    events.append(.paste(Self.pasteText(paste![..<cut])))
                    paste!.removeFirst(cut)
                }
                break
            }
            let byte = pending[index]
            if discardingCSI {
                // The same grammar as parseCSI: parameters, then intermediates, then a final byte.
                if (0x30...0x3F).contains(byte), !discardingIntermediates {
                    index += 1
                    continue
                }
                if (0x20...0x2F).contains(byte) {
                    discardingIntermediates = true
                    index += 1
                    continue
                }
                discardingCSI = false
                discardingIntermediates = false
                if (0x40...0x7E).contains(byte) { index += 1 }
                continue
            }
            if byte >= 0x20, byte != 0x7F {
                switch Self.scalar(in: pending, at: index) {
                case .incomplete:
                    guard final else { break decoding }
                    text.append(Self.replacement)
                    index = pending.count
                case .invalid(let length):
                    text.append(Self.replacement)
                    index += length
                case .scalar(let scalar, let length):
                    text.append(Self.isC1(scalar) ? Self.replacement : scalar)
                    index += length
                }
                continue
            }
            flushText()
            if byte == 0x1B {
                switch parseEscape(at: index, final: final) {
                case .incomplete:
                    if final {
                        events.append(.key(KeyEvent(.escape)))
                        index += 1
                        continue
                    }
                    break decoding
                case .event(let event, let length):
                    if let event { events.append(event) }
                    index += length
                case .pasteStart(let length):
                    paste = []
                    index += length
                case .discard(let length, let intermediates):
                    discardingCSI = true
                    discardingIntermediates = intermediates
                    index += length
                }
                continue
            }
            events.append(.key(Self.controlKey(byte)))
            index += 1
        }
        flushText()
        pending.removeFirst(min(index, pending.count))
        return events
    }

    private enum Parsed {
        case incomplete
        case event(Event?, length: Int)
        case pasteStart(length: Int)
        /// A CSI sequence too long to keep: skip these bytes and the rest of it.
        case discard(length: Int, intermediates: Bool)
    }

    private func parseEscape(at start: Int, final: Bool) -> Parsed {
        guard start + 1 < pending.count else { return .incomplete }
        let next = pending[start + 1]
        switch next {
        case 0x5B: // [
            return parseCSI(at: start)
        case 0x4F: // O
            guard start + 2 < pending.count else { return final ? .event(.key(.alt("O")), length: 2) : .incomplete }
            let final = pending[start + 2]
            if let key = final == 0x4D ? .enter : Self.letterKey(final) {
                return .event(.key(KeyEvent(key)), length: 3)
            }
            // The keypad in application mode: ESC O j … y, and ESC O X for "=".
            if let character = Self.keypadCharacters[final] {
                return .event(.key(KeyEvent(.character(character))), length: 3)
            }
            // Not a sequence this decoder knows: Alt-O, and the next byte on its own.
            return .event(.key(.alt("O")), length: 2)
        case 0x1B:
            return .event(.key(KeyEvent(.escape)), length: 1)
        default:
            guard next >= 0x20, next != 0x7F else {
                var key = Self.controlKey(next)
                key.modifiers.insert(.alt)
                return .event(.key(key), length: 2)
            }
            // Alt with a character; an invalid one is the Escape key, then U+FFFD.
            switch Self.scalar(in: pending, at: start + 1) {
            case .incomplete:
                return final ? .event(.key(KeyEvent(.escape)), length: 1) : .incomplete
            case .invalid:
                return .event(.key(KeyEvent(.escape)), length: 1)
            case .scalar(let scalar, let length):
                guard !Self.isC1(scalar) else { return .event(.key(KeyEvent(.escape)), length: 1) }
                return .event(.key(KeyEvent(.character(Character(scalar)), modifiers: .alt)), length: 1 + length)
            }
        }
    }

    private func parseCSI(at start: Int) -> Parsed {
        var index = start + 2
        guard index < pending.count else { return .incomplete }
        // Linux console F1–F5: ESC [ [ A–E
        if pending[index] == 0x5B {
            guard index + 1 < pending.count else { return .incomplete }
            let letter = pending[index + 1]
            guard (0x40...0x7E).contains(letter) else { return .event(nil, length: index + 1 - start) }
            let key: Key? = (0x41...0x45).contains(letter) ? .function(Int(letter) - 0x40) : nil
            return .event(key.map { .key(KeyEvent($0)) }, length: index + 2 - start)
        }
        // X10 mouse: ESC [ M b x y
        if pending[index] == 0x4D {
            // Its three bytes are printable; a control byte among them means it is broken.
            for offset in 1...3 {
                guard index + offset < pending.count else { return .incomplete }
                let byte = pending[index + offset]
                if byte < 0x20 || byte == 0x7F { return .event(nil, length: index + 1 - start) }
            }
            let button = Int(pending[index + 1]) - 32
            let x = Int(pending[index + 2]) - 33
            let y = Int(pending[index + 3]) - 33
            return .event(Self.mouse(button: button, x: x, y: y, release: button & 3 == 3), length: index + 4 - start)
        }
        let sgrMouse = pending[index] == 0x3C
        if sgrMouse { index += 1 }
        let paramStart = index
        while index < pending.count, (0x30...0x3F).contains(pending[index]) { index += 1 }
        let paramEnd = index
        while index < pending.count, (0x20...0x2F).contains(pending[index]) { index += 1 }
        guard index < pending.count else {
            return index - start > Self.maximumSequenceLength ? .discard(length: index - start, intermediates: index > paramEnd) : .incomplete
        }
        let finalByte = pending[index]
        // A byte that cannot end a CSI sequence (a control, ESC, DEL, non-ASCII): the sequence
        // is broken; drop it and decode that byte afresh.
        guard (0x40...0x7E).contains(finalByte) else { return .event(nil, length: index - start) }
        let length = index + 1 - start
        guard length <= Self.maximumSequenceLength else { return .event(nil, length: length) }
        let parameters = String(decoding: pending[paramStart..<paramEnd], as: UTF8.self)
            .split(separator: ";", omittingEmptySubsequences: false)
            .map { Int($0) ?? 0 }
        if sgrMouse {
            guard parameters.count >= 3, finalByte == 0x4D || finalByte == 0x6D else { return .event(nil, length: length) }
            return .event(Self.mouse(button: parameters[0], x: parameters[1] - 1, y: parameters[2] - 1, release: finalByte == 0x6D), length: length)
        }
        let modifiers = Self.modifiers(parameters.count >= 2 ? parameters[1] : 1)
        let key: Key?
        switch finalByte {
        case 0x5A: return .event(.key(KeyEvent(.backTab)), length: length)
        case 0x7E:
            switch parameters.first ?? 0 {
            case 200: return .pasteStart(length: length)
            case 201: return .event(nil, length: length)
            case 1, 7: key = .home
            case 2: key = .insert
            case 3: key = .delete
            case 4, 8: key = .end
            case 5: key = .pageUp
            case 6: key = .pageDown
            case 11...15: key = .function((parameters.first ?? 0) - 10)
            case 17...21: key = .function((parameters.first ?? 0) - 11)
            case 23, 24: key = .function((parameters.first ?? 0) - 12)
            default: key = nil
            }
        default:
            key = Self.letterKey(finalByte)
        }
        return .event(key.map { .key(KeyEvent($0, modifiers: modifiers)) }, length: length)
    }

    // MARK: - UTF-8

    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    private static func isC1(_ scalar: Unicode.Scalar) -> Bool {
        (0x80...0x9F).contains(scalar.value)
    }

    private enum Step {
        case scalar(Unicode.Scalar, length: Int)
        /// Not UTF-8: the longest valid start of a sequence (at least one byte), to be replaced
        /// by one U+FFFD.
        case invalid(length: Int)
        case incomplete
    }

    /// Decodes one UTF-8 scalar at `start`, checking every continuation byte (and the ranges
    /// that rule out overlong forms and surrogates).
    private static func scalar(in bytes: [UInt8], at start: Int) -> Step {
        let lead = bytes[start]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return .scalar(Unicode.Scalar(lead), length: 1)
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF4: length = 4; second = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return .invalid(length: 1)
        }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length {
            guard start + offset < bytes.count else { return .incomplete }
            let byte = bytes[start + offset]
            guard (offset == 1 ? second : 0x80...0xBF).contains(byte) else { return .invalid(length: offset) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return .invalid(length: length) }
        return .scalar(scalar, length: length)
    }

    /// A paste's bytes as text: invalid UTF-8 as U+FFFD, line breaks as LF, tabs kept, every
    /// other control character dropped.
    static func pasteText(_ bytes: some Collection<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        var afterCR = false
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar.value {
            case 0x0D: scalars.append("\n")
            case 0x0A: if !afterCR { scalars.append("\n") }
            case 0x09: scalars.append(scalar)
            case 0x00...0x1F, 0x7F...0x9F: continue
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// Where to cut a long paste: not inside a UTF-8 sequence, not between CR and LF.
    private static func chunkBoundary(_ bytes: [UInt8]) -> Int {
        var cut = bytes.count
        // Step back over a UTF-8 sequence the cut would split: find its lead in the last bytes.
        for back in 1...3 where cut - back >= 0 {
            let byte = bytes[cut - back]
            if byte < 0x80 { break }
            if byte >= 0xC0 {
                let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                if back < needed { cut -= back }
                break
            }
        }
        if cut > 1, bytes[cut - 1] == 0x0D { cut -= 1 }
        return max(1, cut)
    }

    private static let keypadCharacters: [UInt8: Character] = [
        0x6A: "*", 0x6B: "+", 0x6C: ",", 0x6D: "-", 0x6E: ".", 0x6F: "/", 0x58: "=",
        0x70: "0", 0x71: "1", 0x72: "2", 0x73: "3", 0x74: "4", 0x75: "5", 0x76: "6", 0x77: "7", 0x78: "8", 0x79: "9",
    ]

    /// The key a CSI or SS3 sequence ending in this letter names (the same letters in both).
    private static func letterKey(_ final: UInt8) -> Key? {
        switch final {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x50...0x53: return .function(Int(final) - 0x4F)
        default: return nil
        }
    }

    /// The modifiers of an xterm modifier parameter (1 + bits: 1 Shift, 2 Alt, 4 Ctrl).
    private static func modifiers(_ parameter: Int) -> Modifiers {
        let bits = max(0, parameter - 1)
        var modifiers: Modifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & 2 != 0 || bits & 8 != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.control) }
        return modifiers
    }

    private static func mouse(button code: Int, x: Int, y: Int, release: Bool) -> Event? {
        var modifiers: Modifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.control) }
        let position = Point(x: max(0, x), y: max(0, y))
        let button = code & 3
        let kind: MouseEvent.Kind
        if code & 64 != 0 {
            // 64 and 65 scroll up and down; 66 and 67 are sideways, which nothing uses.
            guard button < 2 else { return nil }
            kind = button == 0 ? .wheelUp : .wheelDown
        } else if release {
            kind = .release
        } else if code & 32 != 0 {
            kind = .drag(button: button + 1)
        } else {
            kind = .press(button: button + 1)
        }
        return .mouse(MouseEvent(kind: kind, position: position, modifiers: modifiers))
    }

    /// A C0 control byte or DEL as a key.
    static func controlKey(_ byte: UInt8) -> KeyEvent {
        switch byte {
        case 0x0D, 0x0A: return KeyEvent(.enter)
        case 0x09: return KeyEvent(.tab)
        case 0x7F, 0x08: return KeyEvent(.backspace)
        case 0x1B: return KeyEvent(.escape)
        case 0x00: return KeyEvent(.character(" "), modifiers: .control)
        case 0x01...0x1A: return KeyEvent(.character(Character(UnicodeScalar(byte + 0x60))), modifiers: .control)
        case 0x1C: return KeyEvent(.character("\\"), modifiers: .control)
        case 0x1D: return KeyEvent(.character("]"), modifiers: .control)
        case 0x1E: return KeyEvent(.character("^"), modifiers: .control)
        case 0x1F: return KeyEvent(.character("_"), modifiers: .control)
        default: return KeyEvent(.character("\u{FFFD}"))
        }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if Array(haystack[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }
}
