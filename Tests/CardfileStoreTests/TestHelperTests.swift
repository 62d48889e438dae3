import Foundation
import Testing
@testable import CardfileStore

/// The helpers tests lean on fail rather than hang: a test stuck on a lock it cannot take
/// would stall the whole run on a busy machine.
@Suite("Test helpers", .timeLimit(.minutes(10)))
struct TestHelperTests {
    @Test func aSQLite3SessionThatDoesNotAnswerFailsInsteadOfHanging() throws {
        let fixture = try PeopleFixture()
        let holder = try SQLite3Session(path: fixture.path)
        try holder.run("BEGIN IMMEDIATE;")
        // This one waits for the lock (its own timeout is 5 s, after which it would answer with
        // an error and the marker, and `run` would return): the helper gives up first, and says so.
        let waiting = try SQLite3Session(path: fixture.path)
        #expect(throws: SQLite3Failure.self) { try waiting.run("BEGIN IMMEDIATE;", timeout: 0.5) }
        try holder.run("COMMIT;")
        holder.close()
    }
}
