import CardfileApp
import CardfilePostgres
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// `:import` and `:export` in the editor on a PostgreSQL table: the same keys, report and
/// list as on SQLite, the rows going by the engine's own way (COPY in batches).
@Suite("Import and export in the editor on PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresTransferTests {
    static func place() throws -> PostgresAppPlace {
        try PostgresAppPlace("""
            CREATE TABLE cards (id serial PRIMARY KEY, name text NOT NULL, age int CHECK (age >= 0), born date, notes text);
            INSERT INTO cards (name, age, born) VALUES ('Ada', 36, '1815-12-10'), ('Grace', 45, '1906-12-09');
            CREATE TABLE copy (LIKE cards INCLUDING ALL);
            """, table: "cards")
    }

    @Test func anImportGoesInWhileTheEditorRunsAndItsReportNamesTheLines() throws {
        let place = try Self.place()
        let harness = place.harness
        var text = "name,age,born,notes\n"
        for index in 0..<3_000 { text += "Person \(index),\(index % 90),2001-02-03,\"tab\there \(index)\"\n" }
        text += "Bad date,30,2001-02-30,\nNegative,-1,,\n,5,,\n"
        let file = harness.directory.file("more.csv")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        try harness.command("import \(file) --batch-size 500")
        #expect(try harness.waitFor { $0.contains("imported 3,000 rows") }, "\(harness.messageLine)")
        #expect(harness.messageLine.contains("3 rejected"))
        #expect(try place.psql("SELECT count(*) FROM cards") == "3002")
        #expect(try place.psql("SELECT notes FROM cards WHERE name = 'Person 2999'") == "tab\there 2999")
        try harness.press(.char("R"))
        #expect(harness.screen.contains("Import of more.csv into cards"))
        #expect(harness.screen.contains("more.csv line 3002, column born: date/time field value out of range"), "\(harness.screen)")
        #expect(harness.screen.contains("more.csv line 3003: breaks the table's rule cards_age_check"))
        #expect(harness.screen.contains("more.csv line 3004, column name: needs a value"))
        try harness.press(KeyEvent(.escape))
        // The list follows: the new rows are there to find.
        try harness.press(.char("/"))
        try harness.type("name = \"Person 2999\"")
        try harness.press(KeyEvent(.enter))
        #expect(try harness.waitFor { $0.contains("Person 2999") }, "\(harness.screen)")
    }

    @Test func anExportWritesTheListAsShownAndImportsBackTheSame() throws {
        let place = try Self.place()
        let harness = place.harness
        _ = try place.psql("UPDATE cards SET notes = 'say \"hi\"' WHERE id = 1")
        try harness.press(.char("]"))                                    // sort by id, descending
        try harness.command("export out.csv")
        #expect(try harness.waitFor { $0.contains("Exported 2 rows") }, "\(harness.messageLine)")
        let written = try String(contentsOfFile: harness.directory.file("out.csv"), encoding: .utf8)
        #expect(written == "\"id\",\"name\",\"age\",\"born\",\"notes\"\n2,\"Grace\",45,\"1906-12-09\",\n1,\"Ada\",36,\"1815-12-10\",\"say \"\"hi\"\"\"\n")
        // Back into an empty copy of the table, as it was.
        let back = try Importer(container: harness.container, file: harness.directory.file("out.csv"), options: ImportOptions(table: "copy")).run()
        #expect(back.inserted == 2 && back.rejected == 0, "\(back.errors)")
        #expect(try place.psql("SELECT count(*) FROM (SELECT * FROM cards EXCEPT SELECT * FROM copy) AS d") == "0")
    }
}
