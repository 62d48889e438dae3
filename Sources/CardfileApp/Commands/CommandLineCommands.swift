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
        /// `:import FILE [options]`: the words after `import`.
        case importFile([String])
        /// `:export FILE [options]`: the words after `export`; `export!` may replace a file.
        case exportFile([String], replace: Bool)
        /// `:import cancel` or `:export cancel`.
        case cancelTransfer
        /// The last import's or export's report.
        case report
        /// The messages shown so far, in full.
        case messages
        /// `:saveas FILE`: a copy of the database with the unsaved edits; `saveas!` may
        /// replace a file.
        case saveCopy(String, replace: Bool)
        /// `:123`: the list's row 123 (from 1).
        case jump(Int)
        /// `:find TEXT`: the next row matching TEXT, the list left whole.
        case find(String)
        /// `:copy tsv|json`: the selected record to the clipboard.
        case copy(json: Bool)
        /// `:columns NAME…` shows these columns in this order; no names: edit the current list;
        /// `all`: every column.
        case columns([String])
        /// `:select [FILTER]` marks the records matching FILTER (alone: every record the list
        /// shows); `:unselect [FILTER]` unmarks them (alone: all).
        case select(String, marked: Bool)
        /// `:set COLUMN = VALUE` on the marked records (or the selected one): the text after `set`.
        case set(String)
        /// `:delete`: the marked records (or the selected one), after a question.
        case deleteMarked
        /// `:schema`: the table's columns, keys, constraints, indexes, triggers and size.
        case schema
        /// `:history`: the selected record's versions.
        case history
        /// `:undo` (or `:redo`): the table's last saved change, as Alt-U (Alt-R).
        case undo(redo: Bool)
        /// `:sql`: the SQL screen.
        case sql
        /// `:index`: an index on the column the list is sorted or filtered by (or the focused one).
        case index
        /// Not a command: the message says why.
        case problem(String)
    }

    /// One command of the table: the names it answers to (the first is the one completion and
    /// the help use), how it is typed, and what it does.
    struct Command: Sendable {
        let names: [String]
        let usage: String
        let help: String

        var name: String { names[0] }

        /// How the help and the README show it: the usage, then each other name it answers to.
        var shown: String {
            let written = Set(usage.split(whereSeparator: { " ,".contains($0) }))
            return ([usage] + names.dropFirst().map { ":" + $0 }.filter { !written.contains(Substring($0)) }).joined(separator: ", ")
        }

        init(_ names: [String], _ usage: String, _ help: String) {
            self.names = names
            self.usage = usage
            self.help = help
        }
    }

    /// Every command with what it does: the help lists this table, completion offers it, and
    /// ``parse(_:)`` takes no name that is not in it (a number alone goes to that row).
    static let commands: [Command] = [
        Command(["w", "write"], ":w", "save the record"),
        Command(["q", "quit"], ":q", "quit (asks when changes would be lost)"),
        Command(["q!", "quit!"], ":q!", "quit, discarding unsaved changes"),
        Command(["wq", "x"], ":wq or :x", "save, then quit"),
        Command(["123"], ":123", "go to row 123 of the list"),
        Command(["find", "f"], ":find TEXT", "select the next record matching TEXT, without filtering (n / N repeat it)"),
        Command(["columns", "cols"], ":columns NAME…|all", "show these columns in this order (alone: edit the current list; all: every column)"),
        Command(["copy"], ":copy tsv|json", "copy the selected record to the clipboard"),
        Command(["select"], ":select [FILTER]", "mark the records matching FILTER, in the filter's language (alone: every record the list shows)"),
        Command(["unselect"], ":unselect [FILTER]", "unmark the records matching FILTER (alone: every mark)"),
        Command(["set"], ":set COLUMN = VALUE", "write VALUE (a number, 'text' or NULL) to COLUMN of the marked records, or the selected one (Alt-U undoes it)"),
        Command(["delete"], ":delete", "delete the marked records, or the selected one (asks first; Alt-U brings them back)"),
        Command(["history"], ":history", "the selected record's saved versions, newest first, kept across runs; Enter puts one in its form"),
        Command(["undo"], ":undo", "undo the table's last saved change (Alt-U), whatever made it, even after a restart"),
        Command(["redo"], ":redo", "write again what the last :undo undid (Alt-R)"),
        Command(["schema"], ":schema", "describe the table: columns, keys, constraints, indexes, triggers, rows and size"),
        Command(["index"], ":index", "make an index on the column the status bar names (or the focused one), asking first"),
        Command(["sql"], ":sql", "the SQL screen (Q): run a statement; a result opens as a list, editable when its rows are one table's records"),
        Command(["import"], ":import FILE [options]", "import a file into this table, in the background (:import --help lists the options; :import cancel stops it)"),
        Command(["export", "export!"], ":export FILE [--format F]", "write the list, filtered and sorted as shown, to a new file (:export! replaces one; :export cancel stops it)"),
        Command(["report"], ":report", "show the last import's or export's report"),
        Command(["saveas", "saveas!"], ":saveas FILE", "write a copy of the database, with your unsaved edits, to a new file (:saveas! replaces one)"),
        Command(["messages", "mes"], ":messages", "show the recent messages in full, newest first"),
        Command(["theme"], ":theme NAME", "switch the colour theme"),
        Command(["autosave"], ":autosave SECONDS|off", "set the autosave delay"),
        Command(["help", "h"], ":help", "show the keys and these commands"),
    ]

    /// The commands as a Markdown table, for the README and `cardfile keys`.
    static func markdownTable() -> String {
        var lines = ["| Command | What it does |", "|---|---|"]
        for command in commands {
            let usage = command.shown.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| \(usage) | \(command.help.capitalizedFirst) |")
        }
        return lines.joined(separator: "\n")
    }

    static func parse(_ text: String) -> Parsed {
        guard let words = commandWords(text) else { return .problem("A quote is not closed.") }
        guard let name = words.first else { return .problem("Type a command, or :help.") }
        let argument = words.dropFirst().joined(separator: " ")
        if words.count == 1, !name.isEmpty, name.allSatisfy(\.isASCII), name.allSatisfy(\.isNumber) {
            guard let row = Int(name), row > 0 else { return .problem("Rows are numbered from 1.") }
            return .jump(row)
        }
        // Only a name of the table is a command: the help lists every one there is.
        guard commands.contains(where: { $0.names.contains(name) && $0.name != "123" }) else {
            return .problem("Unknown command :\(name). :help lists the commands.")
        }
        switch name {
        case "find", "f":
            let text = text.drop(while: { $0 == " " }).dropFirst(name.count).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? .problem("Say what to find: :find TEXT (the filter's language).") : .find(text)
        case "select", "unselect":
            let filter = text.drop(while: { $0 == " " }).dropFirst(name.count).trimmingCharacters(in: .whitespaces)
            return .select(filter, marked: name == "select")
        case "set":
            let assignment = text.drop(while: { $0 == " " }).dropFirst(name.count).trimmingCharacters(in: .whitespaces)
            return assignment.isEmpty ? .problem("Say what to set: :set COLUMN = VALUE (a number, 'text' or NULL).") : .set(assignment)
        case "index":
            return words.count == 1 ? .index : .problem(":index takes nothing after it: it indexes the column the status bar names, or the focused one.")
        case "sql":
            return words.count == 1 ? .sql : .problem(":sql takes nothing after it: it opens the SQL screen, where the statement is typed.")
        case "history", "undo", "redo":
            guard words.count == 1 else { return .problem(":\(name) takes nothing after it.") }
            return name == "history" ? .history : .undo(redo: name == "redo")
        case "schema":
            return words.count == 1 ? .schema : .problem(":schema takes nothing after it: it describes the list's table (or the one selected).")
        case "delete":
            return words.count == 1 ? .deleteMarked : .problem(":delete takes nothing after it: it deletes the marked records (:select marks them).")
        case "columns", "cols":
            return .columns(Array(words.dropFirst()).flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty })
        case "copy":
            switch argument {
            case "", "tsv": return .copy(json: false)
            case "json": return .copy(json: true)
            default: return .problem(":copy takes tsv or json.")
            }
        case "w", "write": return words.count == 1 ? .write : .problem(":w takes no file name: it saves the record.")
        case "q", "quit": return .quit
        case "q!", "quit!": return .forceQuit
        case "wq", "x": return .writeQuit
        case "help", "h": return .help
        case "import", "export", "export!":
            let rest = Array(words.dropFirst())
            if rest == ["cancel"] { return .cancelTransfer }
            guard !rest.isEmpty else { return .problem("Say which file: :\(name) FILE (Tab completes the name).") }
            return name == "import" ? .importFile(rest) : .exportFile(rest, replace: name == "export!")
        case "report": return .report
        case "messages", "mes": return words.count == 1 ? .messages : .problem(":messages takes nothing after it.")
        case "saveas", "saveas!":
            guard words.count == 2 else { return .problem("Say which file, once: :\(name) FILE (Tab completes the name).") }
            return .saveCopy(words[1], replace: name == "saveas!")
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

    /// Completes the command name, the theme name after `theme `, or the file name after
    /// `import ` and `export `; `alternatives` lists what an ambiguous file name could become.
    static func complete(_ text: String, themes: [String], folder: String?) -> PathCompletion.Outcome {
        if text.hasPrefix("theme ") {
            let partial = String(text.dropFirst("theme ".count))
            let matches = themes.filter { $0.hasPrefix(partial) }
            return PathCompletion.Outcome(text: matches.count == 1 ? "theme \(matches[0])" : text, alternatives: matches.count > 1 ? matches : [])
        }
        if ["import ", "export ", "export! ", "saveas ", "saveas! "].contains(where: text.hasPrefix) {
            let start = lastWordStart(text)
            let raw = String(text[start...])
            guard !raw.hasPrefix("-") else { return PathCompletion.Outcome(text: text, alternatives: []) }
            // (An unclosed quote is a path still being typed.)
            let typed = commandWords(raw)?.first ?? commandWords(raw + "\"")?.first ?? commandWords(raw + "'")?.first ?? ""
            var outcome = PathCompletion.complete(typed, base: folder)
            outcome.text = String(text[..<start]) + escaped(outcome.text)
            return outcome
        }
        guard !text.contains(" ") else { return PathCompletion.Outcome(text: text, alternatives: []) }
        let matches = commands.map(\.name).filter { $0.hasPrefix(text) && $0 != text && $0 != "123" }
        if matches.count == 1 {
            return PathCompletion.Outcome(text: matches[0] + (["theme", "autosave", "import", "export", "saveas", "find", "copy", "columns", "set", "select", "unselect"].contains(matches[0]) ? " " : ""), alternatives: [])
        }
        return PathCompletion.Outcome(text: text, alternatives: matches)
    }

    /// Where the last word of `text` starts (its end when the text ends in a space): spaces
    /// inside quotes or after a backslash do not end a word.
    private static func lastWordStart(_ text: String) -> String.Index {
        var start = text.startIndex
        var quote: Character?
        var escapedNext = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if escapedNext {
                escapedNext = false
            } else if let open = quote {
                if character == open { quote = nil }
            } else if character == "\\" {
                escapedNext = true
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == " " {
                start = next
            }
            index = next
        }
        return start
    }

    /// A path as a word of the command line: spaces, quotes and backslashes escaped.
    private static func escaped(_ path: String) -> String {
        var out = ""
        for character in path {
            if character == " " || character == "\"" || character == "'" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
