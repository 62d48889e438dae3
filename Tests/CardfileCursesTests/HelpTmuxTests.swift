import Foundation
import Testing

/// The help as a person meets it in a terminal at the sizes people use: the keys of the
/// screen, descriptions wrapped rather than cut, scrolled to the end, and `:help` at the
/// commands.
@Suite("Help in tmux", .serialized, .timeLimit(.minutes(10)))
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
        /// The help's place from its title: the first and last lines shown, of how many.
        func place(_ screen: String) -> (first: Int, last: Int, total: Int)? {
            guard let match = screen.firstMatch(of: /(\d+)–(\d+) of (\d+)/) else { return nil }
            return (Int(match.1) ?? 0, Int(match.2) ?? 0, Int(match.3) ?? 0)
        }
        /// The screen once two captures agree (a capture can land inside a frame's writes).
        func settled() throws -> String {
            var last = try session.capture()
            for _ in 0..<40 {
                Thread.sleep(forTimeInterval: 0.03)
                let now = try session.capture()
                if now == last { return now }
                last = now
            }
            return last
        }
        for _ in 0..<60 {
            let screen = try settled()
            words.formUnion(screen.split(whereSeparator: { " │,".contains($0) }))
            // At the end (or all on one page): done. Else the next page, once it shows.
            guard let shown = place(screen), shown.last < shown.total else { break }
            try session.send(keys: ["PgDn"])
            try session.waitFor { place($0).map { $0.first > shown.first } ?? false }
        }
        for ending in ["too)", "sideways)", "them)", "unpin", ":messages", ":columns", ":saveas", ":123"] {
            #expect(words.contains(Substring(ending)), "\(width)×\(height): “\(ending)” never shown")
        }
        // The help gone (no place in a title) before the next key: Esc and a quick key
        // after it would read as one Alt key.
        try session.send(keys: ["Escape"])
        try session.waitFor { place($0) == nil && $0.contains("Enter") }
        try session.send(literal: ":help")
        try session.send(keys: ["Enter"])
        try session.waitFor { $0.contains("Commands (type : first") && $0.contains(":w") }
        try session.send(keys: ["Escape"])
        try session.waitFor { place($0) == nil && !$0.contains("Commands (type : first") }
        try session.send(keys: ["C-q"])
        #expect(try session.waitForExit() == 0)
    }
}
