import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// The screens as one stack: whatever opens a screen puts it on top, Esc (or q, or a form
/// that closes) takes it off, and what was below comes back as it was left.
@Suite("Screen stack", .timeLimit(.minutes(10)))
struct ScreenStackTests {
    @Test func backFromAListShowsTheTablesWithTheSameTableSelected() throws {
        let harness = try AppHarness(schema: ForeignKeyTests.schema)
        #expect(harness.lines[0].contains("Tables"))
        try harness.press(.char("j"), KeyEvent(.enter))
        #expect(harness.statusLine.contains("books"), "\(harness.statusLine)")
        try harness.press(.char("q"))
        #expect(harness.lines[0].contains("Tables"))
        // The tables are counted again, and Enter opens the table that was open.
        #expect(try harness.waitFor { $0.contains("4 records") }, "\(harness.screen)")
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("books"), "\(harness.statusLine)")
        // At the bottom of the stack, q quits.
        try harness.press(.char("q"), .char("q"))
        #expect(!harness.app.isRunning)
    }

    @Test func aFollowedRecordDeletedElsewhereGoesBackToTheFormItCameFrom() throws {
        let harness = try ForeignKeyTests.books()
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), .control("g"))
        #expect(harness.lines[0].contains("authors › 1"), "\(harness.lines[0])")
        try harness.type(" (ed.)")
        // Another program, one that does not enforce foreign keys, deletes the author.
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let other = try DatabaseQueue(path: harness.path, configuration: configuration)
        try other.write { try $0.execute(sql: "DELETE FROM authors WHERE id = 1") }
        try other.close()
        try harness.press(.control("s"))
        #expect(harness.screen.contains("Deleted elsewhere"), "\(harness.screen)")
        try harness.press(.char("t"))
        #expect(harness.lines[0].contains("books › 1"), "the book's form again, not an empty screen: \(harness.screen)")
        try harness.press(KeyEvent(.escape))
        #expect(harness.statusLine.contains("books"))
    }

    @Test func aPickerOverAFollowedFormGoesBackLayerByLayer() throws {
        let harness = try ForeignKeyTests.books()
        // list › book form › author form › picker? The author has no reference, so: list ›
        // book form › picker of authors, and Esc twice comes back to the list.
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), .control("p"))
        #expect(harness.statusLine.contains("authors"), "\(harness.statusLine)")
        try harness.press(KeyEvent(.escape))
        #expect(harness.lines[0].contains("books › 1"))
        try harness.press(KeyEvent(.escape))
        #expect(try harness.waitFor { _ in harness.statusLine.contains("books") && harness.statusLine.contains("row 1 of 4") }, "\(harness.statusLine)")
    }
}
