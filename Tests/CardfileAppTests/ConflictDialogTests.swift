import CardfileApp
import CardfileStore
import CardfileTerminal
import Foundation
import GRDB
import Testing

/// The Original / Mine / Theirs dialog: each choice leaves the file and the form as promised.
@Suite("Conflict dialog", .timeLimit(.minutes(10)))
struct ConflictDialogTests {
    /// A form on Ada with `name` and `notes` edited here, while another program changed
    /// `name` (both sides) and `age` (theirs only). Ctrl-S has opened the dialog.
    static func conflicted(autosave: Duration? = nil) throws -> AppHarness {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: autosave))
        try harness.press(KeyEvent(.enter))
        try harness.type(" mine")                                           // name
        try harness.press(KeyEvent(.tab), KeyEvent(.tab), KeyEvent(.tab))   // notes
        try harness.type(" too")
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Theirs', age = 99 WHERE id = 1")
        if autosave == nil { try harness.press(.control("s")) }
        return harness
    }

    /// A form on Ada with the name edited here, while another program deleted the row.
    /// Ctrl-S has opened the dialog.
    static func deletedElsewhere() throws -> AppHarness {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type(" kept")
        try LiveRefreshTests.outside(harness, "DELETE FROM cards WHERE id = 1")
        try harness.press(.control("s"))
        return harness
    }

    static func row(_ harness: AppHarness) throws -> String {
        try harness.diskText("SELECT name || '/' || ifnull(age, 'NULL') || '/' || ifnull(notes, 'NULL') FROM cards WHERE id = 1") ?? ""
    }

    /// A save the database refused re-reads the record under the form; an edit made after it
    /// still starts from what the form showed, so a field changed elsewhere meanwhile (and
    /// never shown) is met as a conflict, not overwritten. (A review found the edit starting
    /// from the re-read value: "Theirs" was silently replaced.)
    @Test func anEditAfterARefusedSaveStartsFromWhatTheFormShowed() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))                                 // Ada, on name
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Theirs' WHERE id = 1")
        try harness.press(KeyEvent(.tab), KeyEvent(.tab))                   // age
        try harness.press(.control("u"))
        try harness.type("-5")
        try harness.press(.control("s"))
        #expect(harness.messageLine.contains("Not saved"), "\(harness.messageLine)")
        try harness.press(.control("u"))
        try harness.type("36")                                              // age as it was
        try harness.press(KeyEvent(.backTab), KeyEvent(.backTab))           // name
        try harness.press(.control("u"))
        try harness.type("Mine")
        try harness.press(.control("s"))
        #expect(try Self.row(harness) == "Theirs/36/first", "their name is not overwritten")
        #expect(harness.screen.contains("Changed elsewhere: cards › 1") || harness.screen.contains("changed elsewhere"), "\(harness.screen)")
    }

    @Test func theDialogShowsOriginalMineAndTheirs() throws {
        let harness = try Self.conflicted()
        let screen = harness.screen
        #expect(screen.contains("Changed elsewhere: cards › 1"))
        #expect(screen.contains("Original") && screen.contains("Mine") && screen.contains("Theirs"))
        let nameLine = try #require(harness.lines.first { $0.contains("▸") && $0.contains("name") })
        #expect(nameLine.contains("Ada") && nameLine.contains("Ada mine") && nameLine.contains("Theirs"))
        #expect(try Self.row(harness) == "Theirs/99/first", "nothing written yet")
        #expect(harness.statusLine.contains("conflict"))
    }

    @Test func mergeKeepsMyEditsAndTakesTheirOtherFields() throws {
        let harness = try Self.conflicted()
        try harness.press(.char("m"))
        #expect(try Self.row(harness) == "Ada mine/99/first too")
        #expect(harness.messageLine.contains("Merged"))
        #expect(harness.screen.contains("Ada mine") && harness.screen.contains("99"))
        #expect(!harness.screen.contains("Changed elsewhere:"))
    }

    @Test func keepMineWritesMyWholeRecord() throws {
        let harness = try Self.conflicted()
        try harness.press(.char("K"))
        #expect(try Self.row(harness) == "Ada mine/36/first too")
        #expect(harness.messageLine.contains("Kept yours"))
    }

    @Test func takeTheirsDropsMyChangesToTheRecord() throws {
        let harness = try Self.conflicted()
        try harness.press(.char("t"))
        #expect(try Self.row(harness) == "Theirs/99/first")
        #expect(harness.screen.contains("Theirs"))
        #expect(!harness.screen.contains("Ada mine"))
        #expect(harness.statusLine.contains("no changes"))
    }

    @Test func aPerFieldChoiceAppliesToTheirsAsShownNotToALaterChange() throws {
        let harness = try Self.conflicted()
        #expect(harness.screen.contains("Theirs"))
        // While the dialog is open, the other program changes the name again.
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Theirs again' WHERE id = 1")
        try harness.advance(.milliseconds(100))
        // Mine for the name (the default), then Enter: the change never shown is not overwritten.
        try harness.press(KeyEvent(.enter))
        #expect(try Self.row(harness) == "Theirs again/99/first", "nothing written over a change the dialog did not show")
        #expect(harness.screen.contains("Theirs again"), "the dialog asks again, with the new value: \(harness.screen)")
        try harness.press(KeyEvent(.enter))
        #expect(try Self.row(harness) == "Ada mine/99/first too")
    }

    @Test func aSaveStoppedByADeletionSaysSoNotThatFieldsChanged() throws {
        let harness = try Self.deletedElsewhere()
        #expect(harness.messageLine.contains("deleted elsewhere"), "\(harness.messageLine)")
        #expect(!harness.messageLine.contains("name changed"), "\(harness.messageLine)")
    }

    @Test func perFieldChoicesAreSavedWithEnter() throws {
        let harness = try Self.conflicted()
        // name: Mine → Theirs → Original (two steps right), then Enter.
        try harness.press(KeyEvent(.right), KeyEvent(.right), KeyEvent(.enter))
        #expect(try Self.row(harness) == "Ada/99/first too")
        #expect(harness.messageLine.contains("Saved with your choices"))
    }

    @Test func escapeGoesBackWithNothingWritten() throws {
        let harness = try Self.conflicted()
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Changed elsewhere:"))
        #expect(harness.screen.contains("Ada mine"))
        #expect(try Self.row(harness) == "Theirs/99/first")
        // Saving again asks again.
        try harness.press(.control("s"))
        #expect(harness.screen.contains("Changed elsewhere:"))
    }

    @Test func autosaveMeetingAConflictOpensTheDialogAndPauses() throws {
        let harness = try Self.conflicted(autosave: .seconds(1))
        try harness.advance(.milliseconds(1100))
        #expect(harness.screen.contains("Changed elsewhere: cards › 1"))
        #expect(harness.statusLine.contains("conflict"))
        try harness.press(KeyEvent(.escape))
        try harness.advance(.seconds(3))
        #expect(!harness.screen.contains("Changed elsewhere:"), "autosave stays paused")
        #expect(try Self.row(harness) == "Theirs/99/first")
    }

    @Test func aRecordDeletedElsewhereCanBeRestoredOrLetGo() throws {
        let harness = try Self.deletedElsewhere()
        #expect(harness.screen.contains("Deleted elsewhere: cards › 1"))
        try harness.press(.char("r"))
        #expect(try Self.row(harness) == "Ada kept/36/first")
        #expect(harness.messageLine.contains("Restored"))

        try harness.type("!")
        try LiveRefreshTests.outside(harness, "DELETE FROM cards WHERE id = 1")
        try harness.press(.control("s"))
        #expect(harness.screen.contains("Deleted elsewhere"))
        try harness.press(.char("t"))
        #expect(try harness.disk("SELECT count(*) FROM cards WHERE id = 1") == 0.databaseValue)
        #expect(harness.lines[0].contains("name"), "the form closed")
    }

    /// Long values that differ only at their ends: at 80 columns the three columns cut them
    /// alike, so the focused field's three values are written out in full below.
    static func longTitles(size: Size, autosave: Duration? = nil) throws -> AppHarness {
        let harness = try AppHarness(size: size, options: CardfileApp.Options(autosave: autosave))
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'A Wizard of Earthsea' WHERE id = 1")
        try harness.advance(.milliseconds(150))
        try harness.press(KeyEvent(.enter))
        try harness.type(" (Mine, with a longer subtitle)")
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'A Wizard of Earthsea: the Theirs edition' WHERE id = 1")
        try harness.press(.control("s"))
        return harness
    }

    @Test func at80ColumnsTheFocusedFieldsThreeValuesAreShownInFull() throws {
        let harness = try Self.longTitles(size: Size(width: 80, height: 24))
        let screen = harness.screen
        #expect(screen.contains("Changed elsewhere: cards › 1"), "\(screen)")
        #expect(screen.contains("name in full:"), "\(screen)")
        #expect(harness.lines.contains { $0.contains("Original  A Wizard of Earthsea ") }, "\(screen)")
        #expect(harness.lines.contains { $0.contains("Mine      A Wizard of Earthsea (Mine, with a longer subtitle)") }, "\(screen)")
        #expect(harness.lines.contains { $0.contains("Theirs    A Wizard of Earthsea: the Theirs edition") }, "\(screen)")
        // Every key is still said (wrapped) at this width.
        #expect(screen.contains("Esc back"), "\(screen)")
        // Autosave is off: nothing says it was paused.
        #expect(!screen.contains("autosave paused") && !harness.messageLine.contains("autosave"), "\(screen)")
    }

    @Test func at40ColumnsEachSideKeepsADifferentLine() throws {
        let harness = try Self.longTitles(size: Size(width: 40, height: 12))
        #expect(harness.lines.contains { $0.contains("Mine      A Wizard of Earthsea (Mine") }, "\(harness.screen)")
        #expect(harness.lines.contains { $0.contains("Theirs    A Wizard of Earthsea: the") }, "\(harness.screen)")
        #expect(harness.screen.contains("Enter save"), "\(harness.screen)")
        // The box is whole: its corners are drawn, nothing cut at the edge.
        #expect(harness.lines.contains { $0.hasPrefix("┌─ Changed elsewhere") && $0.hasSuffix("┐") }, "\(harness.screen)")
        #expect(harness.lines.contains { $0.hasPrefix("└") && $0.hasSuffix("┘") }, "\(harness.screen)")
    }

    @Test func aRecordOfManyFieldsKeepsSeveralRowsBesideTheFullValues() throws {
        let columns = (1...12).map { "f\($0) TEXT" }.joined(separator: ", ")
        let harness = try AppHarness(schema: "CREATE TABLE wide (id INTEGER PRIMARY KEY, \(columns)); INSERT INTO wide (id, f1) VALUES (1, '\(String(repeating: "the original words ", count: 30))');",
                                     size: Size(width: 80, height: 24), options: CardfileApp.Options(table: "wide", autosave: nil))
        try harness.press(KeyEvent(.enter))
        try harness.press(.control("a"), .control("k"))
        try harness.type(String(repeating: "mine and more words ", count: 30))
        let others = (2...12).map { "f\($0) = 'theirs \($0)'" }.joined(separator: ", ")
        try LiveRefreshTests.outside(harness, "UPDATE wide SET f1 = '\(String(repeating: "theirs and other words ", count: 30))', \(others) WHERE id = 1")
        try harness.press(.control("s"))
        #expect(harness.screen.contains("f1 in full:"), "\(harness.screen)")
        let rows = harness.lines.filter { $0.range(of: #"│[ ▸] f\d+ "#, options: .regularExpression) != nil }
        #expect(rows.count >= 3, "the table keeps rows beside the full values:\n\(harness.screen)")
        #expect(harness.screen.contains("bytes in all"), "a long value says its size:\n\(harness.screen)")
    }

    @Test func shortValuesNeedNoFullLines() throws {
        let harness = try Self.conflicted()
        #expect(harness.screen.contains("Changed elsewhere: cards › 1"))
        #expect(!harness.screen.contains("in full:"), "\(harness.screen)")
    }

    @Test func autosavePausedIsSaidOnlyWhenAutosaveIsOn() throws {
        let on = try Self.longTitles(size: Size(width: 120, height: 30), autosave: .seconds(2))
        #expect(on.messageLine.contains("autosave is paused"), "\(on.messageLine)")
        #expect(on.statusLine.contains("autosave paused"), "\(on.statusLine)")
        let off = try Self.longTitles(size: Size(width: 120, height: 30))
        #expect(off.messageLine.contains("Your edits are kept.") && !off.messageLine.contains("autosave"), "\(off.messageLine)")
        #expect(off.statusLine.contains("not saved: conflict") && !off.statusLine.contains("autosave"), "\(off.statusLine)")
    }

    @Test func theDialogFitsSmallAndWideScreens() throws {
        let harness = try Self.conflicted()
        try harness.resize(Size(width: 40, height: 12))
        #expect(harness.screen.contains("Original"))
        // The box is whole: its corners are drawn, nothing cut at the edge.
        #expect(harness.lines.contains { $0.hasPrefix("┌─ Changed elsewhere") && $0.hasSuffix("┐") }, "\(harness.screen)")
        #expect(harness.lines.contains { $0.hasPrefix("└") && $0.hasSuffix("┘") }, "\(harness.screen)")
        try harness.press(KeyEvent(.function(1)))
        // The dialog's keys come first; at 40×12 the help scrolls to the rest.
        #expect(harness.screen.contains("Conflict") && harness.screen.contains("Previous field"), "\(harness.screen)")
        var pages = 0
        while !harness.screen.contains("Merge: my edited"), pages < 5 {
            try harness.press(KeyEvent(.pageDown))
            pages += 1
        }
        #expect(harness.screen.contains("Merge: my edited"), "\(harness.screen)")
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("Original"), "back to the dialog after the help")
        try harness.resize(Size(width: 200, height: 50))
        #expect(harness.screen.contains("Ada mine"))
        try harness.press(.char("m"))
        #expect(try Self.row(harness) == "Ada mine/99/first too")
    }
}
