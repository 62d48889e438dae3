import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// Undo and redo in a form: typing runs coalesce, every other edit is a step, undo goes past
/// a save, and never into another record.
@Suite("Undo", .timeLimit(.minutes(Fuzz.scaled(10))))
struct UndoTests {
    static let undo = KeyEvent.alt("u")
    static let redo = KeyEvent.alt("r")

    @Test func aTypingRunIsOneStepAndUndoingToTheStoredValuesLeavesWithoutAQuestion() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("xyz")
        #expect(harness.lines[2].contains("Adaxyz"))
        try harness.press(Self.undo)
        #expect(harness.lines[2].contains("Ada") && !harness.lines[2].contains("Adax"), "\(harness.lines[2])")
        #expect(harness.statusLine.contains("no changes"), "\(harness.statusLine)")
        #expect(harness.messageLine.contains("Undid an edit of name"))
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Unsaved changes"))
        #expect(harness.lines[0].contains("name"), "back at the list")
        // Redo brings the whole run back.
        try harness.press(KeyEvent(.enter))
        try harness.press(Self.redo)
        #expect(harness.messageLine.contains("Nothing to redo"), "the history belonged to the form that was closed")
    }

    @Test func editsAcrossFieldsAreUndoneInOrderAndEachKindIsItsOwnStep() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))            // name: Ada
        try harness.type("1")
        try harness.press(KeyEvent(.left))             // moving the cursor ends the run
        try harness.type("2")                          // Ada21
        try harness.press(KeyEvent(.tab))              // phone: 111
        try harness.press(.control("n"))               // NULL: one step
        try harness.press(KeyEvent(.tab))              // age: 36
        harness.backend.enqueue([.paste("9")])         // a paste: one step
        try harness.settle()
        try harness.press(KeyEvent(.backspace), KeyEvent(.backspace))  // deletions: one run
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name || '|' || ifnull(phone, 'NULL') || '|' || ifnull(age, 'NULL') FROM cards WHERE id = 1") == "Ada21|NULL|3")

        try harness.press(Self.undo)                   // the deletions
        #expect(harness.lines[4].contains("369"), "\(harness.lines[4])")
        try harness.press(Self.undo)                   // the paste
        #expect(harness.lines[4].contains("36") && !harness.lines[4].contains("369"))
        try harness.press(Self.undo)                   // NULL
        #expect(harness.lines[3].contains("111"))
        try harness.press(Self.undo)                   // "2"
        #expect(harness.lines[2].contains("Ada1") && !harness.lines[2].contains("Ada21"), "\(harness.lines[2])")
        try harness.press(Self.undo)                   // "1"
        #expect(harness.lines[2].contains("Ada") && !harness.lines[2].contains("Ada1"))
        try harness.press(Self.undo)
        #expect(harness.messageLine.contains("Nothing to undo"))
        // Past the save: the form is modified again, and saving writes the old values back.
        #expect(harness.statusLine.contains("modified"), "\(harness.statusLine)")
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name || '|' || phone || '|' || age FROM cards WHERE id = 1") == "Ada|111|36")
        // And redo all the way forward again.
        for _ in 0..<5 { try harness.press(Self.redo) }
        #expect(harness.messageLine.contains("Redid"))
        try harness.press(Self.redo)
        #expect(harness.messageLine.contains("Nothing to redo"))
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name || '|' || ifnull(phone, 'NULL') || '|' || ifnull(age, 'NULL') FROM cards WHERE id = 1") == "Ada21|NULL|3")
    }

    @Test func autosaveSavesWhatUndoPutBack() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(KeyEvent(.enter))
        try harness.type(" L.")
        try harness.advance(.seconds(3))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada L.")
        try harness.press(Self.undo)
        #expect(harness.statusLine.contains("autosave in"), "\(harness.statusLine)")
        try harness.advance(.seconds(3))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
    }

    @Test func undoNeverReachesAnotherRecord() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("!")
        try harness.press(.control("s"), KeyEvent(.pageDown))
        #expect(harness.lines[0].contains("cards › 2"))
        try harness.press(Self.undo)
        #expect(harness.messageLine.contains("Nothing to undo"))
        #expect(harness.statusLine.contains("no changes"))
        try harness.press(KeyEvent(.escape))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada!")
    }

    @Test func aNewRecordUndoneToNothingIsNoInsert() throws {
        let harness = try AppHarness()
        try harness.press(.char("a"))
        try harness.type("Zed")
        try harness.press(KeyEvent(.tab))
        try harness.type("999")
        try harness.press(Self.undo, Self.undo)
        #expect(harness.statusLine.contains("no changes"), "\(harness.statusLine)")
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Unsaved changes"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 4.databaseValue)
        #expect(harness.statusLine.contains("of 4"))
    }

    @Test func ctrlZStillSuspends() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("x")
        try harness.press(.control("z"))
        #expect(harness.backend.isSuspended)
        #expect(harness.lines[2].contains("Adax"))
    }

    /// Random edits (typing, deleting, cursor moves, NULL, pastes, line breaks, field changes,
    /// saves), then undo everything: the record is as it was; redo everything: as it was at
    /// the end. The saved file is the oracle.
    @Test func undoingEverythingRestoresAndRedoingEverythingReplays() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let schema = """
            CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c, d);
            INSERT INTO t (a, b, c, d) VALUES ('one', NULL, 7, 1.5);
            """
        let rounds = Fuzz.scaled(12)
        for round in 0..<rounds {
            let harness = try AppHarness(schema: schema)
            let row = "SELECT quote(a) || '|' || quote(b) || '|' || quote(c) || '|' || quote(d) FROM t WHERE id = 1"
            let original = try harness.diskText(row)
            try harness.press(KeyEvent(.enter))
            for _ in 0..<(5 + random.next(below: 40)) {
                switch random.next(below: 20) {
                case 0..<8: try harness.press(KeyEvent(.character("ab1 -é漢".randomElement(using: &random)!)))
                case 8..<10: try harness.press(KeyEvent(.backspace))
                case 10: try harness.press(KeyEvent(.left))
                case 11: try harness.press(KeyEvent(.home))
                case 12: try harness.press(.control("n"))
                case 13: harness.backend.enqueue([.paste(["x", "two\nlines", "42"].randomElement(using: &random)!)]); try harness.settle()
                case 14: try harness.press(KeyEvent(.enter, modifiers: .alt))
                case 15, 16: try harness.press(KeyEvent(.tab))
                case 17: try harness.press(KeyEvent(.backTab))
                case 18: try harness.press(.control("w"))
                default: try harness.press(.control("s"))
                }
            }
            try harness.press(.control("s"))
            #expect(!harness.messageLine.contains("Not saved"), "seed \(seed): \(harness.messageLine)")
            let final = try harness.diskText(row)
            for _ in 0..<(100) {
                try harness.press(Self.undo)
                if harness.messageLine.contains("Nothing to undo") { break }
            }
            try harness.press(.control("s"))
            #expect(try harness.diskText(row) == original, "seed \(seed), round \(round): undo all")
            for _ in 0..<(100) {
                try harness.press(Self.redo)
                if harness.messageLine.contains("Nothing to redo") { break }
            }
            try harness.press(.control("s"))
            #expect(try harness.diskText(row) == final, "seed \(seed), round \(round): redo all")
        }
    }
}
