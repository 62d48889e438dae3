@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// `:set`, `:delete`, Alt-U and Alt-R in a list, as a person meets them: the question, the
/// file afterwards, the marks, and records another program changed in between.
@Suite("Bulk edits in the list", .timeLimit(.minutes(10)))
struct BulkEditAppTests {
    static func notes(_ harness: AppHarness) throws -> String {
        try harness.diskText("SELECT group_concat(coalesce(notes, '∅'), ',') FROM (SELECT notes FROM cards ORDER BY id)") ?? ""
    }

    /// The question's text, once a question is open.
    static func question(_ harness: AppHarness) -> String? {
        if case .question(let question)? = harness.app.overlay { return question.dialog.message }
        return nil
    }

    @Test func setAsksWithTheCountThenWritesTheMarkedRecordsAndKeepsThemMarked() throws {
        let harness = try AppHarness()
        try harness.command("select age >= 30")                                    // Ada, Grace
        _ = try MarkTests.counted(harness)
        try harness.command("set notes = 'done'")
        #expect(Self.question(harness) == "Set notes to “done” on 2 records? (y/n)", "\(harness.screen)")
        #expect(try Self.notes(harness) == "first,∅,line one\nline two,", "nothing is written before the answer")
        try harness.press(.char("y"))
        #expect(try Self.notes(harness) == "done,done,line one\nline two,")
        #expect(harness.messageLine.contains("Set notes to “done” on 2 records. Alt-U undoes it."), "\(harness.messageLine)")
        #expect(MarkTests.markedNames(harness) == ["Ada", "Grace"])
        #expect(try MarkTests.counted(harness).contains("2 marked"))
    }

    @Test func aFilterMarkOnTheColumnSetKeepsTheRecordsWritten() throws {
        let harness = try AppHarness()
        try harness.command("select age >= 30")
        try harness.command("set age = 10")
        try harness.press(.char("y"))
        #expect(try harness.diskText("SELECT group_concat(age) FROM cards WHERE age = 10") == "10,10")
        // The rule "age >= 30" matches nothing now; the marks stay on the records written.
        #expect(MarkTests.markedNames(harness) == ["Ada", "Grace"], "\(harness.screen)")
        #expect(try MarkTests.counted(harness).contains("2 marked"))
    }

    @Test func noAnswerWritesNothingAndNoMarksMeansTheSelectedRecord() throws {
        let harness = try AppHarness()
        try harness.command("set notes = NULL")
        #expect(Self.question(harness) == "Set notes to NULL on cards 1? (y/n)")
        try harness.press(.char("n"))
        #expect(try Self.notes(harness) == "first,∅,line one\nline two,")
        try harness.press(.char("j"))
        try harness.command("set notes = NULL")
        try harness.press(.char("y"))
        #expect(try Self.notes(harness) == "first,∅,line one\nline two,")   // Grace's was NULL already
        try harness.press(.char("j"))
        try harness.command("set notes = NULL")
        try harness.press(.char("y"))
        #expect(try Self.notes(harness) == "first,∅,∅,")
    }

    @Test func aWrongValueIsRefusedBeforeTheQuestionAndAFailingRecordIsNamed() throws {
        let harness = try AppHarness()
        try harness.command("select")
        try harness.command("set age = abc")
        #expect(Self.question(harness) == nil)
        #expect(harness.messageLine.contains("age"), "\(harness.messageLine)")
        try harness.command("set nope = 1")
        #expect(harness.messageLine.contains("no column is named “nope”"), "\(harness.messageLine)")
        try harness.command("set age = -1")                                         // CHECK (age >= 0)
        try harness.press(.char("y"))
        #expect(harness.screen.contains("Not set") && harness.screen.contains("cards 1"), "\(harness.screen)")
        #expect(try harness.diskText("SELECT group_concat(coalesce(age, '∅')) FROM cards") == "36,45,28,∅")
        try harness.command("set id = 9")
        #expect(Self.question(harness) == nil, "a key is not set in bulk")
    }

    @Test func undoRestoresAndAsksAboutARecordChangedSince() throws {
        let harness = try AppHarness()
        try harness.command("select age >= 30")
        try harness.command("set notes = 'x'")
        try harness.press(.char("y"))
        try LiveRefreshTests.outside(harness, "UPDATE cards SET notes = 'theirs' WHERE name = 'Grace'")
        try harness.press(.alt("u"))
        #expect(try Self.notes(harness) == "first,theirs,line one\nline two,", "Ada is back; Grace is left")
        let asked = try #require(Self.question(harness), "\(harness.screen)")
        #expect(asked.hasPrefix("1 record changed since, so undo left it alone: cards 2."), "\(asked)")
        try harness.press(.char("n"))
        #expect(try Self.notes(harness) == "first,theirs,line one\nline two,")
        // Redo writes again where the undo wrote; undo once more, and this time overwrite.
        try harness.press(.alt("r"))
        #expect(try Self.notes(harness) == "x,theirs,line one\nline two,")
        try harness.press(.alt("u"))
        #expect(try Self.notes(harness) == "first,theirs,line one\nline two,")
        #expect(Self.question(harness) == nil, "the redo covered Ada only")
        try harness.press(.alt("u"))
        #expect(harness.messageLine.contains("No bulk change of cards to undo"), "\(harness.messageLine)")
    }

    /// Found by the model test (seed 3117394619): a `:set` on marks that match no record any
    /// more wrote nothing, yet forgot what Alt-R could redo.
    @Test func aSetThatWritesNoRecordKeepsTheRedo() throws {
        let harness = try AppHarness()
        try harness.command("set notes = 'x'")                                     // Ada, selected
        try harness.press(.char("y"))
        try harness.press(.alt("u"))
        #expect(try Self.notes(harness) == "first,∅,line one\nline two,")
        try harness.press(.char(" "))                                              // marks Ada
        try harness.command("unselect name = 'Ada'")                               // marks, matching none
        try harness.command("set notes = 'y'")
        #expect(Self.question(harness)?.contains("0 records") == true, "\(harness.screen)")
        try harness.press(.char("y"))
        #expect(harness.messageLine.contains("nothing was set"), "\(harness.messageLine)")
        try harness.press(.alt("r"))
        #expect(try Self.notes(harness) == "x,∅,line one\nline two,", "\(harness.messageLine)")
    }

    @Test func overwritingWhatChangedSinceIsUndoneToo() throws {
        let harness = try AppHarness()
        try harness.command("select age >= 30")
        try harness.command("set notes = 'x'")
        try harness.press(.char("y"))
        try LiveRefreshTests.outside(harness, "UPDATE cards SET notes = 'theirs' WHERE name = 'Grace'")
        try harness.press(.alt("u"))
        try harness.press(.char("y"))
        #expect(try Self.notes(harness) == "first,∅,line one\nline two,")
        // The redo puts back what the undo overwrote: Ada's "x", and Grace's "theirs".
        try harness.press(.alt("r"))
        #expect(try Self.notes(harness) == "x,theirs,line one\nline two,")
    }

    @Test func deleteAsksWithTheCountAndAltUBringsTheRecordsBack() throws {
        let harness = try AppHarness()
        let before = try harness.diskText("SELECT group_concat(id || name || coalesce(age, '') || coalesce(notes, '') || phone) FROM cards")
        try harness.command("select age < 40")                                      // Ada, Linus
        _ = try MarkTests.counted(harness)
        try harness.command("delete")
        #expect(Self.question(harness) == "Delete 2 records? Alt-U brings them back. (y/n)")
        try harness.press(.char("y"))
        #expect(try harness.diskText("SELECT group_concat(name) FROM cards") == "Grace,Margaret")
        #expect(harness.messageLine.contains("Deleted 2 records. Alt-U brings them back."))
        #expect(!harness.statusLine.contains("marked"))
        try harness.press(.alt("u"))
        #expect(try harness.diskText("SELECT group_concat(id || name || coalesce(age, '') || coalesce(notes, '') || phone) FROM cards") == before)
        #expect(try harness.waitFor { $0.contains("Linus") }, "the list shows them again")
    }

    /// A bulk edit runs off the loop, so a form can be opened and edited while it waits for
    /// another program's lock; when it commits, the form meets it as another program's change.
    @Test func aBulkEditReachesAFormOpenedMeanwhileAsAChangeMadeElsewhere() throws {
        let harness = try AppHarness()
        try harness.command("select name = 'Ada'")
        try harness.command("set name = 'bulk'")
        // Another connection holds the write lock: the bulk edit waits for it.
        let other = try DatabaseQueue(path: harness.path)
        defer { try? other.close() }
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                release.wait()
                try db.execute(sql: "COMMIT")
            }
        }
        locked.wait()
        // Keys go straight to the app: settling would wait for the bulk edit.
        func key(_ key: KeyEvent) {
            _ = harness.app.update(.event(.key(key)))
            _ = harness.app.tick()
        }
        key(.char("y"))
        #expect(harness.app.bulk != nil, "the edit is running")
        // Quitting meanwhile is refused: the edit would be lost.
        key(.control("q"))
        #expect(harness.app.isRunning)
        #expect(harness.app.notice?.text.contains("Wait until setting name is done") == true, "\(harness.app.notice?.text ?? "")")
        key(KeyEvent(.enter))                                                       // Ada's form
        for character in " edited" { key(KeyEvent(.character(character))) }
        #expect(harness.app.form?.fields.first { $0.name == "name" }?.text == "Ada edited")
        release.signal()
        #expect(try harness.waitFor { _ in harness.app.bulk == nil })
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "bulk")
        let form = try #require(harness.app.form)
        #expect(form.fields.first { $0.name == "name" }?.changedElsewhere == true, "\(harness.screen)")
        #expect(form.fields.first { $0.name == "name" }?.text == "Ada edited", "the edit is kept")
        #expect(harness.messageLine.contains("Also changed elsewhere: name, which you edited"), "\(harness.messageLine)")
    }

    @Test func exportAndCopyTakeTheMarkedRecords() throws {
        let harness = try AppHarness()
        try harness.command("select age < 40")                                      // Ada, Linus
        _ = try MarkTests.counted(harness)
        try harness.press(.char("]"))                                              // by id, descending
        try harness.command("export marked.csv")
        // (Said when it starts; a small export may have ended by the time the line is read.)
        #expect(harness.app.messages.entries.contains { $0.text.contains("Exporting the marked records of cards") }, "\(harness.messageLine)")
        #expect(try harness.waitFor { $0.contains("Exported 2 rows") })
        let written = try String(contentsOfFile: harness.directory.file("marked.csv"), encoding: .utf8)
        #expect(written == "\"id\",\"name\",\"phone\",\"age\",\"notes\"\n3,\"Linus\",\"333\",28,\"line one\nline two\"\n1,\"Ada\",\"111\",36,\"first\"\n")
        try harness.press(.char("Y"))
        #expect(try FindAndCopyTests.copied(harness) == "1\tAda\t111\t36\tfirst\n3\tLinus\t333\t28\t\"line one\nline two\"")
        #expect(harness.messageLine.contains("Copied 2 records as tab-separated values"), "\(harness.messageLine)")
        try harness.press(.alt("y"))
        let lines = try FindAndCopyTests.copied(harness).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("\"Ada\"") && lines[1].contains("\"Linus\""), "\(lines)")
        // Without marks, Y copies the selected record again.
        try harness.command("unselect")
        try harness.press(.char("Y"))
        #expect(try FindAndCopyTests.copied(harness) == "1\tAda\t111\t36\tfirst")
    }

    @Test func aReadOnlyFileOrAViewTakesNoBulkEdit() throws {
        let harness = try AppHarness(readOnly: true)
        try harness.command("select")
        try harness.command("set notes = 'x'")
        #expect(Self.question(harness) == nil)
        #expect(harness.messageLine.contains("Read-only"), "\(harness.messageLine)")
        try harness.press(.alt("u"))
        #expect(harness.messageLine.contains("Read-only"), "\(harness.messageLine)")
        let views = try AppHarness(schema: AppHarness.cards + "CREATE VIEW adults AS SELECT * FROM cards WHERE age >= 18;",
                                   options: CardfileApp.Options(table: "adults", autosave: nil))
        try views.command("set notes = 'x'")
        #expect(Self.question(views) == nil)
        #expect(views.messageLine.contains("adults"), "a reason naming the view: \(views.messageLine)")
    }
}
