@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// The editor on a rollback-journal file: browsing leaves it as found, and a commit another
/// program is writing (which keeps readers out in this mode) is waited for and said, never
/// shown as a record of empty fields.
@Suite("Editor in a rollback journal", .timeLimit(.minutes(10)))
struct JournalModeAppTests {
    @Test func browsingAndQuittingLeaveTheFileAsFound() throws {
        let harness = try AppHarness(wal: false)
        #expect(harness.container.journalMode == .rollback)
        let before = try #require(FileManager.default.contents(atPath: harness.path))
        try harness.press(.char("j"), .char("j"), KeyEvent(.end), KeyEvent(.home), .char("]"), .char("["))
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), KeyEvent(.pageDown), KeyEvent(.escape))
        try harness.advance(.milliseconds(300))   // polls for outside changes
        try harness.command("find Grace")
        try harness.press(.control("q"))
        #expect(!harness.app.isRunning)
        #expect(FileManager.default.contents(atPath: harness.path) == before)
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: harness.path + suffix), "\(suffix)")
        }
    }

    @Test func aRecordBehindAnotherProgramsCommitIsNotShownEmpty() throws {
        let harness = try AppHarness(wal: false, busyTimeout: 0.2)
        try harness.press(.char("j"))
        let lock = try LockHolder(path: harness.path, exclusive: true)
        try harness.press(KeyEvent(.enter))
        #expect(!harness.lines[0].contains("cards › 2"), "no form of empty fields: \(harness.lines[0])")
        #expect(harness.messageLine.contains("locked by another program that is writing to it"), "\(harness.messageLine)")
        // The poll for outside changes meets the same lock and waits for the next turn quietly.
        try harness.advance(.milliseconds(300))
        #expect(harness.messageLine.contains("locked by another program that is writing to it"), "\(harness.messageLine)")
        lock.release()
        #expect(try harness.waitFor { $0.contains("\(LockHolder.exclusiveAge)") })
        try harness.press(KeyEvent(.enter))
        #expect(harness.lines[0].contains("cards › 2"))
        #expect(harness.screen.contains("Grace") && harness.screen.contains("\(LockHolder.exclusiveAge)"))
    }
}
