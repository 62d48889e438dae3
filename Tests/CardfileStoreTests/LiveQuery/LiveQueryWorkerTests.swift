@testable import CardfileStore
import Testing

/// The live query's background worker.
@Suite("Live query worker", .timeLimit(.minutes(10)))
struct LiveQueryWorkerTests {
    /// A job that finished but whose result nobody took yet is still work pending: the state
    /// in which `waitForBackgroundWork` used to return early (the list's count then stayed
    /// approximate in a loaded full test run).
    @Test func aFinishedJobsUntakenResultIsPendingWork() {
        let worker = LiveQueryWorker(table: "items", watching: ["items"], wake: {})
        #expect(!worker.hasPendingWork)
        worker.start(.counting(fraction: nil)) { _, _ in .failed(.noSuchTable("x"), 1) }
        worker.waitUntilIdle()
        #expect(!worker.isBusy)
        #expect(worker.hasPendingWork, "the result waits to be taken")
        #expect(worker.takeResults().count == 1)
        #expect(!worker.hasPendingWork)
    }
}
