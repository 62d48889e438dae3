import TOMLKit

/// What each role looks like: a colour, and attributes added wherever the role is used.
///
/// Themes are TOML files (see `Themes/` for the four built in: `default` (dark), `light`,
/// `high-contrast` and `mono`); ``ThemeLoader`` finds them. Roles a theme leaves out take the
/// default theme's values.
public struct Theme: Hashable, Sendable {
    public let name: String
    public let colors: [Role: Color]
    public let attributes: [Role: Attributes]

    public init(name: String, colors: [Role: Color], attributes: [Role: Attributes] = [:]) {
        self.name = name
        self.colors = colors
        self.attributes = attributes
    }

    public func color(_ role: Role) -> Color {
        colors[role] ?? .default
    }

    /// The built-in theme names.
    public static let builtinNames = ["default", "light", "high-contrast", "mono"]

    /// The compiled-in default theme.
    public static let `default`: Theme = {
        // The built-in text is checked by a test; should it ever not parse, plain colours remain.
        (try? Theme.parse(BuiltinThemes.sources["default"] ?? "", file: "(built-in default)", base: nil))
            ?? Theme(name: "default", colors: [:])
    }()

    /// A built-in theme by name.
    public static func builtin(_ name: String) -> Theme? {
        guard let source = BuiltinThemes.sources[name] else { return nil }
        return try? parse(source, file: "(built-in \(name))", base: .default)
    }

    /// Parses a theme file's text. Roles it leaves out come from `base`.
    /// - Throws: ``ThemeProblem`` naming the file, the key and the value at fault.
    public static func parse(_ source: String, file: String, base: Theme?) throws(ThemeProblem) -> Theme {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: source)
        } catch {
            throw ThemeProblem(file: file, key: nil, value: nil, reason: "it is not valid TOML (\(error))")
        }
        var colors = base?.colors ?? [:]
        var attributes = base?.attributes ?? [:]
        let name = table["name"]?.string ?? file
        for key in table.keys where !["name", "colors", "attributes"].contains(key) {
            throw ThemeProblem(file: file, key: key, value: nil, reason: "is not a theme setting (use name, [colors] and [attributes])")
        }
        if let section = table["colors"] {
            guard let colorTable = section.table else {
                throw ThemeProblem(file: file, key: "colors", value: nil, reason: "must be a table of roles")
            }
            for key in colorTable.keys {
                guard let role = Role(rawValue: key) else {
                    throw ThemeProblem(file: file, key: "colors.\(key)", value: nil, reason: "is not a role (\(Role.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                let value = colorTable[key]
                if let text = value?.string, let color = Color(parsing: text) {
                    colors[role] = color
                } else if let number = value?.int, (0...255).contains(number) {
                    colors[role] = .indexed(UInt8(number))
                } else {
                    throw ThemeProblem(file: file, key: "colors.\(key)", value: value?.debugDescription ?? "?",
                                       reason: "is not a colour (use \"#rrggbb\", a name such as \"bright-blue\", \"default\", or 0–255)")
                }
            }
        }
        if let section = table["attributes"] {
            guard let attributeTable = section.table else {
                throw ThemeProblem(file: file, key: "attributes", value: nil, reason: "must be a table of roles")
            }
            for key in attributeTable.keys {
                guard let role = Role(rawValue: key) else {
                    throw ThemeProblem(file: file, key: "attributes.\(key)", value: nil, reason: "is not a role")
                }
                let value = attributeTable[key]
                let names = value?.array.map { Array($0).compactMap(\.string) } ?? value?.string.map { [$0] }
                guard let names else {
                    throw ThemeProblem(file: file, key: "attributes.\(key)", value: value?.debugDescription ?? "?", reason: "must be a list such as [\"bold\"]")
                }
                var set: Attributes = []
                for attributeName in names {
                    guard let attribute = Theme.attributeNames[attributeName] else {
                        throw ThemeProblem(file: file, key: "attributes.\(key)", value: attributeName,
                                           reason: "is not an attribute (bold, dim, underline, reverse, italic)")
                    }
                    set.insert(attribute)
                }
                attributes[role] = set
            }
        }
        return Theme(name: name, colors: colors, attributes: attributes)
    }

    private static let attributeNames: [String: Attributes] = [
        "bold": .bold, "dim": .dim, "underline": .underline, "reverse": .reverse, "italic": .italic,
    ]
}

/// Why a theme file could not be used, naming the file, the key and the value.
public struct ThemeProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public let file: String
    public let key: String?
    public let value: String?
    public let reason: String

    public var description: String {
        var sentence = "Theme \(file): "
        if let key { sentence += key }
        if let value { sentence += " = \(value)" }
        sentence += (key == nil && value == nil ? "" : " ") + reason + ". Using the default theme."
        return sentence
    }
}
