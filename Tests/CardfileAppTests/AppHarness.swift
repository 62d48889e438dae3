import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB

/// The app on the headless backend, a real SQLite file and a manual clock: keys go in, the
/// screen and the disk are read back.
final class AppHarness {
    let directory = TemporaryDirectory()
    let path: String
    let container: Container
    let clock = ManualClock()
    let backend: HeadlessBackend
    let inbox: Inbox
    let app: CardfileApp

    static let cards = """
        CREATE TABLE cards (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            phone TEXT UNIQUE,
            age INTEGER CHECK (age IS NULL OR age >= 0),
            notes TEXT
        );
        INSERT INTO cards (name, phone, age, notes) VALUES
            ('Ada', '111', 36, 'first'), ('Grace', '222', 45, NULL), ('Linus', '333', 28, 'line one
        line two'), ('Margaret', '444', NULL, '');
        """

    init(schema: String = AppHarness.cards, size: Size = Size(width: 80, height: 24), options: CardfileApp.Options = CardfileApp.Options(autosave: nil),
         readOnly: Bool = false, unwritableFile: Bool = false, demoRows: Int? = nil, wal: Bool = true, busyTimeout: TimeInterval = 5,
         history: HistorySettings? = nil, reopening existing: String? = nil) throws {
        path = existing ?? directory.file("cards.sqlite")
        if existing != nil {
            // Another run of the editor on a file an earlier harness made.
        } else if let demoRows {
            try DemoDatabase.create(at: path, rows: demoRows)
        } else {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                if FixtureJournal.wal(wal) { try db.execute(sql: "PRAGMA journal_mode = WAL") }
                try db.execute(sql: schema)
            }
            try queue.close()
        }
        // `readOnly` is --read-only on a file made read-only; `unwritableFile` alone is a file
        // that cannot be written, found so by the store.
        if readOnly || unwritableFile { chmod(path, 0o444) }
        container = try Container(path: path, options: StoreOptions(createIfMissing: false, readOnly: readOnly, busyTimeout: busyTimeout, history: history))
        backend = HeadlessBackend(size: size)
        let backend = self.backend
        inbox = Inbox(wake: { backend.wake() })
        var options = options
        options.workingFolder = options.workingFolder ?? directory.path   // relative file names never reach the package
        // Tests never start a real editor (Ctrl-O): one waiting on the test's input would hang it.
        if options.editor == CardfileApp.Options().editor { options.editor = "true" }
        app = try CardfileApp(container: container, options: options, size: size, clock: clock, inbox: inbox)
        try settle()
    }

    /// The app on `container` (a server's: ``disk(_:)`` is not for it).
    init(container: Container, size: Size, options: CardfileApp.Options) throws {
        path = container.path
        self.container = container
        backend = HeadlessBackend(size: size)
        let backend = self.backend
        inbox = Inbox(wake: { backend.wake() })
        var options = options
        options.workingFolder = options.workingFolder ?? directory.path
        if options.editor == CardfileApp.Options().editor { options.editor = "true" }
        app = try CardfileApp(container: container, options: options, size: size, clock: clock, inbox: inbox)
        try settle()
    }

    /// Runs the loop until no event waits and the work it sent off the loop (the check of the
    /// file when the clock passed a poll, labels, the columns file) has reported.
    func settle() throws {
        repeat {
            try AppLoop.run(app, backend: backend, inbox: inbox, clock: clock, untilIdle: true)
        } while (backend.queuedEvents > 0 || app.waitForErrands()) && app.isRunning
    }

    func press(_ keys: KeyEvent...) throws {
        for key in keys {
            backend.enqueue([.key(key)])
            try settle()
        }
    }

    /// Hands keys to the app one by one without drawing between them (fast, for long runs),
    /// then settles and draws once.
    func feed(_ keys: [KeyEvent]) throws {
        for key in keys {
            _ = app.update(.event(.key(key)))
            _ = app.tick()
        }
        try settle()
    }

    func type(_ text: String) throws {
        for character in text { try press(KeyEvent(.character(character))) }
    }

    func command(_ text: String) throws {
        try press(.char(":"))
        try type(text)
        try press(KeyEvent(.enter))
    }

    func resize(_ size: Size) throws {
        backend.resize(to: size)
        try settle()
    }

    /// Moves the clock on and runs what fell due.
    func advance(_ duration: Duration) throws {
        clock.advance(duration)
        try settle()
    }

    /// Waits (really) for background work (counts, sorts) to report, then settles.
    func waitFor(_ condition: (String) -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            try advance(.milliseconds(300))
            if condition(screen) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    var screen: String { backend.lines.joined(separator: "\n") }
    var lines: [String] { backend.lines }
    var statusLine: String { lines[lines.count - 2] }
    var messageLine: String { lines[lines.count - 1] }

    /// One value straight from the file, through a connection of its own.
    func disk(_ sql: String) throws -> DatabaseValue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)   // a rollback-journal file is locked while a commit is written
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try DatabaseValue.fetchOne($0, sql: sql) ?? .null }
    }

    func diskText(_ sql: String) throws -> String? {
        String.fromDatabaseValue(try disk(sql))
    }
}
