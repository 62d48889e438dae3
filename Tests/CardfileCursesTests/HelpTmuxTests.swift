import Foundation
import Testing

/// The help as a person meets it in a terminal at the sizes people use: the keys of the
/// screen, descriptions wrapped rather than cut, scrolled to the end, and `:help` at the
/// commands.
@Suite("Help in tmux", .serialized)
struct HelpTmuxTests {
    @Test(arguments: zip([120, 80, 40], [30, 24, 12]))
    func theHelpListsEveryKeyAndCommandWhole(width: Int, height: Int) throws {
        let (session, _) = try EditorTmuxTests.editor(rows: 40, table: "books", width: width, height: height)
        defer { session.close() }
        try session.waitFor { $0.contains("row 1 of 40") }
        try session.send(keys: ["F1"])
        try session.waitFor { $0.contains("Previous record") && $0.contains("PgUp PgDn scroll") }
        // Page to the end, keeping every word shown: the longest descriptions end whole.
        var words = Set<Substring>()
        var previous = ""
        for _ in 0..<40 {
            let screen = try session.capture()
            words.formUnion(screen.split(whereSeparator: { " │,".contains($0) }))
            if screen == previous { break }
            previous = screen
            try session.send(keys: ["PgDn"])
            Thread.sleep(forTimeInterval: 0.05)
        }
        for ending in ["too)", "sideways)", "them)", "unpin", ":messages", ":columns", ":saveas", ":123"] {
            #expect(words.contains(Substring(ending)), "\(width)×\(height): “\(ending)” never shown")
        }
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Enter open") || $0.contains("Enter") }
        Thread.sleep(forTimeInterval: 0.1)
        try session.send(literal: ":help")
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("Commands (type : first") && $0.contains(":w") }
        try session.send(keys: ["Escape"])
        Thread.sleep(forTimeInterval: 0.1)
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }
}
