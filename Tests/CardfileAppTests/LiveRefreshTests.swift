import CardfileApp
import CardfileStore
import CardfileTerminal
import Foundation
import GRDB
import Testing

/// Another process writes the file while the editor shows it: the list and the open form
/// follow within a poll, and an edited field is marked before any save.
@Suite("Live refresh", .timeLimit(.minutes(10)))
struct LiveRefreshTests {
    /// Writes through a connection of its own, as another program would.
    static func outside(_ harness: AppHarness, _ sql: String) throws {
        let other = try DatabaseQueue(path: harness.path)
        try other.write { try $0.execute(sql: sql) }
        try other.close()
    }

    @Test func theListFollowsAndKeepsTheSelection() throws {
        let harness = try AppHarness()
        try harness.press(.char("j"))                                  // Grace
        try Self.outside(harness, "UPDATE cards SET name = 'Grace H.' WHERE id = 2; INSERT INTO cards (name) VALUES ('Zoë'); DELETE FROM cards WHERE id = 1")
        try harness.advance(.milliseconds(150))
        #expect(harness.screen.contains("Grace H."))
        #expect(harness.screen.contains("Zoë"))
        #expect(!harness.screen.contains(" Ada "))
        // (The exact count arrives from the background recount.)
        #expect(try harness.waitFor { _ in harness.statusLine.contains("row 1 of 4") }, "Grace, still selected, moved up a row")
        #expect(harness.messageLine.contains("Outside changes arrived"))
        try harness.press(KeyEvent(.enter))
        #expect(harness.lines[0].contains("cards › 2"))
    }

    @Test func onlyAChangeThatReadAnOutsideCommitIsCalledOutside() throws {
        let harness = try AppHarness()
        // An outside commit that changes nothing on screen says nothing…
        try Self.outside(harness, "UPDATE cards SET age = age WHERE id = 1")
        try harness.advance(.milliseconds(150))
        #expect(!harness.messageLine.contains("Outside"), "\(harness.messageLine)")
        // …and a later change of ours is not taken for it (it once was: the flag waited).
        try harness.press(KeyEvent(.enter))
        try harness.type("!")
        try harness.press(.control("s"), KeyEvent(.escape))
        try harness.advance(.milliseconds(150))
        #expect(harness.screen.contains("Ada!"))
        #expect(!harness.messageLine.contains("Outside"), "\(harness.messageLine)")
    }

    @Test func untouchedFieldsOfAnOpenFormTakeTheNewValues() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type(" L.")                                         // edits name only
        try Self.outside(harness, "UPDATE cards SET notes = 'from elsewhere', age = 37 WHERE id = 1")
        try harness.advance(.milliseconds(150))
        #expect(harness.screen.contains("from elsewhere"))
        #expect(harness.screen.contains("37"))
        #expect(harness.screen.contains("Ada L."))
        #expect(!harness.screen.contains("changed elsewhere"))
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name || '/' || notes || '/' || age FROM cards WHERE id = 1") == "Ada L./from elsewhere/37")
    }

    @Test func anEditedFieldChangedElsewhereIsMarkedBeforeAnySave() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type(" mine")
        try Self.outside(harness, "UPDATE cards SET name = 'Theirs' WHERE id = 1")
        try harness.advance(.milliseconds(150))
        #expect(harness.screen.contains("Ada mine"))
        #expect(harness.screen.contains("changed elsewhere to “Theirs”"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Theirs")
    }

    @Test func aRecordDeletedElsewhereSaysSoAndKeepsTheValues() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type(" kept")
        try Self.outside(harness, "DELETE FROM cards WHERE id = 1")
        try harness.advance(.milliseconds(150))
        #expect(harness.lines[0].contains("deleted elsewhere"))
        #expect(harness.screen.contains("Ada kept"))
    }
}
