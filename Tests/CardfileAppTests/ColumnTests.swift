import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// Wide tables: hiding, choosing and ordering columns, pinning the key, all remembered per
/// database file and table in the state folder.
@Suite("Columns", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ColumnTests {
    static let wide = """
        CREATE TABLE wide (id INTEGER PRIMARY KEY, alpha TEXT, beta TEXT, gamma TEXT, delta TEXT, epsilon TEXT);
        INSERT INTO wide (alpha, beta, gamma, delta, epsilon) VALUES
            ('a-one-long-value', 'b-one-long-value', 'g-one-long-value', 'd-one-long-value', 'e-one-long-value');
        """

    @Test func hideShowAndChooseColumnsRememberedAcrossRuns() throws {
        let state = TemporaryDirectory()
        let options = CardfileApp.Options(autosave: nil, stateFolder: state.path)
        let harness = try AppHarness(options: options)
        #expect(harness.lines[0].contains("phone"))
        try harness.press(.char("l"), .char("l"), .char("-"))          // hide phone
        #expect(!harness.lines[0].contains("phone"), "\(harness.lines[0])")
        #expect(harness.messageLine.contains("Hid phone"))
        try harness.command("columns notes name nosuch")
        #expect(harness.messageLine.contains("no column nosuch"))
        try harness.command("columns notes,name")
        #expect(harness.lines[0].trimmingCharacters(in: .whitespaces).hasPrefix("notes"), "\(harness.lines[0])")
        #expect(!harness.lines[0].contains("id ") && !harness.lines[0].contains("age"))
        // `:columns` alone offers the current list to edit.
        try harness.press(.char(":"))
        try harness.type("columns")
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.contains("columns notes name"), "\(harness.messageLine)")
        try harness.press(KeyEvent(.escape))

        // Another run on the same file: the same columns.
        var again = options
        again.workingFolder = harness.directory.path
        let second = try CardfileApp(container: harness.container, options: again, size: harness.backend.size, clock: harness.clock, inbox: harness.inbox)
        var frame = Buffer(size: harness.backend.size)
        _ = second.view(into: &frame)
        #expect(frame.lines[0].trimmingCharacters(in: .whitespaces).hasPrefix("notes"), "\(frame.lines[0])")
        #expect(FileManager.default.fileExists(atPath: state.file("columns.json")))

        // + shows them all; then nothing is remembered for the table.
        try harness.press(.char("+"))
        #expect(harness.lines[0].contains("phone") && harness.lines[0].contains("age"))
        let stored = try String(contentsOfFile: state.file("columns.json"), encoding: .utf8)
        #expect(!stored.contains("cards"), "\(stored)")
    }

    @Test func theLastColumnStays() throws {
        let harness = try AppHarness(schema: "CREATE TABLE one (v TEXT); INSERT INTO one VALUES ('x');")
        try harness.press(.char("-"))
        #expect(harness.messageLine.contains("last column"))
        #expect(harness.lines[0].contains("v"))
    }

    @Test func aPinnedKeyStaysAtTheLeftWhileTheRestScroll() throws {
        let harness = try AppHarness(schema: Self.wide, size: Size(width: 20, height: 10))
        for _ in 0..<5 { try harness.press(.char("l")) }              // to epsilon
        // (At 20 columns the titles are cut: `ep…` is epsilon.)
        #expect(harness.lines[0].contains("ep"))
        #expect(!harness.lines[0].contains("id"), "unpinned, the key scrolled away: \(harness.lines[0])")
        try harness.press(.char("P"))
        #expect(harness.lines[0].contains("ep") && harness.lines[0].trimmingCharacters(in: .whitespaces).hasPrefix("id"), "\(harness.lines[0])")
        try harness.press(.char("h"), .char("h"))
        #expect(harness.lines[0].trimmingCharacters(in: .whitespaces).hasPrefix("id"))
        try harness.press(.char("P"))
        for _ in 0..<5 { try harness.press(.char("l")) }
        #expect(!harness.lines[0].contains("id"))
    }

    @Test func aTableWithoutAKeyHasNothingToPin() throws {
        let harness = try AppHarness(schema: "CREATE TABLE nokey (a TEXT, b TEXT); INSERT INTO nokey VALUES ('x', 'y');")
        try harness.press(.char("P"))
        #expect(harness.messageLine.contains("no key column"))
    }

    /// Seeded: random hides, shows, choices and pins; the header always shows exactly the
    /// chosen columns that fit, the pinned key first, and never an empty list of columns.
    @Test func randomColumnChoicesKeepTheListSound() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let harness = try AppHarness(schema: Self.wide, size: Size(width: 200, height: 8))
        let names = ["id", "alpha", "beta", "gamma", "delta", "epsilon"]
        var expected = names
        var pinned = false
        for step in 0..<Fuzz.scaled(200) {
            switch random.next(below: 6) {
            case 0:
                try harness.press(.char(random.next(below: 2) == 0 ? "h" : "l"))
            case 1:
                // Which column goes is the focus's business; the rest keep their order, and
                // hiding the key unpins it.
                let before = expected
                try harness.press(.char("-"))
                let after = harness.lines[0].split(separator: " ").map(String.init)
                #expect(after.count == max(1, before.count - 1) && after.allSatisfy(before.contains), "seed \(seed), step \(step)")
                #expect(after == before.filter(after.contains), "seed \(seed), step \(step): the order is kept")
                expected = after
                if !after.contains("id") { pinned = false }
            case 2:
                try harness.press(.char("+"))
                expected = names                  // (the key is first in table order anyway)
            case 3:
                var chosen = names.filter { _ in random.next(below: 2) == 0 }
                if chosen.isEmpty { chosen = [names[random.next(below: names.count)]] }
                chosen.shuffle(using: &random)
                try harness.command("columns " + chosen.joined(separator: " "))
                expected = pinned ? ["id"] + chosen.filter { $0 != "id" } : chosen
            case 4:
                try harness.press(.char("P"))
                pinned.toggle()
                if pinned { expected = ["id"] + expected.filter { $0 != "id" } }
            default:
                try harness.press(.char("j"))
            }
            let header = harness.lines[0].split(separator: " ").map(String.init)
            #expect(header == expected, "seed \(seed), step \(step): \(header) vs \(expected)")
            if header != expected { break }
        }
    }

    /// The demo library at 80 columns: ISBNs, dates, years and headers whole, the long titles
    /// and notes cut and sharing what remains.
    @Test func shortColumnsAreWholeAndLongTextShares() throws {
        let harness = try AppHarness(size: Size(width: 80, height: 24), demoRows: 40)
        try harness.press(.char("j"), KeyEvent(.enter))                  // books
        let header = harness.lines[0]
        for name in ["id", "title", "author_id", "isbn", "year", "published", "pages", "rating", "notes"] {
            #expect(header.contains(" \(name)"), "\(name) whole in \(header)")
        }
        let first = harness.lines[1]
        #expect(first.contains("9781000000009") && first.contains("1974-01-01") && first.contains("1974"), "\(first)")
        #expect(first.contains("The Dispo…"), "the long title is cut: \(first)")
    }

    /// `_` gives the focused column its longest value, `<` and `>` narrow and widen it by two,
    /// `_` again its natural width; the choice is remembered for the next run.
    @Test func chosenWidthsAreRememberedAcrossRuns() throws {
        let state = TemporaryDirectory()
        let options = CardfileApp.Options(autosave: nil, stateFolder: state.path)
        let harness = try AppHarness(size: Size(width: 80, height: 24), options: options, demoRows: 40)
        try harness.press(.char("j"), KeyEvent(.enter))                  // books
        try harness.press(.char("l"))                                     // title
        #expect(!harness.screen.contains("The Left Hand of Darkness"))
        try harness.press(.char("_"))
        #expect(harness.messageLine.contains("title is "), "\(harness.messageLine)")
        #expect(harness.screen.contains("The Left Hand of Darkness"), "whole now")
        try harness.press(.char("_"))
        #expect(harness.messageLine.contains("title has its natural width again"))
        #expect(!harness.screen.contains("The Left Hand of Darkness"))
        let natural = try #require(harness.lines[0].range(of: "author_id")).lowerBound
        try harness.press(.char(">"), .char(">"))
        let wider = try #require(harness.lines[0].range(of: "author_id")).lowerBound
        #expect(harness.lines[0].distance(from: natural, to: wider) == 4, "two cells a press: \(harness.lines[0])")
        try harness.press(.char("<"))
        #expect(harness.messageLine.contains("title is "), "\(harness.messageLine)")
        try harness.settle()
        let stored = try String(contentsOfFile: state.file("columns.json"), encoding: .utf8)
        #expect(stored.contains("\"widths\"") && stored.contains("\"title\""), "\(stored)")

        var again = options
        again.workingFolder = harness.directory.path
        again.table = "books"
        let second = try CardfileApp(container: harness.container, options: again, size: harness.backend.size, clock: harness.clock, inbox: harness.inbox)
        var frame = Buffer(size: harness.backend.size)
        _ = second.view(into: &frame)
        #expect(frame.lines[0] == harness.lines[0], "the same widths in the next run:\n\(frame.lines[0])\n\(harness.lines[0])")
    }

    /// The header marks the sort; a click on a header sorts by it, a second click turns it round.
    @Test func theHeaderShowsAndTakesTheSort() throws {
        let harness = try AppHarness()
        try harness.press(.char("l"), .char("]"))
        #expect(try harness.waitFor { _ in harness.lines[0].contains("name↓") && !harness.app.isAwaitingAWindow })
        let age = try #require(harness.lines[0].range(of: "age")).lowerBound
        let x = harness.lines[0].distance(from: harness.lines[0].startIndex, to: age)
        try MouseTests.click(harness, x: x, y: 0)
        #expect(try harness.waitFor { _ in harness.lines[0].contains("age↑") && !harness.app.isAwaitingAWindow })
        #expect(!harness.lines[0].contains("name↓"))
        #expect(harness.lines[1].contains("Margaret") && harness.lines[2].contains("Linus"), "NULL, then the youngest: \(harness.screen)")
        try MouseTests.click(harness, x: x, y: 0)
        #expect(try harness.waitFor { _ in harness.lines[0].contains("age↓") && !harness.app.isAwaitingAWindow })
        #expect(harness.lines[1].contains("Grace"), "oldest first: \(harness.lines[1])")
    }
}
