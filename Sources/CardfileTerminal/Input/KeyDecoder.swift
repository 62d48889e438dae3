/// Turns the bytes a terminal sends into events.
///
/// Understands the sequences of xterm, tmux/screen and the Linux console: CSI and SS3 cursor
/// and function keys (with modifiers, `ESC [1;5A` for Ctrl-↑), Alt as an ESC prefix, Ctrl
/// letters as C0 bytes, UTF-8 text, bracketed paste (`ESC [200~ … ESC [201~`, delivered as one
/// ``Event/paste(_:)``), and SGR and X10 mouse reports.
///
/// A lone ESC is ambiguous (the Escape key, or the start of a sequence still arriving): the
/// decoder keeps it until more bytes come or the caller, after a short delay with no input,
/// calls ``flush()``.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []
    private var paste: [UInt8]?

    public init() {}

    /// True while bytes are held back waiting for the rest of a sequence.
    public var hasPending: Bool { !pending.isEmpty && paste == nil }

    /// Decodes `bytes` (appended to anything held back).
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        pending.append(contentsOf: bytes)
        return decode(final: false)
    }

    /// Decodes what is held back as if no more bytes were coming: a lone ESC is the Escape
    /// key.
    public mutating func flush() -> [Event] {
        decode(final: true)
    }

    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    private mutating func decode(final: Bool) -> [Event] {
        var events: [Event] = []
        var index = 0
        var text: [UInt8] = []

        func flushText() {
            guard !text.isEmpty else { return }
            for character in String(decoding: text, as: UTF8.self) {
                events.append(.key(KeyEvent(.character(character))))
            }
            text.removeAll()
        }

        while index < pending.count {
            if paste != nil {
                if let end = find(Self.pasteEnd, in: pending, from: index) {
                    paste!.append(contentsOf: pending[index..<end])
                    events.append(.paste(String(decoding: paste!, as: UTF8.self)))
                    paste = nil
                    index = end + Self.pasteEnd.count
                } else {
                    // Keep the tail that could be the start of the end marker.
                    let keep = min(Self.pasteEnd.count - 1, pending.count - index)
                    paste!.append(contentsOf: pending[index..<(pending.count - keep)])
                    index = pending.count - keep
                    break
                }
                continue
            }
            let byte = pending[index]
            if byte >= 0x20, byte != 0x7F {
                // Text: take the whole UTF-8 sequence, or wait for it.
                let length = Self.utf8Length(byte)
                if index + length > pending.count {
                    if final { index = pending.count }
                    break
                }
                text.append(contentsOf: pending[index..<(index + length)])
                index += length
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
                    pending.removeFirst(index)
                    return events
                case .event(let event, let length):
                    if let event { events.append(event) }
                    index += length
                case .pasteStart(let length):
                    paste = []
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
            // Alt with a key.
            if next >= 0x20, next != 0x7F {
                let length = Self.utf8Length(next)
                guard start + 1 + length <= pending.count else { return .incomplete }
                let text = String(decoding: pending[(start + 1)..<(start + 1 + length)], as: UTF8.self)
                guard let character = text.first else { return .event(nil, length: 1 + length) }
                return .event(.key(KeyEvent(.character(character), modifiers: .alt)), length: 1 + length)
            }
            var key = Self.controlKey(next)
            key.modifiers.insert(.alt)
            return .event(.key(key), length: 2)
        }
    }

    private func parseCSI(at start: Int) -> Parsed {
        var index = start + 2
        guard index < pending.count else { return .incomplete }
        // Linux console F1–F5: ESC [ [ A–E
        if pending[index] == 0x5B {
            guard index + 1 < pending.count else { return .incomplete }
            let letter = pending[index + 1]
            let key: Key? = (0x41...0x45).contains(letter) ? .function(Int(letter) - 0x40) : nil
            return .event(key.map { .key(KeyEvent($0)) }, length: index + 2 - start)
        }
        // X10 mouse: ESC [ M b x y
        if pending[index] == 0x4D {
            guard index + 3 < pending.count else { return .incomplete }
            let button = Int(pending[index + 1]) - 32
            let x = Int(pending[index + 2]) - 33
            let y = Int(pending[index + 3]) - 33
            return .event(Self.mouse(button: button, x: x, y: y, release: button & 3 == 3), length: index + 4 - start)
        }
        let sgrMouse = pending[index] == 0x3C
        if sgrMouse { index += 1 }
        let paramStart = index
        while index < pending.count, (0x30...0x3F).contains(pending[index]) { index += 1 }
        while index < pending.count, (0x20...0x2F).contains(pending[index]) { index += 1 }
        guard index < pending.count else { return .incomplete }
        let finalByte = pending[index]
        let length = index + 1 - start
        let parameters = String(decoding: pending[paramStart..<index], as: UTF8.self)
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
        default: return KeyEvent(.character(Character(UnicodeScalar(byte))))
        }
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...0xF7: return 4
        case 0xE0...0xEF: return 3
        case 0xC0...0xDF: return 2
        default: return 1
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
