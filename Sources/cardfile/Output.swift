import ArgumentParser
import CardfilePostgres
import CardfileTerminal
import Foundation

/// Every line a command writes, to standard output or error, goes through here: through the
/// screen's sanitiser, so a table name, a value, a path or a message quoting them can never
/// set the terminal's title, write its clipboard or move its cursor (`␛` is shown instead),
/// and a newline inside data cannot split a line; and through the URL mask, so a PostgreSQL
/// URL quoted anywhere shows no password.
enum Output {
    /// One line on standard output.
    static func say(_ line: String) {
        write(shown(line) + "\n", to: .standardOutput)
    }

    /// One line on standard error.
    static func warn(_ line: String) {
        write(shown(line) + "\n", to: .standardError)
    }

    /// Writes `text`; see ``write(_:to:)`` for a reader gone. Another failure (a full disk)
    /// cannot be told on the stream that failed: the status says it (1).
    private static func write(_ text: String, to handle: FileHandle) {
        do {
            try write(Array(text.utf8), to: handle.fileDescriptor)
        } catch {
            Foundation.exit(1)
        }
    }

    /// Writes all of `bytes` to `descriptor`. When no one reads any more (`cardfile export … |
    /// head -2`; SIGPIPE is ignored, as NIO sets it) the process ends as a writer killed by
    /// SIGPIPE would, quietly with status 141, rather than crash or call it an error.
    /// - Throws: the error of any other failed write (a full disk).
    static func write(_ bytes: [UInt8], to descriptor: Int32) throws {
        var done = 0
        while done < bytes.count {
            let written = bytes[done...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { Foundation.exit(141) }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            done += written
        }
    }

    private static func shown(_ line: String) -> String {
        let masked = secrets.reduce(PostgresURLMask.masked(line)) { $0.replacingOccurrences(of: $1, with: PostgresURLMask.mask) }
        return TerminalText.visible(masked)
    }

    /// The passwords this run was given (in its arguments' URLs, and `PGPASSWORD`), each
    /// masked wherever it appears, also where no URL shape surrounds it (an argument quoted
    /// by the command line's parser, a piece of a URL). Shorter than 4 characters they are
    /// left to the URL mask, which finds them by their place (masking every "ab" of every
    /// message would garble it). Made from the arguments before ``ProcessTitle`` masks them:
    /// `main` reads it first.
    static let secrets: [String] = {
        var found = CommandLine.arguments.dropFirst().flatMap(PostgresURLMask.passwords(inArgument:))
        if let password = ProcessInfo.processInfo.environment["PGPASSWORD"] { found.append(password) }
        return Array(Set(found.filter { $0.count >= 4 })).sorted { $0.count > $1.count }
    }()

    /// A question on standard error, the answer typed on the same line.
    static func ask(_ question: String) {
        write(shown(question) + " ", to: .standardError)
    }
}

/// Every error a command reports: one line on standard error (`cardfile: …`) and status 2,
/// before the terminal is touched.
func fail(_ message: String) -> ExitCode {
    Output.warn("cardfile: \(message)")
    return ExitCode(2)
}

extension Cardfile {
    /// Runs the command line. What ArgumentParser cannot read (an unknown option, a missing
    /// or bad value) is reported like every other error: one line naming the option and what
    /// it takes, then status 2. Help and the version print as usual.
    static func main() {
        // The arguments are copied first, then masked where `ps` reads them: `ps` must never
        // show a password given on the command line.
        let arguments = Array(CommandLine.arguments.dropFirst())
        _ = Output.secrets
        ProcessTitle.maskPasswords()
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let code as ExitCode {
            exit(withError: code)
        } catch {
            guard exitCode(for: error) != .success else { exit(withError: error) }   // --help, --version
            exit(withError: fail(oneLine(message(for: error))))
        }
    }

    /// ArgumentParser's message on one line (it may add a usage or a hint on lines of its own).
    static func oneLine(_ message: String) -> String {
        let lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let sentence = lines.filter { !$0.isEmpty && !$0.hasPrefix("Usage:") && !$0.hasPrefix("See '") }.joined(separator: " ")
        let base = sentence.hasPrefix("Error: ") ? String(sentence.dropFirst("Error: ".count)) : sentence
        return base + " (cardfile --help lists the options)"
    }
}

