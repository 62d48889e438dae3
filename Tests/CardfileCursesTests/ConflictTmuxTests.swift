import Foundation
import Testing

/// The conflict dialog as a person meets it at the sizes people use: long values that differ
/// only at their ends can be told apart on every side.
@Suite("Conflict dialog in tmux", .serialized, .timeLimit(.minutes(10)))
struct ConflictTmuxTests {
    @Test(arguments: zip([120, 80, 40], [30, 24, 12]))
    func longValuesCanBeToldApart(width: Int, height: Int) throws {
        let (session, database) = try EditorTmuxTests.editor(rows: 40, table: "books", width: width, height: height)
        defer { session.close() }
        let cardfile = try TmuxSession.programPath("cardfile")
        try session.waitFor { $0.contains("row 1 of 40") }
        try session.send(keys: ["Down", "Enter"])
        try session.waitFor { $0.contains("books › 2") }
        try session.send(keys: ["End"])
        try session.send(literal: " (Mine, with a longer subtitle)")
        _ = try EditorTmuxTests.run(cardfile, ["collaborate", database, "--table", "books", "--key", "2", "--set", "title=A Wizard of Earthsea: the Theirs edition"])
        try session.waitFor { $0.contains("changed elsewhere") }
        try session.send(keys: ["C-s"])
        // (A capture can land between two writes of one frame: wait for the whole block.)
        let screen = try session.waitFor { $0.contains("title in full:") && $0.contains("Theirs    A Wizard") && $0.contains("Enter save") }
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("Mine      A Wizard of Earthsea (Mine") }, "\(width)×\(height):\n\(screen)")
        #expect(lines.contains { $0.contains("Theirs    A Wizard of Earthsea: the") }, "\(width)×\(height):\n\(screen)")
        #expect(!screen.contains("autosave paused"), "autosave is off:\n\(screen)")
        // Take theirs, and the file holds theirs.
        try session.send(literal: "t")
        try session.waitFor { !$0.contains("title in full:") }
        #expect(try EditorTmuxTests.sqlite(database, "SELECT title FROM books WHERE id = 2") == "A Wizard of Earthsea: the Theirs edition")
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }
}
