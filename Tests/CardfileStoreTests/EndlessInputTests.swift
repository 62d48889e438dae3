import Foundation
import Testing
@testable import CardfileStore

/// Inputs that never end, and inputs that can be read only once.
@Suite("Import: endless and one-shot inputs", .timeLimit(.minutes(10)))
struct EndlessInputTests {
    private func importError(_ fixture: ImportTests.Fixture, _ path: String, _ options: ImportOptions) -> ImportError? {
        do {
            _ = try fixture.run(path, options)
            return nil
        } catch {
            return error as? ImportError
        }
    }

    @Test(arguments: [ImportOptions.Format.csv, .tsv, .jsonl])
    func devZeroStopsAtTheRecordLimitNamingTheLine(format: ImportOptions.Format) throws {
        let fixture = try ImportTests.Fixture()
        let options = ImportOptions(table: "cards", format: format, header: false, maxRecordBytes: 4 << 20)
        let error = importError(fixture, "/dev/zero", options)
        #expect(error?.description.contains("the record starting on line 1 is longer than 4 MiB") == true, "\(String(describing: error))")
        #expect(try fixture.disk("SELECT count(*) FROM cards") == 1)
    }

    @Test func aJSONArrayEndsAtOnceOnZerosAndAtTheLimitOnAnEndlessObject() throws {
        let fixture = try ImportTests.Fixture()
        let zeros = try fixture.run("/dev/zero", ImportOptions(table: "cards", format: .json))
        #expect(zeros.errors.map(\.reason) == ["the file is not a JSON array of objects (it must start with [)"])
        let endless = try fixture.file("endless.json", "[\n{\"name\": \"a\"},\n{\"note\": \"" + String(repeating: "x", count: 70_000))
        let error = importError(fixture, endless, ImportOptions(table: "cards", maxRecordBytes: 64 << 10))
        #expect(error?.description.contains("the record starting on line 3 is longer than 64 KiB") == true, "\(String(describing: error))")
    }

    @Test func theLimitCountsOneRecordNotTheFile() throws {
        let fixture = try ImportTests.Fixture()
        let limit = 64 << 10
        // Many records, each well under the limit, adding up to far more than it.
        var text = "id,name,note\n"
        for id in 2..<200 { text += "\(id),n\(id),\(String(repeating: "x", count: 1000))\n" }
        let fine = try fixture.file("many.csv", text)
        #expect(try fixture.run(fine, ImportOptions(table: "cards", maxRecordBytes: limit)).inserted == 198)
        // A field just under the limit goes in whole; one just over stops the import at its line.
        let under = try fixture.file("under.csv", "id,name,note\n300,big,\(String(repeating: "y", count: limit - 20))\n")
        #expect(try fixture.run(under, ImportOptions(table: "cards", maxRecordBytes: limit)).inserted == 1)
        #expect(try fixture.disk("SELECT length(note) FROM cards WHERE id = 300") == .integer(Int64(limit - 20)))
        let over = try fixture.file("over.csv", "id,name,note\n400,ok,a\n401,big,\"\(String(repeating: "z", count: limit + 1))\"\n")
        let error = importError(fixture, over, ImportOptions(table: "cards", maxRecordBytes: limit))
        #expect(error?.description.contains("line 3") == true, "\(String(describing: error))")
        #expect(ImportOptions(table: "cards").maxRecordBytes == 512 << 20)
    }

    @Test func aFIFOIsReadOnceWithItsDelimiterSniffedFromThatRead() throws {
        let fixture = try ImportTests.Fixture()
        let fifo = fixture.directory.file("rows.csv")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer writes once and goes away: a second open would wait for ever.
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data("id;name;age\n10;Semi;3\n11;Colon;4\n".utf8))
            try? handle.close()
        }
        writer.start()
        let summary = try fixture.run(fifo)
        #expect(summary.inserted == 2)
        #expect(try fixture.disk("SELECT group_concat(name, '|') FROM cards WHERE id >= 10") == "Semi|Colon")
    }

    @Test func aFolderIsAClearError() throws {
        let fixture = try ImportTests.Fixture()
        let error = importError(fixture, fixture.directory.path, ImportOptions(table: "cards", format: .csv))
        #expect(error?.description.contains("it is a folder, not a file") == true, "\(String(describing: error))")
    }
}

/// An import the disk cannot hold stops with the reason and says how many rows it had
/// already written; an atomic one says none stay. The disk fills for real: SQLite's page
/// limit on the writer connection makes its writes fail with SQLITE_FULL.
@Suite("Import: a full disk", .timeLimit(.minutes(10)))
struct FullDiskImportTests {
    @Test(arguments: [false, true])
    func aFullDiskSaysHowManyRowsWereImported(atomic: Bool) throws {
        let fixture = try ImportTests.Fixture()
        var text = "id,name,note\n"
        for id in 2...3001 { text += "\(id),n\(id),\(String(repeating: "x", count: 300))\n" }
        let path = try fixture.file("big.csv", text)
        let writer = try #require(fixture.container.core.writer)
        let pages = try writer.read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
        try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = \(pages + 60)") }
        var thrown: ImportError?
        do {
            _ = try fixture.run(path, ImportOptions(table: "cards", atomic: atomic, batchSize: 100))
        } catch {
            thrown = error as? ImportError
        }
        let error = try #require(thrown)
        let imported = try #require(Int(try fixture.disk("SELECT count(*) FROM cards").description)) - 1
        guard case .stopped(let inner, let said, atomic) = error else { Issue.record("\(error)"); return }
        #expect(inner == .store(.diskFull(path: fixture.people.path)), "\(inner)")
        #expect(error.description.hasPrefix("There is no room left for \(fixture.people.path): its disk is full"), "\(error.description)")
        if atomic {
            #expect(imported == 0)
            #expect(error.description.hasSuffix("it was all or nothing, so no row was imported."), "\(error.description)")
        } else {
            #expect(imported > 0 && imported < 3000 && imported % 100 == 0, "\(imported)")
            #expect(said == imported && error.description.hasSuffix("the \(imported) rows imported before stay."), "\(error.description)")
        }
    }
}
