import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// "Saves never pay for a checkpoint": a save's commit never moves the write-ahead log into the
/// database file (SQLite's automatic checkpoint would, in the commit that crosses 1,000
/// pages); the container's background connection does, once the log passes its threshold.
@Suite("Checkpoints", .timeLimit(.minutes(10)))
struct CheckpointTests {
    /// Saves 1,500 rows of 4 KB each through the view context, in three saves: about 1,500
    /// pages of log, past SQLite's own threshold of 1,000.
    static func saveManyPages(_ fixture: PeopleFixture) throws {
        let view = fixture.view
        for save in 0..<3 {
            for row in 0..<500 {
                _ = try view.insert(into: "people", values: ["name": .text("P\(save)-\(row)"), "notes": .text(String(repeating: "x", count: 4_000))])
            }
            try view.save()
        }
    }

    /// The rows the database file itself holds, the log left out: a copy of the main file
    /// alone, opened on its own. Nil while the copy cannot be read (a checkpoint mid-write).
    static func rowsInTheMainFile(_ fixture: PeopleFixture) -> Int? {
        let copy = fixture.directory.file("main-only-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(atPath: copy) }
        guard (try? FileManager.default.copyItem(atPath: fixture.path, toPath: copy)) != nil else { return nil }
        guard let count = try? readDisk(copy, "SELECT count(*) FROM people"), case .integer(let rows) = count,
              (try? readDisk(copy, "PRAGMA integrity_check")) == .text("ok") else { return nil }
        return Int(rows)
    }

    @Test func aSaveNeverCheckpoints() throws {
        // The background checkpointer never runs: whatever reaches the main file would have
        // been moved there by a save.
        let fixture = try PeopleFixture(options: StoreOptions(checkpointThresholdPages: 1_000_000))
        let before = try #require(Self.rowsInTheMainFile(fixture))
        try Self.saveManyPages(fixture)
        #expect(try fixture.disk("SELECT count(*) FROM people") == .integer(Int64(before + 1_500)), "the rows are saved")
        #expect(Self.rowsInTheMainFile(fixture) == before, "no save moved the log into the file")
        let log = try #require(FileManager.default.attributesOfItem(atPath: fixture.path + "-wal")[.size] as? Int)
        #expect(log > 1_000 * 4_096, "the log holds past SQLite's own threshold: \(log) bytes")
    }

    @Test func theBackgroundConnectionCheckpointsPastItsThreshold() throws {
        let fixture = try PeopleFixture(options: StoreOptions(checkpointThresholdPages: 100))
        let before = try #require(Self.rowsInTheMainFile(fixture))
        try Self.saveManyPages(fixture)
        // A passive checkpoint needs no reader in the way; it comes within moments.
        let deadline = Date().addingTimeInterval(20)
        var seen = before
        while Date() < deadline, seen < before + 1_500 {
            seen = Self.rowsInTheMainFile(fixture) ?? seen
            if seen < before + 1_500 { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(seen == before + 1_500, "the log reached the file: \(seen - before) of 1,500 rows")
    }
}
