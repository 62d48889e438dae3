import Foundation
import GRDB

/// The demo database `cardfile` opens when given no file: a library with authors, books,
/// members and loans, including names in several scripts, emoji and a note with a control
/// character, so what Cardfile does with such data is visible from the first run.
public enum DemoDatabase {
    /// Where the demo lives: `$XDG_DATA_HOME/cardfile/demo.sqlite`, or
    /// `~/.local/share/cardfile/demo.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return base + "/cardfile/demo.sqlite"
    }

    /// How many books the demo holds by default (authors, members and loans follow).
    public static let defaultRows = 3000

    /// Creates the demo database at `path` (and its folder) unless something is already there.
    /// Returns true when it created it.
    @discardableResult
    public static func ensure(at path: String) throws(StoreError) -> Bool {
        if FileManager.default.fileExists(atPath: path) { return false }
        try create(at: path, rows: defaultRows)
        return true
    }

    /// What stands at a path `cardfile demo` was asked to write.
    public enum Target: Equatable, Sendable {
        /// Nothing: the demo can be made there.
        case free
        /// An earlier demo database, which may be replaced once the person agrees.
        case demo
        /// Anything else: never replaced (the reason names it).
        case other(OutputRefusal)
    }

    /// Tells what stands at `path`, without changing it.
    public static func target(at path: String) -> Target {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .free }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .other(.isAFolder)
        case S_IFREG: break
        case S_IFLNK: return .other(.notADemo(what: "a symbolic link"))
        default: return .other(.notADemo(what: "a special file"))
        }
        guard info.st_size > 0 else { return .other(.notADemo(what: "an empty file")) }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                let id = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                // Demos made before the application id was set are known by their tables.
                return id == applicationID || (id == 0 && tables == ["authors", "books", "loans", "members"])
                    ? .demo : .other(.notADemo(what: "another database"))
            }
        } catch {
            return .other(.notADemo(what: "a file that is not a database"))
        }
    }

    /// Creates the demo database at `path` with `rows` books: a small library with authors,
    /// members and loans, related by foreign keys, with a UNIQUE column, CHECK constraints,
    /// dates, NULLs, long multi-line notes and names in several scripts. The same `rows`
    /// always gives the same data.
    ///
    /// It is built in a temporary file beside `path` and moved into place when complete.
    /// It creates only where nothing is, or over an earlier demo when `replacingDemo` is
    /// true (the person agreed); anything else at `path` is left as it was.
    /// - Throws: ``StoreError/outputRefused(path:_:)`` when `path` holds something else (or
    ///   an earlier demo and `replacingDemo` is false); errors of creating the file.
    public static func create(at path: String, rows: Int, replacingDemo: Bool = false) throws(StoreError) {
        switch target(at: path) {
        case .free: break
        case .demo: guard replacingDemo else { throw StoreError.outputRefused(path: path, .exists) }
        case .other(let refusal): throw StoreError.outputRefused(path: path, refusal)
        }
        let files = FileManager.default
        let folder = PathText.folder(of: path)
        do {
            try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError.directoryMissing(path: path)
        }
        // Written like every other file: in a temporary file beside `path`, moved into place
        // when complete. (What stands there was checked above.)
        let output = try OutputFile(path: path, replacing: true, protecting: [])
        guard let temporary = output.temporaryPath else {
            output.discard()
            throw StoreError.outputRefused(path: path, .notADemo(what: "a special file"))
        }
        func removeTemporary() {
            output.discard()
            for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) }
        }
        do {
            let queue = try DatabaseQueue(path: temporary)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA application_id = \(applicationID)")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.inTransaction {
                    try db.execute(sql: schema)
                    var data = DemoData(books: max(10, rows))
                    try data.insert(into: db, authors: authors, books: books)
                    return .commit
                }
            }
            try queue.close()
        } catch let error as DatabaseError {
            removeTemporary()
            throw StoreError.opening(error, path: path)
        } catch {
            removeTemporary()
            throw StoreError.cannotOpen(path: path, detail: String(describing: error))
        }
        // The earlier demo's log must not be applied to the new file.
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
        try output.commit()
    }

    /// Marks a file as a Cardfile demo (`PRAGMA application_id`), so `cardfile demo` knows
    /// what it may replace: "Card" in ASCII.
    static let applicationID: Int32 = 0x4361_7264

    private static let schema = """
        CREATE TABLE authors (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            country TEXT,
            born INTEGER CHECK (born IS NULL OR born BETWEEN 1000 AND 2100)
        );
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            author_id INTEGER REFERENCES authors(id),
            isbn TEXT UNIQUE,
            year INTEGER,
            published TEXT,
            pages INTEGER CHECK (pages IS NULL OR pages > 0),
            rating REAL CHECK (rating IS NULL OR rating BETWEEN 0 AND 5),
            notes TEXT
        );
        CREATE INDEX books_by_year ON books (year);
        CREATE INDEX books_by_author ON books (author_id);
        CREATE TABLE members (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            email TEXT UNIQUE,
            joined TEXT NOT NULL
        );
        CREATE TABLE loans (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books(id),
            member_id INTEGER NOT NULL REFERENCES members(id),
            borrowed TEXT NOT NULL,
            returned TEXT,
            CHECK (returned IS NULL OR returned >= borrowed)
        );
        CREATE INDEX loans_by_book ON loans (book_id);
        """

    static let authors: [(Int, String, String, Int)] = [
        (1, "Ursula K. Le Guin", "United States", 1929),
        (2, "村上春樹 (Haruki Murakami)", "Japan", 1949),
        (3, "Chimamanda Ngozi Adichie", "Nigeria", 1977),
        (4, "Gabriel García Márquez", "Colombia", 1927),
        (5, "Wisława Szymborska", "Poland", 1923),
        (6, "Фёдор Достоевский", "Russia", 1821),
    ]

    static let books: [(String, Int, Int, Int, Double, String?)] = [
        ("The Dispossessed", 1, 1974, 387, 4.5, "An ambiguous utopia"),
        ("A Wizard of Earthsea", 1, 1968, 183, 4.0, "🧙 first of the Earthsea cycle"),
        ("The Left Hand of Darkness", 1, 1969, 286, 4.5, nil),
        ("ノルウェイの森 (Norwegian Wood)", 2, 1987, 296, 4.0, "Tokyo, late 1960s"),
        ("Kafka on the Shore", 2, 2002, 505, 4.0, "🐈 talking cats"),
        ("Half of a Yellow Sun", 3, 2006, 433, 4.5, nil),
        ("Americanah", 3, 2013, 477, 4.0, "Lagos ↔ Princeton"),
        ("Cien años de soledad", 4, 1967, 417, 5.0, "Macondo"),
        ("View with a Grain of Sand", 5, 1995, 214, 4.5, "poems"),
        ("Преступление и наказание", 6, 1866, 671, 4.5, "A note with a bell character: \u{07} (shown, never rung)"),
    ]
}
