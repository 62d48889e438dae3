import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// `:import` and `:export` in the editor: they run in the background while keys are handled,
/// show their progress, end with a summary and a report, and an upsert reaches the open form.
@Suite(.timeLimit(.minutes(10))) struct TransferTests {
    /// A second connection holding the write lock until `release()`: the import waits for
    /// it, so the test sees the import running without racing it.
    final class Blocker: @unchecked Sendable {
        let queue: DatabaseQueue

        init(path: String) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true   // the lock outlives one access
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
        }

        func release() throws {
            try queue.inDatabase { try $0.execute(sql: "COMMIT") }
            try queue.close()
        }
    }

    /// Waits (really, 10 s at most) until one of this process's writes holds the write turn.
    static func waitUntilAWriteIsUnderWay(_ container: Container) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard container.core.writeGate.tryEnter() else { return true }
            container.core.writeGate.leave()
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// Waits (10 s at most) until no write of this process holds the write turn, and keeps it
    /// free: the import's thread has ended or never started another batch.
    static func waitUntilNoWriteIsUnderWay(_ container: Container) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if container.core.writeGate.tryEnter() {
                container.core.writeGate.leave()
                return true
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// A CSV of `rows` new cards.
    static func cardsFile(_ harness: AppHarness, rows: Int, name: String = "more.csv") throws -> String {
        var text = "name,phone,age,notes\n"
        for index in 0..<rows { text += "Person \(index),p\(index),\(index % 90),\"note \(index)\"\n" }
        let path = harness.directory.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func anImportRunsWhileKeysAreHandledAndTheListRefreshesWhenItEnds() throws {
        let harness = try AppHarness()
        let file = try Self.cardsFile(harness, rows: 3_000)
        let blocker = try Blocker(path: harness.path)
        try harness.command("import \(file) --batch-size 500")
        #expect(harness.statusLine.contains("importing more.csv"))
        // The import waits for the lock; the editor goes on.
        try harness.press(.char("j"))
        #expect(harness.statusLine.contains("row 2 of 4"))
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("cards › 2"))
        try harness.press(KeyEvent(.escape), .char("/"))
        try harness.type("id = 3004")                                    // Person 2999, of the last batch
        try harness.press(KeyEvent(.enter))
        try blocker.release()
        // The clock stands still, so the list's own refresh (at most every 50 ms) never
        // falls due: what the frame shows comes from the end of the import.
        let deadline = Date().addingTimeInterval(10)
        while !harness.messageLine.contains("imported"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            try harness.settle()
        }
        #expect(harness.messageLine.contains("more.csv: imported 3,000 rows: 3,000 inserted"))
        #expect(harness.screen.contains("Person 2999"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 3_004.databaseValue)
    }

    /// Feeds rows into a FIFO on a thread of its own, back to back, until told to stop: an
    /// import reading it goes on exactly as long as the test wants.
    final class RowStream: @unchecked Sendable {
        let path: String
        private let stop = Locked(false)
        private let done = DispatchSemaphore(value: 0)
        private(set) var written = 0

        init(path: String) throws {
            self.path = path
            guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }

        func start() {
            // A reader that stops early makes a write fail (EPIPE) rather than end the process.
            signal(SIGPIPE, SIG_IGN)
            Thread.detachNewThread { [self] in
                // Opening blocks until the import opens its end.
                guard let handle = FileHandle(forWritingAtPath: path) else { done.signal(); return }
                do {
                    try handle.write(contentsOf: Data("name,phone,age,notes\n".utf8))
                    while !stop.value {
                        let rows = (written..<(written + 20)).map { "Streamed \($0),s\($0),\($0 % 90),\"note\"\n" }.joined()
                        try handle.write(contentsOf: Data(rows.utf8))
                        written += 20
                    }
                } catch {
                    // The import stopped reading: the test's own checks say so.
                }
                try? handle.close()
                done.signal()
            }
        }

        /// Ends the input after the rows under way; returns how many rows were written.
        func finish() -> Int {
            stop.withLock { $0 = true }
            done.wait()
            return written
        }
    }

    @Test func savesGetThroughWhileAnImportWrites() throws {
        let harness = try AppHarness()
        // The import reads a stream the test ends: it is sure to be writing batch after batch
        // for every save below, however fast or slow this machine is.
        let stream = try RowStream(path: harness.directory.file("stream.csv"))
        stream.start()
        try harness.command("import \(stream.path) --batch-size 20")
        try harness.press(KeyEvent(.enter))                              // Ada's form
        // Saves while batches follow each other back to back: each gets its turn within its
        // short wait (the import waits for it), none reports busy.
        let saves = 10
        for save in 0..<saves {
            #expect(Self.waitUntilAWriteIsUnderWay(harness.container), "save \(save): a batch is being written")
            try harness.type("x")
            try harness.press(.control("s"))
            #expect(harness.statusLine.contains("importing"), "save \(save): \(harness.statusLine)")
            #expect(harness.messageLine.contains("Saved."), "save \(save): \(harness.messageLine)")
        }
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada" + String(repeating: "x", count: saves))
        let rows = stream.finish()
        try harness.press(KeyEvent(.escape))
        #expect(try harness.waitFor { _ in !harness.statusLine.contains("importing") })
        // (A save's message may have replaced the summary: the report keeps it.)
        try harness.press(.char("R"))
        #expect(harness.screen.contains("Imported \(rows.formatted()) rows: \(rows.formatted()) inserted."))
        #expect(try harness.disk("SELECT count(*) FROM cards") == (4 + rows).databaseValue)
    }

    @Test func cancelKeepsTheCommittedBatchesAndTheSummaryIsExact() throws {
        let harness = try AppHarness()
        let file = try Self.cardsFile(harness, rows: 2_000)
        let blocker = try Blocker(path: harness.path)
        try harness.command("import \(file) --batch-size 500")
        // Cancelled while its first batch waits for the lock (it holds this process's write
        // turn then): that batch ends whole, and no other starts.
        #expect(Self.waitUntilAWriteIsUnderWay(harness.container))
        try harness.command("import cancel")
        #expect(harness.messageLine.contains("Stopping importing more.csv"))
        try blocker.release()
        #expect(try harness.waitFor { $0.contains("cancelled") })
        // Whole batches, as many as the summary says, and the file sound.
        let message = harness.messageLine
        let imported = try #require(message.firstMatch(of: /imported ([0-9,]+) rows?/).map { Int($0.1.replacingOccurrences(of: ",", with: "")) ?? -1 })
        #expect(imported == 500, "the batch under way ends whole and no other starts: \(message)")
        #expect(message.contains("cancelled before line \(imported + 2)"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == (4 + imported).databaseValue)
        #expect(try harness.disk("PRAGMA integrity_check") == "ok".databaseValue)
    }

    @Test func rejectedRowsAreCountedAndTheReportKeyListsThem() throws {
        let harness = try AppHarness()
        let file = harness.directory.file("bad.csv")
        try "name,age\nAnna,30\nBob,abc\n,5\nCleo,41\n".write(toFile: file, atomically: true, encoding: .utf8)
        try harness.command("import \(file)")
        #expect(try harness.waitFor { $0.contains("imported 2 rows") })
        #expect(harness.messageLine.contains("2 rejected"))
        #expect(harness.messageLine.contains("R shows the report"))
        try harness.press(.char("R"))
        #expect(harness.screen.contains("Import of bad.csv into cards"))
        #expect(harness.screen.contains("bad.csv line 3, column age: “abc” is not a whole number"))
        #expect(harness.screen.contains("bad.csv line 4"))
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Import of bad.csv"))
    }

    @Test func anUpsertOfTheOpenRecordReachesTheFormAsAnOutsideChange() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))                              // Ada's form
        try harness.press(KeyEvent(.tab), KeyEvent(.tab), KeyEvent(.tab))  // notes
        try harness.press(.control("u"))
        try harness.type("mine")
        let file = harness.directory.file("fix.csv")
        try "id,name,phone,notes\n1,Ada L.,111,theirs\n".write(toFile: file, atomically: true, encoding: .utf8)
        try harness.press(KeyEvent(.function(2)))
        try harness.type("import \(file) --mode upsert")
        try harness.press(KeyEvent(.enter))
        #expect(try harness.waitFor { $0.contains("imported 1 row") })
        // The untouched field took the new value; the edited one keeps mine and is marked.
        #expect(harness.screen.contains("Ada L."))
        #expect(harness.screen.contains("mine"))
        #expect(harness.screen.contains("theirs"))
        try harness.press(.control("s"))
        #expect(harness.screen.contains("Mine"))
        #expect(harness.screen.contains("Theirs"))
        #expect(try harness.diskText("SELECT notes FROM cards WHERE id = 1") == "theirs")
    }

    @Test func anExportWritesTheListAsShown() throws {
        let harness = try AppHarness()
        try harness.press(.char("/"))
        try harness.type("age >= 30")
        try harness.press(KeyEvent(.enter), .char("]"))                  // sort by id, descending
        let file = harness.directory.file("out.csv")
        try "old content".write(toFile: file, atomically: true, encoding: .utf8)
        try harness.command("export out.csv")                           // relative to the working folder
        #expect(harness.messageLine.contains("out.csv exists; :export! out.csv replaces it."))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "old content")
        try harness.command("export! out.csv")
        #expect(try harness.waitFor { $0.contains("Exported 2 rows") })
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written == "\"id\",\"name\",\"phone\",\"age\",\"notes\"\n2,\"Grace\",\"222\",45,\n1,\"Ada\",\"111\",36,\"first\"\n")
    }

    /// The files in the harness's folder other than the database and its companions.
    static func filesBeside(_ harness: AppHarness) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: harness.directory.path)
            .filter { !$0.hasPrefix("cards.sqlite") }.sorted()
    }

    @Test func aCancelledExportOverAFileKeepsItsBytesAndLeavesNothingElse() throws {
        // Enough rows that the export is still writing when the cancel comes a few keys later
        // (about two seconds of work for it, in a debug build, against a few milliseconds of
        // keys). No lock holds it back: in a rollback journal a lock would hold the screen's
        // own reads too, and the test's keys with them.
        let harness = try AppHarness(schema: AppHarness.cards + """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
            INSERT INTO cards (name, notes) SELECT 'Person ' || i, 'a note long enough to make the rows worth writing ' || i FROM n;
            """)
        let file = harness.directory.file("out.csv")
        try "old content".write(toFile: file, atomically: true, encoding: .utf8)
        try harness.command("export! out.csv")
        #expect(harness.messageLine.contains("Exporting cards to out.csv"), "\(harness.messageLine)")
        // The keys handed over at once, drawn once.
        try harness.feed([.char(":")] + "export cancel".map { KeyEvent(.character($0)) } + [KeyEvent(.enter)])
        #expect(try harness.waitFor { _ in !harness.statusLine.contains("exporting") }, "the export stopped")
        // Cancelled, not finished first: the old bytes are there only when it was cancelled.
        #expect(harness.messageLine.contains("Export cancelled: out.csv was not written"), "\(harness.messageLine)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "old content")
        #expect(try Self.filesBeside(harness) == ["out.csv"], "no temporary file is left")
        try harness.press(.char("R"))
        #expect(harness.screen.contains("Export cancelled: out.csv was not written"))
    }

    @Test func aFailedExportOverAFileKeepsItsBytesAndLeavesNothingElse() throws {
        // Another program's commit in a rollback journal, held past the read's short busy
        // wait: the export fails.
        let harness = try AppHarness(wal: false, busyTimeout: 0.1)
        let file = harness.directory.file("out.csv")
        try "old content".write(toFile: file, atomically: true, encoding: .utf8)
        let holder = try LockHolder(path: harness.path, exclusive: true)
        defer { holder.release() }
        try harness.command("export! out.csv")
        #expect(try harness.waitFor { $0.contains("Export failed") })
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "old content")
        #expect(try Self.filesBeside(harness) == ["out.csv"], "no temporary file is left")
    }

    @Test func anExportNeverReplacesTheOpenDatabase() throws {
        let harness = try AppHarness()
        try harness.command("export! cards.sqlite")
        #expect(harness.messageLine.contains("cards.sqlite is the open database"))
        try harness.command("export! cards.sqlite-wal")
        #expect(harness.messageLine.contains("is the open database"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 4.databaseValue)
    }

    @Test func createIsForTheCommandLine() throws {
        let harness = try AppHarness()
        try harness.command("import x.csv --create")
        #expect(harness.messageLine.contains("--create makes a missing table: use it with cardfile import"))
    }

    @Test func anExportThatCannotWriteSaysSoAndLeavesNothing() throws {
        let harness = try AppHarness()
        try harness.command("export \(harness.directory.file("missing/out.csv"))")
        #expect(try harness.waitFor { $0.contains("Export failed") })
        try harness.press(.char("R"))
        #expect(harness.screen.contains("no such folder"))
        #expect(!FileManager.default.fileExists(atPath: harness.directory.file("missing")), "nothing was made where it could not write")
    }

    @Test func aFileThatCannotBeReadIsAClearFailure() throws {
        let harness = try AppHarness()
        try harness.command("import \(harness.directory.file("nothing.csv"))")
        #expect(try harness.waitFor { $0.contains("Import failed") })
        try harness.press(.char("R"))
        #expect(harness.screen.contains("such file."))
    }

    @Test func badOptionsAreExplainedAndHelpListsThem() throws {
        let harness = try AppHarness()
        try harness.command("import x.csv --mode sideways")
        #expect(harness.messageLine.contains("sideways"))
        try harness.command("import --help")
        #expect(harness.screen.contains("--mode"))
        #expect(harness.screen.contains("--on-error"))
    }

    @Test func theKeyAsksForTheFileWithCompletion() throws {
        let harness = try AppHarness()
        let folder = harness.directory.file("data")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["books.csv", "books 2.csv", "notes.json"] { FileManager.default.createFile(atPath: folder + "/" + name, contents: Data()) }
        try harness.press(.char("i"))
        #expect(harness.messageLine.contains(":import "))
        try harness.type(folder + "/no")
        try harness.press(KeyEvent(.tab))
        #expect(harness.messageLine.contains("\(folder)/notes.json"))
        for _ in 0..<"notes.json".count { try harness.press(KeyEvent(.backspace)) }
        try harness.type("b")
        try harness.press(KeyEvent(.tab))
        // Two names start with "books": the common part, and the candidates shown.
        #expect(harness.messageLine.hasSuffix("\(folder)/books") || harness.messageLine.contains("\(folder)/books "))
        #expect(harness.messageLine.contains("import"))
        try harness.type("\\ ")
        try harness.press(KeyEvent(.tab))
        #expect(harness.messageLine.contains("\(folder)/books\\ 2.csv"))
    }

    @Test func quittingDuringAnImportAsksAndStopsIt() throws {
        let harness = try AppHarness()
        let file = try Self.cardsFile(harness, rows: 2_000)
        let blocker = try Blocker(path: harness.path)
        try harness.command("import \(file) --batch-size 500")
        try harness.press(.control("q"))
        #expect(harness.screen.contains("Import running"))
        try harness.press(.char("n"))
        #expect(harness.app.isRunning)
        #expect(Self.waitUntilAWriteIsUnderWay(harness.container))
        try harness.press(.control("q"))
        try harness.press(.char("y"))
        // The import waits for the lock: the app says it waits and keeps answering.
        #expect(harness.app.isRunning)
        #expect(harness.messageLine.contains("Quitting: waiting for the import's batch"), "\(harness.messageLine)")
        try harness.press(.char("j"))
        #expect(harness.statusLine.contains("row 2 of"), "\(harness.statusLine)")
        try harness.press(.control("q"))
        #expect(harness.messageLine.contains("Quitting once importing more.csv stops"), "\(harness.messageLine)")
        #expect(harness.app.isRunning)
        // The lock goes: the batch ends, the import stops and the app quits.
        try blocker.release()
        #expect(try harness.waitFor { _ in !harness.app.isRunning })
        // Stopped, after whole batches (none when it had not written one yet).
        let count = try #require(Int.fromDatabaseValue(try harness.disk("SELECT count(*) FROM cards")))
        #expect((count - 4) % 500 == 0 && count < 2_004)
        #expect(try harness.disk("PRAGMA integrity_check") == "ok".databaseValue)
    }

    @Test func stopAndQuitAfterTheImportEndedUnderTheQuestionQuits() throws {
        let harness = try AppHarness()
        let file = try Self.cardsFile(harness, rows: 600)
        let blocker = try Blocker(path: harness.path)
        try harness.command("import \(file) --batch-size 500")
        try harness.press(.control("q"))
        #expect(harness.screen.contains("Import running"))
        // The import ends while the question is open.
        try blocker.release()
        #expect(try harness.waitFor { _ in !harness.statusLine.contains("importing") }, "\(harness.statusLine)")
        #expect(harness.screen.contains("Import running"))
        try harness.press(.char("y"))
        #expect(!harness.app.isRunning, "\(harness.screen)")
    }

    @Test func quittingDuringAnImportThatCannotStopQuitsAfterTheWait() throws {
        let harness = try AppHarness()
        let file = try Self.cardsFile(harness, rows: 2_000)
        let blocker = try Blocker(path: harness.path)
        try harness.command("import \(file) --batch-size 500")
        // Wait until the import's first batch waits for the lock (it holds this process's
        // write turn then); asked to stop before, it would stop at once.
        #expect(Self.waitUntilAWriteIsUnderWay(harness.container))
        try harness.press(.control("q"), .char("y"))
        // Ten seconds on the app's clock (the lock never goes).
        try harness.advance(.milliseconds(9_900))
        #expect(harness.app.isRunning, "still waiting for the batch")
        #expect(harness.messageLine.contains("Quitting: waiting"), "\(harness.messageLine)")
        try harness.advance(.milliseconds(200))
        #expect(!harness.app.isRunning, "the wait is over: it quits anyway")
        try blocker.release()
        // Once the lock is gone the import's thread ends (its batch rolled back or whole):
        // only whole batches are in the file, and it is sound.
        #expect(Self.waitUntilNoWriteIsUnderWay(harness.container))
        let count = try #require(Int.fromDatabaseValue(try harness.disk("SELECT count(*) FROM cards")))
        #expect((count - 4) % 500 == 0 && count <= 2_004, "\(count) rows")
        #expect(try harness.disk("PRAGMA integrity_check") == "ok".databaseValue)
    }

    @Test func aSaveDuringAnAllOrNothingImportReportsBusyAndWhy() throws {
        let harness = try AppHarness()
        let file = try Self.cardsFile(harness, rows: 100)
        let blocker = try Blocker(path: harness.path)
        try harness.command("import \(file) --atomic")
        try harness.press(KeyEvent(.enter))
        try harness.type("!")
        // The import holds this process's write turn while it waits for the lock; the save
        // gives up after its own short wait instead of freezing the screen.
        #expect(Self.waitUntilAWriteIsUnderWay(harness.container))
        try harness.press(.control("s"))
        #expect(harness.messageLine.contains("all-or-nothing import of more.csv"))
        try blocker.release()
        #expect(try harness.waitFor { $0.contains("saved") || $0.contains("imported 100 rows") })
        #expect(try harness.waitFor { _ in (try? harness.diskText("SELECT name FROM cards WHERE id = 1")) == "Ada!" })
        #expect(try harness.disk("SELECT count(*) FROM cards") == 104.databaseValue)
    }
}
