import Foundation
import Testing
@testable import CardfileStore

/// A corpus of awkward files, each with what must come of it.
@Suite("Import", .timeLimit(.minutes(10)))
struct ImportTests {
    static let schema = """
        CREATE TABLE cards (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            code TEXT UNIQUE,
            age INTEGER,
            score REAL,
            note TEXT,
            extra
        );
        INSERT INTO cards (id, name, code, age) VALUES (1, 'Existing', 'E1', 50);
        """

    struct Fixture {
        let people: PeopleFixture
        var container: Container { people.container }
        var directory: TemporaryDirectory { people.directory }

        init() throws {
            people = try PeopleFixture(schema: ImportTests.schema)
        }

        func file(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = directory.file(name)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        func file(_ name: String, _ text: String) throws -> String {
            try file(name, Array(text.utf8))
        }

        func run(_ path: String, _ options: ImportOptions = ImportOptions(table: "cards"), cancelAfter: Int? = nil) throws -> ImportSummary {
            var batches = 0
            return try Importer(container: container, file: path, options: options).run(
                progress: { _ in batches += 1 },
                isCancelled: { cancelAfter.map { batches >= $0 } ?? false })
        }

        func disk(_ sql: String) throws -> Value { try people.disk(sql) }
    }

    @Test func csvWithQuotesNewlinesNullsAndCRLF() throws {
        let fixture = try Fixture()
        let path = try fixture.file("cards.csv", "id,name,code,age,score,note\r\n2,\"Smith, Ada\",A2,36,1.5,\"line one\nline \"\"two\"\"\"\r\n3,Bo,,,,\"\"\r\n")
        let summary = try fixture.run(path)
        #expect(summary.inserted == 2)
        #expect(summary.rejected == 0)
        #expect(try fixture.disk("SELECT name || '|' || note FROM cards WHERE id = 2") == "Smith, Ada|line one\nline \"two\"")
        #expect(try fixture.disk("SELECT code IS NULL AND age IS NULL AND score IS NULL FROM cards WHERE id = 3") == 1)
        #expect(try fixture.disk("SELECT note = '' FROM cards WHERE id = 3") == 1, "a quoted empty field is the empty string")
        #expect(try fixture.disk("SELECT typeof(age) || typeof(score) FROM cards WHERE id = 2") == "integerreal")
    }

    @Test func badRowsAreReportedWithTheirLinesAndTheRestGoesIn() throws {
        let fixture = try Fixture()
        let path = try fixture.file("bad.csv", "id,name,age\n2,Two,2\n3,Three\n4,Four,four\n5,,5\n6,Six,6\n7,\"never closed,7\n")
        let summary = try fixture.run(path)
        #expect(summary.inserted == 2)                                   // 2 and 6
        #expect(summary.rejected == 4)
        let lines = summary.errors.map(\.line)
        #expect(lines == [3, 4, 5, 7])
        #expect(summary.errors[0].description.contains("bad.csv line 3: it has 2 fields, the header has 3"))
        #expect(summary.errors[1].reason.contains("is not a whole number"))
        #expect(summary.errors[2].reason.contains("needs a value"))
        #expect(summary.errors[2].reason.contains("--empty-as-text"))
        #expect(summary.errors[3].reason.contains("unterminated quote"))
        let ids = try fixture.disk("SELECT group_concat(id) FROM (SELECT id FROM cards ORDER BY id)")
        #expect(ids == "1,2,6")
    }

    @Test func encodingsBOMsNULsAndInvalidBytes() throws {
        let fixture = try Fixture()
        // A UTF-8 BOM is not part of the first column's name.
        let bom = try fixture.file("bom.csv", [0xEF, 0xBB, 0xBF] + Array("id,name\n10,Bom\n".utf8))
        #expect(try fixture.run(bom).inserted == 1)
        // Latin-1 read as UTF-8 is an error naming the line; with --encoding latin1 it is right.
        let latin = try fixture.file("latin.csv", Array("id,name\n11,Jos".utf8) + [0xE9] + Array("\n".utf8))
        let wrong = try fixture.run(latin)
        #expect(wrong.rejected == 1)
        #expect(wrong.errors.first?.description.contains("latin.csv line 2") == true)
        #expect(wrong.errors.first?.reason.contains("latin1") == true)
        var latinOptions = ImportOptions(table: "cards")
        latinOptions.encoding = .latin1
        #expect(try fixture.run(latin, latinOptions).inserted == 1)
        #expect(try fixture.disk("SELECT name FROM cards WHERE id = 11") == "José")
        // UTF-16 with a BOM, little-endian.
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "id,name\n12,Zoë 🐈\n".utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try fixture.run(try fixture.file("wide.csv", utf16)).inserted == 1)
        #expect(try fixture.disk("SELECT name FROM cards WHERE id = 12") == "Zoë 🐈")
        // A NUL byte in a field is an error, not a cut string.
        let nul = try fixture.file("nul.csv", Array("id,name\n13,A".utf8) + [0] + Array("B\n".utf8))
        #expect(try fixture.run(nul).errors.first?.reason.contains("NUL") == true)
    }

    /// `text` in UTF-16 of either byte order, with or without its byte-order mark.
    static func utf16(_ text: String, bigEndian: Bool, mark: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = mark ? (bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
        for unit in text.utf16 { bytes += bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return bytes
    }

    @Test(arguments: [false, true]) func utf16OfEitherByteOrderWithOrWithoutTheOption(bigEndian: Bool) throws {
        // Over several 64 KiB blocks, with characters outside the BMP (surrogate pairs) that
        // fall across the blocks' edges somewhere.
        var rows = ""
        for id in 100..<8_100 { rows += "\(id),Zoë 🐈 \(id) 漢字\n" }
        // A filler row first, as long as puts a surrogate pair across the first block's edge:
        // its high half the block's last two bytes, its low half the next block's first two.
        let edge = ByteSource.blockSize - 2
        let firstPair = 2 + 2 * ("id,name\n".utf16.count + rows.utf16.prefix { !UTF16.isLeadSurrogate($0) }.count)
        let units = ((edge - firstPair) / 2 % 32_768 + 32_768) % 32_768
        let filler = "99," + String(repeating: "x", count: max(0, units - 4)) + "\n"
        #expect(units >= 4, "room for the filler row")
        let text = "id,name\n" + filler + rows
        let bytes = Self.utf16(text, bigEndian: bigEndian)
        #expect(bytes.count > 3 * ByteSource.blockSize)
        let high: ClosedRange<UInt8> = 0xD8...0xDB
        #expect(high.contains(bytes[edge + (bigEndian ? 0 : 1)]), "a high surrogate ends the first block")
        for given in [nil, ImportOptions.Encoding.utf16] {
            let fixture = try Fixture()
            let file = try fixture.file("wide-\(bigEndian ? "be" : "le").csv", bytes)
            var options = ImportOptions(table: "cards")
            options.encoding = given
            let summary = try fixture.run(file, options)
            let context = "\(bigEndian ? "big" : "little")-endian, --encoding \(given?.rawValue ?? "not given")"
            #expect(summary.inserted == 8_001 && summary.rejected == 0, "\(context): \(summary.errors.prefix(2))")
            #expect(try fixture.disk("SELECT name FROM cards WHERE id = 100") == "Zoë 🐈 100 漢字", "\(context)")
            #expect(try fixture.disk("SELECT count(*) FROM cards WHERE name = 'Zoë 🐈 ' || id || ' 漢字'") == 8_000, "\(context)")
        }
    }

    @Test func utf16WithoutAMarkIsReadLittleEndianWhenGiven() throws {
        let fixture = try Fixture()
        var options = ImportOptions(table: "cards")
        options.encoding = .utf16
        let file = try fixture.file("nomark.csv", Self.utf16("id,name\n30,Zoë\n", bigEndian: false, mark: false))
        #expect(try fixture.run(file, options).inserted == 1)
        #expect(try fixture.disk("SELECT name FROM cards WHERE id = 30") == "Zoë")
    }

    @Test func headersMapByNameAndEmptyFilesAreErrors() throws {
        let fixture = try Fixture()
        let upper = try fixture.file("upper.csv", "NAME,ID,Age\nUp,20,3\n")
        #expect(try fixture.run(upper).inserted == 1)
        #expect(try fixture.disk("SELECT name || age FROM cards WHERE id = 20") == "Up3")
        let unknown = try fixture.file("unknown.csv", "id,name,colour\n21,U,red\n")
        #expect(throws: ImportError.self) { try fixture.run(unknown) }
        var ignoring = ImportOptions(table: "cards")
        ignoring.ignoreUnknown = true
        #expect(try fixture.run(unknown, ignoring).inserted == 1)
        let headerOnly = try fixture.file("header.csv", "id,name\n")
        #expect(try fixture.run(headerOnly) == ImportSummary())
        let empty = try fixture.file("empty.csv", "")
        #expect(throws: ImportError.noHeader(file: "empty.csv")) { try fixture.run(empty) }
        var noHeader = ImportOptions(table: "cards")
        noHeader.header = false
        let positional = try fixture.file("positional.csv", "22,Pos,P22,1,2.5,n,x\n")
        #expect(try fixture.run(positional, noHeader).inserted == 1)
        #expect(try fixture.disk("SELECT code FROM cards WHERE id = 22") == "P22")
    }

    @Test func delimitersAreDetectedOrGiven() throws {
        let fixture = try Fixture()
        let semicolons = try fixture.file("semi.csv", "id;name;note\n30;Semi;\"a;b\"\n")
        #expect(try fixture.run(semicolons).inserted == 1)
        #expect(try fixture.disk("SELECT note FROM cards WHERE id = 30") == "a;b")
        let tabs = try fixture.file("tabbed.tsv", "id\tname\n31\tTab\n")
        #expect(try fixture.run(tabs).inserted == 1)
        let pipes = try fixture.file("pipes.txt", "id|name\n32|Pipe\n")
        #expect(try fixture.run(pipes).inserted == 1)
        // A delimiter given wins over what detection would pick: this first line has more
        // commas than semicolons, and the semicolon is the delimiter.
        let line = "35;a,b,c,d,e,f,g,h;C35;1;2.5;n;x\n"
        #expect(Importer.detectDelimiter(Array(line.utf8)) == UInt8(ascii: ","), "detection alone picks the comma")
        let mixed = try fixture.file("mixed.csv", line)
        var given = ImportOptions(table: "cards")
        given.header = false
        given.delimiter = UInt8(ascii: ";")
        #expect(try fixture.run(mixed, given).inserted == 1)
        #expect(try fixture.disk("SELECT name || '/' || code FROM cards WHERE id = 35") == "a,b,c,d,e,f,g,h/C35")
    }

    @Test func modesDecideWhatADuplicateKeyDoes() throws {
        let fixture = try Fixture()
        let file = try fixture.file("dupes.csv", "id,name,age\n1,First,1\n40,New,2\n")
        let inserted = try fixture.run(file)
        #expect((inserted.inserted, inserted.rejected) == (1, 1))
        #expect(inserted.errors.first?.reason.contains("already has") == true)

        var ignore = ImportOptions(table: "cards")
        ignore.mode = .ignore
        let ignored = try fixture.run(file, ignore)
        #expect((ignored.inserted, ignored.skipped) == (0, 2))

        var upsert = ImportOptions(table: "cards")
        upsert.mode = .upsert
        let upserted = try fixture.run(try fixture.file("up.csv", "id,name,age\n1,First,1\n40,New,2\n41,Newer,3\n"), upsert)
        #expect((upserted.inserted, upserted.updated, upserted.unchanged) == (1, 1, 1))
        #expect(try fixture.disk("SELECT name || '/' || code FROM cards WHERE id = 1") == "First/E1", "an upsert keeps the columns the file leaves out")

        // By a unique column when the file has no key: E1 is row 1's code.
        let byCode = try fixture.run(try fixture.file("code.csv", "code,name\nE1,ByCode\nE9,Fresh\n"), upsert)
        #expect((byCode.inserted, byCode.updated) == (1, 1))
        #expect(try fixture.disk("SELECT name FROM cards WHERE id = 1") == "ByCode")

        var replace = ImportOptions(table: "cards")
        replace.mode = .replace
        let replaced = try fixture.run(try fixture.file("re.csv", "id,name\n1,Replaced\n"), replace)
        #expect(replaced.updated == 1)
        #expect(try fixture.disk("SELECT name || '/' || ifnull(code, 'NULL') FROM cards WHERE id = 1") == "Replaced/NULL")
        let noKey = try fixture.file("nokey.csv", "name\nx\n")
        #expect(throws: ImportError.noUpsertKey(table: "cards")) { try fixture.run(noKey, upsert) }
    }

    @Test func jsonLinesAndArrays() throws {
        let fixture = try Fixture()
        let lines = try fixture.file("cards.jsonl", """
            {"id": 50, "name": "Json", "age": 5, "score": 2.5, "note": null, "extra": [1, 2]}

            {"id": 51, "name": "Bool", "extra": true}
            not json
            {"id": 52, "name": "Str", "age": "12"}
            {"id": 53, "name": "Bad", "age": "twelve"}
            """)
        let summary = try fixture.run(lines)
        #expect(summary.inserted == 3)
        #expect(summary.errors.map(\.line) == [4, 6])
        #expect(try fixture.disk("SELECT typeof(score) || '/' || extra FROM cards WHERE id = 50") == "real/[1,2]")
        #expect(try fixture.disk("SELECT extra FROM cards WHERE id = 51") == 1)
        #expect(try fixture.disk("SELECT typeof(age) FROM cards WHERE id = 52") == "integer")

        let array = try fixture.file("cards.json", #"[{"id": 60, "name": "A {brace} \"q\""}, {"id": 61, "name": "B"}]"#)
        #expect(try fixture.run(array).inserted == 2)
        #expect(try fixture.disk("SELECT name FROM cards WHERE id = 60") == "A {brace} \"q\"")
        let notArray = try fixture.file("object.json", #"{"id": 62}"#)
        #expect(try fixture.run(notArray).errors.first?.reason.contains("not a JSON array of objects") == true)
        let mixed = try fixture.file("mixed.json", #"[{"id": 63, "name": "ok"}, 5]"#)
        let mixedSummary = try fixture.run(mixed)
        #expect(mixedSummary.inserted == 1)
        #expect(mixedSummary.errors.first?.reason.contains("not an object") == true)
    }

    @Test func jsonNumbersKeepTheirKindAtTheEdgesOf64Bits() throws {
        let fixture = try Fixture()
        let path = try fixture.file("edges.jsonl", """
            {"id": 2, "name": "min", "extra": -9223372036854775808}
            {"id": 3, "name": "max", "extra": 9223372036854775807}
            {"id": 4, "name": "over", "extra": 18446744073709551615}
            {"id": 5, "name": "real", "extra": 2.0}
            """)
        let summary = try fixture.run(path)
        #expect(summary.inserted == 4, "\(summary.errors)")
        #expect(try fixture.disk("SELECT group_concat(quote(extra), ' ') FROM (SELECT extra FROM cards WHERE id > 1 ORDER BY id)")
                == "-9223372036854775808 9223372036854775807 '18446744073709551615' 2.0",
                "beyond 64 bits, a column without a type keeps the number exactly, as text (a REAL would round it)")
    }

    @Test func anAtomicImportIsOneTransactionWrittenInBatchesAndACancelRollsItBack() throws {
        let fixture = try Fixture()
        var text = "id,name\n"
        for id in 100..<160 { text += "\(id),Row \(id)\n" }
        let file = try fixture.file("many.csv", text)
        let options = ImportOptions(table: "cards", atomic: true, batchSize: 10)
        // A reader on another connection sees nothing until the end, while progress comes
        // batch by batch.
        var seen: [Value] = []
        var reports = 0
        let done = try Importer(container: fixture.container, file: file, options: options).run(progress: { _ in
            reports += 1
            seen.append((try? fixture.disk("SELECT count(*) FROM cards WHERE id >= 100")) ?? .null)
        })
        #expect(done.inserted == 60 && !done.rolledBack)
        #expect(reports == 6)
        #expect(seen.allSatisfy { $0 == 0 })
        #expect(try fixture.disk("SELECT count(*) FROM cards WHERE id >= 100") == 60)

        let again = try fixture.file("more.csv", text.replacingOccurrences(of: ",Row", with: "0,Row"))
        let cancelled = try fixture.run(again, options, cancelAfter: 3)
        #expect(cancelled.cancelled && cancelled.rolledBack)
        #expect(cancelled.inserted == 0)
        #expect(cancelled.sentence.hasPrefix("nothing imported (all or nothing); cancelled before line 32"))
        #expect(try fixture.disk("SELECT count(*) FROM cards WHERE id >= 1000") == 0)
    }

    @Test func aFileOfBadRowsStillComesInBatches() throws {
        let fixture = try Fixture()
        var text = "id,age\n"
        for id in 0..<50 { text += "\(id + 200),not a number\n" }
        let file = try fixture.file("bad.csv", text)
        var batches = 0
        let summary = try Importer(container: fixture.container, file: file, options: ImportOptions(table: "cards", batchSize: 10)).run(progress: { _ in batches += 1 })
        #expect(summary.rejected == 50)
        #expect(batches == 5)
    }

    @Test func atomicIsAllOrNothingAndAbortStopsAtTheFirstError() throws {
        let fixture = try Fixture()
        let file = try fixture.file("some-bad.csv", "id,name\n70,A\n71,\n72,C\n")
        var atomic = ImportOptions(table: "cards")
        atomic.atomic = true
        let summary = try fixture.run(file, atomic)
        #expect(summary.rolledBack)
        #expect(summary.sentence.contains("nothing imported"))
        #expect(try fixture.disk("SELECT count(*) FROM cards WHERE id >= 70") == 0)

        var abort = ImportOptions(table: "cards")
        abort.onError = .abort
        abort.batchSize = 1
        let aborted = try fixture.run(file, abort)
        #expect(aborted.stoppedEarly)
        #expect(aborted.inserted == 1)
        #expect(try fixture.disk("SELECT group_concat(id) FROM (SELECT id FROM cards WHERE id >= 70 ORDER BY id)") == "70")
    }

    @Test func cancellingKeepsWholeBatchesAndSaysWhereItStopped() throws {
        let fixture = try Fixture()
        var text = "id,name\n"
        for id in 100..<1100 { text += "\(id),N\(id)\n" }
        let file = try fixture.file("many.csv", text)
        var options = ImportOptions(table: "cards")
        options.batchSize = 100
        let summary = try fixture.run(file, options, cancelAfter: 3)
        #expect(summary.cancelled)
        #expect(summary.inserted == 300)
        #expect(try fixture.disk("SELECT count(*) FROM cards WHERE id >= 100") == 300)
        #expect(summary.stoppedAtLine == 302)
        #expect(summary.sentence.contains("cancelled before line 302"))
    }

    @Test func aTenMegabyteFieldAndAFileThatCannotBeRead() throws {
        let fixture = try Fixture()
        let big = String(repeating: "x", count: 10_000_000)
        let file = try fixture.file("big.csv", "id,name,note\n200,Big,\"\(big)\"\n")
        #expect(try fixture.run(file).inserted == 1)
        #expect(try fixture.disk("SELECT length(note) FROM cards WHERE id = 200") == 10_000_000)
        #expect(throws: ImportError.cannotRead(path: fixture.directory.file("missing.csv"), reason: "no such file")) {
            try fixture.run(fixture.directory.file("missing.csv"))
        }
    }

    @Test func eachBatchCommitReachesTheViewContext() throws {
        let fixture = try Fixture()
        let view = fixture.container.viewContext
        _ = try view.record(for: ObjectID(table: "cards", rowid: 1))
        var upsert = ImportOptions(table: "cards")
        upsert.mode = .upsert
        _ = try fixture.run(try fixture.file("touch.csv", "id,name\n1,Imported\n"), upsert)
        #expect(try view.record(for: ObjectID(table: "cards", rowid: 1))?["name"] == "Imported")
    }
}
