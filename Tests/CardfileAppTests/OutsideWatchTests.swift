@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import Foundation
import GRDB
import Testing

/// The check for another process's commits runs off the loop: a check stuck behind another
/// program's lock leaves the keys answered, and what it finds still arrives.
@Suite("Outside watch", .timeLimit(.minutes(10)))
struct OutsideWatchTests {
    @Test func aStuckCheckLeavesTheKeysAnswered() throws {
        let harness = try AppHarness()
        let app = harness.app
        // A check that cannot finish, as a stat on a network file system that stopped
        // answering: the errands' queue is held. (In WAL mode no lock of another program
        // blocks the check's read, so a lock cannot stand in for it.)
        let release = DispatchSemaphore(value: 0)
        app.errands.queue.async { release.wait() }
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Changed' WHERE id = 3")
        harness.clock.advance(CardfileApp.pollInterval)
        _ = app.tick()
        #expect(app.outsideWatch.isChecking)
        // Keys are handled and drawn meanwhile.
        for _ in 0..<2 {
            _ = app.update(.event(.key(.char("j"))))
            _ = app.tick()
        }
        var frame = Buffer(size: Size(width: 80, height: 24))
        _ = app.render(into: &frame)
        #expect(app.list?.live.window.selectedLine == 2)
        #expect(frame.lines.contains { $0.contains("Linus") } && !frame.lines.contains { $0.contains("Changed") })
        #expect(app.outsideWatch.isChecking, "the check still waits: the keys did not wait for it")
        release.signal()
        // Once the check runs, the commit it finds reaches the screen.
        #expect(try harness.waitFor { $0.contains("Changed") }, "\(harness.screen)")
        #expect(harness.messageLine.contains("Outside changes arrived: 1 record on screen changed."), "\(harness.messageLine)")
    }

    @Test func aReplacedFileIsReportedOnceAndNoCheckRunsAfter() throws {
        let harness = try AppHarness()
        let other = harness.directory.file("other.sqlite")
        let queue = try DatabaseQueue(path: other)
        try queue.write { try $0.execute(sql: "CREATE TABLE cards (id INTEGER PRIMARY KEY, name TEXT)") }
        try queue.close()
        #expect(rename(other, harness.path) == 0)
        try harness.advance(.milliseconds(60))
        #expect(harness.messageLine.contains("File replaced"), "\(harness.messageLine)")
        // No check starts once the file is gone.
        harness.clock.advance(.milliseconds(60))
        _ = harness.app.tick()
        #expect(!harness.app.outsideWatch.isChecking)
    }
}
