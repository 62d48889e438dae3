import Foundation
import Testing
@testable import CardfileTerminal

@Suite("Themes")
struct ThemeTests {
    static let themesFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Themes").path

    @Test(arguments: Theme.builtinNames)
    func compiledInThemesEqualTheirFiles(name: String) throws {
        let file = try String(contentsOfFile: "\(Self.themesFolder)/\(name).toml", encoding: .utf8)
        #expect(BuiltinThemes.sources[name].map { $0 + "\n" } == file)
        let theme = try #require(Theme.builtin(name))
        #expect(theme.name == name)
        // Every role has a colour in every built-in theme.
        #expect(Set(theme.colors.keys) == Set(Role.allCases))
    }

    @Test func defaultThemeIsCompiledIn() {
        #expect(Theme.default.name == "default")
        #expect(Theme.default.color(.accent) == .rgb(0x7A, 0xA2, 0xF7))
        #expect(Theme.default.color(.background) == .default)
        #expect(Theme.default.attributes[.accent] == [.bold])
    }

    @Test func badValuesNameTheFileKeyAndValueAndFallBack() throws {
        let folder = try userThemes([
            "broken.toml": "name = \"broken\"\n[colors]\naccent = \"#12345\"\n",
            "unknown-role.toml": "[colors]\nsparkle = \"red\"\n",
            "bad-attribute.toml": "[attributes]\naccent = [\"blink\"]\n",
            "not-toml.toml": "[colors\naccent = 1\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let loader = ThemeLoader(environment: ["XDG_CONFIG_HOME": folder.path])
        let (theme, problem) = loader.load("broken")
        #expect(theme == .default)
        let found = try #require(problem)
        #expect(found.file == "\(folder.path)/cardfile/themes/broken.toml")
        #expect(found.key == "colors.accent")
        #expect(found.value == "\"#12345\"" || found.value == "#12345")
        #expect(found.description.contains("broken.toml: colors.accent = "))
        #expect(found.description.contains("is not a colour"))
        #expect(found.description.hasSuffix("Using the default theme."))

        #expect(loader.load("unknown-role").problem?.key == "colors.sparkle")
        let attribute = loader.load("bad-attribute").problem
        #expect(attribute?.key == "attributes.accent" && attribute?.value == "blink")
        let invalid = loader.load("not-toml")
        #expect(invalid.theme == .default && invalid.problem?.description.contains("not valid TOML") == true)
    }

    @Test func userThemesComeFirstAndMayBePartial() throws {
        let folder = try userThemes(["solar.toml": "name = \"solar\"\n[colors]\naccent = \"bright-yellow\"\nselection = 24\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let loader = ThemeLoader(environment: ["XDG_CONFIG_HOME": folder.path])
        let (theme, problem) = loader.load("solar")
        #expect(problem == nil)
        #expect(theme.name == "solar")
        #expect(theme.color(.accent) == .ansi(11))
        #expect(theme.color(.selection) == .indexed(24))
        #expect(theme.color(.error) == Theme.default.color(.error))     // left out: from the default
        #expect(loader.availableThemes().contains("solar"))
        #expect(loader.load("light").theme.name == "light")
        let missing = loader.load("nonexistent")
        #expect(missing.theme == .default && missing.problem?.description.contains("no built-in theme “nonexistent”") == true)
        #expect(ThemeLoader(environment: ["HOME": "/home/ada"]).userDirectory == "/home/ada/.config/cardfile/themes")
    }

    @Test func aThemeNameIsNeverAPath() throws {
        // A valid theme beside the themes folder (XDG_CONFIG_HOME/cardfile/x.toml) and one at
        // the top of XDG_CONFIG_HOME: names that reach them are refused, and neither is read.
        let folder = try userThemes(["own.toml": "name = \"own\"\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let outside = "name = \"outside\"\n[colors]\naccent = \"bright-red\"\n"
        try outside.write(to: folder.appendingPathComponent("cardfile/x.toml"), atomically: true, encoding: .utf8)
        try outside.write(to: folder.appendingPathComponent("y.toml"), atomically: true, encoding: .utf8)
        let loader = ThemeLoader(environment: ["XDG_CONFIG_HOME": folder.path])
        for name in ["../x", "../../y", "/etc/passwd", "./own", ".hidden", "", "own\u{1B}]0;t\u{07}", "a\\b"] {
            let (theme, problem) = loader.load(name)
            #expect(theme == .default, "\(name)")
            #expect(problem?.description.contains("is not a theme name") == true, "\(name)")
            #expect(problem?.description.contains("\u{1B}") == false)
        }
        #expect(loader.load("own").problem == nil)
        #expect(ThemeLoader.isName("high-contrast") && ThemeLoader.isName("solar.dark"))
    }

    @Test func noColorSelectsMono() {
        let loader = ThemeLoader(environment: ["NO_COLOR": "1", "XDG_CONFIG_HOME": "/nonexistent"])
        #expect(loader.load("light").theme.name == "mono")
        #expect(loader.load(nil).theme.attributes[.selection] == [.reverse])
        #expect(ThemeLoader(environment: ["NO_COLOR": ""]).load(nil).theme.name == "default")
        #expect(loader.load("light").problem == nil)
        // A name that names no theme is still a mistake, said as such (mono all the same).
        let unknown = loader.load("nope")
        #expect(unknown.theme.name == "mono")
        #expect(unknown.problem?.reason.hasPrefix("does not exist") == true, "\(String(describing: unknown.problem))")
        #expect(loader.load("../x").problem?.reason.hasPrefix("is not a theme name") == true)
    }

    @Test func coloursDegradeToWhatTheTerminalHas() {
        let purple = Color.rgb(0x7A, 0xA2, 0xF7)
        #expect(purple.degraded(to: .trueColor) == purple)
        #expect(purple.degraded(to: .indexed256) == .indexed(111))
        #expect(Color.rgb(255, 0, 0).degraded(to: .ansi16) == .ansi(9))
        #expect(Color.rgb(205, 0, 0).degraded(to: .ansi8) == .ansi(1))
        #expect(Color.rgb(128, 128, 128).degraded(to: .indexed256) == .indexed(244))
        #expect(Color.ansi(12).degraded(to: .ansi8) == .ansi(4))
        #expect(purple.degraded(to: .none) == nil)
        #expect(Color.default.degraded(to: .ansi8) == .default)
        #expect(ColorDepth(colors: 256) == .indexed256)
        #expect(ColorDepth(colors: 8) == .ansi8)
        #expect(ColorDepth(colors: 0) == .none)
    }

    private func userThemes(_ files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cardfile-themes-\(UUID().uuidString)")
        let themes = folder.appendingPathComponent("cardfile/themes")
        try FileManager.default.createDirectory(at: themes, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: themes.appendingPathComponent(name))
        }
        return folder
    }
}
