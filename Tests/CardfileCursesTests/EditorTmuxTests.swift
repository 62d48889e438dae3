import Foundation
import Testing

/// The `cardfile` binary in a real terminal (tmux), on a demo database it made itself, with
/// the `sqlite3` tool reading the file: edit, save, the question on leaving, autosave, a
/// resize to 10×4 in a form, quitting, and the terminal as it was.
@Suite("Editor in tmux", .serialized, .timeLimit(.minutes(10)))
struct EditorTmuxTests {
    @Test func editSaveAskAutosaveResizeQuit() throws {
        let (session, database) = try Self.editor(rows: 200, table: "books")
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of 200") }

        // Edit and save.
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("books › 1") }
        try session.send(literal: " e2e")
        try session.waitFor { $0.contains("modified") }
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("Saved.") }
        #expect(try Self.sqlite(database, "SELECT title FROM books WHERE id = 1") == "The Dispossessed e2e")

        // Leaving with changes asks; Cancel stays, Discard leaves nothing behind.
        try session.send(literal: "!")
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Unsaved changes") && $0.contains("title") }
        try session.send(literal: "c")
        try session.waitFor { $0.contains("e2e!") && !$0.contains("Unsaved changes") }
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Unsaved changes") }
        try session.send(literal: "d")
        try session.waitFor { $0.contains("row 1 of 200") }
        #expect(try Self.sqlite(database, "SELECT title FROM books WHERE id = 1") == "The Dispossessed e2e")

        // Autosave after its delay.
        try session.send(literal: ":autosave 1")
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("Autosave 1 s") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("books › 1") }
        try session.send(literal: "+")
        try session.waitFor { $0.contains("saved ") }
        #expect(try Self.sqlite(database, "SELECT title FROM books WHERE id = 1") == "The Dispossessed e2e+")

        // A resize to 10×4 in a form, and back: the edit is still there.
        try session.send(literal: "~")
        try session.resize(width: 10, height: 4)
        // (tmux draws 10 columns whatever the program writes: what counts is that the form's
        // title is still its first line.)
        try session.waitFor { $0.hasPrefix("books › 1") }
        try session.resize(width: 100, height: 30)
        try session.waitFor { $0.contains("books › 1") && $0.contains("e2e+~") }

        // Quit: the pending edit is saved by autosave on the way out; the terminal is restored.
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
        #expect(try Self.sqlite(database, "SELECT title FROM books WHERE id = 1") == "The Dispossessed e2e+~")
        #expect(try Self.sqlite(database, "PRAGMA integrity_check") == "ok")
    }

    /// Ctrl-O hands the terminal to `$EDITOR` (a script that waits for the test's go-ahead
    /// while its text is on screen), then takes it back: the edited text is in the field and
    /// the form is drawn again.
    @Test func ctrlOEditsTheFieldInEditorAndTakesTheTerminalBack() throws {
        var folder: URL?
        let (session, database) = try Self.editor(rows: 50, table: "authors") { place in
            folder = place
            let script = place.appendingPathComponent("stub-editor.sh")
            try """
                #!/bin/sh
                stty -a > '\(place.path)/editor-stty'
                ps -o pgid=,tpgid= -p $$ > '\(place.path)/editor-groups'
                echo "STUB EDITOR ON $(basename "$1")"
                while [ ! -f '\(place.path)/go' ]; do sleep 0.05; done
                sed -i 's/Le Guin/Le Guin (edited outside)/' "$1"
                """.write(to: script, atomically: true, encoding: .utf8)
            chmod(script.path, 0o755)
            return "EDITOR='\(script.path)'"
        }
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of 6") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("authors › 1") }
        try session.send(keys: ["C-o"])
        try session.waitFor { $0.contains("STUB EDITOR ON authors-name") }
        // The editor has a terminal in its ordinary (cooked) mode, echo on.
        let settings = try String(contentsOf: folder!.appendingPathComponent("editor-stty"), encoding: .utf8)
        let words = Set(settings.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).map(String.init))
        #expect(words.contains("icanon") && words.contains("echo"), "\(settings)")
        // It is in the terminal's foreground process group, so it may read the keyboard (an
        // editor started in a group of its own is stopped or fails as soon as it reads).
        let groups = try String(contentsOf: folder!.appendingPathComponent("editor-groups"), encoding: .utf8).split(separator: " ", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(groups.count == 2 && groups[0] == groups[1], "process group and the terminal's foreground group: \(groups)")
        FileManager.default.createFile(atPath: folder!.appendingPathComponent("go").path, contents: Data())
        try session.waitFor { $0.contains("Le Guin (edited outside)") && $0.contains("authors › 1") && $0.contains("name edited in") }
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("Saved.") }
        #expect(try Self.sqlite(database, "SELECT name FROM authors WHERE id = 1") == "Ursula K. Le Guin (edited outside)")
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
    }

    /// The program asks tmux for SGR mouse reports (and not with `--no-mouse`); a double
    /// click, sent as the bytes a terminal sends, opens the record under it.
    @Test func aDoubleClickOpensARecordAndNoMouseLeavesTheMouseAlone() throws {
        let (session, _) = try Self.editor(rows: 50, table: "authors")
        defer { session.close() }
        let screen = try session.waitFor { $0.contains("row 1 of 6") }
        #expect(try session.run(["display-message", "-p", "#{mouse_sgr_flag}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        let y = try #require(lines.firstIndex { $0.contains("Chimamanda") })
        let x = try #require(lines[y].range(of: "Chimamanda").map { lines[y].distance(from: lines[y].startIndex, to: $0.lowerBound) })
        let click = "\u{1B}[<0;\(x + 2);\(y + 1)M\u{1B}[<0;\(x + 2);\(y + 1)m"
        try session.send(literal: click + click)
        try session.waitFor { $0.contains("authors › 3") && $0.contains("Chimamanda") }
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()

        let (plain, _) = try Self.editor(rows: 50, table: "authors", arguments: ["--no-mouse"])
        defer { plain.close() }
        try plain.waitFor { $0.contains("row 1 of 6") }
        #expect(try plain.run(["display-message", "-p", "#{mouse_sgr_flag} #{mouse_any_flag} #{mouse_button_flag} #{mouse_standard_flag}"])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "0 0 0 0")
        try plain.send(keys: ["C-q"])
        #expect(try plain.waitForExit() == 0)
    }

    /// `CARDFILE_MOUSE=off` in the environment does what `--no-mouse` does, for every run.
    @Test func mouseOffInTheEnvironmentLeavesTheMouseAlone() throws {
        let (session, _) = try Self.editor(rows: 50, table: "authors", environment: { _ in "CARDFILE_MOUSE=off" })
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of 6") }
        #expect(try session.run(["display-message", "-p", "#{mouse_sgr_flag} #{mouse_any_flag} #{mouse_button_flag} #{mouse_standard_flag}"])
            .trimmingCharacters(in: .whitespacesAndNewlines) == "0 0 0 0")
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }

    @Test func sigtermSavesThePendingEditAndRestoresTheTerminal() throws {
        let (session, database) = try Self.editor(rows: 50, table: "authors", terminal: "screen-256color", width: 80, height: 24)
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of 6") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("authors › 1") }
        try session.send(literal: "!")
        try session.waitFor { $0.contains("modified") }
        try session.signal("TERM")
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
        #expect(try Self.sqlite(database, "SELECT name FROM authors WHERE id = 1") == "Ursula K. Le Guin!")
    }

    @Test func anotherProcessChangesTheOpenRecordAndTheDialogDecides() throws {
        let (session, database) = try Self.editor(rows: 50, table: "authors")
        defer { session.close() }
        let cardfile = try TmuxSession.programPath("cardfile")
        try session.waitFor { $0.contains("row 1 of 6") }
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("authors › 1") }

        // An untouched field follows the other process at once.
        _ = try Self.sqlite(database, "UPDATE authors SET country = 'Elsewhere' WHERE id = 1")
        try session.waitFor { $0.contains("Elsewhere") }

        // The same field: marked before any save, then the dialog; m merges.
        try session.send(literal: " (mine)")
        _ = try Self.run(cardfile, ["collaborate", database, "--table", "authors", "--key", "1", "--set", "name=Theirs"])
        try session.waitFor { $0.contains("changed elsewhere to “Theirs”") }
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("Changed elsewhere: authors › 1") && $0.contains("Original") }
        try session.send(literal: "m")
        try session.waitFor { !$0.contains("Changed elsewhere: authors") && $0.contains("saved ") }
        #expect(try Self.sqlite(database, "SELECT name || '/' || country FROM authors WHERE id = 1") == "Ursula K. Le Guin (mine)/Elsewhere")

        // Take theirs.
        try session.send(literal: "!")
        _ = try Self.sqlite(database, "UPDATE authors SET name = 'Theirs again' WHERE id = 1")
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("Changed elsewhere: authors › 1") }
        try session.send(literal: "t")
        try session.waitFor { !$0.contains("Changed elsewhere: authors") && $0.contains("Theirs again") && !$0.contains("Theirs again!") }
        #expect(try Self.sqlite(database, "SELECT name FROM authors WHERE id = 1") == "Theirs again")

        // Deleted elsewhere: r restores it with my values.
        try session.send(literal: "?")
        _ = try Self.sqlite(database, "PRAGMA foreign_keys = OFF; DELETE FROM authors WHERE id = 1")
        try session.waitFor { $0.contains("deleted elsewhere") }
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("Deleted elsewhere: authors › 1") }
        try session.send(literal: "r")
        try session.waitFor { !$0.contains("Deleted elsewhere: authors") && !$0.contains("deleted elsewhere") }
        #expect(try Self.sqlite(database, "SELECT name FROM authors WHERE id = 1") == "Theirs again?")

        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
    }

    @Test func errorsPrintOneLineAndLeaveTheTerminalAlone() throws {
        let cardfile = try TmuxSession.programPath("cardfile")
        let missing = try Self.run(cardfile, ["/nonexistent/folder/x.sqlite"], expectStatus: 2)
        #expect(missing.split(separator: "\n").count == 1)
        #expect(!missing.contains("\u{1B}"), "no terminal control sequences")
    }

    /// `cardfile demo` makes a database of its own (`rows` books, named uniquely so the session
    /// can signal its process), and the editor opens `table` of it with autosave off.
    static func editor(rows: Int, table: String, terminal: String = "xterm-256color", width: Int = 100, height: Int = 30,
                       arguments: [String] = [], environment: (_ folder: URL) throws -> String = { _ in "" }) throws -> (TmuxSession, String) {
        let socket = "cardfile-editor-\(UUID().uuidString.prefix(8))"
        let folder = TmuxSession.folderFor(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "library-\(UUID().uuidString).sqlite"
        let database = folder.appendingPathComponent(name).path
        #expect(try run(try TmuxSession.programPath("cardfile"), ["demo", database, "--rows", String(rows)]).contains("\(rows) books"))
        let session = try TmuxSession(terminal: terminal, width: width, height: height, program: "cardfile",
                                      arguments: [database, "--table", table, "--autosave", "off"] + arguments, environment: try environment(folder),
                                      socket: socket, tag: name)
        return (session, database)
    }

    /// Runs a program to completion; returns standard output and error.
    static func run(_ program: String, _ arguments: [String], expectStatus: Int32 = 0) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == expectStatus, "\(program) \(arguments): \(text)")
        return text
    }

    static func sqlite(_ database: String, _ sql: String) throws -> String {
        try run("/usr/bin/env", ["sqlite3", database, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
