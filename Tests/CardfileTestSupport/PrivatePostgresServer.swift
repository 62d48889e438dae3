import Foundation

/// A PostgreSQL server of one test's own, which the test may kill and start again: the run's
/// server (``PostgresTestServer/current()``) serves every other test at the same time and must
/// never go down under them.
///
/// Made like the run's, by `scripts/postgres-server.sh` (Debian's server, a folder of its own,
/// a private port). ``stop()`` removes it; a test calls it in a `defer`.
public final class PrivatePostgresServer: @unchecked Sendable {
    /// psql and URLs for it, as for the run's server.
    public let server: PostgresTestServer
    private let root: String

    /// Starts a new server; `settings` are `name=value` server settings.
    public init(settings: [String] = []) throws {
        let printed = try Self.script("""
            start_postgres "$@" || { echo "the server would not start: $(cat "$postgres_root"/*.log 2>/dev/null | tail -n 5)" >&2; exit 1; }
            printf '%s\\n%s\\n%s\\n' "$CARDFILE_TEST_POSTGRES" "$CARDFILE_TEST_POSTGRES_SOCKET" "$postgres_root"
            """, arguments: settings)
        let lines = printed.split(separator: "\n").map(String.init)
        guard lines.count == 3, let components = URLComponents(string: lines[0]), let port = components.port,
              let password = components.password else {
            throw PostgresTestServer.Missing(description: "unexpected answer from start_postgres: \(printed)")
        }
        server = PostgresTestServer(url: lines[0], password: password, port: port, socketFolder: lines[1])
        root = lines[2]
    }

    /// Kills the server with SIGKILL, as a crash or `kill -9` would: the postmaster and every
    /// process it started (also after the postmaster alone was killed), so nothing answers on
    /// its port until ``start()``.
    public func kill() throws {
        _ = try Self.script("""
            # Every process of this server works in its data folder, the postmaster's children
            # too after it alone was killed (they each have a session of their own).
            data="$(cd "$1/data" && pwd -P)" && [ -n "$data" ] || { echo "no data folder in $1" >&2; exit 1; }
            ours() { for proc in /proc/[0-9]*; do [ "$(readlink "$proc/cwd" 2>/dev/null)" = "$data" ] && echo "${proc#/proc/}"; done; }
            killed="$(head -n 1 "$1/data/postmaster.pid" 2>/dev/null)"
            for _ in $(seq 1 200); do
                pids="$(ours)"
                [ -n "$pids" ] || break
                killed="$killed $pids"
                kill -9 $pids 2>/dev/null || true
                sleep 0.05
            done
            # Until they are reaped, pg_ctl takes the dead postmaster for a running one.
            for pid in $killed; do
                for _ in $(seq 1 200); do [ -e "/proc/$pid" ] || break; sleep 0.05; done
            done
            """, arguments: [root])
    }

    /// Stops every process of the server (SIGSTOP), as a paused machine or a cut network
    /// would look: connections stay open and nothing answers. ``resume()`` lets them go on.
    public func pause() throws {
        try signalEveryProcess("STOP")
    }

    /// Lets the processes ``pause()`` stopped go on (SIGCONT).
    public func resume() throws {
        try signalEveryProcess("CONT")
    }

    private func signalEveryProcess(_ signal: String) throws {
        _ = try Self.script("""
            data="$(cd "$1/data" && pwd -P)" && [ -n "$data" ] || { echo "no data folder in $1" >&2; exit 1; }
            for proc in /proc/[0-9]*; do
                [ "$(readlink "$proc/cwd" 2>/dev/null)" = "$data" ] && kill -\(signal) "${proc#/proc/}" 2>/dev/null
            done
            true
            """, arguments: [root])
    }

    /// The server's main process (its postmaster): a test that must kill it at an exact
    /// moment signals it itself, then calls ``kill()`` for the rest.
    public func postmaster() throws -> pid_t {
        let text = try String(contentsOfFile: root + "/data/postmaster.pid", encoding: .utf8)
        guard let first = text.split(separator: "\n").first, let pid = pid_t(first) else {
            throw PostgresTestServer.Missing(description: "no postmaster.pid in \(root)")
        }
        return pid
    }

    /// Starts the server again after ``kill()``, on the same port (it recovers from its log).
    public func start() throws {
        _ = try Self.script("""
            restart_postgres "$1" || { echo "the server would not start again: $(tail -n 5 "$1/server.log")" >&2; exit 1; }
            """, arguments: [root])
    }

    /// Stops the server and removes its folder.
    public func stop() {
        _ = try? Self.script("""
            postgres_root="$1"; postgres_data="$1/data"; stop_postgres
            """, arguments: [root])
    }

    /// Runs `body` in bash with `scripts/postgres-server.sh` loaded; returns what it printed.
    ///
    /// (Spawned and waited for with posix_spawn and waitpid: Foundation's `Process` was seen
    /// never to return from `waitUntilExit` when two of these scripts ended at once.)
    private static func script(_ body: String, arguments: [String]) throws -> String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = TemporaryDirectory()
        let (output, errors) = (folder.file("out"), folder.file("err"))
        let command = "cd \"$0\" && . scripts/postgres-server.sh && { \(body)\n} >\"$OUT\" 2>\"$ERR\" </dev/null"
        let argv = ["/bin/bash", "-c", command, package.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["OUT"] = output
        environment["ERR"] = errors
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = envp.map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", nil, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else { throw PostgresTestServer.Missing(description: "bash would not start: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let complaint = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw PostgresTestServer.Missing(description: complaint.isEmpty ? "the server script failed (status \(status))" : complaint)
        }
        return printed
    }
}
