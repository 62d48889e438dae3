@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// Work the app sends off the loop: the remembered-columns file and the labels of referencing
/// fields. The loop goes on while it waits, and what it returns never undoes something newer.
@Suite("Errands", .timeLimit(.minutes(10)))
struct ErrandTests {
    static let twoTables = """
        CREATE TABLE wide (id INTEGER PRIMARY KEY, alpha TEXT, beta TEXT, gamma TEXT);
        CREATE TABLE zeta (id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO wide (alpha, beta, gamma) VALUES ('a-value', 'b-value', 'g-value');
        """

    @Test func aColumnChoiceHoldsAtOnceWhileTheFileIsWrittenOffTheLoop() throws {
        let state = TemporaryDirectory()
        let harness = try AppHarness(schema: Self.twoTables, options: CardfileApp.Options(autosave: nil, stateFolder: state.path))
        let memory = state.file("columns.json")
        try harness.press(KeyEvent(.enter))                                    // wide
        #expect(harness.lines[0].contains("beta"))
        // The errands' queue is busy (a slow disk): the choice is made and used meanwhile.
        let release = DispatchSemaphore(value: 0)
        harness.app.errands.queue.async { release.wait() }
        for key: KeyEvent in [.char("l"), .char("l"), .char("-")] {          // hide beta
            _ = harness.app.update(.event(.key(key)))
        }
        #expect(!FileManager.default.fileExists(atPath: memory), "not written yet: the queue is held")
        for key: KeyEvent in [.char("q"), KeyEvent(.enter)] {                 // back, and wide again
            _ = harness.app.update(.event(.key(key)))
        }
        var frame = Buffer(size: harness.backend.size)
        _ = harness.app.render(into: &frame)
        #expect(frame.lines[0].contains("alpha") && !frame.lines[0].contains("beta"), "\(frame.lines[0])")
        release.signal()
        try harness.settle()
        let stored = try String(contentsOfFile: memory, encoding: .utf8)
        #expect(stored.contains("wide") && !stored.contains("\"beta\""), "\(stored)")
    }

    @Test func aColumnsFileThatCannotBeWrittenWarnsAndTheChoiceHoldsForTheSession() throws {
        let state = TemporaryDirectory()
        // The state folder's place is taken by a file: nothing can be written under it.
        FileManager.default.createFile(atPath: state.file("blocked"), contents: Data("x".utf8))
        let harness = try AppHarness(schema: Self.twoTables, options: CardfileApp.Options(autosave: nil, stateFolder: state.file("blocked/cardfile")))
        try harness.press(KeyEvent(.enter), .char("l"), .char("l"), .char("-"))
        #expect(harness.messageLine.contains("could not be remembered"), "\(harness.messageLine)")
        try harness.press(.char("q"), KeyEvent(.enter))
        #expect(harness.lines[0].contains("alpha") && !harness.lines[0].contains("beta"), "\(harness.lines[0])")
    }

    @Test func aLabelLookedUpOffTheLoopNeverReplacesANewerOne() throws {
        let harness = try ForeignKeyTests.books()
        try harness.press(KeyEvent(.enter))
        let line = { ForeignKeyTests.line("author_id", harness) }
        #expect(line().contains("→ Le Guin"), "\(harness.screen)")
        let form = try #require(harness.app.form)
        // The editor's queue is busy: lookups wait, typing does not.
        let release = DispatchSemaphore(value: 0)
        form.session.editor.perform { _ in release.wait() }
        for key: KeyEvent in [KeyEvent(.tab), KeyEvent(.backspace), .char("2"), .char("2")] {
            _ = harness.app.update(.event(.key(key)))
            _ = harness.app.tick()
        }
        var frame = Buffer(size: harness.backend.size)
        _ = harness.app.render(into: &frame)
        let drawn = frame.lines.first { $0.hasPrefix("author_id ") } ?? ""
        #expect(drawn.contains("22"), "typed at once: \(drawn)")
        #expect(!drawn.contains("Le Guin") && !drawn.contains("→") && !drawn.contains("✗"), "no label names another value's record: \(drawn)")
        release.signal()
        try harness.settle()
        // The lookups for "2" and for "22" both came back; only the one for the value shown counts.
        #expect(line().contains("no authors row with id 22"), "\(line())")
        #expect(!line().contains("Murakami"))
        // A result for a value the field no longer holds, arriving late, is not shown.
        harness.app.errands.begin()
        harness.app.errands.finish(.label(form: form.session.editor.identity, field: "author_id", value: .integer(2),
                                          label: .found("Murakami", ObjectID(table: "authors", rowid: 2))))
        try harness.settle()
        #expect(line().contains("no authors row with id 22") && !line().contains("Murakami"), "\(line())")
    }

    @Test func aColumnChoiceMadeJustBeforeQuittingReachesTheFile() throws {
        let state = TemporaryDirectory()
        let harness = try AppHarness(schema: Self.twoTables, options: CardfileApp.Options(autosave: nil, stateFolder: state.path))
        try harness.press(KeyEvent(.enter))
        // A slow disk: the write waits behind other work while the person quits.
        let release = DispatchSemaphore(value: 0)
        harness.app.errands.queue.async { release.wait() }
        for key: KeyEvent in [.char("l"), .char("-"), .control("q")] { _ = harness.app.update(.event(.key(key))) }
        #expect(!harness.app.isRunning)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { release.signal() }
        harness.app.finishErrands()
        let stored = try String(contentsOfFile: state.file("columns.json"), encoding: .utf8)
        #expect(stored.contains("wide") && !stored.contains("\"alpha\""), "\(stored)")
    }
}
