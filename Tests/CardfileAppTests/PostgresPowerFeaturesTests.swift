@testable import CardfileApp
import CardfilePostgres
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// Marks, `:set`, `:delete`, Alt-U, the column panels and the SQL screen in the editor on a
/// PostgreSQL table, as on SQLite: the question, the server's rows afterwards (read by
/// `psql`), and the undo.
@Suite("Marks, bulk edits and the SQL screen in the editor on PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresPowerFeaturesTests {
    static func place() throws -> PostgresAppPlace {
        try PostgresAppPlace("""
            CREATE TABLE cards (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL, age int, born date, notes text);
            INSERT INTO cards (name, age, born) VALUES ('Ada', 36, '1815-12-10'), ('Bo', 9, NULL), ('Grace', 45, '1906-12-09');
            CREATE TABLE visits (id int PRIMARY KEY, card int REFERENCES cards(id) ON DELETE CASCADE);
            INSERT INTO visits VALUES (1, 1), (2, 1), (3, 3);
            """, table: "cards")
    }

    @Test func marksAreCountedAndSummedThenSetAndUndone() throws {
        let place = try Self.place()
        let harness = place.harness
        let before = try place.rows()
        try harness.command("select age >= 30")
        try place.settle()
        try harness.press(.char("l"))                                    // to the name column
        try harness.press(.char("l"))                                    // to age
        #expect(try harness.waitFor { _ in harness.statusLine.contains("2 marked · age: sum 81") }, "\(harness.statusLine)")
        try harness.command("set notes = 'done'")
        #expect(place.question == "Set notes to “done” on 2 records? (y/n)", "\(harness.screen)")
        #expect(try place.rows() == before, "nothing is written before the answer")
        try harness.press(.char("y"))
        try place.settle()
        #expect(try place.rows() == "1|Ada|36|1815-12-10|done,2|Bo|9||-,3|Grace|45|1906-12-09|done")
        #expect(harness.messageLine.contains("Set notes to “done” on 2 records. Alt-U undoes it."), "\(harness.messageLine)")
        // Another client changes one of them: the undo leaves it, and says so.
        _ = try place.psql("UPDATE cards SET notes = 'psql' WHERE id = 3")
        try harness.press(.alt("u"))
        try place.settle()
        #expect(harness.messageLine.contains("Undone on 1 record; 1 record changed since was left as it is."), "\(harness.messageLine)")
        #expect(place.question?.contains("Grace") == true || place.question?.contains("cards 3") == true, "\(place.question ?? harness.screen)")
        try harness.press(.char("n"))                                    // keep what the other client wrote
        #expect(try place.rows() == "1|Ada|36|1815-12-10|-,2|Bo|9||-,3|Grace|45|1906-12-09|psql", "\(harness.screen)")
    }

    @Test func aDeleteOfMarkedRecordsComesBackUnderTheSameNumbers() throws {
        let place = try Self.place()
        let harness = place.harness
        let before = try place.rows()
        try harness.command("select born IS NOT NULL")
        try place.settle()
        try harness.command("delete")
        #expect(place.question?.hasPrefix("Delete 2 records?") == true, "\(harness.screen)")
        try harness.press(.char("y"))
        try place.settle()
        #expect(try place.rows() == "2|Bo|9||-")
        #expect(try harness.waitFor { $0.contains("row 1 of 1") }, "\(harness.screen)")
        try harness.press(.alt("u"))
        try place.settle()
        #expect(try place.rows() == before, "the identity keys are the rows' own again")
        #expect(try harness.waitFor { $0.contains("of 3") }, "\(harness.screen)")
        // The server numbers the next one after them.
        #expect(try place.psql("INSERT INTO cards (name) VALUES ('New') RETURNING id") == "4")
    }

    @Test func theFrequencyTableAndStatisticsOfADateColumn() throws {
        let place = try Self.place()
        let harness = place.harness
        for _ in 0..<3 { try harness.press(.char("l")) }                 // to born
        try harness.press(.char("F"))
        #expect(try harness.waitFor { $0.contains("born in cards") && $0.contains("1815-12-10") }, "\(harness.screen)")
        #expect(harness.screen.contains("∅") || harness.screen.contains("NULL"), "\(harness.screen)")
        try harness.press(KeyEvent(.escape))
        try harness.press(.char("I"))
        #expect(try harness.waitFor { $0.contains("Minimum") && $0.contains("1815-12-10") && $0.contains("1906-12-09") }, "\(harness.screen)")
    }

    // MARK: The SQL screen

    @Test func aSelectOpensAsAReadOnlyListThatSaysWhy() throws {
        let place = try Self.place()
        let harness = place.harness
        try SQLScreenTests.run(harness, "SELECT name, born, age * 2 AS twice FROM cards WHERE age > 20 ORDER BY born DESC")
        #expect(try harness.waitFor { $0.contains("Grace") && $0.contains("Ada") }, "\(harness.screen)")
        #expect(harness.screen.contains("1906-12-09") && harness.screen.contains("90"), "\(harness.screen)")
        #expect(harness.messageLine.contains("2 rows · read-only: the result leaves out the key of cards (id)"), "\(harness.messageLine)")
        let lines = harness.lines
        let grace = try #require(lines.firstIndex { $0.contains("Grace") })
        let ada = try #require(lines.firstIndex { $0.contains("Ada") })
        #expect(grace < ada, "the query's order: \(harness.screen)")
    }

    @Test func aWriteIsCountedAskedAboutThenRun() throws {
        let place = try Self.place()
        let harness = place.harness
        try SQLScreenTests.run(harness, "UPDATE cards SET notes = 'seen' WHERE age < 40")
        #expect(place.question == "Update 2 rows? (y/n)", "\(place.question ?? harness.screen)")
        #expect(try place.psql("SELECT count(*) FROM cards WHERE notes = 'seen'") == "0", "counted, not written")
        try harness.press(.char("y"))
        #expect(try harness.waitFor { _ in harness.messageLine.contains("Updated 2 rows.") }, "\(harness.messageLine)")
        #expect(try place.psql("SELECT count(*) FROM cards WHERE notes = 'seen'") == "2")
        // The server's refusal in its words, naming the engine.
        try SQLScreenTests.run(harness, "UPDATE cards SET name = NULL WHERE id = 1")
        if place.question != nil { try harness.press(.char("y")) }
        #expect(try harness.waitFor { _ in harness.messageLine.contains("PostgreSQL refused the statement: null value in column \"name\"") }, "\(harness.messageLine)")
        #expect(try place.psql("SELECT name FROM cards WHERE id = 1") == "Ada")
        // TRUNCATE has no rows to count: the question says what it does.
        try SQLScreenTests.run(harness, "TRUNCATE visits")
        #expect(place.question == "Run this TRUNCATE statement? It deletes every row of the tables it names. (y/n)", "\(place.question ?? harness.screen)")
        try harness.press(.char("n"))
        #expect(try place.psql("SELECT count(*) FROM visits") == "3")
    }

    // MARK: Delete and index

    @Test func theDeleteQuestionCountsWhatCascadesAndTheDeleteDoesIt() throws {
        let place = try Self.place()
        let harness = place.harness
        try harness.press(.char("d"))
        #expect(place.question == "Delete cards 1? Also deletes 2 visits records. This is saved at once.", "\(place.question ?? harness.screen)")
        #expect(try place.psql("SELECT count(*) FROM visits") == "3", "counted, not deleted")
        try harness.press(.char("y"))
        #expect(try harness.waitFor { _ in (try? place.psql("SELECT count(*) FROM visits")) == "1" })
        #expect(try place.psql("SELECT string_agg(name, ',' ORDER BY id) FROM cards") == "Bo,Grace")
    }

    @Test func selectAloneMarksEveryRecord() throws {
        let place = try Self.place()
        let harness = place.harness
        try harness.command("select")
        try place.settle()
        #expect(harness.statusLine.contains("3 marked"), "\(harness.statusLine)")
        try harness.command("set notes = 'all'")
        try harness.press(.char("y"))
        try place.settle()
        #expect(try place.psql("SELECT count(*) FROM cards WHERE notes = 'all'") == "3")
    }

    @Test func longIndexNamesAreCutToTheServersLengthAndNumbered() throws {
        let place = try PostgresAppPlace("""
            CREATE TABLE customer_addresses_historical_snapshots (id int PRIMARY KEY,
              delivery_instructions_for_courier_a text, delivery_instructions_for_courier_b text);
            """, table: "customer_addresses_historical_snapshots")
        let container = place.harness.container
        let first = try container.createIndex(on: "delivery_instructions_for_courier_a", of: "customer_addresses_historical_snapshots")
        let second = try container.createIndex(on: "delivery_instructions_for_courier_b", of: "customer_addresses_historical_snapshots")
        #expect(first.utf8.count <= 63 && second.utf8.count <= 63 && first != second, "\(first), \(second)")
        #expect(try place.psql("SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE indexname IN ('\(first)', '\(second)')") == [first, second].sorted().joined(separator: ","))
        #expect(try container.existingIndex(on: "delivery_instructions_for_courier_b", of: "customer_addresses_historical_snapshots") == second)
    }

    /// The delete question's rehearsal (rolled back) moves the server's snapshot, which a
    /// polled list looks again at: finding nothing changed on screen, it says nothing; a
    /// change another client makes to a row shown is said.
    @Test func aPollThatFindsNothingChangedSaysNothing() throws {
        let place = try Self.place()
        let harness = place.harness
        #expect(harness.statusLine.contains("live: polling"), "\(harness.statusLine)")
        try harness.press(.char("d"))
        #expect(place.question?.hasPrefix("Delete cards 1?") == true)
        try harness.press(.char("n"))
        for _ in 0..<3 {
            try harness.advance(.seconds(2))
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(!harness.messageLine.contains("Outside changes arrived"), "\(harness.messageLine)")
        _ = try place.psql("UPDATE cards SET notes = 'psql' WHERE id = 2")
        var said = false
        for _ in 0..<20 where !said {
            try harness.advance(.seconds(2))
            Thread.sleep(forTimeInterval: 0.1)
            said = harness.messageLine.contains("Outside changes arrived: 1 record on screen changed.")
        }
        #expect(said, "\(harness.messageLine)")
    }

    @Test func indexMakesAnIndexOnTheFocusedColumnOnce() throws {
        let place = try Self.place()
        let harness = place.harness
        for _ in 0..<2 { try harness.press(.char("l")) }                 // to age
        try harness.command("index")
        #expect(place.question?.hasPrefix("Make an index on cards(age)?") == true, "\(place.question ?? harness.screen)")
        try harness.press(.char("y"))
        #expect(try harness.waitFor { _ in (try? place.psql("SELECT count(*) FROM pg_indexes WHERE indexname = 'cards_age'")) == "1" })
        _ = try harness.waitFor { _ in !harness.messageLine.contains("Making the index") }
        try harness.command("index")
        #expect(harness.messageLine.contains("age already has an index: cards_age."), "\(harness.messageLine)")
    }

    @Test func schemaDescribesTheTableFromTheCatalogs() throws {
        let place = try Self.place()
        let harness = place.harness
        _ = try place.psql("ALTER TABLE cards ADD CONSTRAINT grown CHECK (age >= 0); CREATE INDEX cards_born ON cards (born DESC)")
        try harness.command("schema")
        #expect(try harness.waitFor { $0.contains("The table cards") }, "\(harness.screen)")
        let lines = CardfileApp.lines(of: try place.harness.container.report(on: "cards")).lines
        let text = lines.joined(separator: "\n")
        #expect(text.contains("generated as (identity, always), stored"), "\(text)")
        #expect(text.contains("grown: (age >= 0)"), "\(text)")
        #expect(text.contains("visits.card (on delete cascade)"), "\(text)")
        #expect(text.contains("cards_pkey (id), unique") && text.contains("cards_born (born desc)"), "\(text)")
        #expect(text.contains("Rows     3"), "\(text)")
        #expect(text.contains("On disk"), "\(text)")
    }

    @Test func aResultOfOneTableWithItsKeyIsEditedThroughTheTablesForm() throws {
        let place = try Self.place()
        let harness = place.harness
        try SQLScreenTests.run(harness, "SELECT name, id FROM cards WHERE age > 30 ORDER BY name DESC")
        #expect(try harness.waitFor { $0.contains("Grace") && $0.contains("Ada") }, "\(harness.screen)")
        #expect(harness.messageLine.contains("2 rows · editable: Enter opens a record of cards"), "\(harness.messageLine)")
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("cards › 3"), "\(harness.screen)")
        try harness.press(.control("e"))
        try harness.type(" Hopper")
        try harness.press(.control("s"))
        #expect(try harness.waitFor { _ in (try? place.psql("SELECT name FROM cards WHERE id = 3")) == "Grace Hopper" })
        try harness.press(KeyEvent(.escape))
        #expect(try harness.waitFor { $0.contains("Grace Hopper") }, "the result follows: \(harness.screen)")
    }
    /// A numeric field saved from the form: the server writes `8` as `8.00`, and the form
    /// says "Saved." and shows it, never that its fields were updated from elsewhere (its
    /// untouched `7` read as the integer 7 and compared unequal to the decimal stored).
    @Test func aNumericFieldSavedFromTheFormIsNoChangeFromElsewhere() throws {
        for setUp in [false, true] {
            let place = try PostgresAppPlace("""
                CREATE TABLE nm (id int PRIMARY KEY, v numeric, w numeric(8,2));
                INSERT INTO nm VALUES (1, 7, 1.50);
                """, table: "nm", setUp: setUp)
            let harness = place.harness
            try harness.press(KeyEvent(.enter))
            try harness.press(KeyEvent(.down))
            try harness.press(.control("u"))
            try harness.type("8")
            try harness.press(.control("s"))
            #expect(try harness.waitFor { $0.contains("Saved") }, "\(setUp): \(harness.screen)")
            try harness.advance(.seconds(2))
            #expect(!harness.messageLine.contains("elsewhere"), "\(setUp): \(harness.messageLine)")
            #expect(try place.psql("SELECT v || ' ' || w FROM nm") == "7 8.00", "\(setUp)")
            #expect(harness.screen.contains("8.00"), "\(setUp): the form shows what is stored: \(harness.screen)")
        }
    }

}

extension PostgresAppPlace {
    /// Every row, `id|name|age|born|notes`.
    func rows() throws -> String {
        try psql("SELECT string_agg(concat_ws('|', id, name, coalesce(age::text, ''), coalesce(born::text, ''), coalesce(notes, '-')), ',' ORDER BY id) FROM cards")
    }

    /// Waits until the bulk edit running is done.
    func settle() throws {
        #expect(try harness.waitFor { _ in !harness.app.isRunningABulkEdit && !harness.statusLine.contains("counting marks") })
    }
}
