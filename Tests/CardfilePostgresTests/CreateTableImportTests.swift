@testable import CardfilePostgres
@testable import CardfileStore
import CardfileTestSupport
import Foundation
import Testing

/// `import --create` on PostgreSQL: the table made from what the file holds, with a key the
/// editor can edit by, in the import's own transaction.
@Suite("PostgreSQL: import --create", .timeLimit(.minutes(5)))
struct CreateTableImportTests {
    /// Plans the table as the command does and runs the import; the summary and the plan.
    static func create(_ place: DatabasePlace, _ text: String, table: String, atomic: Bool = false, batchSize: Int? = nil) throws -> (ImportSummary, TableCreator.Created) {
        let path = place.folder.file("\(table).csv")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let options = ImportOptions(table: table, atomic: atomic, batchSize: batchSize, create: true)
        let plan = try TableCreator.planOnEngine(file: path, options: options, quotedTable: "public." + table.quotedIdentifier)
        return (try Importer(container: place.container, file: path, options: options, creating: plan).run(), plan)
    }

    @Test func typesComeFromEveryValueAndTheFilesIdIsTheKey() throws {
        let place = try DatabasePlace("SELECT 1")
        let (summary, _) = try Self.create(place, """
            id,name,count,price,born,code,mixed
            1,Ada,3,1.5,1815-12-10,007,1
            2,Bo,,2,1906-12-09,12,2024-01-01
            3,"Cy",40,-0.25,,x,
            4,Di,5,19.90,,y,
            """, table: "people")
        #expect(summary.inserted == 4 && summary.rejected == 0, "\(summary.errors)")
        let types = try place.psql("SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'people'")
        #expect(types == "id bigint, name text, count bigint, price numeric, born date, code text, mixed text")
        // A number keeps the digits it was written with (a float would show 19.9 and 2).
        #expect(try place.psql("SELECT string_agg(price::text, ' ' ORDER BY id) FROM people") == "1.5 2 -0.25 19.90")
        #expect(try place.psql("SELECT string_agg(a.attname, ',') FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'people'::regclass AND i.indisprimary") == "id")
        // The editor knows the table and may edit it.
        let table = try #require(place.container.schema.table(named: "people"))
        #expect(table.readOnlyReason == nil)
        let view = place.container.viewContext
        try view.update(ObjectID(table: "people", primaryKey: [.integer(2)]), values: ["count": 9])
        try view.save()
        #expect(try place.psql("SELECT count FROM people WHERE id = 2") == "9")
    }

    @Test func withoutAWholeNumberIdAnIdentityKeyIsAdded() throws {
        let place = try DatabasePlace("SELECT 1")
        let (plain, _) = try Self.create(place, "name,score\nAda,1\nBo,2\n", table: "plain")
        #expect(plain.inserted == 2)
        #expect(try place.psql("SELECT string_agg(id || ':' || name, ',' ORDER BY id) FROM plain") == "1:Ada,2:Bo")
        let (coded, plan) = try Self.create(place, "id,name\nA1,Ada\nB2,Bo\n", table: "coded")
        #expect(coded.inserted == 2)
        #expect(plan.columns.first?.name == "cardfile_id")
        #expect(try place.psql("SELECT string_agg(cardfile_id || ':' || id, ',' ORDER BY cardfile_id) FROM coded") == "1:A1,2:B2")
    }

    @Test func anAtomicImportThatFailsLeavesNoTableAndABatchedOneKeepsItsTable() throws {
        let place = try DatabasePlace("SELECT 1")
        // A repeated id is refused: all or nothing leaves nothing, not even the table.
        let (atomic, _) = try Self.create(place, "id,name\n1,Ada\n1,Again\n", table: "once", atomic: true)
        #expect(atomic.rolledBack)
        #expect(try place.psql("SELECT to_regclass('public.once') IS NULL") == "t")
        #expect(place.container.schema.table(named: "once") == nil)
        // Batched: the table is made first; the refused row is named, the rest go in.
        let (batched, _) = try Self.create(place, "id,name\n1,Ada\n1,Again\n2,Bo\n3,Cy\n", table: "batched", batchSize: 2)
        #expect(batched.inserted == 3 && batched.rejected == 1, "\(batched.errors)")
        #expect(place.container.schema.table(named: "batched") != nil)
    }

    @Test func longNamesAreCutToTheServersLengthAndToldApartAndAnIdWithGapsIsNoKey() throws {
        let place = try DatabasePlace("SELECT 1")
        let long = String(repeating: "é", count: 40)   // 80 bytes
        let (summary, plan) = try Self.create(place, "id,\(long)a,\(long)b,cardfile_id\n1,x,y,7\n,z,w,8\n", table: "longs")
        #expect(summary.inserted == 2 && summary.rejected == 0, "\(summary.errors)")
        let names = plan.columns.map(\.name)
        #expect(names.allSatisfy { $0.utf8.count <= 63 } && Set(names.map { $0.lowercased() }).count == names.count, "\(names)")
        #expect(names.first == "cardfile_id_2", "the file's id has a gap and cardfile_id is the file's: \(names)")
        #expect(try place.psql("SELECT count(*) FROM longs WHERE id IS NULL") == "1", "the row without an id went in")
    }

    /// JSON keys longer than the server's 63 bytes go to the columns cut from them (every row
    /// was refused as naming a column the table lacks).
    @Test func longJSONKeysGoToTheirCutColumns() throws {
        let place = try DatabasePlace("SELECT 1")
        let key = String(repeating: "k", count: 70)
        let path = place.folder.file("long.jsonl")
        try "{\"id\": 1, \"\(key)\": \"v1\", \"\(key.uppercased())x\": 2}\n{\"id\": 2, \"\(key)\": \"v2\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let options = ImportOptions(table: "longkeys", create: true)
        let plan = try TableCreator.planOnEngine(file: path, options: options, quotedTable: "public.longkeys")
        let summary = try Importer(container: place.container, file: path, options: options, creating: plan).run()
        #expect(summary.inserted == 2 && summary.rejected == 0, "\(summary.errors)")
        let names = plan.columns.map(\.name.quotedIdentifier)
        #expect(names.count == 3 && plan.columns.allSatisfy { $0.name.utf8.count <= 63 }, "\(names)")
        #expect(try place.psql("SELECT string_agg(\(names[0]) || ':' || \(names[1]) || ':' || coalesce(\(names[2])::text, '-'), ',' ORDER BY id) FROM longkeys") == "1:v1:2,2:v2:-")
    }

    /// Batch by batch, the table is there when no row went in (as on SQLite), so `Created
    /// table` is true.
    @Test func aTableIsMadeEvenWhenEveryRowIsRefused() throws {
        let place = try DatabasePlace("SELECT 1")
        let (none, _) = try Self.create(place, "id,name\n1,a,extra\n", table: "nothing")
        #expect(none.inserted == 0 && none.rejected == 1, "\(none.errors)")
        #expect(try place.psql("SELECT to_regclass('public.nothing') IS NOT NULL") == "t")
    }

    @Test func isoDatesAreOnlyRealDays() {
        #expect(TableCreator.Guess.isISODate("2024-02-29"))
        #expect(!TableCreator.Guess.isISODate("2023-02-29"))
        #expect(!TableCreator.Guess.isISODate("2024-13-01"))
        #expect(!TableCreator.Guess.isISODate("0000-01-01"))
        #expect(!TableCreator.Guess.isISODate("2024-1-01"))
        #expect(!TableCreator.Guess.isISODate("2024-01-01T00:00"))
    }
}
