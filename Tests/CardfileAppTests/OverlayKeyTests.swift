import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// Prompts, dialogs, the help and reports each answer to their own key map, and the help
/// lists those maps too.
@Suite("Overlay keys", .timeLimit(.minutes(10)))
struct OverlayKeyTests {
    @Test func theListsHelpListsThePromptsAndDialogsItOpens() throws {
        // (Tall enough to show the whole help at once.)
        let harness = try AppHarness(size: Size(width: 120, height: 170))
        try harness.press(KeyEvent(.function(1)))
        for map in [KeyMaps.list, KeyMaps.filter, KeyMaps.find, KeyMaps.commandLine, KeyMaps.dialog, KeyMaps.reading] {
            for binding in map.bindings {
                #expect(harness.screen.contains(binding.help), "the help lists “\(binding.help)”")
            }
        }
        #expect(harness.screen.contains("Filter prompt") && harness.screen.contains("Questions"))
    }

    @Test func f1OverAPromptShowsItsKeysAndEscComesBackToIt() throws {
        let harness = try AppHarness(size: Size(width: 120, height: 60))
        try harness.press(.char("/"))
        try harness.type("Gra")
        try harness.press(KeyEvent(.function(1)))
        #expect(harness.screen.contains("Keep the filter and go back to the list"), "\(harness.screen)")
        // The prompt's own keys come first.
        let lines = harness.lines
        let filterLine = lines.firstIndex { $0.contains("Filter prompt") }
        let listLine = lines.firstIndex { $0.contains("Previous record") }
        #expect(filterLine != nil && listLine != nil && filterLine! < listLine!)
        try harness.press(KeyEvent(.escape))
        #expect(harness.messageLine.hasPrefix("Filter: Gra"), "back to the prompt as it was: \(harness.messageLine)")
        try harness.type("ce")
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("filter: Grace"), "\(harness.statusLine)")
    }

    @Test func ctrlQQuitsFromThePrompts() throws {
        for opener in [KeyEvent.char("/"), .char("f"), .char(":")] {
            let harness = try AppHarness()
            try harness.press(opener)
            try harness.type("x")
            try harness.press(.control("q"))
            #expect(!harness.app.isRunning, "Ctrl-Q quits from the prompt opened by \(opener)")
        }
    }

    @Test func aQuestionAnswersToItsMapAndItsLetters() throws {
        let harness = try AppHarness()
        try harness.press(.char("d"))
        #expect(harness.screen.contains("Delete record"))
        try harness.press(KeyEvent(.function(1)))
        #expect(harness.screen.contains("Press the button with that letter"))
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("Delete record"), "back to the question")
        try harness.press(.char("y"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 3.databaseValue)
    }

    /// Every prompt, dialog, panel and the form answer Esc (the reading panel closes on any key
    /// and names Esc in its help); a list opened from a form (Ctrl-R) leaves on Esc too.
    @Test func escLeavesEveryOverlay() throws {
        for (title, map) in KeyMaps.all where title != "Tables" {
            let handles = map.action(for: KeyEvent(.escape)) != nil
                || map.bindings.contains { $0.keysText?.contains("Esc") == true }
            #expect(handles, "\(title) answers Esc")
        }
        #expect(KeyMaps.list.action(for: KeyEvent(.escape)) == .leave)
    }
}
