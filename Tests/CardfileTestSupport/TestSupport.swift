import Foundation

/// Seeds and sizes for the randomized tests.
///
/// Each randomized test prints its seed when it starts and names it in every failure;
/// `CARDFILE_SEED=N` replays one. `CARDFILE_FUZZ_SCALE=K` runs K times as many rounds (the
/// default keeps the suite fast).
public enum Fuzz {
    /// The seed to use: `CARDFILE_SEED` when set, else a fresh one. Printed either way.
    public static func seed(_ function: String = #function) -> UInt64 {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["CARDFILE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("\(function): seed \(seed) (CARDFILE_SEED=\(seed) replays it)")
        return seed
    }

    /// `rounds` times `CARDFILE_FUZZ_SCALE` (1 when unset).
    public static func scaled(_ rounds: Int) -> Int {
        let scale = ProcessInfo.processInfo.environment["CARDFILE_FUZZ_SCALE"].flatMap(Int.init) ?? 1
        return rounds * max(1, scale)
    }
}

/// The journal mode of the databases test fixtures make.
public enum FixtureJournal {
    /// Whether a fixture that asks for WAL gets it: true unless `CARDFILE_TEST_JOURNAL=rollback`,
    /// which runs every such fixture in a rollback journal (the store keeps the mode it finds).
    public static func wal(_ requested: Bool) -> Bool {
        requested && ProcessInfo.processInfo.environment["CARDFILE_TEST_JOURNAL"] != "rollback"
    }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same run.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(max(1, bound)))
    }
}

/// A folder of its own for one test, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init() {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/cardfile-test-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
