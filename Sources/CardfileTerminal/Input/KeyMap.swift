import Foundation

/// One binding: the keys that trigger an action, and what to tell a person about it.
public struct KeyBinding<Action: Hashable & Sendable>: Hashable, Sendable {
    public var keys: [KeyEvent]
    public var action: Action
    public var help: String
    /// The heading the help screen lists it under.
    public var section: String
    /// How the help writes the keys when they are a kind rather than a list (a dialog's
    /// underlined letters); nil writes ``keys``.
    public var keysText: String?

    public init(_ keys: [KeyEvent], _ action: Action, help: String, section: String = "") {
        self.keys = keys
        self.action = action
        self.help = help
        self.section = section
    }

    /// A binding the help lists but the map does not look up: keys the widget that has them
    /// handles itself, described as `keysText`.
    public init(described keysText: String, _ action: Action, help: String, section: String = "") {
        self.init([], action, help: help, section: section)
        self.keysText = keysText
    }
}

/// Key bindings as data: key handling, the help screen and the README's key table all come from
/// one key map, so they cannot disagree.
public struct KeyMap<Action: Hashable & Sendable>: Sendable {
    public let bindings: [KeyBinding<Action>]
    private let lookup: [KeyEvent: Action]

    public init(_ bindings: [KeyBinding<Action>]) {
        self.bindings = bindings
        var lookup: [KeyEvent: Action] = [:]
        for binding in bindings {
            for key in binding.keys where lookup[key] == nil { lookup[key] = binding.action }
        }
        self.lookup = lookup
    }

    /// The action bound to `event`, if any. An uppercase letter typed with Shift also matches a
    /// binding for the uppercase letter.
    public func action(for event: KeyEvent) -> Action? {
        if let action = lookup[event] { return action }
        var plain = event
        plain.modifiers.remove(.shift)
        return lookup[plain]
    }

    /// Help lines in binding order, grouped by section: (section, keys as written, help).
    public var helpEntries: [(section: String, keys: String, help: String)] {
        bindings.map { ($0.section, $0.keysText ?? $0.keys.map(\.description).joined(separator: ", "), $0.help) }
    }

    /// The bindings as a Markdown table, for the README.
    public func markdownTable() -> String {
        var lines = ["| Keys | Action |", "|---|---|"]
        for entry in helpEntries {
            let keys = entry.keys.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| \(keys) | \(entry.help) |")
        }
        return lines.joined(separator: "\n")
    }
}
