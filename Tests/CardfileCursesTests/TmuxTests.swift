import Foundation
import Testing

/// The demo program over the curses backend, in a real terminal (tmux), read back with
/// `capture-pane`. Each test checks afterwards that the terminal settings (`stty -a`) are
/// exactly what they were before the program started.
@Suite("Curses backend in tmux", .serialized, .timeLimit(.minutes(10)))
struct TmuxTests {
    @Test(arguments: ["xterm-256color", "screen-256color", "linux"])
    func typeResizeQuitAndRestore(terminal: String) throws {
        let session = try TmuxSession(terminal: terminal, width: 60, height: 20)
        defer { session.close() }
        // Wait for the whole first frame: on a loaded machine a capture can fall between
        // the title and the rows.
        let screen = try session.waitFor { $0.contains("Cardfile terminal demo") && $0.contains("60×20") && $0.contains("␛[31m") }
        #expect(screen.contains("山田太郎"))
        #expect(screen.contains("␛[31m"), "escape sequences in data are shown, not obeyed")

        try session.send(literal: "hello 中文")
        try session.waitFor { $0.contains("Type: hello 中文") }

        // Ctrl-S does not freeze the terminal: the next key still arrives.
        try session.send(keys: ["C-s"])
        try session.waitFor { $0.contains("key: Ctrl-S") }
        try session.send(literal: "!")
        try session.waitFor { $0.contains("hello 中文!") }

        try session.resize(width: 10, height: 4)
        try session.waitFor { $0.contains("10×4") }

        try session.resize(width: 60, height: 20)
        try session.waitFor { $0.contains("60×20") && $0.contains("Type: hello 中文!") }

        try session.send(keys: ["F1"])
        try session.waitFor { $0.contains("Show or hide this help") }
        try session.send(keys: ["F1", "Escape"])
        try session.waitFor { $0.contains("Leave the demo?") }
        try session.send(literal: "y")
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
    }

    @Test func dumbTerminalIsDegradedNotBroken() throws {
        let session = try TmuxSession(terminal: "dumb", width: 60, height: 20)
        defer { session.close() }
        try session.waitFor { $0.contains("Cardfile terminal demo") }
        try session.send(literal: "abc")
        try session.waitFor { $0.contains("Type: abc") }
        try session.send(keys: ["Escape"])
        try session.waitFor { $0.contains("Leave the demo?") }
        try session.send(literal: "y")
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
    }

    @Test func ctrlZSuspendsWithTheTerminalRestoredAndResumeRepaints() throws {
        let session = try TmuxSession(terminal: "xterm-256color", width: 60, height: 20)
        defer { session.close() }
        try session.waitFor { $0.contains("Cardfile terminal demo") }
        try session.send(literal: "kept")
        try session.waitFor { $0.contains("Type: kept") }
        let tty = try session.run(["display-message", "-p", "-t", "demo", "#{pane_tty}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try session.send(keys: ["C-z"])
        // Stopped, with the terminal back in its normal mode.
        let deadline = Date().addingTimeInterval(10)
        var settings = ""
        while Date() < deadline {
            settings = try session.terminalSettings(tty: tty)
            if settings.contains(" icanon") && !settings.contains(" -icanon") { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let words = Set(settings.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).map(String.init))
        #expect(words.contains("icanon") && words.contains("echo"), "the terminal is usable while the program is stopped: \(settings)")
        try session.resume()
        try session.waitFor { $0.contains("Cardfile terminal demo") && $0.contains("Type: kept") }
        try session.send(literal: "!")
        try session.waitFor { $0.contains("Type: kept!") }
        try session.send(keys: ["C-q"])
        try session.waitFor { $0.contains("Leave the demo?") }
        try session.send(literal: "y")
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
    }

    @Test func aCrashRestoresTheTerminal() throws {
        let session = try TmuxSession(terminal: "xterm-256color", width: 80, height: 30, arguments: ["--crash"],
                                      environment: "SWIFT_BACKTRACE=interactive=no")
        defer { session.close() }
        let status = try session.waitForExit()
        // Swift's crash report is legible: it was printed on the restored terminal.
        #expect(try session.run(["capture-pane", "-p", "-S", "-", "-t", "demo"]).contains("Program crashed"))
        // Died of the trap's signal (128 + its number), not a clean exit.
        #expect(status.map { $0 > 128 } == true, "exit status \(String(describing: status))")
        try session.expectTerminalRestored()
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let session = try TmuxSession(terminal: "xterm-256color", width: 60, height: 20)
        defer { session.close() }
        try session.waitFor { $0.contains("Cardfile terminal demo") }
        try session.signal("TERM")
        #expect(try session.waitForExit() == 0)
        try session.expectTerminalRestored()
    }
}

/// A tmux server of its own running the demo in one pane, with the terminal settings saved
/// before and after the demo.
final class TmuxSession {
    var socket = "cardfile-test-\(UUID().uuidString.prefix(8))"
    let folder: URL
    /// A word on the program's command line that names this session's process (for `pkill`).
    let tag: String

    /// Runs `program` (the toolkit demo by default) in the pane. The demo is given `--tag`;
    /// another program is named by `tag`, a word of its arguments that nothing else running
    /// has on its command line (a file name of its own, say).
    init(terminal: String, width: Int, height: Int, program: String = "cardfile-termdemo", arguments: [String] = [], environment: String = "",
         socket: String? = nil, tag: String? = nil) throws {
        if let socket { self.socket = socket }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(self.socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let demo = try Self.programPath(program)
        var arguments = arguments
        if program == "cardfile-termdemo" {
            self.tag = UUID().uuidString
            arguments = ["--tag", self.tag] + arguments
        } else {
            self.tag = tag ?? UUID().uuidString
        }
        // The program meets a clean environment: no editor, mouse setting or test knob of the
        // person running the tests, and XDG folders of its own (no user themes, no remembered
        // columns); what a test needs it passes in `environment`, which comes after and wins.
        // Job control as in an interactive shell: the demo gets a process group of its own, so
        // Ctrl-Z really stops it (a stop signal sent to an orphaned group is discarded). When it
        // stops, the script waits for the test's go-ahead, then resumes it with `fg`.
        let script = """
            set -m
            stty -a > '\(folder.path)/before'
            env -u VISUAL -u EDITOR -u CARDFILE_MOUSE -u CARDFILE_SEED -u CARDFILE_FUZZ_SCALE -u CARDFILE_TEST_JOURNAL \\
                XDG_DATA_HOME='\(folder.path)/xdg-data' XDG_STATE_HOME='\(folder.path)/xdg-state' \\
                XDG_CONFIG_HOME='\(folder.path)/xdg-config' XDG_CACHE_HOME='\(folder.path)/xdg-cache' \\
                \(environment) TERM=\(terminal) '\(demo)' \(arguments.map { "'\($0)'" }.joined(separator: " "))
            status=$?
            while [ $status -eq 148 ]; do
                while [ ! -f '\(folder.path)/resume' ]; do sleep 0.05; done
                rm '\(folder.path)/resume'
                fg > /dev/null
                status=$?
            done
            stty -a > '\(folder.path)/after'
            echo $status > '\(folder.path)/exit'
            """
        try script.write(to: folder.appendingPathComponent("run.sh"), atomically: true, encoding: .utf8)
        // The server reads this before the pane starts, so the pane stays readable after the demo
        // ends. (Windows keep the size the test gives them with `window-size manual`, set after
        // the session starts: tmux 3.3a's server dies when a config file sets it.)
        try "set-option -g remain-on-exit on\n".write(to: folder.appendingPathComponent("tmux.conf"), atomically: true, encoding: .utf8)
        try run(["-f", folder.appendingPathComponent("tmux.conf").path,
                 "new-session", "-d", "-s", "demo", "-x", String(width), "-y", String(height), "bash '\(folder.path)/run.sh'"])
        try run(["set-option", "-g", "window-size", "manual"])
    }

    func close() {
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// The folder a session with this socket name works in (for files the program gets).
    static func folderFor(_ socket: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(socket)
    }

    /// The demo binary: next to the test bundle, where `swift build` puts every product.
    static func demoPath() throws -> String {
        try programPath("cardfile-termdemo")
    }

    /// A product's binary, next to the test bundle; an absolute path is taken as it is.
    static func programPath(_ name: String) throws -> String {
        if name.hasPrefix("/") { return name }          // a system program (a shell)
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug"))
        for folder in candidates {
            var directory = folder
            for _ in 0..<3 {
                let path = directory.appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw TmuxFailure("\(name) was not built next to the tests (looked in \(candidates.map(\.path)))")
    }

    /// Runs a tmux command and returns what it printed.
    ///
    /// Spawned directly and reaped with `waitpid`: Foundation's `Process` learns that a child
    /// ended through a descriptor the child inherits, and the tmux server that `new-session`
    /// daemonises keeps it open, so `waitUntilExit` would never return. Output goes to a file
    /// for the same reason.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let outputFile = folder.appendingPathComponent("tmux-output-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputFile) }
        let status = try spawnAndWait(["tmux", "-L", socket] + arguments, output: outputFile)
        let text = (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? ""
        guard status == 0 else { throw TmuxFailure("tmux \(arguments.joined(separator: " ")) failed (\(status)): \(text)") }
        return text
    }

    private func spawnAndWait(_ arguments: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else is inherited: a daemon holding the test runner's pipes would keep
        // `swift test` waiting for it.
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for descriptor in open where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // A clean signal state, as a login shell would have: the test runner's threads block
        // signals, and a spawned tmux (and the demo under it) would inherit that.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        guard result == 0 else {
            throw TmuxFailure("\(arguments[0]) could not be started (is it installed? .ci/run installs it): error \(result)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        // Exited normally: the status is in bits 8–15.
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
    }

    func capture() throws -> String {
        try run(["capture-pane", "-p", "-t", "demo"])
    }

    func send(literal text: String) throws {
        try run(["send-keys", "-t", "demo", "-l", text])
    }

    func send(keys: [String]) throws {
        try run(["send-keys", "-t", "demo"] + keys)
    }

    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", "demo", "-x", String(width), "-y", String(height)])
    }

    /// Lets the pane's shell bring a stopped demo back (`fg`).
    func resume() throws {
        try Data().write(to: folder.appendingPathComponent("resume"))
    }

    /// `stty -a` of the pane's terminal, read from outside.
    func terminalSettings(tty: String) throws -> String {
        let file = folder.appendingPathComponent("stty-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try spawnAndWait(["stty", "-a", "-F", tty], output: file)
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }

    func signal(_ name: String) throws {
        _ = try spawnAndWait(["pkill", "-\(name)", "-f", tag], output: folder.appendingPathComponent("pkill-output").path)
    }

    /// Polls the screen until `condition` holds (up to 10 s) and returns it.
    @discardableResult
    func waitFor(_ condition: (String) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        var screen = ""
        while Date() < deadline {
            screen = try capture()
            if condition(screen) { return screen }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the screen never showed what was expected; it shows:\n\(screen)", sourceLocation: sourceLocation)
        throw TmuxFailure("timed out")
    }

    /// Waits for the demo to exit and returns its status.
    func waitForExit() throws -> Int32? {
        let file = folder.appendingPathComponent("exit")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            // `exit` is written last, after the settings.
            if let status = try? String(contentsOf: file, encoding: .utf8), status.hasSuffix("\n") {
                return Int32(status.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    /// The terminal settings after the demo equal those before it (the size aside).
    func expectTerminalRestored(sourceLocation: SourceLocation = #_sourceLocation) throws {
        func settings(_ name: String) throws -> String {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            return text.replacingOccurrences(of: #"rows \d+; columns \d+;"#, with: "", options: .regularExpression)
        }
        let before = try settings("before")
        let after = try settings("after")
        #expect(after == before, sourceLocation: sourceLocation)
        let words = Set(after.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).map(String.init))
        for flag in ["icanon", "echo", "ixon", "isig", "opost"] {
            #expect(words.contains(flag) && !words.contains("-" + flag), "\(flag) is back on", sourceLocation: sourceLocation)
        }
    }
}

struct TmuxFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
