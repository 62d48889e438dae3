@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// A filter is applied only as typed: while the text cannot be read the list keeps the last
/// filter it could read and says so, and Enter keeps the prompt open with the reason and its
/// place rather than leaving a filter that means something else.
@Suite("Filter prompt", .timeLimit(.minutes(Fuzz.scaled(10))))
struct FilterPromptTests {
    /// The rows the list shows, by their first cell (the key).
    private func keys(_ harness: AppHarness) -> [String] {
        harness.lines.dropFirst().compactMap { line in
            let first = line.split(separator: " ").first.map(String.init)
            return first.flatMap { Int($0) != nil ? $0 : nil }
        }
    }

    /// The three lines above the status bar (where the filter's problem is drawn, wrapped),
    /// joined as one text from the first that starts the problem.
    private func problemLine(_ harness: AppHarness) -> String {
        let lines = harness.lines[(harness.lines.count - 5)..<(harness.lines.count - 2)].map { $0.trimmingCharacters(in: .whitespaces) }
        let start = lines.firstIndex { ["Incomplete", "Not a filter", "Not applied"].contains(where: $0.hasPrefix) } ?? lines.count
        return lines[start...].joined(separator: " ")
    }

    @Test func anIncompleteFilterSaysSoAndEnterKeepsThePromptOpen() throws {
        let harness = try AppHarness(size: Size(width: 120, height: 24))
        try harness.press(.char("/"))
        try harness.type("age >= 30 and")
        // The list previews the last text it could read, and says that is what it shows.
        #expect(problemLine(harness) == "Incomplete at character 14: something is missing at the end. The list shows “age >= 30 an” meanwhile.")
        #expect(harness.statusLine.contains("filter: age >= 30 an"))
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.hasPrefix("Filter: age >= 30 and"), "the prompt stays: \(harness.messageLine)")
        #expect(problemLine(harness) == "Not applied at character 14: something is missing at the end. Fix it, or Esc clears the filter.")
        // The place is marked in the prompt: the cell after the text (where typing goes on).
        let label = "Filter: ".count
        let markCell = harness.backend.screen[label + 13, 23]
        #expect(markCell.style.attributes.contains(.reverse), "\(markCell)")
        #expect(!harness.backend.screen[label + 12, 23].style.attributes.contains(.reverse))

        // Finished, it is the list's filter, and Enter keeps it.
        try harness.type(" name ~ a")
        #expect(problemLine(harness) == "", "the filter reads: no problem is shown")
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.contains("Enter open"), "the prompt closed: \(harness.messageLine)")
        #expect(harness.statusLine.contains("filter: age >= 30 and name ~ a"))
        #expect(keys(harness) == ["1", "2"], "Ada (36) and Grace (45)")
    }

    @Test func notAndAnUnknownColumnAreReportedNotSearchedFor() throws {
        let harness = try AppHarness(size: Size(width: 120, height: 24))
        try harness.press(.char("/"))
        try harness.type("not")
        #expect(problemLine(harness) == "Incomplete at character 4: something is missing at the end. The list shows “no” meanwhile.")
        try harness.press(.control("u"))
        try harness.type("nosuch = 3")
        #expect(problemLine(harness).hasPrefix("Not a filter at character 1: no column is named “nosuch” (the columns: id, name, phone, age, notes)."))
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.hasPrefix("Filter: nosuch = 3"))
        #expect(problemLine(harness).hasPrefix("Not applied at character 1: no column is named “nosuch”"))
        #expect(harness.backend.screen["Filter: ".count, 23].style.attributes.contains(.reverse), "the unknown name is marked")
        // Esc clears the filter: every record, no problem shown.
        try harness.press(KeyEvent(.escape))
        #expect(!harness.statusLine.contains("filter"))
        #expect(keys(harness) == ["1", "2", "3", "4"])
        #expect(harness.messageLine.contains("Enter open"))
    }

    @Test func anUnclosedQuoteInAConditionIsIncompleteNotASearch() throws {
        let harness = try AppHarness(size: Size(width: 120, height: 24))
        try harness.press(.char("/"))
        try harness.type("name = 'Gr")
        #expect(problemLine(harness) == "Incomplete at character 11: the quote opened at character 8 is never closed. The list shows “name” meanwhile.")
        try harness.type("ace'")
        try harness.press(KeyEvent(.enter))
        #expect(keys(harness) == ["2"])
        #expect(harness.statusLine.contains("filter: name = 'Grace'"))
    }

    /// Seeded random filters, typed key by key and ended with Enter. Oracle: the filter parser
    /// on the whole text. A text it reads becomes the list's filter and the prompt closes; any
    /// other text keeps the prompt open with the reason, and the list shows the longest prefix
    /// typed that it could read (never a filter the person did not see named).
    @Test func enterNeverLeavesAFilterOtherThanTheOneTyped() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let harness = try AppHarness(size: Size(width: 100, height: 20))
        let table = try #require(harness.container.schema.table(named: "cards"))
        let searched = table.columns.map(\.name)
        let pieces = ["age", "name", "notes", "nosuch", ">=", "<", "=", "!=", "~", "is", "not", "empty", "null", "and", "or",
                      "(", ")", "30", "'Ada'", "'Gr", "Ada", "line", "\"x\"", "O'Brien", " "]
        /// Whether the parser reads `text` (an empty filter reads: it is no filter at all).
        func reads(_ text: String) -> Bool {
            do {
                _ = try FilterParser.parse(text, table: table, searchColumns: searched)
                return true
            } catch {
                return false
            }
        }
        for round in 0..<Fuzz.scaled(40) {
            let text = (0..<(1 + random.next(below: 6))).map { _ in pieces[random.next(below: pieces.count)] }.joined(separator: " ")
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round): “\(text)”"
            try harness.press(.char("/"), .control("u"))
            try harness.type(text)
            try harness.press(KeyEvent(.enter))
            let filter = harness.app.list?.spec.filter
            if reads(text) {
                #expect(filter == text, "\(context): the list's filter is \(String(describing: filter))")
                #expect(harness.messageLine.contains("Enter open"), "\(context): the prompt closed")
            } else {
                #expect(harness.messageLine.hasPrefix("Filter: "), "\(context): the prompt stays open")
                #expect(problemLine(harness).hasPrefix("Not applied"), "\(context): \(problemLine(harness))")
                let prefixes = (0...text.count).map { String(text.prefix($0)) }
                let readable = prefixes.last(where: reads) ?? ""
                #expect(filter == readable, "\(context): the list shows “\(filter ?? "")”, the last readable prefix is “\(readable)”")
                try harness.press(KeyEvent(.escape))
                #expect(harness.app.list?.spec.filter == "", "\(context): Esc clears it")
            }
        }
    }
}
