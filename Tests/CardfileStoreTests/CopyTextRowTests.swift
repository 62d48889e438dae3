import CardfilePostgres
import CardfileTestSupport
import Testing
@testable import CardfileStore

/// An insert into PostgreSQL gets a delimited file's rows in `COPY`'s text format, made from
/// the record's bytes while reading (``ColumnMapping/copyText(from:emptyAsText:to:)``). These
/// hold that path to the one it replaced: the values it stands for are the values the mapping
/// makes of the same record, it refuses the rows that path refused, for the same reason, and
/// the writer finds a NULL where a column needs a value in either.
@Suite("COPY text rows")
struct CopyTextRowTests {
    /// Pieces of fields: what COPY escapes, what looks like its NULL, wide and plain text.
    static let pieces = ["a", "Zoë", "🐈", " ", "\t", "\n", "\r", "\\", "N", "\\N", "\\t", ",", "\"", "x y"]

    static func table() -> TableSchema {
        TableSchema(
            name: "t",
            columns: [
                ColumnDescription(name: "id", declaredType: "int8", isNotNull: true),
                ColumnDescription(name: "a", declaredType: "text"),
                ColumnDescription(name: "b", declaredType: "text", isNotNull: true),
                ColumnDescription(name: "c", declaredType: "numeric"),
            ],
            primaryKey: .columns(["id"]), dialect: PostgresDialect(), quotedName: nil, readOnlyReason: nil)
    }

    @Test func randomRecordsStandForTheValuesTheMappingMakes() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let table = Self.table()
        for round in 0..<Fuzz.scaled(3_000) {
            // Fields in any order, some left out; sometimes a record of the wrong length.
            var targets: [Int?] = Array(0..<4).shuffled(using: &random)
            for _ in 0..<random.next(below: 3) { targets.insert(nil, at: random.next(below: targets.count + 1)) }
            let mapping = ColumnMapping(csv: targets, table: table)
            var record = CSVRecord()
            let count = random.next(below: 12) == 0 ? targets.count + random.next(below: 3) - 1 : targets.count
            for _ in 0..<max(0, count) {
                var field = ""
                for _ in 0..<random.next(below: 4) { field += Self.pieces[random.next(below: Self.pieces.count)] }
                record.bytes += Array(field.utf8)
                record.ends.append(record.bytes.count)
                record.quoted.append(random.next(below: 3) == 0)
            }
            let emptyAsText = random.next(below: 4) == 0
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), targets \(targets), fields \(record.fields), empty as text \(emptyAsText)"
            let before: [UInt8] = [0x41, 0x0A]
            var rows = before
            let problem = mapping.copyText(from: record, emptyAsText: emptyAsText, to: &rows)
            switch mapping.row(from: record, emptyAsText: emptyAsText) {
            case .failure(let refusal):
                #expect(problem?.reason == refusal.reason && problem?.column == refusal.column, "\(context)")
                #expect(rows == before, "a refused row leaves nothing: \(context)")
            case .success(let row):
                #expect(problem == nil, "\(context): \(String(describing: problem?.reason))")
                let made = rows[before.count...]
                let same = CopyTextRow.values(of: made) == row.values
                #expect(same, "\(context): \(String(decoding: made, as: UTF8.self).debugDescription)")
                if !same { return }   // (one round's failure says it; a thousand say no more)
                // One line, its fields one a tab: the server's `line N` is row N.
                #expect(made.filter { $0 == 0x0A }.count == 1 && made.last == 0x0A, "\(context)")
                #expect(made.filter { $0 == 0x09 }.count == row.values.count - 1, "\(context)")
                // The writer finds a NOT NULL column's NULL in the text as in the values.
                let required = row.columns.map { table.columns[$0].isNotNull }
                let expected = Array(zip(required, row.values)).firstIndex { $0.0 && $0.1.isNull }
                #expect(CopyTextRow.firstNull(in: made, required: required) == expected, "\(context)")
            }
        }
    }

    /// Values that came as values (a JSON file's) go in the same format, and read back.
    @Test func valuesAndTheirRowReadBack() {
        let values: [Value] = [.null, .text("\\N"), .text(""), .text("a\tb\nc\rd\\e"), .text("Zoë 🐈")]
        var row: [UInt8] = []
        for (index, value) in values.enumerated() {
            if index > 0 { row.append(0x09) }
            if case .text(let text) = value { CopyTextRow.appendField(text, to: &row) } else { CopyTextRow.appendNull(to: &row) }
        }
        row.append(0x0A)
        #expect(String(decoding: row, as: UTF8.self) == "\\N\t\\\\N\t\ta\\tb\\nc\\rd\\\\e\tZoë 🐈\n")
        #expect(CopyTextRow.values(of: row[...]) == values)
    }
}
