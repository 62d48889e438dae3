import CardfileTestSupport
import Testing
@testable import CardfileStore

/// The checkpoint search that asks an engine about many checkpoints at once finds what the
/// binary search finds, in few calls (a seeded comparison over random sizes and widths).
@Suite("Position index: the search asking many at once")
struct PositionIndexSearchTests {
    @Test func findsWhatTheBinarySearchFindsInFewCalls() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for _ in 0..<Fuzz.scaled(300) {
            var index = PositionIndex(stride: 1)
            let count = random.next(below: 5000)
            for number in 0..<count { index.append([.integer(Int64(number))]) }
            let threshold = Int64(random.next(below: count + 2)) - 1
            let width = 1 + random.next(below: 20)
            let expected = index.checkpoint { key in key[0].wholeNumber.map { $0 <= threshold } ?? false }
            var calls = 0
            let found = index.checkpoint(askingAtOnce: width) { keys in
                calls += 1
                #expect(keys.count <= width, "seed \(seed)")
                return keys.map { $0[0].wholeNumber.map { $0 <= threshold } ?? false }
            }
            #expect(found?.position == expected?.position && found?.key == expected?.key, "seed \(seed): \(index.keys.count) keys, threshold \(threshold), width \(width)")
            // Each call cuts the candidates into width + 1 parts.
            var bound = 1
            var reach = width + 1
            while reach < index.keys.count + 1 { reach *= width + 1; bound += 1 }
            #expect(calls <= bound + 1, "seed \(seed): \(calls) calls for \(index.keys.count) keys at width \(width)")
        }
    }
}
