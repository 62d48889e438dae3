import CardfileTestSupport
import Foundation
import Testing
@testable import CardfilePostgres
@testable import CardfileStore

/// `cardfile import` against `psql`'s `\copy … CSV HEADER` of the same file: random CSV files
/// of what CSV quotes and COPY escapes (tabs, line breaks, backslashes, `\N` as text, empty
/// quoted and unquoted fields, wide characters) must make the same table, row for row. The
/// import sends its own `COPY` text made from the file's bytes; psql sends the file.
@Suite("PostgreSQL: import against psql's \\copy", .timeLimit(.minutes(Fuzz.scaled(5))))
struct CopyImportOracleTests {
    static let pieces = ["a", "Zoë", "🐈", " ", "\t", "\n", "\r\n", "\\", "N", "\\N", "\\t", ",", "\"", "x y", ";", "'"]

    /// One field as CSV writes it: quoted when it must be, and sometimes when it need not.
    static func csv(_ text: String?, _ random: inout SeededRandom) -> String {
        guard let text else { return "" }
        let must = text.isEmpty || text.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard must || random.next(below: 4) == 0 else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    @Test func randomFilesMakeTheTablePsqlMakes() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try DatabasePlace("""
            CREATE TABLE ours (id int8 PRIMARY KEY, a text, b text NOT NULL, price numeric(10,2), day date, note text);
            CREATE TABLE theirs (LIKE ours INCLUDING ALL);
            """)
        for round in 0..<Fuzz.scaled(4) {
            _ = try place.psql("TRUNCATE ours; TRUNCATE theirs")
            // (One line ending a file: COPY refuses a file that mixes them.)
            let newline = random.next(below: 3) == 0 ? "\r\n" : "\n"
            var text = "id,a,b,price,day,note" + newline
            let count = 1 + random.next(below: 400)
            for id in 1...count {
                func field(nullable: Bool) -> String? {
                    if nullable, random.next(below: 6) == 0 { return nil }
                    var value = ""
                    for _ in 0..<random.next(below: 5) { value += Self.pieces[random.next(below: Self.pieces.count)] }
                    // A line of `\.` alone ends psql's data: not this test's subject.
                    return value.replacingOccurrences(of: "\n\\.", with: "\n\\x")
                }
                let price = random.next(below: 5) == 0 ? nil : "\(random.next(below: 20_000) - 10_000).\(random.next(below: 100))"
                let day = random.next(below: 5) == 0 ? nil : String(format: "2026-%02d-%02d", 1 + random.next(below: 12), 1 + random.next(below: 28))
                let fields = ["\(id)", Self.csv(field(nullable: true), &random), Self.csv(field(nullable: false), &random),
                              price ?? "", day ?? "", Self.csv(field(nullable: true), &random)]
                text += fields.joined(separator: ",") + newline
            }
            let path = place.folder.file("random-\(round).csv")
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), \(count) rows"
            let batch = [nil, 1, 7, 100][random.next(below: 4)]
            let summary = try Importer(container: place.container, file: path, options: ImportOptions(table: "ours", batchSize: batch)).run()
            #expect(summary.inserted == count && summary.rejected == 0, "\(context): \(summary.errors.prefix(3))")
            _ = try place.psql("\\copy theirs FROM '\(path)' CSV HEADER")
            let onlyOurs = try place.psql("SELECT id, a, b FROM (TABLE ours EXCEPT ALL TABLE theirs) x ORDER BY id LIMIT 3")
            let onlyTheirs = try place.psql("SELECT id, a, b FROM (TABLE theirs EXCEPT ALL TABLE ours) x ORDER BY id LIMIT 3")
            #expect(onlyOurs.isEmpty && onlyTheirs.isEmpty, "\(context): ours \(onlyOurs.debugDescription), theirs \(onlyTheirs.debugDescription)")
            #expect(try place.psql("SELECT count(*) FROM ours").trimmingCharacters(in: .whitespacesAndNewlines) == "\(count)", "\(context)")
        }
    }
}
