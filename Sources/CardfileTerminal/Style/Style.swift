/// What a piece of the screen is, by meaning. Widgets name roles, never colours; a ``Theme``
/// says what each role looks like.
public enum Role: String, CaseIterable, Hashable, Sendable {
    case background, surface, text, muted, accent, selection, border
    case error, warning, success
    /// Marks for records with unsaved edits, conflicts, unsaved inserts and deletes.
    case modified, conflict, inserted, deleted
}

/// Text attributes a terminal can show without colour.
public struct Attributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = Attributes(rawValue: 1 << 0)
    public static let dim = Attributes(rawValue: 1 << 1)
    public static let underline = Attributes(rawValue: 1 << 2)
    public static let reverse = Attributes(rawValue: 1 << 3)
    public static let italic = Attributes(rawValue: 1 << 4)
}

/// How a cell is drawn: foreground and background roles, and attributes.
public struct Style: Hashable, Sendable {
    public var foreground: Role
    public var background: Role
    public var attributes: Attributes

    public init(foreground: Role = .text, background: Role = .background, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    public static let plain = Style()
    /// Placeholders for control characters and other data that must not reach the terminal.
    public static let placeholder = Style(foreground: .muted, attributes: [.dim])

    public func with(foreground: Role) -> Style {
        var style = self
        style.foreground = foreground
        return style
    }

    public func with(background: Role) -> Style {
        var style = self
        style.background = background
        return style
    }

    public func adding(_ attributes: Attributes) -> Style {
        var style = self
        style.attributes.formUnion(attributes)
        return style
    }
}
