import CWidth
import Foundation

/// One grapheme cluster as it will be drawn: the text sent to the terminal, its width in
/// cells, and whether it stands in for something that must not reach the terminal.
///
/// Widths come from `wcwidth` (through the C library's Unicode tables), per cluster. Terminals
/// disagree about some emoji sequences (tmux 3.3 draws 👍🏽 in four cells, most terminals in
/// two; ❤️ takes one cell in some and two in others), and a disagreement shifts every cell
/// after it. So clusters are normalised to what every terminal and ncurses measure alike:
/// variation selectors and skin-tone modifiers are dropped, a ZWJ sequence keeps its first
/// emoji, at most four combining marks stay on a base, and spacing scalars in a cluster (a
/// flag's two regional indicators, Indic and Thai vowel signs) count a cell each, as ncurses
/// counts them. A cell holds at most two columns: a cluster wider than that (repeated Hangul
/// leading consonants, a prepended sign before a syllable) is drawn in ``pieces(of:)`` of at
/// most two cells each, its spacing scalars split between them. Alignment wins over fidelity.
///
/// Control characters (C0, DEL, C1, including ESC), bidirectional overrides, line separators
/// and the byte-order mark become one-cell placeholders (the Control Pictures block for C0 and
/// DEL, `�` for the rest), drawn in a muted style, so data can never move the cursor, change
/// colours or reorder text on screen.
public struct Glyph: Hashable, Sendable {
    public let text: String
    public let width: Int
    public let isPlaceholder: Bool

    /// The glyph for one cluster; `width` 0 means it is dropped (a lone combining mark, a
    /// zero-width space).
    public init(_ character: Character) {
        let scalars = character.unicodeScalars
        if let first = scalars.first, scalars.count == 1 {
            let value = first.value
            if value >= 0x20, value < 0x7F {
                self.init(text: String(character), width: 1)
                return
            }
            if let placeholder = Glyph.placeholder(for: value) {
                self.init(text: placeholder, width: 1, isPlaceholder: true)
                return
            }
            let width = Glyph.cellWidth(value)
            self.init(text: String(character), width: width)
            return
        }
        self = Glyph.normalize(scalars)
    }

    private init(text: String, width: Int, isPlaceholder: Bool = false) {
        self.text = text
        self.width = width
        self.isPlaceholder = isPlaceholder
    }

    /// The cluster as cells: itself when it is at most two cells wide, else split before the
    /// spacing scalar that would make a piece wider than two (zero-width marks stay with the
    /// scalar they follow). The pieces' widths add up to ``width``.
    public static func pieces(of character: Character) -> [Glyph] {
        let whole = Glyph(character)
        guard whole.width > 2 else { return [whole] }
        var pieces: [Glyph] = []
        var scalars = String.UnicodeScalarView()
        var width = 0
        for scalar in whole.text.unicodeScalars {
            let scalarWidth = cellWidth(scalar.value)
            if scalarWidth > 0, width + scalarWidth > 2, !scalars.isEmpty {
                pieces.append(Glyph(text: String(scalars), width: width))
                scalars.removeAll()
                width = 0
            }
            scalars.append(scalar)
            width += scalarWidth
        }
        if !scalars.isEmpty { pieces.append(Glyph(text: String(scalars), width: width)) }
        return pieces
    }

    /// The replacement for a scalar that must not be sent to a terminal, or nil.
    static func placeholder(for value: UInt32) -> String? {
        switch value {
        case 0x00...0x1F: return String(UnicodeScalar(0x2400 + value)!)
        case 0x7F: return "\u{2421}"
        case 0x80...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C, 0xFEFF:
            return "\u{FFFD}"
        default: return nil
        }
    }

    private static func isEmojiModifier(_ value: UInt32) -> Bool { (0x1F3FB...0x1F3FF).contains(value) }
    private static func isVariationSelector(_ value: UInt32) -> Bool { (0xFE00...0xFE0F).contains(value) || (0xE0100...0xE01EF).contains(value) }

    private static func normalize(_ scalars: Character.UnicodeScalarView) -> Glyph {
        // "\r\n" is one cluster; any cluster holding a control is one placeholder.
        for scalar in scalars {
            if let placeholder = placeholder(for: scalar.value) { return Glyph(text: placeholder, width: 1, isPlaceholder: true) }
        }
        var kept = String.UnicodeScalarView()
        var width = 0
        var combining = 0
        for scalar in scalars {
            let value = scalar.value
            if value == 0x200D { break }                      // ZWJ: keep the first emoji only
            if isVariationSelector(value) || isEmojiModifier(value) { continue }
            let scalarWidth = cellWidth(value)
            if scalarWidth == 0 {
                guard !kept.isEmpty, combining < 4 else { continue }
                combining += 1
            }
            // Spacing scalars after the base (Indic and Thai vowel signs, a flag's second
            // letter) stay: ncurses and terminals give each its own cells, and so do we.
            kept.append(scalar)
            width += scalarWidth
        }
        return Glyph(text: String(kept), width: width)
    }

    /// `wcwidth` for one scalar, with a UTF-8 character type so it knows Unicode; -1 (a
    /// control) counts as 0 here, since controls were replaced before.
    static func cellWidth(_ value: UInt32) -> Int {
        _ = Glyph.utf8Locale
        return max(0, Int(cf_wcwidth(value)))
    }

    /// `wcwidth` answers by the C library's character-type locale. Programs set it at start
    /// (the curses backend calls `setlocale`); when the process still has the "C" locale (as
    /// tests do), it is switched to C.UTF-8 once, before the first measurement.
    private static let utf8Locale: Bool = {
        let current = String(cString: setlocale(LC_CTYPE, nil))
        if current.uppercased().contains("UTF-8") || current.uppercased().contains("UTF8") { return true }
        return setlocale(LC_CTYPE, "C.UTF-8") != nil
    }()
}

extension String {
    /// The width of the string in terminal cells, as ``Buffer`` would draw it.
    public var displayWidth: Int {
        if utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return utf8.count }
        return reduce(0) { $0 + Glyph($1).width }
    }
}
