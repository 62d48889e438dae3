import Foundation
import Testing

/// Shell completions as a person meets them: an interactive bash in tmux sources the script
/// `cardfile --generate-completion-script bash` prints, and Tab completes subcommands and the
/// tables of the database already on the line.
@Suite("Completions in tmux", .timeLimit(.minutes(10)))
struct CompletionTmuxTests {
    @Test func bashCompletesSubcommandsAndTables() throws {
        let cardfile = try TmuxSession.programPath("cardfile")
        let socket = "cardfile-completion-\(UUID().uuidString.prefix(8))"
        let folder = TmuxSession.folderFor(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = folder.appendingPathComponent("lib.sqlite").path
        #expect(try EditorTmuxTests.run(cardfile, ["demo", database, "--rows", "20"]).contains("20 books"))
        let script = folder.appendingPathComponent("cardfile.bash").path
        try EditorTmuxTests.run(cardfile, ["--generate-completion-script", "bash"]).write(toFile: script, atomically: true, encoding: .utf8)
        let binFolder = URL(fileURLWithPath: cardfile).deletingLastPathComponent().path
        let session = try TmuxSession(terminal: "xterm-256color", width: 100, height: 20, program: "/bin/bash",
                                      arguments: ["--norc", "--noprofile", "-i"], environment: "PATH='\(binFolder)':$PATH PS1='$ '",
                                      socket: socket, tag: socket)
        defer { session.close() }
        try session.send(literal: "source '\(script)'")
        try session.send(keys: ["Enter"])
        try session.send(literal: "cardfile exp")
        try session.send(keys: ["Tab"])
        try session.waitFor { $0.contains("$ cardfile export") }   // (the pane drops trailing spaces)
        try session.send(literal: "'\(database)' --table ")
        try session.send(keys: ["Tab", "Tab"])
        try session.waitFor { $0.contains("authors") && $0.contains("books") && $0.contains("loans") && $0.contains("members") }
        try session.send(literal: "lo")
        try session.send(keys: ["Tab"])
        try session.waitFor { $0.contains("--table loans") }
        try session.send(keys: ["C-c"])
        // A fresh prompt before typing on (typed too early, a busy machine's bash could still
        // be dropping the interrupted line).
        try session.waitFor { $0.components(separatedBy: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "$" } }
        try session.send(literal: "exit 0")
        try session.send(keys: ["Enter"])
        #expect(try session.waitForExit() == 0)
    }
}
