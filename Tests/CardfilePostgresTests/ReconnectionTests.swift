@testable import CardfilePostgres
import CardfileTestSupport
import Testing

/// The pace of connecting again to a server that does not answer.
@Suite("PostgreSQL: reconnection pace")
struct ReconnectionTests {
    @Test func theFirstRetryIsAtOnceThenTheWaitDoublesUpToItsLongest() {
        var pace = Reconnection()
        let start = ContinuousClock.now
        #expect(pace.mayTry(at: start) && !pace.isUnreachable)
        pace.failed("refused", at: start)
        #expect(pace.isUnreachable && pace.reason == "refused")
        #expect(pace.mayTry(at: start), "the first retry is at once")
        var now = start
        var waits: [Duration] = []
        for _ in 0..<7 {
            pace.failed("refused", at: now)
            var wait = Duration.zero
            while !pace.mayTry(at: now + wait) { wait += .milliseconds(50) }
            waits.append(wait)
            now += wait
        }
        #expect(waits == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4)])
        pace.answered()
        #expect(!pace.isUnreachable && pace.mayTry(at: now))
    }

    /// Random failures and answers: a try is never allowed before the wait the failures so
    /// far ask for, never held back longer than the longest wait, and an answer ends it all.
    @Test func randomFailuresKeepThePaceWithinItsBounds() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        var pace = Reconnection()
        var now = ContinuousClock.now
        var failuresInARow = 0
        for _ in 0..<Fuzz.scaled(2000) {
            now += .milliseconds(random.next(below: 3000))
            if random.next(below: 5) == 0 {
                pace.answered()
                failuresInARow = 0
                #expect(!pace.isUnreachable && pace.mayTry(at: now), "seed \(seed)")
                continue
            }
            guard pace.mayTry(at: now) else {
                #expect(pace.isUnreachable, "seed \(seed)")
                continue
            }
            pace.failed("down", at: now)
            failuresInARow += 1
            let wanted: Duration = failuresInARow == 1 ? .zero : min(.milliseconds(250) * (1 << min(failuresInARow - 2, 10)), Reconnection.longestWait)
            #expect(pace.mayTry(at: now + wanted), "seed \(seed)")
            if wanted > .zero { #expect(!pace.mayTry(at: now + wanted - .milliseconds(1)), "seed \(seed)") }
        }
    }
}
