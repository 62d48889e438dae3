@testable import CardfileApp
import CardfilePostgres
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// History in the editor on PostgreSQL, as a person meets it: Alt-U and Alt-R in a list after
/// a form's save, the conflict dialog when psql changed the record since, and `:history` with
/// each version's author; the server's journal of `pg-setup`, `psql` as the other writer.
@Suite("History in the editor on PostgreSQL", .timeLimit(.minutes(10)))
struct PostgresHistoryAppTests {
    static func place(setUp: Bool = true) throws -> PostgresAppPlace {
        try PostgresAppPlace("""
            CREATE TABLE cards (id int PRIMARY KEY, name text NOT NULL, age int);
            INSERT INTO cards VALUES (1, 'Ada', 36), (2, 'Bo', 9);
            """, table: "cards", history: true, setUp: setUp)
    }

    /// In a form of the list's selected card: `text` typed at the end of the name, saved, back.
    static func appendToName(_ harness: AppHarness, _ text: String) throws {
        try harness.press(KeyEvent(.enter))
        try harness.type(text)
        try harness.press(.control("s"))
        #expect(try harness.waitFor { $0.contains("Saved") }, "\(harness.screen)")
        try harness.press(KeyEvent(.escape))
    }

    /// A session of its own holding the journal's entries locked whole until it ends (or,
    /// should something wait for it after all, until the server lets go of it in 8 s: a test
    /// then fails, it does not hang).
    static func lockJournal(_ place: PostgresAppPlace) throws -> PostgresSession {
        let location = try PostgresLocation.resolve(place.server.url(database: place.database), environment: [:],
                                                    homeFolder: TemporaryDirectory().path, loginName: "x").location
        let locker = try PostgresSession.open(location)
        try locker.run("SET idle_in_transaction_session_timeout = '8s'")
        try locker.run("BEGIN")
        try locker.run("LOCK TABLE cardfile.history_entry IN ACCESS EXCLUSIVE MODE")
        return locker
    }

    /// A form save of the first card, psql's change of its name after, and Alt-U: the
    /// conflict dialog the undo meets.
    static func undoMeetingPsqlsChange(_ place: PostgresAppPlace) throws -> ConflictDialog? {
        let harness = place.harness
        try appendToName(harness, " L.")
        _ = try place.psql("UPDATE cards SET name = 'Ada Lovelace' WHERE id = 1")
        #expect(try harness.waitFor { $0.contains("Ada Lovelace") }, "the list shows psql's change: \(harness.screen)")
        try harness.press(.alt("u"))
        try settle(harness)
        guard case .conflict(let dialog)? = harness.app.overlay else {
            Issue.record("no conflict dialog: \(harness.screen)")
            return nil
        }
        return dialog
    }

    static func settle(_ harness: AppHarness) throws {
        #expect(try harness.waitFor { _ in !harness.app.isRunningABulkEdit })
    }

    @Test func altUUndoesTheLastFormSaveAndAltRRedoesIt() throws {
        let place = try Self.place()
        let harness = place.harness
        try Self.appendToName(harness, " L.")
        try Self.appendToName(harness, " K.")
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada L. K.")
        try harness.press(.alt("u"))
        try Self.settle(harness)
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada L.")
        #expect(harness.messageLine.contains("Undone: the form save of"), "\(harness.messageLine)")
        #expect(try harness.waitFor { $0.contains("Ada L.") && !$0.contains("K.") }, "the list follows: \(harness.screen)")
        try harness.command("undo")
        try Self.settle(harness)
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada")
        try harness.press(.alt("u"))
        #expect(harness.messageLine.contains("Nothing of cards to undo"), "\(harness.messageLine)")
        try harness.press(.alt("r"))
        try Self.settle(harness)
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada L.")
    }

    @Test func aRecordPsqlChangedSinceOpensItsFormAndTheConflictDialog() throws {
        let place = try Self.place()
        let harness = place.harness
        guard let dialog = try Self.undoMeetingPsqlsChange(place) else { return }
        let field = try #require(dialog.conflict.fields.first { $0.name == "name" })
        #expect(field.original == .text("Ada L.") && field.mine == .text("Ada") && field.theirs == .text("Ada Lovelace"))
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada Lovelace", "nothing is overwritten before the choice")
        try harness.press(.char("K"))
        #expect(try harness.waitFor { _ in (try? place.psql("SELECT name FROM cards WHERE id = 1")) == "Ada" }, "Keep mine writes the undo")
    }

    /// Take theirs after an undo marks the undo done in the journal: while another session
    /// holds the journal's table, that waits as a save does (tens of milliseconds), not
    /// seconds, and the screen goes on.
    @Test func takingTheirsWhileTheJournalIsLockedDoesNotHoldTheScreen() throws {
        let place = try Self.place()
        let harness = place.harness
        guard try Self.undoMeetingPsqlsChange(place) != nil else { return }
        let locker = try Self.lockJournal(place)
        defer { locker.close() }
        let started = Date()
        try harness.press(.char("t"))
        let waited = Date().timeIntervalSince(started)
        // (A bound on a hang, not a speed goal: the mark waited 5 s for the lock before.)
        #expect(waited < 2.5, "the screen waited \(waited) s for the journal's lock")
        #expect(harness.messageLine.contains("Took their version"), "\(harness.messageLine)")
        // The mark waited in vain: said, for the next Alt-U offers the same undo again.
        #expect(harness.app.notice?.text.contains("could not record the undo as done") == true, "\(harness.app.notice?.text ?? "")")
        try? locker.run("ROLLBACK")
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada Lovelace")
    }

    /// Alt-U and `:history` read the journal on the UI loop: while another session holds it
    /// locked whole, they give up after a short wait and say why (the screen froze until the
    /// lock was let go).
    @Test func aJournalLockedElsewhereHoldsNeitherAltUNorHistory() throws {
        let place = try Self.place()
        let harness = place.harness
        try Self.appendToName(harness, " L.")
        let locker = try Self.lockJournal(place)
        defer { locker.close() }
        for keys in [["alt-u"], [":", "history"]] {
            let started = Date()
            if keys[0] == "alt-u" { try harness.press(.alt("u")) } else { try harness.command("history") }
            let waited = Date().timeIntervalSince(started)
            // (A bound on a hang, not a speed goal: it waited for the lock's end before.)
            #expect(waited < 3, "\(keys): the screen waited \(waited) s")
            #expect(harness.messageLine.contains("history could not be read"), "\(keys): \(harness.messageLine)")
        }
        try? locker.run("ROLLBACK")
        try harness.press(.alt("u"))
        try Self.settle(harness)
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada", "once let go, Alt-U undoes")
    }

    /// The journal taken off the server under the open editor (`DROP SCHEMA cardfile`): a
    /// bulk edit is written all the same, and the editor says once that its history was not
    /// kept.
    @Test func aJournalTakenAwayIsSaidAndTheEditStands() throws {
        let place = try Self.place()
        let harness = place.harness
        _ = try place.psql("DROP SCHEMA cardfile CASCADE")
        try harness.command("set age = 7")
        try harness.press(.char("y"))
        try Self.settle(harness)
        #expect(try place.psql("SELECT string_agg(age::text, ',' ORDER BY id) FROM cards") == "7,9")
        #expect(try harness.waitFor { $0.contains("Saved, but not kept in the history") }, "\(harness.messageLine)")
        #expect(harness.app.notice?.text.contains("does not exist") == true, "the server's reason: \(harness.app.notice?.text ?? "")")
        // A write that fails says its own failure, not that it was saved.
        _ = try place.psql("ALTER TABLE cards ADD CONSTRAINT adult CHECK (age >= 0)")
        try harness.command("set age = -1")
        try harness.press(.char("y"))
        try Self.settle(harness)
        try harness.advance(.milliseconds(300))   // (a tick: where a kept problem would be said)
        #expect(!(harness.app.notice?.text.contains("Saved") ?? false), "\(harness.app.notice?.text ?? "")")
        #expect(harness.app.notice?.text.contains("adult") == true, "\(harness.app.notice?.text ?? "")")
        #expect(try place.psql("SELECT string_agg(age::text, ',' ORDER BY id) FROM cards") == "7,9")
    }

    @Test func historyListsEachVersionWithItsAuthorAndEnterPutsOneInTheForm() throws {
        let place = try Self.place()
        let harness = place.harness
        try Self.appendToName(harness, " L.")
        try harness.command("history")
        guard case .history(let panel)? = harness.app.overlay else {
            Issue.record("no history panel: \(harness.screen)")
            return
        }
        #expect(panel.versions.count == 1)
        #expect(harness.screen.contains("form by cardfile"), "\(harness.screen)")
        #expect(harness.screen.contains("name: Ada → Ada L."), "\(harness.screen)")
        try harness.press(KeyEvent(.end))
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.contains("as edits"), "\(harness.messageLine)")
        try harness.press(.control("s"))
        #expect(try harness.waitFor { _ in (try? place.psql("SELECT name FROM cards WHERE id = 1")) == "Ada" })
    }

    @Test func aChangeTheJournalDidNotSeeIsShownAsTheRecordNow() throws {
        let place = try Self.place()
        let harness = place.harness
        try Self.appendToName(harness, " L.")
        _ = try place.psql("UPDATE cards SET name = 'psql was here' WHERE id = 1")
        #expect(try harness.waitFor { $0.contains("psql was here") }, "\(harness.screen)")
        try harness.command("history")
        guard case .history(let panel)? = harness.app.overlay else {
            Issue.record("no history panel: \(harness.screen)")
            return
        }
        #expect(panel.versions.count == 2)
        #expect(harness.screen.contains("now") && harness.screen.contains("changed outside") && harness.screen.contains("name: Ada L. → psql was here"),
                "\(harness.screen)")
        // Enter on the form's version puts it back as an edit.
        try harness.press(KeyEvent(.down))
        try harness.press(KeyEvent(.enter))
        try harness.press(.control("s"))
        #expect(try harness.waitFor { _ in (try? place.psql("SELECT name FROM cards WHERE id = 1")) == "Ada L." })
    }

    @Test func withoutPgSetupHistorySaysHowToGetIt() throws {
        let place = try Self.place(setUp: false)
        try place.harness.command("history")
        #expect(place.harness.messageLine.contains("No history is kept") && place.harness.messageLine.contains("pg-setup"), "\(place.harness.messageLine)")
    }
}
