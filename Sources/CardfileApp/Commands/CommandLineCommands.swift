import Foundation

/// The `:` command line: what each command means, how typed text is read, and completion.
enum CommandLineCommands {
    enum Parsed: Equatable {
        case write
        case quit
        case forceQuit
        case writeQuit
        case theme(String)
        /// Autosave after this delay; nil turns it off.
        case autosave(Duration?)
        case help
        /// Not a command: the message says why.
        case problem(String)
    }

    /// Every command with what it does, for `:help` and completion.
    static let commands: [(name: String, usage: String, help: String)] = [
        ("w", ":w", "save the record"),
        ("q", ":q", "quit (asks when changes would be lost)"),
        ("q!", ":q!", "quit, discarding unsaved changes"),
        ("wq", ":wq", "save, then quit"),
        ("theme", ":theme NAME", "switch the colour theme"),
        ("autosave", ":autosave SECONDS|off", "set the autosave delay"),
        ("help", ":help", "show the keys and these commands"),
    ]

    static func parse(_ text: String) -> Parsed {
        let words = text.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let name = words.first else { return .problem("Type a command, or :help.") }
        let argument = words.dropFirst().joined(separator: " ")
        switch name {
        case "w", "write": return words.count == 1 ? .write : .problem(":w takes no file name: it saves the record.")
        case "q", "quit": return .quit
        case "q!", "quit!": return .forceQuit
        case "wq", "x": return .writeQuit
        case "help", "h": return .help
        case "theme":
            return argument.isEmpty ? .problem("Say which theme: :theme NAME.") : .theme(argument)
        case "autosave":
            if argument == "off" || argument == "0" { return .autosave(nil) }
            guard let seconds = Double(argument), seconds.isFinite, seconds > 0, seconds <= 3600 else {
                return .problem("Autosave takes seconds (up to 3600) or off, as in :autosave 2.")
            }
            return .autosave(.milliseconds(Int64((seconds * 1000).rounded())))
        default:
            return .problem("Unknown command :\(name). :help lists the commands.")
        }
    }

    /// Completes the command name (or the theme name after `theme `) when one candidate
    /// fits; otherwise returns the text as it was.
    static func complete(_ text: String, themes: [String]) -> String {
        if text.hasPrefix("theme ") {
            let partial = String(text.dropFirst("theme ".count))
            let matches = themes.filter { $0.hasPrefix(partial) }
            return matches.count == 1 ? "theme \(matches[0])" : text
        }
        guard !text.contains(" ") else { return text }
        let matches = commands.map(\.name).filter { $0.hasPrefix(text) && $0 != text }
        if matches.count == 1 { return matches[0] + (["theme", "autosave"].contains(matches[0]) ? " " : "") }
        return text
    }
}
