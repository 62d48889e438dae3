import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// `I`: the focused column's statistics, over the list as shown or its marked records.
@Suite("Column statistics in the list", .timeLimit(.minutes(10)))
struct StatisticsTests {
    /// Presses I on the age column and waits for the panel.
    static func describeAge(_ harness: AppHarness) throws {
        try harness.press(.char("I"))
        #expect(try harness.waitFor { $0.contains("age in cards") }, "\(harness.screen)")
    }

    @Test func theStatisticsOfEveryRecordThenOfTheMarkedOnes() throws {
        let harness = try AppHarness()
        try harness.press(.char("l"), .char("l"), .char("l"))               // age
        try Self.describeAge(harness)
        let screen = harness.screen
        #expect(screen.contains("age in cards: every record"))
        for line in ["Rows           4", "NULL           1 (25.0%)", "Empty text     0 (0.0%)", "Distinct       3",
                     "Minimum        28", "Maximum        45", "Mean           36.3333 (of 3 numbers)", "Shortest text  none", "Most common", "1 (25.0%)  ∅"] {
            #expect(screen.contains(line), "“\(line)” in\n\(screen)")
        }
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("age in cards"))
        // Over the marked records only.
        try harness.command("select age >= 30")
        try Self.describeAge(harness)
        #expect(harness.screen.contains("age in cards: the marked records"))
        #expect(harness.screen.contains("Rows           2") && harness.screen.contains("Minimum        36") && harness.screen.contains("Mean           40.5 (of 2 numbers)"), "\(harness.screen)")
        try harness.press(KeyEvent(.escape))
        // Over what the filter shows when nothing is marked.
        try harness.command("unselect")
        try harness.press(.char("/"))
        try harness.type("age < 40")
        try harness.press(KeyEvent(.enter))
        try Self.describeAge(harness)
        #expect(harness.screen.contains("age in cards: the records the filter shows"))
        #expect(harness.screen.contains("Rows           2") && harness.screen.contains("Maximum        36"), "\(harness.screen)")
    }

    @Test func textColumnsSayTheirShortestAndLongest() throws {
        let harness = try AppHarness()
        try harness.press(.char("l"), .char("l"), .char("l"), .char("l"))    // notes
        try harness.press(.char("I"))
        #expect(try harness.waitFor { $0.contains("notes in cards") })
        #expect(harness.screen.contains("Shortest text  “” (0 characters)"), "\(harness.screen)")
        #expect(harness.screen.contains("Longest text   “line one␊line two” (17 characters)"), "\(harness.screen)")
        #expect(harness.screen.contains("Empty text     1 (25.0%)"))
        #expect(harness.screen.contains("Minimum        “”") && harness.screen.contains("Maximum        line one␊line two"), "\(harness.screen)")
    }

    @Test func statisticsOfRowsTheListNoLongerShowsAreNotShown() throws {
        let harness = try AppHarness()
        for key in [KeyEvent.char("I"), .char("/")] + "age > 30".map { KeyEvent(.character($0)) } + [KeyEvent(.enter)] {
            _ = harness.app.update(.event(.key(key)))
        }
        try harness.settle()
        #expect(!harness.screen.contains("id in cards"), "\(harness.screen)")
        #expect(harness.messageLine.contains("The list changed while id was described: I describes it again."), "\(harness.messageLine)")
    }
}
