/// A key, without modifiers.
public enum Key: Hashable, Sendable {
    /// Printable text: one grapheme cluster.
    case character(Character)
    case enter, tab, backTab, backspace, delete, insert, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// F1 to F12.
    case function(Int)
}

/// Modifier keys held with a key.
public struct Modifiers: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let shift = Modifiers(rawValue: 1 << 0)
    public static let alt = Modifiers(rawValue: 1 << 1)
    public static let control = Modifiers(rawValue: 1 << 2)
}

/// A key press.
public struct KeyEvent: Hashable, Sendable, CustomStringConvertible {
    public var key: Key
    public var modifiers: Modifiers

    public init(_ key: Key, modifiers: Modifiers = []) {
        self.key = key
        self.modifiers = modifiers
    }

    /// Ctrl with a letter: `KeyEvent.control("s")`.
    public static func control(_ letter: Character) -> KeyEvent {
        KeyEvent(.character(letter), modifiers: .control)
    }

    /// Alt with a character: `KeyEvent.alt("b")`.
    public static func alt(_ character: Character) -> KeyEvent {
        KeyEvent(.character(character), modifiers: .alt)
    }

    /// A plain character: `KeyEvent.char("q")`.
    public static func char(_ character: Character) -> KeyEvent {
        KeyEvent(.character(character))
    }

    /// How a person writes the key: `Ctrl-S`, `Alt-B`, `PgDn`, `F1`, `q`.
    public var description: String {
        var parts: [String] = []
        if modifiers.contains(.control) { parts.append("Ctrl") }
        if modifiers.contains(.alt) { parts.append("Alt") }
        if modifiers.contains(.shift) { parts.append("Shift") }
        let name: String
        switch key {
        case .character(" "): name = "Space"
        case .character(let character): name = modifiers.contains(.control) ? String(character).uppercased() : String(character)
        case .enter: name = "Enter"
        case .tab: name = "Tab"
        case .backTab: name = "Shift-Tab"
        case .backspace: name = "Backspace"
        case .delete: name = "Delete"
        case .insert: name = "Insert"
        case .escape: name = "Esc"
        case .up: name = "↑"
        case .down: name = "↓"
        case .left: name = "←"
        case .right: name = "→"
        case .home: name = "Home"
        case .end: name = "End"
        case .pageUp: name = "PgUp"
        case .pageDown: name = "PgDn"
        case .function(let number): name = "F\(number)"
        }
        parts.append(name)
        return parts.joined(separator: "-")
    }
}

/// A mouse action.
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case press(button: Int)
        case release
        case drag(button: Int)
        case wheelUp
        case wheelDown
    }
    public var kind: Kind
    public var position: Point
    public var modifiers: Modifiers

    public init(kind: Kind, position: Point, modifiers: Modifiers = []) {
        self.kind = kind
        self.position = position
        self.modifiers = modifiers
    }
}

/// Something that happened at the terminal.
public enum Event: Hashable, Sendable {
    case key(KeyEvent)
    /// Text pasted in one go (bracketed paste), not to be taken as key presses.
    case paste(String)
    case mouse(MouseEvent)
    case resize(Size)
    /// The program was asked to stop (SIGTERM, SIGINT or SIGHUP): clean up and exit.
    case terminate
}
