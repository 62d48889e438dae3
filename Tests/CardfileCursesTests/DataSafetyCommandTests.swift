import Foundation
import Testing

/// The commands destroy nothing the person did not ask them to: run as a person runs them,
/// with the bytes of every file they were pointed at compared before and after.
@Suite("Commands that could destroy files", .timeLimit(.minutes(10)))
struct DataSafetyCommandTests {
    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func exportNeverWritesOverTheDatabaseAndReplacesAFileOnlyWithForce() throws {
        let place = try CommandTests.Workspace(demoRows: 20)
        defer { place.remove() }
        let (folder, database, cardfile) = (place.folder.path, place.database, place.cardfile)
        let link = folder + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database)
        let before = try #require(bytes(database))
        let relative = "./" + (database as NSString).lastPathComponent
        for target in [database, link, folder + "/./library.sqlite"] {
            for extra in [[], ["--format", "json"], ["--force"]] {
                let said = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "books", "--output", target] + extra, expectStatus: 2)
                #expect(said.contains("is the open database"), "\(target) \(extra): \(said)")
            }
        }
        // Relative to the working folder, too.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cardfile)
        process.arguments = ["export", "library.sqlite", "--table", "books", "--output", relative, "--force"]
        process.currentDirectoryURL = place.folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(bytes(database) == before)
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA integrity_check") == "ok")

        // Standard output appended onto the database is refused as well.
        let appending = Process()
        appending.executableURL = URL(fileURLWithPath: cardfile)
        appending.arguments = ["export", database, "--table", "books"]
        let handle = try #require(FileHandle(forWritingAtPath: database))
        handle.seekToEndOfFile()
        appending.standardOutput = handle
        appending.standardError = FileHandle.nullDevice
        try appending.run()
        appending.waitUntilExit()
        try handle.close()
        #expect(appending.terminationStatus == 2)
        #expect(bytes(database) == before)

        // Any existing file: refused without --force, replaced whole with it.
        let out = folder + "/out.csv"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: out))
        let refused = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "authors", "--output", out], expectStatus: 2)
        #expect(refused.contains("already exists and was left as it is"))
        #expect(bytes(out) == Data("precious".utf8))
        _ = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "authors", "--output", out, "--force"])
        #expect(String(decoding: bytes(out) ?? Data(), as: UTF8.self).hasPrefix("\"id\",\"name\""))
        // A folder is never a target.
        let toFolder = try EditorTmuxTests.run(cardfile, ["export", database, "--table", "authors", "--output", folder, "--force"], expectStatus: 2)
        #expect(toFolder.contains("is a folder"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.hasSuffix(".part") })
    }

    @Test func demoCreatesOnlyWhereNothingIsAndReplacesOnlyADemoWhenTold() throws {
        let place = try CommandTests.Workspace(demoRows: nil)
        defer { place.remove() }
        let (folder, cardfile) = (place.folder.path, place.cardfile)
        let inner = folder + "/photos"
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        try Data("a photo".utf8).write(to: URL(fileURLWithPath: inner + "/one.jpg"))
        let text = folder + "/todo.txt"
        try Data("buy milk\n".utf8).write(to: URL(fileURLWithPath: text))
        let other = folder + "/work.sqlite"
        _ = try EditorTmuxTests.sqlite(other, "CREATE TABLE invoices (n); INSERT INTO invoices VALUES (7)")
        let otherBytes = bytes(other)
        for (path, words) in [(inner, "is a folder"), (text, "not a Cardfile demo"), (other, "another database")] {
            for extra in [[], ["--force"]] {
                let said = try EditorTmuxTests.run(cardfile, ["demo", path, "--rows", "10"] + extra, expectStatus: 2)
                #expect(said.contains(words), "\(path): \(said)")
            }
        }
        #expect(bytes(inner + "/one.jpg") == Data("a photo".utf8))
        #expect(bytes(text) == Data("buy milk\n".utf8))
        #expect(bytes(other) == otherBytes)

        let demo = folder + "/demo.sqlite"
        _ = try EditorTmuxTests.run(cardfile, ["demo", demo, "--rows", "10"])
        // Not on a terminal, so nobody can be asked: an earlier demo needs --force.
        let asked = try EditorTmuxTests.run(cardfile, ["demo", demo, "--rows", "20"], expectStatus: 2)
        #expect(asked.contains("--force replaces it"))
        #expect(try EditorTmuxTests.sqlite(demo, "SELECT count(*) FROM books") == "10")
        _ = try EditorTmuxTests.run(cardfile, ["demo", demo, "--rows", "20", "--force"])
        #expect(try EditorTmuxTests.sqlite(demo, "SELECT count(*) FROM books") == "20")
    }

    @Test func demoAsksOnATerminalBeforeReplacingAnEarlierDemo() throws {
        let place = try CommandTests.Workspace(demoRows: nil)
        defer { place.remove() }
        let demo = place.folder.path + "/demo.sqlite"
        _ = try EditorTmuxTests.run(place.cardfile, ["demo", demo, "--rows", "10"])
        for (answer, books) in [("n", "10"), ("y", "20")] {
            let socket = "cardfile-demo-\(UUID().uuidString.prefix(8))"
            let session = try TmuxSession(terminal: "xterm-256color", width: 200, height: 10, program: place.cardfile,
                                          arguments: ["demo", demo, "--rows", "20"], socket: socket, tag: socket)
            defer { session.close() }
            try session.waitFor { $0.contains("Replace the demo database at \(demo)? (y/n)") }
            try session.send(literal: answer)
            try session.send(keys: ["Enter"])
            #expect(try session.waitForExit() == 0)
            #expect(try EditorTmuxTests.sqlite(demo, "SELECT count(*) FROM books") == books)
        }
    }

    @Test func anEmptyFileOpensWithAnErrorAndStaysEmpty() throws {
        let place = try CommandTests.Workspace(demoRows: nil)
        defer { place.remove() }
        let empty = place.folder.path + "/new.db"
        FileManager.default.createFile(atPath: empty, contents: Data())
        let said = try EditorTmuxTests.run(place.cardfile, [empty], expectStatus: 2)
        #expect(said.contains("is empty, not an SQLite database"))
        #expect(bytes(empty) == Data())
        #expect(try FileManager.default.contentsOfDirectory(atPath: place.folder.path) == ["new.db"])
    }
}

/// Imports from inputs that never end or never come, stopped by Ctrl-C.
/// A WAL-mode database in a folder this process cannot write: opened as a read-only
/// snapshot (SQLite needs a shared-memory file beside a WAL file, which the folder cannot
/// hold), or refused with the reason when its log holds changes a snapshot would miss.
@Suite("A database in a read-only folder", .timeLimit(.minutes(10)))
struct ReadOnlyFolderTests {
    /// Runs `cardfile arguments` with `folder` read-only: remounted read-only in a mount
    /// namespace of its own when running as root (root writes through permissions), else
    /// with its permissions taken away.
    static func runWithReadOnlyFolder(_ folder: String, _ cardfile: String, _ arguments: [String], expectStatus: Int32 = 0) throws -> String {
        if getuid() == 0 {
            let script = "mount --bind \"$1\" \"$1\" && mount -o remount,ro,bind \"$1\" \"$1\" && shift && exec \"$@\""
            return try EditorTmuxTests.run("/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", folder, cardfile] + arguments, expectStatus: expectStatus)
        }
        chmod(folder, 0o555)
        defer { chmod(folder, 0o755) }
        return try EditorTmuxTests.run(cardfile, arguments, expectStatus: expectStatus)
    }

    @Test func aWALDatabaseOpensAsASnapshotOrSaysWhyNot() throws {
        let place = try CommandTests.Workspace(demoRows: 20)
        defer { place.remove() }
        let folder = place.folder.appendingPathComponent("shelf").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let database = folder + "/library.sqlite"
        try FileManager.default.copyItem(atPath: place.database, toPath: database)
        #expect(try EditorTmuxTests.sqlite(database, "PRAGMA journal_mode") == "wal")
        let output = place.folder.appendingPathComponent("authors.csv").path

        // Clean (no log, no shared memory): export reads it, and the file stays as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let said = try Self.runWithReadOnlyFolder(folder, place.cardfile, ["export", database, "--table", "authors", "--output", output])
        let authors = try EditorTmuxTests.sqlite(database, "SELECT count(*) FROM authors")
        #expect(said.contains("Exported \(authors) rows"), "\(said)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["library.sqlite"])

        // With changes still in its log and no shared memory, a snapshot would miss them: the
        // error says so and what to do.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = ["sqlite3", database, "PRAGMA wal_autocheckpoint = 0; INSERT INTO authors (name) VALUES ('Late');", ".shell kill -9 $PPID"]
        try writer.run()
        writer.waitUntilExit()
        try? FileManager.default.removeItem(atPath: database + "-shm")
        let wal = (try FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? Int) ?? 0
        #expect(wal > 0, "the log holds the insert")
        let refused = try Self.runWithReadOnlyFolder(folder, place.cardfile, ["export", database, "--table", "authors", "--output", output, "--force"], expectStatus: 2)
        #expect(refused.contains("its log (library.sqlite-wal) holds changes not yet in the file"), "\(refused)")
    }
}

@Suite("Imports that never end", .timeLimit(.minutes(10)))
struct EndlessImportCommandTests {
    private func start(_ cardfile: String, _ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cardfile)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, output)
    }

    /// Waits (10 s at most) until the process waits on `input`: a thread blocked opening it
    /// (a FIFO without a writer) or the file open among its descriptors.
    static func waitUntilReading(_ input: String, process: Process) -> Bool {
        let pid = process.processIdentifier
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, process.isRunning {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            if descriptors.contains(where: { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == input }) {
                return true
            }
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            if threads.contains(where: { thread in
                let waiting = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/wchan", encoding: .utf8)) ?? ""
                return waiting.contains("fifo") || waiting.contains("wait_for_partner")
            }) {
                return true
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    @Test func ctrlCStopsAnImportWhateverItWaitsOn() throws {
        let place = try CommandTests.Workspace(demoRows: 10)
        defer { place.remove() }
        let fifo = place.folder.path + "/never.csv"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Waiting for a writer that never comes; then reading /dev/zero without end.
        for arguments in [["import", place.database, fifo, "--table", "authors"],
                          ["import", place.database, "/dev/zero", "--table", "authors", "--format", "csv"]] {
            let (process, output) = try start(place.cardfile, arguments)
            // Interrupted once it waits on its input (which it opens after it listens for
            // Ctrl-C), seen in /proc rather than guessed by a sleep.
            #expect(Self.waitUntilReading(arguments[2], process: process), "\(arguments): never seen waiting on its input")
            let sent = Date()
            process.interrupt()
            process.waitUntilExit()
            let took = Date().timeIntervalSince(sent)
            let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 130, "\(arguments): \(said)")
            #expect(took < 5, "\(arguments) took \(took) s to stop")
        }
        #expect(try EditorTmuxTests.sqlite(place.database, "PRAGMA integrity_check") == "ok")
    }

    @Test func standardInputImportsAsDash() throws {
        let place = try CommandTests.Workspace(demoRows: 10)
        defer { place.remove() }
        let (process, output) = try { () throws -> (Process, Pipe) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: place.cardfile)
            process.arguments = ["import", place.database, "-", "--table", "authors"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.fileHandleForWriting.write(Data("id|name\n700|Piped\n".utf8))
            try input.fileHandleForWriting.close()
            return (process, output)
        }()
        process.waitUntilExit()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(said)")
        #expect(try EditorTmuxTests.sqlite(place.database, "SELECT name FROM authors WHERE id = 700") == "Piped")
    }
}
