import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// Ctrl-O: a field's text in `$EDITOR`, run for real (small shell scripts stand in for the
/// editor) on the headless backend, which counts the hand-overs of the terminal.
@Suite("External editor", .timeLimit(.minutes(10)))
struct ExternalEditorTests {
    /// A harness whose editor is the script `body`; the script logs the file it was given.
    static func harness(editor body: String, readOnly: Bool = false) throws -> (AppHarness, log: String, scripts: TemporaryDirectory) {
        let scripts = TemporaryDirectory()
        let script = scripts.file("editor.sh")
        let log = scripts.file("log")
        try Data("#!/bin/sh\necho \"$1\" >> '\(log)'\n\(body)\n".utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let harness = try AppHarness(options: CardfileApp.Options(autosave: nil, editor: script), readOnly: readOnly)
        return (harness, log, scripts)
    }

    /// The given temporary file's path, from the script's log.
    static func files(in log: String) -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func theEditedTextComesBackAsOneUndoableEditAndTheFileIsRemoved() throws {
        let (harness, log, scripts) = try Self.harness(editor: "printf 'line one\\nline two, edited\\n' > \"$1\"")
        defer { withExtendedLifetime(scripts) {} }
        try harness.press(KeyEvent(.enter))
        for _ in 0..<4 { try harness.press(KeyEvent(.tab)) }     // notes: "first"
        try harness.press(.control("o"))
        #expect(harness.backend.handOvers == 1)
        #expect(harness.messageLine.contains("notes edited in"), "\(harness.messageLine)")
        #expect(harness.screen.contains("line two, edited"))
        let files = Self.files(in: log)
        #expect(files.count == 1)
        #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "the temporary file is removed")
        #expect(files.first?.contains("cards-notes") == true)
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT notes FROM cards WHERE id = 1") == "line one\nline two, edited", "the editor's final line break is dropped")
        try harness.press(.alt("u"))
        #expect(harness.screen.contains("first"))
        #expect(!harness.screen.contains("line two, edited"))
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT notes FROM cards WHERE id = 1") == "first")
    }

    @Test func anEditorThatFailsChangesNothing() throws {
        let (harness, log, scripts) = try Self.harness(editor: "echo changed > \"$1\"; exit 1")
        defer { withExtendedLifetime(scripts) {} }
        try harness.press(KeyEvent(.enter), .control("o"))
        #expect(harness.messageLine.contains("exited with status 1"), "\(harness.messageLine)")
        #expect(harness.statusLine.contains("no changes"))
        #expect(harness.lines[2].contains("Ada"))
        #expect(Self.files(in: log).allSatisfy { !FileManager.default.fileExists(atPath: $0) })
    }

    @Test func aFileLeftAsItWasChangesNothing() throws {
        let (harness, _, scripts) = try Self.harness(editor: "true")
        defer { withExtendedLifetime(scripts) {} }
        try harness.press(KeyEvent(.enter), .control("o"))
        #expect(harness.messageLine.contains("name unchanged"), "\(harness.messageLine)")
        #expect(harness.statusLine.contains("no changes"))
        try harness.press(.alt("u"))
        #expect(harness.messageLine.contains("Nothing to undo"))
    }

    @Test func aReadOnlyFormShowsTheTextAndKeepsNothing() throws {
        let (harness, log, scripts) = try Self.harness(editor: "echo changed > \"$1\" 2>/dev/null; true", readOnly: true)
        defer { withExtendedLifetime(scripts) {} }
        try harness.press(KeyEvent(.enter), .control("o"))
        #expect(Self.files(in: log).count == 1, "opened in the editor, read-only")
        #expect(harness.messageLine.contains("read-only"), "\(harness.messageLine)")
        #expect(harness.lines[2].contains("Ada") && !harness.screen.contains("changed"))
    }

    @Test func anEditorThatCannotBeFoundSaysSo() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: nil, editor: "/no/such/editor"))
        try harness.press(KeyEvent(.enter), .control("o"))
        #expect(harness.messageLine.contains("not found"), "\(harness.messageLine)")
        #expect(harness.statusLine.contains("no changes"))
    }

    @Test func theEditorComesFromVisualThenEditorThenVi() {
        #expect(ExternalEdit.command(environment: ["VISUAL": "nano", "EDITOR": "vim"]) == "nano")
        #expect(ExternalEdit.command(environment: ["VISUAL": " ", "EDITOR": "vim"]) == "vim")
        #expect(ExternalEdit.command(environment: [:]) == "vi")
    }
}
