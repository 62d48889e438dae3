@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// History as a person meets it: Alt-U in a list after a restart, the conflict dialog when a
/// record changed since, `:history` and Enter on a version, with a real file and a real
/// second writer.
@Suite("History in the editor", .timeLimit(.minutes(10)))
struct HistoryAppTests {
    /// A first run of the editor keeping history in `state`, and a way to start another.
    struct Runs {
        let state = TemporaryDirectory()
        let first: AppHarness

        init() throws {
            first = try AppHarness(history: HistorySettings(folder: state.file("history")))
        }

        /// Another run of the editor on the same file (the first has quit: its journal has
        /// written what it had, as the program's exit makes it).
        func again() throws -> AppHarness {
            first.container.history?.flush()
            return try AppHarness(history: HistorySettings(folder: state.file("history")), reopening: first.path)
        }
    }

    /// In a form of the list's selected card: `text` typed at the end of the name, saved, back.
    static func appendToName(_ harness: AppHarness, _ text: String) throws {
        try harness.press(KeyEvent(.enter))
        try harness.type(text)
        try harness.press(.control("s"))
        try harness.press(KeyEvent(.escape))
    }

    static func name(_ harness: AppHarness, _ id: Int) throws -> String? {
        try harness.diskText("SELECT name FROM cards WHERE id = \(id)")
    }

    @Test func altUAfterARestartUndoesTheLastFormSaveAndAltRRedoesIt() throws {
        let runs = try Runs()
        try Self.appendToName(runs.first, " L.")
        try Self.appendToName(runs.first, " K.")
        #expect(try Self.name(runs.first, 1) == "Ada L. K.")
        let harness = try runs.again()
        try harness.press(.alt("u"))
        #expect(try Self.name(harness, 1) == "Ada L.")
        #expect(harness.messageLine.contains("Undone: the form save of"), "\(harness.messageLine)")
        #expect(harness.lines[1].contains("Ada L.") && !harness.lines[1].contains("K."), "the list follows: \(harness.lines[1])")
        try harness.command("undo")
        #expect(try Self.name(harness, 1) == "Ada")
        try harness.press(.alt("u"))
        #expect(harness.messageLine.contains("Nothing of cards to undo"), "\(harness.messageLine)")
        try harness.press(.alt("r"))
        #expect(try Self.name(harness, 1) == "Ada L.")
        try harness.command("redo")
        #expect(try Self.name(harness, 1) == "Ada L. K.")
    }

    @Test func aRecordChangedSinceOpensItsFormAndTheConflictDialog() throws {
        let runs = try Runs()
        try Self.appendToName(runs.first, " L.")
        try LiveRefreshTests.outside(runs.first, "UPDATE cards SET name = 'Ada Lovelace' WHERE id = 1")
        let harness = try runs.again()
        try harness.press(.alt("u"))
        guard case .conflict(let dialog)? = harness.app.overlay else {
            Issue.record("no conflict dialog: \(harness.screen)")
            return
        }
        let field = try #require(dialog.conflict.fields.first { $0.name == "name" })
        #expect(field.original == .text("Ada L.") && field.mine == .text("Ada") && field.theirs == .text("Ada Lovelace"))
        #expect(try Self.name(harness, 1) == "Ada Lovelace", "nothing is overwritten before the choice")
        #expect(harness.screen.contains("Ada Lovelace") && harness.screen.contains("Ada L."), "\(harness.screen)")
        try harness.press(.char("K"))
        #expect(try Self.name(harness, 1) == "Ada", "Keep mine writes the undo")
        // That save was the undo: nothing of the table is left to undo, and Alt-R redoes it.
        try harness.press(KeyEvent(.escape))
        try harness.press(.alt("u"))
        #expect(harness.messageLine.contains("Nothing of cards to undo"), "\(harness.messageLine)")
        try harness.press(.alt("r"))
        #expect(try Self.name(harness, 1) == "Ada L.")
    }

    @Test func takingTheirsInTheDialogCountsTheUndoAsDone() throws {
        let runs = try Runs()
        try Self.appendToName(runs.first, " L.")
        try Self.appendToName(runs.first, " K.")
        try LiveRefreshTests.outside(runs.first, "UPDATE cards SET name = 'Ada Lovelace' WHERE id = 1")
        let harness = try runs.again()
        try harness.press(.alt("u"))
        guard case .conflict? = harness.app.overlay else { Issue.record("no conflict dialog: \(harness.screen)"); return }
        try harness.press(.char("t"))
        #expect(try Self.name(harness, 1) == "Ada Lovelace")
        // The next Alt-U goes further back, past the change the person chose to keep.
        try harness.press(KeyEvent(.escape))
        try harness.press(.alt("u"))
        guard case .conflict(let dialog)? = harness.app.overlay else { Issue.record("no conflict dialog: \(harness.screen)"); return }
        #expect(dialog.conflict.fields.first { $0.name == "name" }?.mine == .text("Ada"), "the save before: Ada → Ada L.")
    }

    @Test func anUndoLeftInItsFormIsStillToDo() throws {
        let runs = try Runs()
        try Self.appendToName(runs.first, " L.")
        try LiveRefreshTests.outside(runs.first, "UPDATE cards SET name = 'Ada Lovelace' WHERE id = 1")
        let harness = try runs.again()
        try harness.press(.alt("u"))
        guard case .conflict? = harness.app.overlay else { Issue.record("no conflict dialog: \(harness.screen)"); return }
        // Esc, then leave the form discarding the undo's edits: nothing was undone.
        try harness.press(KeyEvent(.escape))
        try harness.press(KeyEvent(.escape))
        try harness.press(.char("d"))
        #expect(harness.app.form == nil, "back in the list: \(harness.screen)")
        #expect(try Self.name(harness, 1) == "Ada Lovelace")
        try harness.press(.alt("u"))
        guard case .conflict? = harness.app.overlay else { Issue.record("the undo is not offered again: \(harness.screen)"); return }
    }

    @Test func severalRecordsChangedSinceAreAskedAboutThenOverwrittenOrLeft() throws {
        let runs = try Runs()
        try runs.first.command("select")
        try runs.first.command("set notes = 'bulk'")
        try runs.first.press(.char("y"))
        try LiveRefreshTests.outside(runs.first, "UPDATE cards SET notes = 'theirs' WHERE id IN (1, 2)")
        let harness = try runs.again()
        try harness.press(.alt("u"))
        guard case .question(let asked)? = harness.app.overlay else {
            Issue.record("no question: \(harness.screen)")
            return
        }
        #expect(asked.dialog.message.contains("2 records changed since") && asked.dialog.message.contains("cards 1"), "\(asked.dialog.message)")
        try harness.press(.char("n"))
        #expect(try harness.diskText("SELECT group_concat(coalesce(notes, '∅'), ',') FROM (SELECT notes FROM cards ORDER BY id)") == "theirs,theirs,line one\nline two,")
        let said = harness.app.notice?.text ?? ""
        #expect(said.contains("2 records written") && said.contains("2 records changed since were left as they are"), "\(said)")
    }

    @Test func historyListsVersionsNewestFirstAndEnterOnTheOldestPutsItInTheForm() throws {
        let runs = try Runs()
        try Self.appendToName(runs.first, " L.")
        try Self.appendToName(runs.first, " K.")
        let harness = try runs.again()
        try harness.command("history")
        guard case .history(let panel)? = harness.app.overlay else {
            Issue.record("no history: \(harness.screen)")
            return
        }
        #expect(panel.versions.count == 2)
        let screen = harness.screen
        let newest = try #require(screen.range(of: "name: Ada L. → Ada L. K."), "\(screen)")
        let older = try #require(screen.range(of: "name: Ada → Ada L."), "\(screen)")
        #expect(newest.lowerBound < older.lowerBound, "newest first")
        #expect(screen.contains("as first seen") && screen.contains("form"))
        try harness.press(KeyEvent(.end))
        try harness.press(KeyEvent(.enter))
        #expect(harness.lines[0].contains("cards › 1"), "the record's form: \(harness.lines[0])")
        #expect(harness.statusLine.contains("modified"), "\(harness.statusLine)")
        #expect(try Self.name(harness, 1) == "Ada L. K.", "edits only until saved")
        try harness.press(.control("s"))
        #expect(try Self.name(harness, 1) == "Ada")
        // In the form (F2 opens its command line), :history lists the save just made too.
        try harness.press(KeyEvent(.function(2)))
        try harness.type("history")
        try harness.press(KeyEvent(.enter))
        guard case .history(let again)? = harness.app.overlay else { Issue.record("no history in the form: \(harness.lines.joined(separator: "\n"))"); return }
        #expect(again.versions.count == 3)
    }

    /// The journal cannot keep a change (here its table dropped by another connection, as a
    /// full disk or a damaged journal would fail it): the save stands, and the editor says
    /// once that its history was not kept.
    @Test func aChangeTheJournalCouldNotKeepIsSaidOnce() throws {
        let runs = try Runs()
        let harness = runs.first
        let journal = try #require(harness.container.history as? HistoryJournal)
        let other = try DatabaseQueue(path: journal.file)
        try other.write { try $0.execute(sql: "DROP TABLE entry") }
        try other.close()
        try harness.press(KeyEvent(.enter))
        try harness.type(" L.")
        try harness.press(.control("s"))
        journal.flush()
        #expect(try harness.waitFor { $0.contains("Saved, but not kept in the history") }, "\(harness.messageLine)")
        #expect(harness.app.notice?.text.contains("no such table: entry") == true, "the reason: \(harness.app.notice?.text ?? "")")
        #expect(try Self.name(harness, 1) == "Ada L.")
        // Once: the next look finds nothing more to say.
        try harness.press(KeyEvent(.escape))
        try harness.advance(.seconds(30))
        #expect(!harness.messageLine.contains("not kept in the history"), "\(harness.messageLine)")
    }

    @Test func aTableWithoutAKeyKeepsThisRunsBulkUndo() throws {
        let state = TemporaryDirectory()
        let harness = try AppHarness(schema: "CREATE TABLE jots (body TEXT); INSERT INTO jots VALUES ('a'), ('b');",
                                     history: HistorySettings(folder: state.file("history")))
        try harness.command("set body = 'x'")
        try harness.press(.char("y"))
        #expect(try harness.diskText("SELECT group_concat(body) FROM jots") == "x,b")
        try harness.press(.alt("u"))
        #expect(try harness.diskText("SELECT group_concat(body) FROM jots") == "a,b", "\(harness.messageLine)")
        try harness.command("history")
        #expect(harness.messageLine.contains("no declared primary key"), "\(harness.messageLine)")
    }

    @Test func withoutHistoryTheCommandsSaySoAndBulkUndoStillWorks() throws {
        let harness = try AppHarness()
        try harness.command("history")
        #expect(harness.messageLine.contains("No history is kept"), "\(harness.messageLine)")
        try harness.command("set notes = 'x'")
        try harness.press(.char("y"))
        try harness.command("undo")
        #expect(try harness.diskText("SELECT notes FROM cards WHERE id = 1") == "first")
    }

    @Test func theVersionsOfARecordRebuildEachFieldAtEachRow() {
        func version(_ id: Int64, _ kind: RecordedChange.Kind, _ fields: [RecordedChange.Field]) -> RecordVersion {
            RecordVersion(entry: HistoryEntry(id: id, time: Date(), source: .form, recordCount: 1, isComplete: true),
                          change: RecordedChange(id: ObjectID(table: "t", rowid: 1), kind: kind, fields: fields))
        }
        // Oldest to newest: added (a 1, b 1), a → 2, b → 3, a → 4.
        let panel = HistoryPanel(id: ObjectID(table: "t", rowid: 1), title: "t 1", versions: [
            version(4, .update, [.init(name: "a", old: .integer(2), new: .integer(4))]),
            version(3, .update, [.init(name: "b", old: .integer(1), new: .integer(3))]),
            version(2, .update, [.init(name: "a", old: .integer(1), new: .integer(2))]),
            version(1, .insert, [.init(name: "a", old: nil, new: .integer(1)), .init(name: "b", old: nil, new: .integer(1))]),
        ], timeText: { _ in "" })
        #expect(panel.values(at: 0) == ["a": .integer(4), "b": .integer(3)])
        #expect(panel.values(at: 1) == ["a": .integer(2), "b": .integer(3)])
        #expect(panel.values(at: 2) == ["a": .integer(2), "b": .integer(1)])
        #expect(panel.values(at: 3) == ["a": .integer(1), "b": .integer(1)])
        #expect(panel.values(at: 4) == nil, "before it was added it did not exist")
    }
}
