import CardfileApp
import CardfileStore
import CardfileTerminal
import Foundation
import GRDB
import Testing

/// The database file replaced or deleted under the editor, as a person meets it.
@Suite("Editor: file replaced or deleted", .timeLimit(.minutes(10)))
struct EditorFileGoneTests {
    private func makeOther(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('theirs');") }
        try queue.close()
    }

    /// The form's command line (F2), with `text` typed and entered.
    private func formCommand(_ harness: AppHarness, _ text: String) throws {
        try harness.press(KeyEvent(.function(2)))
        try harness.type(text)
        try harness.press(KeyEvent(.enter))
    }

    @Test func replacedUnderAnOpenFormKeepsTheEditsAndSavesThemElsewhere() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(KeyEvent(.enter))
        try harness.type(" L.")
        let other = harness.directory.file("other.sqlite")
        try makeOther(other)
        let otherBytes = FileManager.default.contents(atPath: other)
        #expect(rename(other, harness.path) == 0)

        // The poll notices within a poll interval, long before the autosave is due.
        try harness.advance(.milliseconds(100))
        #expect(harness.messageLine.contains("File replaced: :saveas FILE keeps your edits"), "\(harness.messageLine)")
        #expect(harness.statusLine.contains("file replaced: not saved"))
        try harness.advance(.seconds(3))   // the autosave falls due and is refused
        try harness.press(.control("s"))
        #expect(harness.screen.contains("Ada L."))
        #expect(FileManager.default.contents(atPath: harness.path) == otherBytes)

        try formCommand(harness, "saveas rescued.sqlite")
        #expect(harness.messageLine.contains("Saved a copy with your edits to 1 record to rescued.sqlite"), "\(harness.messageLine)")
        let queue = try DatabaseQueue(path: harness.directory.file("rescued.sqlite"))
        #expect(try queue.read { try String.fetchOne($0, sql: "SELECT name FROM cards WHERE id = 1") } == "Ada L.")
        try queue.close()
        // A second copy over the first needs the bang.
        try formCommand(harness, "saveas rescued.sqlite")
        #expect(harness.messageLine.contains("rescued.sqlite exists; :saveas! rescued.sqlite replaces it"))

        // An edit after the copy: quitting asks, and Cancel stays.
        try harness.type("!")
        try formCommand(harness, "q")
        #expect(harness.screen.contains("File replaced"))
        #expect(harness.screen.contains("Quit without a copy?"))
        try harness.press(.char("c"))
        #expect(harness.app.isRunning)
        try formCommand(harness, "saveas! rescued.sqlite")
        try formCommand(harness, "q")
        #expect(!harness.app.isRunning)
        let again = try DatabaseQueue(path: harness.directory.file("rescued.sqlite"))
        #expect(try again.read { try String.fetchOne($0, sql: "SELECT name FROM cards WHERE id = 1") } == "Ada L.!")
        try again.close()
    }

    @Test func deletedUnderTheListAsksBeforeQuitting() throws {
        let harness = try AppHarness()
        #expect(unlink(harness.path) == 0)
        try harness.advance(.milliseconds(100))
        #expect(harness.messageLine.contains("File deleted: :saveas FILE keeps your edits"))
        #expect(harness.statusLine.contains("file deleted: not saved"))
        try harness.press(.char("q"))
        #expect(harness.screen.contains("File deleted"))
        try harness.press(.char("q"))
        #expect(!harness.app.isRunning)
    }
}
