import Foundation
import GRDB

/// The demo's generated rows: deterministic (a fixed-seed generator), varied enough to be
/// worth browsing. The hand-written authors and books come first.
struct DemoData {
    let books: Int
    private var state: UInt64 = 0x5EED_CA4D_F11E

    init(books: Int) {
        self.books = books
    }

    private mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
    }

    private mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }

    private static let givenNames = ["Ada", "Émile", "Zoë", "Søren", "Ngozi", "Mateo", "Aiko", "Юлия", "Олег", "Σοφία", "Łukasz",
                                     "Björn", "Chiara", "Kwame", "Priya", "Tomás", "Inès", "Yusuf", "Li", "Hana", "Marta", "Jakub"]
    private static let familyNames = ["Lovelace", "Durand", "Ünal", "Kierkegaard", "Okafor", "García", "山田", "Иванова", "Петров",
                                      "Παπαδοπούλου", "Wałęsa", "Borg", "Rossi", "Mensah", "Sharma", "O'Brien", "Müller", "김", "Novák", "Silva"]
    private static let countries = ["Japan", "Nigeria", "Poland", "Colombia", "France", "Canada", "India", "Greece", "Korea", "Brazil", "Ghana", "Czechia"]
    private static let words = ["river", "glass", "winter", "garden", "lantern", "harbour", "silence", "orchard", "mirror", "tide",
                                "ember", "salt", "hollow", "atlas", "meridian", "cartographer", "night", "paper", "island", "weather"]
    private static let foreign = ["夜の図書館", "Мост", "Η θάλασσα", "Café", "Straße", "북쪽", "🌊", "🐈", "Ωmega"]
    private static let noteLines = ["Signed first edition.", "Water damage on the back cover.", "Recommended by the reading group.",
                                    "Missing the map at the front.", "Donated in memory of a member.", "Annotated in pencil — do not erase.",
                                    "Second copy in storage.", "Translation differs from the original in chapter 3."]

    mutating func insert(into db: Database, authors fixedAuthors: [(Int, String, String, Int)], books fixedBooks: [(String, Int, Int, Int, Double, String?)]) throws {
        for (id, name, country, born) in fixedAuthors {
            try db.execute(sql: "INSERT INTO authors (id, name, country, born) VALUES (?, ?, ?, ?)", arguments: [id, name, country, born])
        }
        let authorCount = max(fixedAuthors.count, books / 15)
        for id in (fixedAuthors.count + 1)...max(fixedAuthors.count + 1, authorCount) where id <= authorCount {
            let name = "\(pick(Self.givenNames)) \(pick(Self.familyNames))"
            let country: String? = next(8) == 0 ? nil : pick(Self.countries)
            let born: Int? = next(6) == 0 ? nil : 1850 + next(150)
            try db.execute(sql: "INSERT INTO authors (id, name, country, born) VALUES (?, ?, ?, ?)", arguments: [id, name, country, born])
        }
        let insertBook = try db.makeStatement(sql: """
            INSERT INTO books (title, author_id, isbn, year, published, pages, rating, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (index, (title, author, year, pages, rating, notes)) in fixedBooks.enumerated() {
            try insertBook.execute(arguments: [title, author, isbn(index), year, "\(year)-01-01", pages, rating, notes])
        }
        for index in fixedBooks.count..<books {
            var title = "The \(pick(Self.words).capitalized) of \(pick(Self.words).capitalized)"
            if next(7) == 0 { title += " — \(pick(Self.foreign))" }
            let year = 1900 + next(125)
            let published: String? = next(10) == 0 ? nil : String(format: "%04d-%02d-%02d", year, 1 + next(12), 1 + next(28))
            let pages: Int? = next(12) == 0 ? nil : 60 + next(900)
            let rating: Double? = next(5) == 0 ? nil : Double(next(11)) / 2
            var notes: String?
            switch next(6) {
            case 0: notes = nil
            case 1: notes = ""
            case 2: notes = (0..<(2 + next(5))).map { _ in pick(Self.noteLines) }.joined(separator: "\n")
            default: notes = pick(Self.noteLines)
            }
            let author: Int? = next(20) == 0 ? nil : 1 + next(authorCount)
            try insertBook.execute(arguments: [title, author, isbn(index), year, published, pages, rating, notes])
        }
        let members = max(5, books / 10)
        for id in 1...members {
            let name = "\(pick(Self.givenNames)) \(pick(Self.familyNames))"
            let email: String? = next(9) == 0 ? nil : "member\(id)@example.org"
            let joined = String(format: "%04d-%02d-%02d", 2005 + next(20), 1 + next(12), 1 + next(28))
            try db.execute(sql: "INSERT INTO members (id, name, email, joined) VALUES (?, ?, ?, ?)", arguments: [id, name, email, joined])
        }
        let insertLoan = try db.makeStatement(sql: "INSERT INTO loans (book_id, member_id, borrowed, returned) VALUES (?, ?, ?, ?)")
        for _ in 0..<max(5, books / 2) {
            let year = 2015 + next(10)
            let month = 1 + next(12)
            let day = 1 + next(20)
            let borrowed = String(format: "%04d-%02d-%02d", year, month, day)
            let returned: String? = next(4) == 0 ? nil : String(format: "%04d-%02d-%02d", year, month, day + 1 + next(7))
            try insertLoan.execute(arguments: [1 + next(books), 1 + next(members), borrowed, returned])
        }
    }

    /// A valid-looking, unique ISBN-13 for book number `index`.
    private func isbn(_ index: Int) -> String {
        let body = String(format: "978%09d", 100_000_000 + index)
        let digits = body.compactMap { $0.wholeNumberValue }
        let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return body + String((10 - sum % 10) % 10)
    }
}
