import Foundation

/// Runs a program that takes over the terminal (the person's editor) and waits for it.
///
/// Foundation's `Process` starts its child in a process group of its own, which is not the
/// terminal's foreground group: an editor that reads the keyboard is then stopped or gets an
/// error (vim exits with status 1 at once). This starts it in the program's own group, which
/// holds the terminal, with every signal at its default and none blocked, as a shell would.
enum ForegroundProcess {
    /// Runs `arguments` (the first is looked up in `PATH`); returns the exit status, 128 plus
    /// the signal's number when a signal ended it, or nil when it could not be started.
    static func run(_ arguments: [String]) -> Int32? {
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], nil, &attributes, &argv, &envp) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return nil }
        }
        // Exited: the status is in bits 8 to 15; ended by a signal: its number in bits 0 to 6.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
