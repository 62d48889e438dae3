import Foundation
import Testing
import CardfileStore
import CardfileTerminal
@testable import CardfileApp

/// The delete question names what goes with the record, counted; a delete that would be
/// refused says why without asking.
@Suite("Delete question", .timeLimit(.minutes(10)))
struct DeleteQuestionTests {
    static let family = """
        CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent ON DELETE CASCADE);
        CREATE TABLE grandchild (id INTEGER PRIMARY KEY, child_id INTEGER REFERENCES child ON DELETE CASCADE);
        CREATE TABLE note (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent ON DELETE SET NULL);
        CREATE TABLE keeper (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent);
        INSERT INTO parent VALUES (1, 'one'), (2, 'two'), (3, 'three');
        INSERT INTO child VALUES (10, 1), (11, 1);
        INSERT INTO grandchild VALUES (100, 10), (101, 11);
        INSERT INTO note VALUES (1, 1);
        INSERT INTO keeper VALUES (1, 2);
        """

    /// The dialog's text as one line: its rows joined, borders and padding dropped.
    static func dialogText(_ harness: AppHarness) -> String {
        harness.lines.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " │┃|")) }
            .filter { !$0.isEmpty }.joined(separator: " ")
            .split(separator: " ").joined(separator: " ")
    }

    @Test func theQuestionCountsWhatCascadesAndTheAnswerDoesIt() throws {
        let harness = try AppHarness(schema: Self.family, size: Size(width: 120, height: 30), options: CardfileApp.Options(table: "parent", autosave: nil))
        try harness.press(.char("d"))
        let text = Self.dialogText(harness)
        #expect(text.contains("Delete parent 1? Also deletes 2 child records and 2 grandchild records and sets parent_id to NULL in 1 note record. This is saved at once."), "\(harness.screen)")
        try harness.press(.char("y"))
        #expect(try harness.disk("SELECT (SELECT count(*) FROM child) || ',' || (SELECT count(*) FROM grandchild) || ',' || (SELECT count(parent_id) FROM note)") == "0,0,0".databaseValue)
    }

    @Test func aRecordWithNothingAttachedGetsThePlainQuestion() throws {
        let harness = try AppHarness(schema: Self.family, options: CardfileApp.Options(table: "parent", autosave: nil))
        try harness.press(.char("j"))
        try harness.press(.char("j"))
        try harness.press(.char("d"))
        #expect(Self.dialogText(harness).contains("Delete parent 3? This is saved at once."), "\(harness.screen)")
    }

    @Test func aDeleteThatWouldBeRefusedSaysWhyWithoutAsking() throws {
        let harness = try AppHarness(schema: Self.family, options: CardfileApp.Options(table: "parent", autosave: nil))
        try harness.press(.char("j"))
        try harness.press(.char("d"))
        #expect(!harness.screen.contains("Delete record"))
        #expect(harness.messageLine.contains("Not deleted") && harness.messageLine.contains("keeper"), "\(harness.messageLine)")
        #expect(try harness.disk("SELECT count(*) FROM parent") == 3.databaseValue)
    }

    @Test func aDeleteRefusedAfterTheQuestionSaysNotDeletedOnce() throws {
        // Asked while nothing referred to parent 3; another program adds a keeper of it
        // before the answer: the delete is refused, and the sentence has one prefix.
        let harness = try AppHarness(schema: Self.family, size: Size(width: 120, height: 30), options: CardfileApp.Options(table: "parent", autosave: nil))
        try harness.press(.char("G"))
        try harness.press(.char("d"))
        #expect(Self.dialogText(harness).contains("Delete parent 3?"), "\(harness.screen)")
        try LiveRefreshTests.outside(harness, "INSERT INTO keeper VALUES (2, 3)")
        try harness.press(.char("y"))
        #expect(harness.messageLine.hasPrefix("Not deleted: 1 problem."), "\(harness.messageLine)")
        #expect(!harness.messageLine.contains("Not saved"), "\(harness.messageLine)")
        #expect(try harness.disk("SELECT count(*) FROM parent") == 3.databaseValue)
    }

    @Test func aLockHeldElsewhereLeavesTheCountsOutAndSaysSo() throws {
        let harness = try AppHarness(schema: Self.family, size: Size(width: 120, height: 30), options: CardfileApp.Options(table: "parent", autosave: nil))
        let other = try TransferTests.Blocker(path: harness.path)
        try harness.press(.char("d"))
        let text = Self.dialogText(harness)
        #expect(text.contains("Delete parent 1? (What its foreign keys delete with it could not be counted:"), "\(harness.screen)")
        try other.release()
    }
}
