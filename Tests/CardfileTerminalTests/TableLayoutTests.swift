import CardfileTestSupport
import Testing
@testable import CardfileTerminal

/// The table's columns at their natural widths: seeded random tables, sizes and sideways
/// moves against the rules the layout promises.
@Suite("Table layout, randomized")
struct TableLayoutTests {
    private static func value(_ random: inout SeededRandom) -> String {
        let pieces = ["7", "1974-01-01", "9781000000009", "Le Guin", "a", "東京", "🇫🇷", "e\u{301}", "—", " ", "word", "longer words here"]
        return (0..<random.next(below: 5)).map { _ in pieces[random.next(below: pieces.count)] }.joined()
    }

    /// Rules checked after every move:
    /// - columns are placed left to right, one cell apart, inside the width, none twice;
    /// - the focused column is shown;
    /// - a column whose natural width is within its cap is shown at exactly that width whenever
    ///   it is shown, unless it could not be whole beside the others shown (a pinned key);
    /// - a move of the focus to a column already shown scrolls nothing: every column shown
    ///   keeps its place and width.
    @Test func naturalWidthsWholeFocusShownAndNoShift() {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(300) {
            let count = 1 + random.next(below: 12)
            let cap = 8 + random.next(below: 30)
            let columns = (0..<count).map { index in
                TableColumn(["id", "title", "isbn", "published", "名前", "notes_about_it", "x"][random.next(below: 7)] + "\(index)",
                            minWidth: 1, maxWidth: cap, alignment: random.next(below: 2) == 0 ? .left : .right)
            }
            let rows = (0..<random.next(below: 6)).map { _ in columns.map { _ in Self.value(&random) } }
            let width = 1 + random.next(below: 130)
            let pinned = random.next(below: 4) == 0 ? 1 : 0
            var table = Table(columns: columns, rows: rows, focusedColumn: random.next(below: count), pinnedColumns: pinned)
            let natural = table.naturalWidths()
            var previous: [(index: Int, width: Int)] = []
            for step in 0..<12 {
                let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), step \(step), width \(width), cap \(cap), focus \(table.focusedColumn!), first \(table.firstColumn)"
                let placed = table.layout(width: width)
                let indexes = placed.map(\.index)
                #expect(Set(indexes).count == indexes.count && indexes == indexes.sorted(), "\(context): \(placed)")
                #expect(placed.map(\.width).reduce(0, +) + max(0, placed.count - 1) <= width, "\(context): fits \(placed)")
                #expect(indexes.contains(table.focusedColumn!), "\(context): the focused column is shown: \(placed)")
                let used = placed.map(\.width).reduce(0, +) + max(0, placed.count - 1)
                for place in placed where natural[place.index] <= cap {
                    // Cut only when it could not be whole beside the others shown (the pinned key).
                    let tooWide = used - place.width + natural[place.index] > width
                    if !tooWide {
                        #expect(place.width == natural[place.index], "\(context): column \(place.index) is \(place.width), natural \(natural[place.index]): \(placed)")
                    }
                }
                // The focus moves to a column already shown: nothing moves.
                let before = placed
                if !previous.isEmpty, previous.map(\.index).contains(table.focusedColumn!) {
                    #expect(before.map(\.index) == previous.map(\.index) && before.map(\.width) == previous.map(\.width), "\(context): shifted from \(previous) to \(before)")
                }
                table.firstColumn = table.scrolledFirstColumn(width: width)
                previous = table.layout(width: width)
                table.focusedColumn = min(max(0, table.focusedColumn! + [-1, 1, 1, -2, 3][random.next(below: 5)]), count - 1)
            }
        }
    }
}
