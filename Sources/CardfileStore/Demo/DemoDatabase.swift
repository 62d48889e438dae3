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

    /// Creates the demo database at `path` (and its folder) unless a file is already there.
    /// Returns true when it created it.
    @discardableResult
    public static func ensure(at path: String) throws(StoreError) -> Bool {
        if FileManager.default.fileExists(atPath: path) { return false }
        try create(at: path, rows: defaultRows)
        return true
    }

    /// Creates the demo database at `path` afresh (replacing a file there) with `rows` books:
    /// a small library with authors, members and loans, related by foreign keys, with a UNIQUE
    /// column, CHECK constraints, dates, NULLs, long multi-line notes and names in several
    /// scripts. The same `rows` always gives the same data.
    public static func create(at path: String, rows: Int) throws(StoreError) {
        let files = FileManager.default
        let folder = PathText.folder(of: path)
        do {
            try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError.directoryMissing(path: path)
        }
        for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: path + suffix) }
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
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
            try? files.removeItem(atPath: path)
            throw StoreError.opening(error, path: path)
        } catch {
            try? files.removeItem(atPath: path)
            throw StoreError.cannotOpen(path: path, detail: String(describing: error))
        }
    }

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
