import CardfileTestSupport
import Testing
@testable import CardfilePostgres
@testable import CardfileStore

/// A row's position in a list sorted by a column the server orders by rules of its own (an
/// enum's declared order, which Swift's comparison of the labels would not follow): the
/// position a jump to it shows is the server's row number, once the positions are built.
@Suite("Positions in the server's own order", .timeLimit(.minutes(5)))
struct ServerOrderPositionTests {
    /// Selects `rounds` random rows (ids 1…`rows`) of `live`, a list of `table` sorted by
    /// `order` then id, and checks each one's place against psql's count of the rows before
    /// it in that order.
    static func selectRandomRows(_ live: LiveQuery, _ place: DatabasePlace, table: String, rows: Int, order: String, rounds: Int,
                                 random: inout SeededRandom, context: String) throws {
        for round in 0..<rounds {
            let id = Int64(1 + random.next(below: rows))
            let context = "\(context), round \(round), id \(id)"
            try live.select(ObjectID(table: table, primaryKey: [.integer(id)]))
            try live.waitForBackgroundWork()
            let line = try #require(live.window.selectedLine, "\(context)")
            let expected = try place.psql("SELECT count(*) FROM \(table) WHERE (\(order), id) < (SELECT \(order), id FROM \(table) WHERE id = \(id))")
            #expect(String(live.window.firstRow + line) == expected, "\(context)")
        }
    }

    @Test func aJumpToARowShowsItsPositionInTheServersOrder() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try DatabasePlace("""
            CREATE TYPE mood AS ENUM ('zeta', 'alpha', 'mid');
            CREATE TABLE t (id int PRIMARY KEY, mood mood NOT NULL, label text);
            CREATE INDEX t_mood ON t (mood, id);
            INSERT INTO t SELECT i, (ARRAY['zeta', 'alpha', 'mid'])[1 + i % 3]::mood, 'r' || i FROM generate_series(1, 3000) AS i;
            ANALYZE t;
            """)
        let live = try LiveQuery(context: place.container.viewContext, spec: LiveQuerySpec(table: "t", sort: [ColumnSort("mood")]), height: 10)
        try live.waitForBackgroundWork()
        try Self.selectRandomRows(live, place, table: "t", rows: 3000, order: "mood", rounds: Fuzz.scaled(12), random: &random,
                                  context: "seed \(seed) (CARDFILE_SEED=\(seed) replays it)")
    }

    /// A `json` column and a composite type holding one have no ordering of their own (and
    /// the composite no equality): their lists, `F` and `I` go by their text, and a row's
    /// position is its place in that order.
    @Test func columnsWithoutAnOrderAreSortedCountedAndDescribedByTheirText() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let place = try DatabasePlace("""
            CREATE TYPE cj AS (a int, b json);
            CREATE TABLE m (id int PRIMARY KEY, c cj, j json);
            INSERT INTO m SELECT i, ROW(i % 7, '{"k": ' || (i % 3) || '}')::cj, ('[' || (i % 11) || ']')::json FROM generate_series(1, 2000) AS i;
            """)
        let frequencies = try place.container.frequencies(of: "c", table: "m")
        #expect(frequencies.values.count == 21, "\(frequencies.values.prefix(3))")
        let statistics = try place.container.statistics(of: "c", table: "m")
        #expect(statistics.distinct == 21)
        for column in ["c", "j"] {
            let live = try LiveQuery(context: place.container.viewContext, spec: LiveQuerySpec(table: "m", sort: [ColumnSort(column)]), height: 10)
            try live.waitForBackgroundWork()
            try Self.selectRandomRows(live, place, table: "m", rows: 2000, order: "\(column)::text", rounds: Fuzz.scaled(4), random: &random,
                                      context: "seed \(seed) (CARDFILE_SEED=\(seed) replays it), \(column)")
        }
    }
}
