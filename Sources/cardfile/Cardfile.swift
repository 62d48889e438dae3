import ArgumentParser
import CardfileApp
import CardfileCurses
import CardfileStore
import CardfileTerminal
import Foundation

/// The `cardfile` command: opens the record editor on a database (the demo one by default).
@main
struct Cardfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardfile",
        abstract: "A keyboard-driven editor for the records in SQLite databases.",
        discussion: "With no file, opens a demo database (created on first run).",
        version: "0.2.0",
        subcommands: [Open.self, Demo.self, Keys.self],
        defaultSubcommand: Open.self)
}

/// Every error a command reports: one short line on standard error, and a non-zero status,
/// before the terminal is touched.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("cardfile: \(message)\n".utf8))
    return ExitCode(2)
}

extension Cardfile {
    /// `cardfile [PATH] [options]`: the editor.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "open", abstract: "Open a database in the editor (the default command).")

        @Argument(help: "The SQLite database to open (the demo database when left out).")
        var file: String?

        @Option(name: .long, help: "Open this table at once.")
        var table: String?

        @Option(name: .long, help: "The colour theme (default, light, high-contrast, mono, or your own).")
        var theme: String?

        @Option(name: .long, help: "Seconds from the last edit to the autosave, or off.")
        var autosave: String = "2"

        @Flag(name: .long, help: "Open the database read-only.")
        var readOnly = false

        @Flag(name: .long, help: "Create the file when it does not exist.")
        var create = false

        func run() throws {
            let delay = try autosaveDelay()
            let path = try databasePath()
            let container: Container
            do {
                container = try Container(path: path, options: StoreOptions(createIfMissing: create, readOnly: readOnly))
            } catch {
                throw fail(error.message)
            }
            if let table, container.schema.table(named: table) == nil {
                let names = container.schema.tables.map(\.name).joined(separator: ", ")
                throw fail("no table \"\(table)\" in \(path)\(names.isEmpty ? "" : " (its tables: \(names))")")
            }
            let loader = ThemeLoader()
            let (chosen, problem) = loader.load(theme)
            if let problem { throw fail("theme \"\(theme ?? "default")\" \(problem.reason)") }
            try Self.runEditor(container: container, theme: chosen, options: CardfileApp.Options(
                table: table, autosave: delay, themeName: theme ?? "default", themes: loader.availableThemes(),
                loadTheme: { name in
                    let (theme, problem) = ThemeLoader().load(name)
                    return problem.map { .failure($0) } ?? .success(theme)
                }))
        }

        private func autosaveDelay() throws -> Duration? {
            if autosave == "off" || autosave == "0" { return nil }
            guard let seconds = Double(autosave), seconds.isFinite, seconds > 0, seconds <= 3600 else {
                throw fail("--autosave takes seconds (up to 3600) or off, not \"\(autosave)\"")
            }
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }

        private func databasePath() throws -> String {
            if let file { return file }
            let path = DemoDatabase.defaultPath()
            do {
                try DemoDatabase.ensure(at: path)
            } catch {
                throw fail(error.message)
            }
            return path
        }

        /// Runs the editor on the terminal; the terminal is restored however it ends.
        static func runEditor(container: Container, theme: Theme, options: CardfileApp.Options) throws {
            let backend: CursesBackend
            do {
                backend = try CursesBackend(theme: theme)
            } catch {
                throw fail("cannot use this terminal: \(error)")
            }
            defer { backend.shutdown() }
            let clock = SystemClock()
            let handle = WakeHandle(backend)
            let inbox = Inbox(wake: { handle.wake() })
            do {
                let app = try CardfileApp(container: container, options: options, size: backend.size, clock: clock, inbox: inbox)
                try AppLoop.run(app, backend: backend, inbox: inbox, clock: clock, applyTheme: { backend.setTheme($0) })
            } catch {
                backend.shutdown()
                throw fail("\(error)")
            }
        }
    }

    /// `cardfile demo [PATH] [--rows N]`: makes a demo database worth browsing.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create (or recreate) a demo database: a library with authors, books, members and loans.")

        @Argument(help: "Where to write it (the default demo database when left out).")
        var file: String?

        @Option(name: .long, help: "How many books (authors, members and loans follow).")
        var rows: Int = DemoDatabase.defaultRows

        func validate() throws {
            guard rows >= 10, rows <= 10_000_000 else { throw ValidationError("--rows must be between 10 and 10000000.") }
        }

        func run() throws {
            let path = file ?? DemoDatabase.defaultPath()
            do {
                try DemoDatabase.create(at: path, rows: rows)
            } catch {
                throw fail(error.message)
            }
            print("Created \(path) with \(rows) books.")
        }
    }

    /// `cardfile keys`: the key tables, as the README shows them.
    struct Keys: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the editor's keys as Markdown tables.", shouldDisplay: false)

        func run() {
            print(KeyMaps.markdown())
        }
    }
}

/// Lets other threads call the backend's `wake()`, the one backend call that is safe from any
/// thread.
final class WakeHandle: @unchecked Sendable {
    private weak var backend: CursesBackend?

    init(_ backend: CursesBackend) {
        self.backend = backend
    }

    func wake() {
        backend?.wake()
    }
}
