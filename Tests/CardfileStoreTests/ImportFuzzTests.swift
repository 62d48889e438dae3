import Foundation
import GRDB
import Testing
@testable import CardfileStore

/// Randomized checks of import: random rows come back exactly through every format, and
/// random damage to a file is reported row by row, never a crash, a half-written row or a
/// wrong count.
@Suite("Import fuzz", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ImportFuzzTests {
    static let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, r REAL, b BLOB, anything)"

    /// A random value for a column of `kind`, with the awkward ones (quotes, delimiters,
    /// line breaks, wide and combining characters, `\x` look-alikes, extremes) often.
    static func value(_ kind: Int, _ random: inout SeededRandom) -> DatabaseValue {
        if random.next(below: 6) == 0 { return .null }
        let pieces = ["a", "Zoë", "漢字", "🐈", "e\u{301}", "\"", ",", ";", "\t", "\n", "\r\n", " ", "\\x", "0", "12", "-3", "1.5", "", "NULL", "\u{FEFF}"]
        func text() -> String { (0..<random.next(below: 6)).map { _ in pieces[random.next(below: pieces.count)] }.joined() }
        switch kind {
        case 0: return text().databaseValue
        case 1: return [Int64.min, Int64.max, 0, -1, Int64(random.next(below: 1_000_000)) - 500_000][random.next(below: 5)].databaseValue
        case 2: return [0.1, -0.0, 1e300, 2.5e-7, Double(random.next(below: 1000)) / 8, 3.0][random.next(below: 6)].databaseValue
        case 3: return Data((0..<random.next(below: 5)).map { _ in UInt8(random.next(below: 256)) }).databaseValue
        default:
            // A column without affinity keeps whatever type it is given.
            return [text().databaseValue, Int64(random.next(below: 100)).databaseValue, 1.25.databaseValue,
                    Data([0x5C, 0x78]).databaseValue][random.next(below: 4)]
        }
    }

    @Test func randomRowsComeBackExactlyThroughEveryFormat() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(12) {
            let source = try PeopleFixture(schema: Self.schema)
            let rows = 1 + random.next(below: 40)
            let queue = try DatabaseQueue(path: source.path)
            try queue.write { db in
                for id in 1...rows {
                    let values = [Int64(id).databaseValue] + (0..<5).map { Self.value($0, &random) }
                    try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", arguments: StatementArguments(values))
                }
            }
            try queue.close()
            let format = Exporter.Format.allCases[random.next(below: 4)]
            var bytes: [UInt8] = []
            _ = try Exporter(container: try Container(path: source.path), table: "t", format: format).run { bytes += $0 }
            let file = source.directory.file("t.\(format.rawValue)")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let copy = try PeopleFixture(schema: Self.schema)
            let summary = try Importer(container: copy.container, file: file, options: ImportOptions(table: "t", batchSize: 1 + random.next(below: 10))).run()
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), \(format)"
            #expect(summary.inserted == rows && summary.rejected == 0, "\(context): \(summary.errors.prefix(2))")
            // JSON carries blobs as base64 text: a column declared BLOB takes them back as
            // bytes, one without a type keeps the text.
            let columns = format == .json || format == .jsonl ? "quote(id), quote(name), quote(n), quote(r), quote(b)" : "quote(id), quote(name), quote(n), quote(r), quote(b), quote(anything), typeof(anything)"
            let digest = "SELECT group_concat(\(columns.replacingOccurrences(of: ", ", with: " || '|' || ")), char(10)) FROM (SELECT * FROM t ORDER BY id)"
            let (mine, theirs) = (try readDisk(copy.path, digest), try readDisk(source.path, digest))
            if mine != theirs {
                let (a, b) = ("\(mine)".split(separator: "\n"), "\(theirs)".split(separator: "\n"))
                Issue.record("\(context): first difference \(zip(a, b).first { $0 != $1 }.map { "\($0.0) ≠ \($0.1)" } ?? "in the row count")")
            }
        }
    }

    @Test func damagedFilesAreReportedRowByRowAndNeverHalfWritten() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        var good = Array("id,name,n,r,b,anything\n".utf8)
        for id in 1...60 { good += Array("\(id),\"name \(id), \"\"q\"\"\",\(id * 3),\(id).5,\\x0aff,\(id % 2 == 0 ? "\"t\"" : "7")\r\n".utf8) }
        let damage: [[UInt8]] = [[0x22], [0x2C], [0x0A], [0x0D], [0x00], [0xFF], [0xC3], [0xEF, 0xBB, 0xBF], [0x09], Array("\\x".utf8), Array("abc".utf8)]
        for round in 0..<Fuzz.scaled(40) {
            let fixture = try PeopleFixture(schema: Self.schema)
            var bytes = good
            for _ in 0..<(1 + random.next(below: 6)) {
                let at = random.next(below: bytes.count)
                switch random.next(below: 3) {
                case 0: bytes.insert(contentsOf: damage[random.next(below: damage.count)], at: at)
                case 1: bytes.remove(at: at)
                default: bytes[at] = UInt8(random.next(below: 256))
                }
            }
            if random.next(below: 8) == 0 { bytes = Array(bytes.prefix(random.next(below: bytes.count))) }
            let file = fixture.directory.file("damaged.csv")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            var options = ImportOptions(table: "t", ignoreUnknown: true, batchSize: 1 + random.next(below: 20))
            options.encoding = [nil, .utf8, .latin1, .utf16][random.next(below: 4)]
            options.emptyAsText = random.next(below: 2) == 0
            options.header = random.next(below: 5) != 0
            options.mode = ImportOptions.Mode.allCases[random.next(below: 4)]
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round)"
            do {
                let summary = try Importer(container: fixture.container, file: file, options: options).run()
                let count = try readDisk(fixture.path, "SELECT count(*) FROM t")
                #expect(count == .integer(Int64(summary.inserted)), "\(context): \(summary)")
                let lines = bytes.filter { $0 == 0x0A }.count + 1
                #expect(summary.errors.allSatisfy { $0.line >= 1 && $0.line <= lines }, "\(context): \(summary.errors.prefix(3))")
                #expect(summary.errors.count == min(summary.rejected, ImportSummary.errorsKept), "\(context)")
            } catch {
                // Only whole-file problems may stop an import before it starts (a header
                // that names unknown columns, an unreadable first line, an upsert without a key),
                // and they are said as such: never a store error or anything else.
                switch error as? ImportError {
                case .unknownColumns?, .noHeader?, .noUpsertKey?, .cannotRead?, .unknownFormat?:
                    break
                default:
                    Issue.record("\(context): not a whole-file problem: \(error)")
                }
                #expect(try readDisk(fixture.path, "SELECT count(*) FROM t") == .integer(0), "\(context): \(error)")
            }
            #expect(try readDisk(fixture.path, "PRAGMA integrity_check") == .text("ok"), "\(context)")
        }
    }
}

/// Damage whose outcome is known in advance: each damaged row expects its own error, on its
/// own line, naming its own column, and every other row comes in exactly.
@Suite("Import damage, row by row", .timeLimit(.minutes(Fuzz.scaled(10))))
struct ImportDamageTests {
    /// One kind of damage to one row, and what the import must say about it.
    enum Damage: CaseIterable {
        case textAfterClosingQuote, wordInIntegerColumn, realTooLarge, notUTF8, nulByte, fieldMissing, fieldTooMany,
             duplicateKey, unclosedQuoteAtTheEnd

        /// The row's bytes once damaged (the row's own fields, without the line's end).
        func apply(to fields: [[UInt8]]) -> [[UInt8]] {
            var fields = fields
            switch self {
            case .textAfterClosingQuote: fields[1] = Array("\"ab\"c".utf8)
            case .wordInIntegerColumn: fields[2] = Array("abc".utf8)
            case .realTooLarge: fields[3] = Array("1e400".utf8)
            case .notUTF8: fields[1].insert(0xFF, at: 3)
            case .nulByte: fields[1].insert(0x00, at: 3)
            case .fieldMissing: fields.removeLast()
            case .fieldTooMany: fields.append(Array("x".utf8))
            case .duplicateKey: fields[0] = Array("1".utf8)
            case .unclosedQuoteAtTheEnd: fields[5] = Array("\"open".utf8)
            }
            return fields
        }

        /// The column the error names, and a part of its reason.
        func expected(line: Int) -> (column: String?, reason: String) {
            switch self {
            case .textAfterClosingQuote: return (nil, "field 2: `c` follows the closing quote")
            case .wordInIntegerColumn: return ("n", "“abc”")
            case .realTooLarge: return ("r", "“1e400”")
            case .notUTF8: return (nil, "field 2 is not valid UTF-8 text")
            case .nulByte: return (nil, "field 2 holds a NUL byte")
            case .fieldMissing: return (nil, "it has 5 fields, the header has 6")
            case .fieldTooMany: return (nil, "it has 7 fields, the header has 6")
            case .duplicateKey: return ("id", "another row already has this value")
            case .unclosedQuoteAtTheEnd: return (nil, "field 6: unterminated quote (opened on line \(line), it never closes)")
            }
        }
    }

    static func goodFields(_ id: Int) -> [[UInt8]] {
        ["\(id)", "\"name \(id), \"\"q\"\"\"", "\(id * 3)", "\(id).5", "\\x0aff", id % 2 == 0 ? "\"t\"" : "7"].map { Array($0.utf8) }
    }

    @Test func eachDamagedRowHasItsOwnErrorAndLineAndTheOthersComeInWhole() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let rows = 60
        for round in 0..<Fuzz.scaled(30) {
            // Rows 2… may be damaged (row 1 is the key a duplicate repeats); the last row alone
            // may hold a quote that never closes, since any later quote would close it.
            var damaged: [Int: Damage] = [:]
            for _ in 0..<(1 + random.next(below: 8)) {
                let row = 2 + random.next(below: rows - 1)
                let kinds = Damage.allCases.filter { $0 != .unclosedQuoteAtTheEnd || row == rows }
                damaged[row] = kinds[random.next(below: kinds.count)]
            }
            var bytes = Array("id,name,n,r,b,anything\r\n".utf8)
            for id in 1...rows {
                let fields = damaged[id].map { $0.apply(to: Self.goodFields(id)) } ?? Self.goodFields(id)
                bytes += Array(fields.joined(separator: [UInt8(ascii: ",")]))
                if id < rows || random.next(below: 2) == 0 { bytes += [0x0D, 0x0A] }
            }
            let fixture = try PeopleFixture(schema: ImportFuzzTests.schema)
            let file = fixture.directory.file("damaged.csv")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            var options = ImportOptions(table: "t", batchSize: 1 + random.next(below: 20))
            options.encoding = [nil, .utf8][random.next(below: 2)]
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), damage \(damaged.sorted { $0.key < $1.key })"
            let summary = try Importer(container: fixture.container, file: file, options: options).run()

            // The header is line 1, so row N is line N + 1.
            let expected = damaged.sorted { $0.key < $1.key }.map { row, damage in (line: row + 1, damage.expected(line: row + 1)) }
            #expect(summary.rejected == damaged.count, "\(context): \(summary.errors)")
            #expect(summary.inserted == rows - damaged.count, "\(context)")
            #expect(summary.errors.map(\.line) == expected.map(\.line), "\(context): \(summary.errors)")
            for (error, want) in zip(summary.errors, expected) {
                #expect(error.column == want.1.column && error.reason.contains(want.1.reason), "\(context): line \(want.line) said “\(error)”, expected column \(want.1.column ?? "none") and “\(want.1.reason)”")
            }
            // Every undamaged row is on disk exactly as written; no damaged row is.
            let ids = (1...rows).filter { damaged[$0] == nil }
            let onDisk = try readDisk(fixture.path, "SELECT group_concat(id || '|' || name || '|' || n || '|' || r || '|' || hex(b) || '|' || quote(anything), char(10)) FROM (SELECT * FROM t ORDER BY id)")
            let want = ids.map { "\($0)|name \($0), \"q\"|\($0 * 3)|\($0).5|0AFF|\($0 % 2 == 0 ? "'t'" : "7")" }.joined(separator: "\n")
            #expect(onDisk == .text(want), "\(context)")
        }
    }
}
