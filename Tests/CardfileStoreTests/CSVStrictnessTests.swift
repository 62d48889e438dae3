import Foundation
import Testing
import CardfileTestSupport
@testable import CardfileStore

/// RFC 4180 quoting, read strictly: a quote that never closes and bytes after a closing quote
/// are row errors naming their line, never silently kept or swallowed. Checked by examples,
/// against cases Python's csv module (strict mode) read, and by a seeded fuzz against a
/// byte-at-a-time model of the RFC.
@Suite("CSV: strict RFC 4180 quoting", .timeLimit(.minutes(Fuzz.scaled(10))))
struct CSVStrictnessTests {
    // MARK: - Examples

    @Test func bytesAfterAClosingQuoteAreARowErrorAndTheNextLineStillImports() throws {
        let fixture = try ImportTests.Fixture()
        let path = try fixture.file("q.csv", "id,name,note\n2,\"ab\"c\",z\n3,Three,\"x\" \n4,Four,ok\n")
        let summary = try fixture.run(path)
        #expect(summary.errors.map(\.line) == [2, 3])
        #expect(summary.errors.first?.reason == "field 2: `c` follows the closing quote (a quote inside a quoted field is written twice: \"\")")
        #expect(summary.errors.last?.reason.hasPrefix("field 3: a space follows the closing quote") == true)
        #expect(try fixture.disk("SELECT group_concat(id || '=' || name) FROM (SELECT * FROM cards ORDER BY id)") == "1=Existing,4=Four")
    }

    @Test func anUnclosedQuoteLosesOnlyItsOwnLine() throws {
        let fixture = try ImportTests.Fixture()
        // Before the fix, lines 4 and 5 vanished into the unclosed field. (Any later quote
        // would close it: an unclosed quote is one that meets no other quote.)
        let path = try fixture.file("open.csv", "id,name,note\n2,Two,x\n3,\"Three,y\n4,Four,z\n5,Five,multi line\n")
        let summary = try fixture.run(path)
        #expect(summary.errors.map(\.line) == [3])
        #expect(summary.errors.first?.reason == "field 2: unterminated quote (opened on line 3, it never closes)")
        #expect(summary.inserted == 3)
        #expect(try fixture.disk("SELECT group_concat(id || '=' || note, '|') FROM (SELECT * FROM cards ORDER BY id)") == "2=x|4=z|5=multi line")
    }

    @Test func anUnclosedQuoteSpanningLinesResumesAfterItsOpeningLine() throws {
        let fixture = try ImportTests.Fixture()
        // The quote opens on line 3, inside a record that began on line 2 with a closed
        // multi-line field; the error names line 2, and reading resumes on line 4.
        let path = try fixture.file("open.csv", "id,name,note\n2,\"Two\ncontinued\",\"open\n4,Four,q\n")
        let summary = try fixture.run(path)
        #expect(summary.errors.map(\.line) == [2])
        #expect(summary.errors.first?.reason == "field 3: unterminated quote (opened on line 3, it never closes)")
        #expect(try fixture.disk("SELECT group_concat(id || '=' || note, '|') FROM (SELECT * FROM cards ORDER BY id)") == "4=q")
    }

    @Test(arguments: ImportOptions.Mode.allCases)
    func bothAreRowErrorsInEveryModeAndAtomicLeavesNothing(mode: ImportOptions.Mode) throws {
        for text in ["id,name\n2,Two\n3,\"ab\"c\"\n4,Four\n", "id,name\n2,Two\n3,\"never closed\n4,Four\n"] {
            let fixture = try ImportTests.Fixture()
            let path = try fixture.file("bad.csv", text)
            let skipped = try fixture.run(path, ImportOptions(table: "cards", mode: mode))
            #expect(skipped.errors.map(\.line) == [3], "\(mode): \(text.debugDescription)")
            #expect(try fixture.disk("SELECT group_concat(id) FROM (SELECT id FROM cards ORDER BY id)") == "1,2,4")

            let atomic = try ImportTests.Fixture()
            let atomicPath = try atomic.file("bad.csv", text)
            let summary = try atomic.run(atomicPath, ImportOptions(table: "cards", mode: mode, atomic: true))
            #expect(summary.rolledBack && summary.errors.map(\.line) == [3], "\(mode): \(text.debugDescription)")
            #expect(try atomic.disk("SELECT group_concat(id) FROM cards") == "1", "--atomic leaves the table as it was")

            let aborting = try ImportTests.Fixture()
            let abortPath = try aborting.file("bad.csv", text)
            let stopped = try aborting.run(abortPath, ImportOptions(table: "cards", mode: mode, onError: .abort))
            #expect(stopped.stoppedAtLine == 3)
            #expect(try aborting.disk("SELECT group_concat(id) FROM (SELECT id FROM cards ORDER BY id)") == "1,2")
        }
    }

    // MARK: - Python's strict reader as the oracle

    struct OracleFile: Decodable {
        struct Case: Decodable {
            let input: String
            let rows: [[String]]?
            let rowsBeforeError: Int?
        }
        let seed: Int
        let cases: [Case]
    }

    /// Cases made by `scripts/csv-oracle-cases.py`: the reader accepts exactly the texts
    /// Python accepts, with the same fields, and rejects the others after the same rows.
    @Test func theReaderAndTheModelAgreeWithPythonsStrictReader() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/csv-oracle.json")
        let oracle = try JSONDecoder().decode(OracleFile.self, from: Data(contentsOf: url))
        #expect(oracle.cases.count >= 500)
        #expect(oracle.cases.contains { $0.rows != nil } && oracle.cases.contains { $0.rowsBeforeError != nil })
        let directory = TemporaryDirectory()
        for (index, oracleCase) in oracle.cases.enumerated() {
            let bytes = Array(oracleCase.input.utf8)
            let read = try Self.read(bytes, in: directory)
            let model = RFC4180Model.parse(bytes, delimiter: UInt8(ascii: ","))
            let context = "case \(index) \(oracleCase.input.debugDescription)"
            #expect(read == model, "\(context)")
            // Python reads a blank line as no fields, where both read one empty field.
            let records = read.prefix { if case .record = $0 { true } else { false } }.map { item -> [String] in
                guard case .record(let fields, _) = item else { return [] }
                return fields == [CSVField("")] ? [] : fields.map(\.text)
            }
            if let rows = oracleCase.rows {
                #expect(records == rows && records.count == read.count, "\(context) should be accepted as \(rows)")
            } else if let before = oracleCase.rowsBeforeError {
                #expect(records.count == before && read.count > before, "\(context) should be rejected after \(before) rows")
            }
        }
    }

    // MARK: - Seeded fuzz against the model

    /// Random texts, made to be awkward (quotes everywhere, CR, CRLF, delimiters, wide
    /// characters), read by the reader and by the model: the same records and the same
    /// errors on the same lines, including how reading resumes after each error.
    @Test func theReaderMatchesTheModelOnRandomTexts() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let pieces = ["a", "bc", "é", "🐈", " ", ",", ";", "\t", "\"", "\"\"", "\n", "\r\n", "\r", "x\"y", "\"q\"", ",\"", "\",", "\"\n"]
        let directory = TemporaryDirectory()
        for round in 0..<Fuzz.scaled(1500) {
            let delimiter: UInt8 = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09][random.next(below: 3)]
            let text = (0..<random.next(below: 40)).map { _ in pieces[random.next(below: pieces.count)] }.joined()
            let bytes = Array(text.utf8)
            let read = try Self.read(bytes, delimiter: delimiter, in: directory)
            let model = RFC4180Model.parse(bytes, delimiter: delimiter)
            #expect(read == model, "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), delimiter \(delimiter): \(text.debugDescription)")
            if read != model { return }
        }
    }

    /// Every text the reader accepts goes into a table and comes back out of `export` as the
    /// same fields: the same text, and NULL (an empty unquoted field) kept apart from ''.
    @Test func acceptedFilesRoundTripExactly() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let pieces = ["a", "é", "🐈", " ", ",", "\"", "\"\"", "\n", "\r\n", "\r", "x\"y", "NULL", "0", "-1.5"]
        let plain = ["a", "é", "🐈", " ", "x\"y", "NULL", "0", "-1.5", "\r", "\""]
        var accepted = 0
        for round in 0..<Fuzz.scaled(60) {
            let fixture = try PeopleFixture(schema: "CREATE TABLE t (a TEXT, b TEXT, c TEXT)")
            var text = ""
            for _ in 0..<(1 + random.next(below: 8)) {
                let fields = (0..<3).map { _ -> String in
                    // Quote about half the fields, as a writer following the RFC would; the
                    // rest are plain text, which may still be malformed (a leading quote).
                    guard random.next(below: 2) == 0 else { return (0..<random.next(below: 4)).map { _ in plain[random.next(below: plain.count)] }.joined() }
                    let raw = (0..<random.next(below: 4)).map { _ in pieces[random.next(below: pieces.count)] }.joined()
                    return "\"" + raw.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                }
                text += fields.joined(separator: ",") + (random.next(below: 2) == 0 ? "\n" : "\r\n")
            }
            let bytes = Array(text.utf8)
            let model = RFC4180Model.parse(bytes, delimiter: UInt8(ascii: ","))
            let records = model.compactMap { item -> [CSVField]? in
                guard case .record(let fields, _) = item, fields != [CSVField("")] else { return nil }
                return fields
            }
            guard model.allSatisfy({ if case .record = $0 { true } else { false } }), records.allSatisfy({ $0.count == 3 }) else { continue }
            accepted += 1
            let file = fixture.directory.file("in.csv")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let summary = try Importer(container: fixture.container, file: file, options: ImportOptions(table: "t", header: false)).run()
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round): \(text.debugDescription)"
            #expect(summary.rejected == 0 && summary.inserted == records.count, "\(context): \(summary.errors.prefix(2))")
            var exported: [UInt8] = []
            _ = try Exporter(container: fixture.container, table: "t", format: .csv).run { exported += $0 }
            let back = RFC4180Model.parse(exported, delimiter: UInt8(ascii: ",")).dropFirst().compactMap { item -> [CSVField]? in
                guard case .record(let fields, _) = item else { return nil }
                return fields
            }
            // Export quotes every text; what must survive is the text, and NULL versus ''.
            func meaning(_ rows: [[CSVField]]) -> [[String?]] { rows.map { $0.map { $0.text.isEmpty && !$0.quoted ? nil : $0.text } } }
            #expect(meaning(back) == meaning(records), "\(context)")
        }
        #expect(accepted >= Fuzz.scaled(60) / 3, "seed \(seed): too few generated files were well-formed to test the round trip")
    }

    // MARK: - Helpers

    /// What the reader makes of `bytes`: each record or problem with its line, in order.
    static func read(_ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ","), in directory: TemporaryDirectory) throws -> [RFC4180Model.Item] {
        let path = directory.file("case.csv")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        var reader = CSVReader(source: try ByteSource(handle: handle, encoding: .utf8), delimiter: delimiter)
        var items: [RFC4180Model.Item] = []
        while let outcome = try reader.next() {
            switch outcome {
            case .record(let fields, let line): items.append(.record(fields, line: line))
            case .problem(_, let line): items.append(.problem(line: line))
            }
        }
        return items
    }
}

/// RFC 4180 read one byte at a time, as the text states it, with Cardfile's recovery after
/// an error: bytes after a closing quote cost the rest of that line; an unclosed quote costs
/// the lines up to the one it opened on, and reading resumes after it. Records end at LF or
/// CRLF; a quote is special only at a field's start.
enum RFC4180Model {
    enum Item: Equatable, CustomStringConvertible {
        case record([CSVField], line: Int)
        case problem(line: Int)

        var description: String {
            switch self {
            case .record(let fields, let line): "\(line): " + fields.map { ($0.quoted ? "q" : "") + $0.text.debugDescription }.joined(separator: " ")
            case .problem(let line): "\(line): error"
            }
        }
    }

    static func parse(_ bytes: [UInt8], delimiter: UInt8) -> [Item] {
        let (quote, lf, cr) = (UInt8(ascii: "\""), UInt8(0x0A), UInt8(0x0D))
        var items: [Item] = []
        var index = 0
        var line = 1
        records: while index < bytes.count {
            let start = line
            var fields: [CSVField] = []
            func field(_ text: [UInt8], quoted: Bool) { fields.append(CSVField(String(decoding: text, as: UTF8.self), quoted: quoted)) }
            while true {
                if index < bytes.count, bytes[index] == quote {
                    let opened = line
                    var text: [UInt8] = []
                    var resume: (index: Int, line: Int)?
                    var closed = false
                    index += 1
                    while index < bytes.count {
                        let byte = bytes[index]
                        if byte == quote {
                            if index + 1 < bytes.count, bytes[index + 1] == quote {
                                text.append(quote)
                                index += 2
                                continue
                            }
                            closed = true
                            index += 1
                            break
                        }
                        if byte == lf {
                            line += 1
                            if resume == nil { resume = (index + 1, opened + 1) }
                        }
                        text.append(byte)
                        index += 1
                    }
                    guard closed else {
                        items.append(.problem(line: start))
                        if let resume { (index, line) = resume } else { index = bytes.count }
                        continue records
                    }
                    // After the closing quote: the file's end, a delimiter, LF, or CRLF (or a
                    // CR that is the file's last byte).
                    if index == bytes.count {
                        field(text, quoted: true)
                        break
                    }
                    let next = bytes[index]
                    if next == delimiter {
                        field(text, quoted: true)
                        index += 1
                        if index == bytes.count {
                            field([], quoted: false)
                            break
                        }
                        continue
                    }
                    if next == lf || next == cr && (index + 1 == bytes.count || bytes[index + 1] == lf) {
                        field(text, quoted: true)
                        index += next == cr && index + 1 < bytes.count ? 2 : 1
                        line += 1
                        break
                    }
                    items.append(.problem(line: start))
                    while index < bytes.count, bytes[index] != lf { index += 1 }
                    if index < bytes.count {
                        index += 1
                        line += 1
                    }
                    continue records
                }
                // Unquoted: up to a delimiter, LF or the end; quotes here are data.
                var text: [UInt8] = []
                while index < bytes.count, bytes[index] != delimiter, bytes[index] != lf {
                    text.append(bytes[index])
                    index += 1
                }
                if index == bytes.count {
                    field(text, quoted: false)
                    break
                }
                if bytes[index] == delimiter {
                    field(text, quoted: false)
                    index += 1
                    if index == bytes.count {
                        field([], quoted: false)
                        break
                    }
                    continue
                }
                if text.last == cr { text.removeLast() }
                field(text, quoted: false)
                index += 1
                line += 1
                break
            }
            items.append(.record(fields, line: start))
        }
        return items
    }
}
