import Foundation

/// Finds a theme by name: the person's own themes first
/// (`$XDG_CONFIG_HOME/cardfile/themes/NAME.toml`, else `~/.config/cardfile/themes`), then the
/// built-in ones. `NO_COLOR` (set and not empty) selects `mono` whatever was asked (a name that
/// names no theme is still reported). A theme that cannot be used yields the default theme (mono
/// under `NO_COLOR`) and a ``ThemeProblem`` to show.
public struct ThemeLoader: Sendable {
    public let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The folder of the person's themes.
    public var userDirectory: String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/cardfile/themes"
    }

    /// Loads `name` (the default theme when nil).
    public func load(_ name: String?) -> (theme: Theme, problem: ThemeProblem?) {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty {
            // Mono whatever was asked, but a theme that could not be loaded is still said:
            // a mistyped name is a mistake with or without colour.
            if let name, name != "mono", let problem = Self(environment: environment.filter { $0.key != "NO_COLOR" }).load(name).problem {
                return (Theme.builtin("mono") ?? .default, problem)
            }
            return (Theme.builtin("mono") ?? .default, nil)
        }
        let wanted = name ?? "default"
        // A theme is named, never reached by a path: nothing outside the themes folder is read.
        guard Self.isName(wanted) else {
            return (.default, ThemeProblem(file: TerminalText.visible(wanted), key: nil, value: nil,
                                           reason: "is not a theme name (a name has no /, no .. and no control characters)"))
        }
        let userFile = "\(userDirectory)/\(wanted).toml"
        if FileManager.default.fileExists(atPath: userFile) {
            do {
                let source = try String(contentsOfFile: userFile, encoding: .utf8)
                return (try Theme.parse(source, file: userFile, base: .default), nil)
            } catch let problem as ThemeProblem {
                return (.default, problem)
            } catch {
                return (.default, ThemeProblem(file: userFile, key: nil, value: nil, reason: "cannot be read (\(error.localizedDescription))"))
            }
        }
        if let builtin = Theme.builtin(wanted) { return (builtin, nil) }
        return (.default, ThemeProblem(
            file: userFile, key: nil, value: nil,
            reason: "does not exist, and there is no built-in theme “\(wanted)” (built in: \(Theme.builtinNames.joined(separator: ", ")))"))
    }

    /// Whether `name` can name a theme: not empty, no path separator, not `.` or `..` (nor
    /// starting with a dot), no control characters.
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\")
            && TerminalText.visible(name) == name
    }

    /// Every theme name available: built-in and the person's own.
    public func availableThemes() -> [String] {
        let own = ((try? FileManager.default.contentsOfDirectory(atPath: userDirectory)) ?? [])
            .filter { $0.hasSuffix(".toml") }
            .map { String($0.dropLast(5)) }
            .filter(Self.isName)
        return Array(Set(Theme.builtinNames + own)).sorted()
    }
}
