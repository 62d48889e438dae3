import ArgumentParser
import CardfileApp
import CardfileCurses
import CardfilePostgres
import CardfileStore
import CardfileTerminal
import Foundation

/// The `cardfile` command: opens the record editor on a database (the demo one by default).
@main
struct Cardfile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardfile",
        abstract: "A keyboard-driven editor for the records in SQLite databases.",
        discussion: """
            cardfile [PATH] [--table NAME] [--theme NAME] [--autosave SECONDS|off] [--read-only] [--create] [--wal] [--no-mouse]

            With no file, opens a demo database (created on first run). `cardfile help open` \
            describes these options; `cardfile keys` lists every key and : command (F1 in the \
            editor shows them too).
            """,
        version: "0.2.0",
        subcommands: [Open.self, Demo.self, Collaborate.self, Import.self, Export.self, Diff.self, Merge.self, Dump.self, PgSetup.self, Keys.self],
        defaultSubcommand: Open.self)
}


extension Cardfile {
    /// `cardfile [PATH] [options]`: the editor.
    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "open", abstract: "Open a database in the editor (the default command).")

        @Argument(help: "The SQLite database to open (the demo database when left out).")
        var file: String?

        @Option(name: .long, help: "Open this table at once.", completion: .custom(TableCompletion.candidates))
        var table: String?

        @Option(name: .long, help: "The colour theme (default, light, high-contrast, mono, or your own).")
        var theme: String?

        @Option(name: .long, parsing: .unconditional, help: "Seconds from the last edit to the autosave, or off.")
        var autosave: String = "2"

        @Flag(name: .long, help: "Open the database read-only.")
        var readOnly = false

        @Flag(name: .long, help: "Create the file when it does not exist.")
        var create = false

        @Flag(name: .long, help: "Switch a rollback-journal database to WAL mode (otherwise its journal mode is left as found).")
        var wal = false

        @Flag(name: .long, help: "Leave the mouse to the terminal (its own selection and copy). CARDFILE_MOUSE=off does the same for every run.")
        var noMouse = false

        @Flag(name: .long, help: "Keep no history of this run's saves (:history and Alt-U across restarts then see none of them).")
        var noHistory = false

        func run() throws {
            let delay = try autosaveDelay()
            let container: Container
            let path: String
            var table = self.table
            if let file, PostgresLocation.isURL(file) {
                if wal || create { throw fail("--wal and --create are for SQLite files, not a PostgreSQL database") }
                (container, path, table) = try PostgresOpen.container(file, table: table, readOnly: readOnly, history: noHistory ? nil : HistoryFolder.settings())
            } else {
                path = try databasePath()
                if wal, readOnly { throw fail("--wal changes the file, so it cannot go with --read-only") }
                do {
                    container = try Container(path: path, options: StoreOptions(
                        createIfMissing: create, readOnly: readOnly, switchToWAL: wal, history: noHistory ? nil : HistoryFolder.settings()))
                } catch {
                    throw fail(error.message)
                }
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
                },
                editor: ExternalEdit.command(environment: ProcessInfo.processInfo.environment),
                stateFolder: ColumnMemory.defaultFolder(environment: ProcessInfo.processInfo.environment)),
                mouse: !noMouse && ProcessInfo.processInfo.environment["CARDFILE_MOUSE"]?.lowercased() != "off")
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
        static func runEditor(container: Container, theme: Theme, options: CardfileApp.Options, mouse: Bool = true) throws {
            let backend: CursesBackend
            do {
                backend = try CursesBackend(theme: theme, mouse: mouse)
            } catch {
                throw fail("cannot use this terminal: \(error)")
            }
            defer {
                backend.shutdown()
                container.removeQueryResults()
                // The journal writes its last entries before the process ends.
                container.history?.flush()
            }
            let clock = SystemClock()
            let handle = WakeHandle(backend)
            let inbox = Inbox(wake: { handle.wake() })
            do {
                let app = try CardfileApp(container: container, options: options, size: backend.size, clock: clock, inbox: inbox)
                try AppLoop.run(app, backend: backend, inbox: inbox, clock: clock, applyTheme: { backend.setTheme($0) })
                // The terminal back first; then what the app still writes off the loop (a
                // column choice made just before quitting).
                backend.shutdown()
                app.finishErrands()
            } catch {
                backend.shutdown()
                throw fail("\(error)")
            }
        }
    }

    /// `cardfile demo [PATH] [--rows N]`: makes a demo database worth browsing.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a demo database: a library with authors, books, members and loans. It is written only where nothing is, or over an earlier demo once you agree.")

        @Argument(help: "Where to write it (the default demo database when left out).")
        var file: String?

        @Option(name: .long, help: "How many books (authors, members and loans follow).")
        var rows: Int = DemoDatabase.defaultRows

        @Flag(name: .long, help: "Replace an earlier demo database without asking (nothing else is ever replaced).")
        var force = false

        func validate() throws {
            guard rows >= 10, rows <= 10_000_000 else { throw ValidationError("--rows must be between 10 and 10000000.") }
        }

        func run() throws {
            let path = file ?? DemoDatabase.defaultPath()
            var replacing = force
            if !force, DemoDatabase.target(at: path) == .demo {
                // An earlier demo is replaced only when the person says so.
                guard isatty(0) != 0 else { throw fail("\(path) holds an earlier demo database; --force replaces it.") }
                Output.ask("Replace the demo database at \(path)? (y/n)")
                guard let answer = readLine(), ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                    Output.say("Left as it was.")
                    return
                }
                replacing = true
            }
            do {
                try DemoDatabase.create(at: path, rows: rows, replacingDemo: replacing)
            } catch {
                throw fail(error.message)
            }
            Output.say("Created \(path) with \(rows) books.")
        }
    }

    /// `cardfile collaborate PATH`: the demo's other writer. Run it in a second terminal to
    /// watch live refresh and conflicts in the editor.
    struct Collaborate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Edit records of a database now and then, as another person would (for trying live refresh and conflicts).")

        @Argument(help: "The SQLite database to write.")
        var file: String

        @Option(name: .long, help: "The table to edit (the first with a text column when left out).", completion: .custom(TableCompletion.candidates))
        var table: String?

        @Option(name: .long, help: "Seconds between changes.")
        var every: Double = 3

        @Option(name: .long, help: "Stop after this many changes (forever when left out).")
        var times: Int?

        @Option(name: .long, help: "Change only the record with this key (with --set).")
        var key: String?

        @Option(name: .long, help: "FIELD=VALUE to set on the record given by --key.")
        var set: String?

        @Flag(name: .long, help: "Write to a database that `cardfile demo` did not make without asking first.")
        var yes = false

        func validate() throws {
            guard every > 0, every.isFinite else { throw ValidationError("--every takes a number of seconds above 0.") }
            guard (key == nil) == (set == nil) else { throw ValidationError("--key and --set go together.") }
            if let set, !set.contains("=") { throw ValidationError("--set takes FIELD=VALUE.") }
        }

        func run() throws {
            // It changes records nobody asked to change: only a demo is written without a yes.
            if !yes, FileManager.default.fileExists(atPath: file), DemoDatabase.target(at: file) != .demo {
                let what = "\(file) is not a Cardfile demo database"
                guard isatty(0) != 0 else { throw fail("\(what); collaborate would change its records. --yes lets it.") }
                Output.ask("\(what). Let collaborate change its records? (y/n)")
                guard let answer = readLine(), ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                    Output.say("Nothing was changed.")
                    return
                }
            }
            let container: Container
            do {
                container = try Container(path: file, options: StoreOptions(createIfMissing: false))
            } catch {
                throw fail(error.message)
            }
            let schema: TableSchema
            if let table {
                guard let found = container.schema.table(named: table) else { throw fail("no table \"\(table)\" in \(file)") }
                schema = found
            } else {
                guard let found = container.schema.tables.first(where: { table in table.isIdentifiable && !table.isView && table.columns.contains { Writer.isEditable($0, in: table) && $0.affinity == .text } }) else {
                    throw fail("no table in \(file) has a text column to edit")
                }
                schema = found
            }
            var writer = Writer(container: container, table: schema)
            if let key, let set {
                let parts = set.split(separator: "=", maxSplits: 1).map(String.init)
                do { Output.say(try writer.set(key: key, field: parts[0], text: parts[1])) } catch { throw fail(error.message) }
                return
            }
            var done = 0
            while times.map({ done < $0 }) ?? true {
                let line: String
                do {
                    line = try writer.changeRandomRecord() ?? "(the table is empty)"
                } catch {
                    line = "(not written: \(error.message))"
                }
                Output.say(line)
                done += 1
                if times.map({ done < $0 }) ?? true { Thread.sleep(forTimeInterval: every) }
            }
        }
    }

    /// `cardfile import DB FILE --table NAME`: a file into a table, headless.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a CSV, TSV, JSON Lines or JSON file into a table.",
            discussion: "Bad rows are reported with their line and skipped (or stop the import with --on-error abort). Ctrl-C stops after the current batch; committed batches stay unless --atomic.")

        @Argument(help: "The SQLite database, or a postgres:// URL.")
        var database: String

        @OptionGroup var arguments: ImportArguments

        @Flag(name: .long, help: "Keep no history of the import (Alt-U in the editor cannot undo it then).")
        var noHistory = false

        @Option(name: .long, help: "The table to fill.", completion: .custom(TableCompletion.candidates))
        var table: String

        func run() throws {
            var options = arguments.options(table: table)
            let file = arguments.file
            // The table is made by the import itself: with --atomic, in the same transaction
            // as its rows, so an import that fails or is killed leaves no empty table.
            var creating: TableCreator.Created?
            let container: Container
            if PostgresLocation.isURL(database) {
                // (With --create, a missing table is no error: the import makes it.)
                let opened = try PostgresOpen.container(database, table: table, missingIsFine: options.create, readOnly: false,
                                                        history: noHistory ? nil : HistoryFolder.settings())
                container = opened.0
                if let named = opened.table {
                    // (`schema.name` as the container names the table.)
                    options.table = named
                } else if options.create {
                    let quoted = try PostgresOpen.creationTarget(database, table)
                    do { creating = try TableCreator.planOnEngine(file: file, options: options, quotedTable: quoted) } catch { throw fail(error.description) }
                }
            } else {
                if options.create {
                    do { creating = try TableCreator.plan(database: database, file: file, options: options) } catch { throw fail(error.description) }
                }
                do {
                    container = try Container(path: database, options: StoreOptions(
                        createIfMissing: options.create, history: noHistory ? nil : HistoryFolder.settings()))
                } catch {
                    throw fail(error.message)
                }
            }
            // Ctrl-C asks the import to stop after the batch it is writing. An import waiting
            // for input that never comes (a FIFO without a writer, a terminal) or for another
            // program's lock hears nothing, so a second later the process ends all the same:
            // committed batches stay, the unfinished one (or an atomic import's transaction) is
            // never committed.
            let stop = StopFlag()
            let finished = StopFlag()
            signal(SIGINT, SIG_IGN)
            let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            interrupt.setEventHandler {
                stop.raise()
                DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                    guard !finished.isRaised else { return }
                    if isatty(2) != 0 { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    Output.warn("cardfile: import stopped a second after Ctrl-C, before its batch ended (it may have been waiting for input or for another program's lock); batches already imported stay (an --atomic import left nothing).")
                    Foundation.exit(130)
                }
            }
            interrupt.resume()
            defer {
                interrupt.cancel()
                container.history?.flush()
            }
            let showProgress = isatty(2) != 0
            let summary: ImportSummary
            do {
                summary = try Importer(container: container, file: file, options: options, creating: creating).run(
                    progress: { progress in
                        guard showProgress else { return }
                        FileHandle.standardError.write(Data(("\r" + Self.bar(progress)).utf8))
                    },
                    isCancelled: { stop.isRaised })
                finished.raise()
            } catch {
                finished.raise()
                if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                throw fail(error.description)
            }
            if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            if let creating, !summary.rolledBack {
                let onServer = PostgresLocation.isURL(database)
                let columns = creating.columns.map { "\($0.name) \(onServer ? $0.postgresType : $0.type)" }.joined(separator: ", ")
                Output.warn("Created table \(table) (\(columns)).")
            }
            Output.say(summary.sentence)
            for error in summary.errors { Output.say("  " + error.description) }
            if summary.rejected > summary.errors.count {
                Output.say("  … and \(summary.rejected - summary.errors.count) more rejected rows")
            }
            if summary.cancelled { throw ExitCode(130) }
            if summary.stoppedEarly || summary.rolledBack { throw ExitCode(1) }
            if summary.rejectedEveryRow {
                Output.warn("cardfile: every row was rejected, so nothing was imported.")
                throw ExitCode(1)
            }
        }

        /// `[#####     ] 52%  120,000 rows  84,211 rows/s  ETA 3s`
        static func bar(_ progress: ImportProgress) -> String {
            let filled = Int(progress.fraction * 20)
            let eta = progress.secondsLeft.map { " ETA \(Int($0.rounded()))s" } ?? ""
            return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled) + "] "
                + "\(Int(progress.fraction * 100))%  \(progress.rows.formatted()) rows  \(Int(progress.rowsPerSecond).formatted()) rows/s\(eta)"
        }
    }

    /// `cardfile export DB --table NAME`: a table's rows out, as the list shows them.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export a table's rows as CSV, TSV, JSON Lines or JSON (what `cardfile import` reads back exactly).")

        @Argument(help: "The SQLite database, or a postgres:// URL.")
        var database: String

        @Option(name: .long, help: "The table to export.", completion: .custom(TableCompletion.candidates))
        var table: String

        @Option(name: .long, help: "Only the rows matching this filter (the list's filter language).")
        var `where`: String = ""

        @Option(name: .long, help: "Sort columns, a minus for descending (write it --sort=name,-year).")
        var sort: String?

        @Option(name: .long, help: "Write to this file instead of standard output (never the database itself).")
        var output: String?

        @Flag(name: .long, help: "Replace the --output file when it exists.")
        var force = false

        @OptionGroup var formatting: ExportFormatArguments

        func run() throws {
            let parsed = formatting.format(for: output)
            let order = (sort ?? "").split(separator: ",").map { term -> ColumnSort in
                let name = term.trimmingCharacters(in: .whitespaces)
                return name.hasPrefix("-") ? ColumnSort(String(name.dropFirst()), ascending: false) : ColumnSort(name)
            }
            let container: Container
            var table = self.table
            let onServer = PostgresLocation.isURL(database)
            if onServer {
                let opened = try PostgresOpen.container(database, table: table, readOnly: true)
                container = opened.0
                // (`schema.name` as the container names the table.)
                if let named = opened.table { table = named }
            } else {
                do {
                    container = try Container(path: database, options: StoreOptions(createIfMissing: false, readOnly: true))
                } catch {
                    throw fail(error.message)
                }
            }
            // Standard output redirected onto the database (`>> db.sqlite`) is refused like --output.
            if !onServer, output == nil, let target = FileIdentity(descriptor: 1), FileIdentity.databaseFiles(of: database).contains(target) {
                throw fail(StoreError.outputRefused(path: "standard output", .isTheDatabase).message)
            }
            var file: OutputFile?
            if let output {
                do { file = try OutputFile(path: output, replacing: force, protecting: [database]) } catch { throw fail(error.message) }
            }
            // On a terminal, data is shown, never obeyed: control characters become visible.
            let onTerminal = output == nil && isatty(1) != 0
            let count: Int
            do throws(StoreError) {
                count = try Exporter(container: container, table: table, filter: self.where, sort: order, format: parsed, null: formatting.null).run { bytes in
                    if let file {
                        try file.write(bytes)
                    } else {
                        let shown = onTerminal ? Array(TerminalText.visible(String(decoding: bytes, as: UTF8.self), keepingLines: true).utf8) : bytes
                        try Output.write(shown, to: 1)
                    }
                }
                if let file { try file.commit() }
            } catch {
                file?.discard()
                throw fail(error.message)
            }
            Output.warn("Exported \(count.formatted()) row\(count == 1 ? "" : "s")\(output.map { " to \($0)" } ?? "").")
        }
    }

    /// `cardfile keys`: the key tables, as the README shows them.
    struct Keys: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every key of the editor, screen by screen, and its : commands (Markdown tables; F1 shows the same in the editor).")

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

/// The collaborator's writes: one record at a time, through a context of its own that reads
/// afresh before each change.
struct Writer {
    let container: Container
    let table: TableSchema
    private var random = SystemRandomNumberGenerator()

    init(container: Container, table: TableSchema) {
        self.container = container
        self.table = table
    }

    private var context: ObjectContext {
        let context = container.newBackgroundContext(name: "collaborate")
        context.mergePolicy = .overwrite
        return context
    }

    /// A column the collaborator may change: written by people, not a key.
    static func isEditable(_ column: ColumnDescription, in table: TableSchema) -> Bool {
        column.isWritable && !table.primaryKey.columnNames.contains(column.name)
    }

    /// Sets one field of the record with `key` (typed as text; a table without a declared key
    /// is keyed by its rowid).
    func set(key: String, field: String, text: String) throws(StoreError) -> String {
        let keyAffinity = table.primaryKey.columnNames.first.flatMap { table.column(named: $0) }?.affinity ?? .integer
        let id = ObjectID(table: table.name, primaryKey: [keyAffinity.coerce(key) ?? .text(key)])
        return try set(id: id, field: field, text: text)
    }

    private func set(id: ObjectID, field: String, text: String) throws(StoreError) -> String {
        guard let column = table.column(named: field) else { throw StoreError.noSuchField(table: table.name, field: field) }
        let value: Value = text == "NULL" ? .null : (column.affinity.coerce(text) ?? .text(text))
        let context = self.context
        guard try context.record(for: id) != nil else { throw StoreError.noSuchObject(id) }
        try context.update(id, values: [column.name: value])
        try context.save()
        return "\(Self.now()) \(id): \(column.name) → \(value)"
    }

    /// Changes one field of a random record: text gets a word appended (or replaced), numbers
    /// go up by one. Returns what it did, or nil for an empty table.
    mutating func changeRandomRecord() throws(StoreError) -> String? {
        let context = self.context
        let count = try context.count(for: FetchRequest(table: table.name))
        guard count > 0 else { return nil }
        let offset = Int.random(in: 0..<count, using: &random)
        guard let record = try context.fetch(FetchRequest(table: table.name, limit: 1, offset: offset)).first else { return nil }
        // Not foreign keys (a random number would point nowhere), not unique columns (an
        // ISBN is not edited in passing) and not dates.
        let references = Set((table.foreignKeys.flatMap(\.columns) + table.uniqueIndexes.flatMap(\.columns)).map { $0.lowercased() })
        let columns = table.columns.filter { column in
            guard Self.isEditable(column, in: table), [.text, .integer, .real, .numeric].contains(column.affinity),
                  !references.contains(column.name.lowercased()) else { return false }
            let value = record[column.name]?.description ?? ""
            return value.range(of: #"^\d{4}-\d{2}-\d{2}"#, options: .regularExpression) == nil
        }
        guard let column = columns.randomElement(using: &random) else { return nil }
        let old = record[column.name] ?? .null
        let value: Value
        switch (column.affinity, old) {
        case (.text, _):
            let words = ["(checked)", "(revised)", "(shelved)", "(on loan)", "(signed)", "(mended)"]
            let base = old.isNull ? "" : old.description.replacingOccurrences(of: #" \([a-z ]+\)$"#, with: "", options: .regularExpression)
            value = .text((base.isEmpty ? "" : base + " ") + words.randomElement(using: &random)!)
        case (_, .integer(let number)): value = .integer(number + 1)
        case (_, .real(let number)): value = .real(number + 0.5)
        default: value = .integer(1)
        }
        try context.update(record.id, values: [column.name: value])
        do {
            try context.save()
        } catch {
            if case .validationFailed = error { return "\(Self.now()) \(record.id): \(column.name) not changed (\(error.message))" }
            throw error
        }
        return "\(Self.now()) \(record.id): \(column.name) \(old) → \(value)"
    }

    static func now() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: Date())
    }
}

/// Set from a signal handler's queue, read by the importing thread.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    func raise() { lock.withLock { raised = true } }
    var isRaised: Bool { lock.withLock { raised } }
}
