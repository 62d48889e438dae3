@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// Marks on a list: Space, `:select`, `:unselect`; the count in the status bar, the rows drawn
/// apart in every theme, and marks that outlast scrolling, sorting, filtering and refreshes.
@Suite("Marks", .timeLimit(.minutes(10)))
struct MarkTests {
    /// The list's rows shown as marked (the gutter's `*`), by the first word after the id.
    static func markedNames(_ harness: AppHarness) -> [String] {
        harness.lines.dropFirst().filter { $0.dropFirst().hasPrefix("*") }.compactMap { line in
            line.dropFirst(2).split(separator: " ").dropFirst().first.map(String.init)   // the gutter, the id, the name
        }
    }

    /// Waits for the marks' count, and returns the status bar.
    static func counted(_ harness: AppHarness) throws -> String {
        #expect(try harness.waitFor { _ in !harness.statusLine.contains("counting marks") })
        return harness.statusLine
    }

    @Test func spaceMarksAndMovesDownAndTheStatusBarCounts() throws {
        let harness = try AppHarness()
        try harness.press(.char(" "))
        #expect(harness.statusLine.contains("row 2 of 4"), "moved down: \(harness.statusLine)")
        try harness.press(.char(" "))
        #expect(Self.markedNames(harness) == ["Ada", "Grace"], "\(harness.screen)")
        #expect(try Self.counted(harness).contains("2 marked"))
        // Space on a marked record unmarks it.
        try harness.press(.char("k"), .char(" "))
        #expect(Self.markedNames(harness) == ["Ada"])
        #expect(try Self.counted(harness).contains("1 marked"))
        try harness.command("unselect")
        #expect(Self.markedNames(harness).isEmpty && !harness.statusLine.contains("marked"))
    }

    @Test func selectAndUnselectTakeTheFiltersLanguage() throws {
        let harness = try AppHarness()
        try harness.command("select age >= 30")
        #expect(Self.markedNames(harness) == ["Ada", "Grace"], "\(harness.screen)")
        #expect(try Self.counted(harness).contains("2 marked"))
        try harness.command("select Linus")                                  // words search the shown columns
        #expect(Self.markedNames(harness) == ["Ada", "Grace", "Linus"])
        try harness.command("unselect age > 40")
        #expect(Self.markedNames(harness) == ["Ada", "Linus"])
        #expect(try Self.counted(harness).contains("2 marked"))
        // A filter that cannot be read marks nothing and says why.
        try harness.command("select age >=")
        #expect(harness.messageLine.hasPrefix("The filter cannot be read at character 7"), "\(harness.messageLine)")
        #expect(Self.markedNames(harness) == ["Ada", "Linus"])
        // :select alone marks every record the list shows.
        try harness.command("select")
        #expect(Self.markedNames(harness) == ["Ada", "Grace", "Linus", "Margaret"])
        #expect(try Self.counted(harness).contains("4 marked"))
    }

    @Test func marksOutlastSortingFilteringAndARecordDeletedElsewhereDropsOut() throws {
        let harness = try AppHarness()
        try harness.press(.char(" "), .char("j"), .char(" "))                // Ada, Linus
        try harness.press(.char("l"), .char("]"))                            // by name, descending
        #expect(try harness.waitFor { _ in !harness.app.isAwaitingAWindow })
        #expect(Self.markedNames(harness) == ["Linus", "Ada"], "\(harness.screen)")
        try harness.press(.char("/"))
        try harness.type("age < 40")
        try harness.press(KeyEvent(.enter))
        // (Under a sort no index serves, the filtered list's first window is read in the
        // background: the screen keeps the last preview's rows meanwhile.)
        #expect(try harness.waitFor { _ in !harness.app.isAwaitingAWindow })
        #expect(Self.markedNames(harness) == ["Linus", "Ada"])
        try LiveRefreshTests.outside(harness, "DELETE FROM cards WHERE name = 'Linus'")
        // (Noticed at the next poll; the order no index serves is read again in the background.)
        #expect(try harness.waitFor { _ in Self.markedNames(harness) == ["Ada"] }, "\(harness.screen)")
        #expect(try Self.counted(harness).contains("1 marked"), "\(harness.statusLine)")
    }

    @Test func markedRowsDifferWithoutColourToo() throws {
        let harness = try AppHarness()
        try harness.press(.char(" "))
        // Ada (line 1) is marked and no longer selected: a * and bold text.
        #expect(harness.lines[1].dropFirst().hasPrefix("*"))
        let x = try #require(harness.lines[1].range(of: "Ada").map { harness.lines[1].distance(from: harness.lines[1].startIndex, to: $0.lowerBound) })
        #expect(harness.backend.screen[x, 1].style.attributes.contains(.bold))
        #expect(!harness.backend.screen[x, 3].style.attributes.contains(.bold), "Linus is not marked")
    }

    /// Marks over a million matching rows are one rule: no list of records is held.
    @Test func markingEveryMatchHoldsOneRule() throws {
        let harness = try AppHarness(schema: AppHarness.cards + """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
            INSERT INTO cards (name, age) SELECT 'P' || i, i % 100 FROM n;
            """)
        try harness.command("select age >= 50")
        // The implementation's choice, checked: the matches are one filter rule, no record list.
        #expect(harness.app.list?.marks.rules.rules.allSatisfy { if case .filter = $0 { true } else { false } } == true)
        let expected = try #require(Int.fromDatabaseValue(try harness.disk("SELECT count(*) FROM cards WHERE age >= 50")))
        #expect(try Self.counted(harness).contains("\(expected.formatted()) marked"), "\(harness.statusLine)")
    }

    /// The rows on screen: each one's id and whether it is drawn marked.
    static func shownRows(_ harness: AppHarness) -> [(id: Int64, marked: Bool)] {
        // The gutter's two cells (a pending mark, the `*`), then the right-aligned id.
        harness.lines.dropFirst().dropLast(2).compactMap { line in
            let marked = line.dropFirst().hasPrefix("*")
            guard let id = line.dropFirst(2).split(separator: " ").first.flatMap({ Int64($0) }) else { return nil }
            return (id, marked)
        }
    }

    /// Random marks, filters, sorts and outside writers, checked after every step against a
    /// model that replays the marks' steps one by one in Swift, asking SQL only which rows
    /// each filter matches now.
    @Test func randomMarksAgainstAModel() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let harness = try AppHarness(schema: AppHarness.cards + """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
            INSERT INTO cards (name, age) SELECT 'P' || i, (i * 7) % 50 FROM n;
            """)
        /// The marks' steps: a filter (its SQL) marked or unmarked, or one record.
        enum Step { case filter(String, Bool), record(Int64, Bool), clear }
        var steps: [Step] = []
        let filters = [("age >= 30", "age >= 30"), ("age < 20", "age < 20"), ("age is null", "age IS NULL"), ("not age >= 10", "NOT (age >= 10)")]
        func model() throws -> Set<Int64> {
            let all = try harness.diskText("SELECT group_concat(id) FROM cards")?.split(separator: ",").compactMap { Int64($0) } ?? []
            var matches: [String: Set<Int64>] = [:]
            for case .filter(let sql, _) in steps where matches[sql] == nil {
                matches[sql] = Set(try harness.diskText("SELECT group_concat(id) FROM cards WHERE \(sql)")?.split(separator: ",").compactMap { Int64($0) } ?? [])
            }
            return Set(all.filter { id in
                for step in steps.reversed() {
                    switch step {
                    case .record(let other, let marked): if other == id { return marked }
                    case .filter(let sql, let marked): if matches[sql]!.contains(id) { return marked }
                    case .clear: return false
                    }
                }
                return false
            })
        }
        for step in 0..<Fuzz.scaled(80) {
            var operation = ""
            switch random.next(below: 10) {
            case 0, 1:
                try harness.press(KeyEvent(random.next(below: 2) == 0 ? .down : .up))
                let row = try #require(harness.app.list?.selection?.primaryKeyValues?.first.flatMap { if case .integer(let id) = $0 { id } else { nil } })
                let wasMarked = Self.shownRows(harness).first { $0.id == row }?.marked ?? false
                try harness.press(.char(" "))
                steps.append(.record(row, !wasMarked))
                operation = "space on \(row)"
            case 2, 3:
                let (typed, sql) = filters[random.next(below: filters.count)]
                let marked = random.next(below: 3) != 0
                try harness.command("\(marked ? "select" : "unselect") \(typed)")
                if marked || !steps.isEmpty { steps.append(.filter(sql, marked)) }
                operation = "\(marked ? "select" : "unselect") \(typed)"
            case 4:
                try harness.command("unselect")
                steps.append(.clear)
                operation = "unselect all"
            case 5:
                try harness.press(random.next(below: 2) == 0 ? .char("[") : .char("]"))
                operation = "sort"
            case 6:
                let id = 1 + random.next(below: 64)
                try LiveRefreshTests.outside(harness, "UPDATE cards SET age = \(random.next(below: 5) == 0 ? "NULL" : String(random.next(below: 50))) WHERE id = \(id)")
                operation = "outside update of \(id)"
            case 7:
                let id = 1 + random.next(below: 64)
                try LiveRefreshTests.outside(harness, "DELETE FROM cards WHERE id = \(id)")
                operation = "outside delete of \(id)"
            case 8:
                try LiveRefreshTests.outside(harness, "INSERT INTO cards (name, age) VALUES ('New', \(random.next(below: 50)))")
                operation = "outside insert"
            default:
                try harness.press(random.next(below: 2) == 0 ? .char("l") : .char("h"))
                operation = "column"
            }
            try harness.advance(.milliseconds(150))
            #expect(try harness.waitFor { _ in !harness.app.isAwaitingAWindow && !harness.statusLine.contains("counting marks") })
            let context = "seed \(seed) (CARDFILE_SEED=\(seed) replays it), step \(step) (\(operation))"
            let expected = try model()
            for row in Self.shownRows(harness) {
                #expect(row.marked == expected.contains(row.id), "\(context): row \(row.id) drawn \(row.marked ? "marked" : "unmarked")")
            }
            if expected.isEmpty {
                // No count, or a count of none (rules that now mark nothing).
                #expect(harness.statusLine.firstMatch(of: /[1-9][0-9,]* marked/) == nil, "\(context): \(harness.statusLine)")
            } else {
                #expect(harness.statusLine.contains(" \(expected.count.formatted()) marked"), "\(context): \(harness.statusLine), expected \(expected.count)")
            }
        }
    }

    @Test func aMarkedRecordTheFilterHidesIsCountedAgainWhenItChanges() throws {
        let harness = try AppHarness()
        try harness.press(.char("/"))
        try harness.type("age < 40")
        try harness.press(KeyEvent(.enter))                                  // Ada, Linus shown
        try harness.command("select age >= 40")                              // Grace, hidden
        #expect(try Self.counted(harness).contains("1 marked"), "\(harness.statusLine)")
        // Another program deletes Grace: nothing on screen changes, the count does.
        try LiveRefreshTests.outside(harness, "DELETE FROM cards WHERE name = 'Grace'")
        try harness.advance(.milliseconds(150))
        #expect(try Self.counted(harness).contains("0 marked"), "\(harness.statusLine)")
        // And one that comes to match, hidden too.
        try LiveRefreshTests.outside(harness, "UPDATE cards SET age = 77 WHERE name = 'Margaret'")
        try harness.advance(.milliseconds(150))
        #expect(try Self.counted(harness).contains("1 marked"), "\(harness.statusLine)")
    }

    static let twoTables = AppHarness.cards + """
        CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE members (id INTEGER PRIMARY KEY, team INTEGER REFERENCES teams, name TEXT);
        INSERT INTO teams (name) VALUES ('red'), ('blue');
        INSERT INTO members (team, name) VALUES (1, 'Ana'), (2, 'Bo');
        CREATE VIEW ages AS SELECT age, count(*) AS n FROM cards GROUP BY age;
        """

    @Test func aListOpenedAgainStartsWithoutMarksAndNeverTakesAnOldCount() throws {
        let harness = try AppHarness(schema: Self.twoTables)
        // From the tables screen: cards (the tables filtered to it), marked whole, left, opened again.
        try harness.press(.char("/"))
        try harness.type("cards")
        try harness.press(KeyEvent(.enter), KeyEvent(.enter))
        #expect(harness.statusLine.contains("cards") && harness.statusLine.contains("row 1 of 4"), "\(harness.statusLine)")
        try harness.command("select")
        try harness.press(.char("q"))
        #expect(!harness.statusLine.contains("row 1 of 4"), "back on the tables screen: \(harness.screen)")
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("row 1 of 4") && !harness.statusLine.contains("marked"), "\(harness.statusLine)")
        try harness.press(.char(" "))
        #expect(try Self.counted(harness).contains("1 marked"), "\(harness.statusLine)")
    }

    @Test func keylessListsAndPickersRefuseMarks() throws {
        let harness = try AppHarness(schema: Self.twoTables, options: CardfileApp.Options(table: "ages", autosave: nil))
        try harness.press(.char(" "))
        #expect(harness.messageLine.contains("no key to tell them apart"), "\(harness.messageLine)")
        try harness.command("select")
        #expect(harness.messageLine.contains("no key to tell them apart"), "\(harness.messageLine)")
        #expect(!harness.statusLine.contains("marked"))

        let members = try AppHarness(schema: Self.twoTables, options: CardfileApp.Options(table: "members", autosave: nil))
        try members.press(KeyEvent(.enter))                                  // Ana's form, on her team
        try members.press(.control("p"))
        #expect(members.screen.contains("Pick the teams record"), "\(members.screen)")
        try members.press(.char(" "))
        #expect(members.messageLine.hasPrefix("Picking a record"), "\(members.messageLine)")
        #expect(!members.statusLine.contains("marked") && !members.lines.contains { $0.dropFirst().hasPrefix("*") })
    }

    @Test func aNumericColumnFocusedShowsTheSumAndMeanOfTheMarkedRecords() throws {
        let harness = try AppHarness(size: Size(width: 100, height: 24))
        try harness.command("select age >= 30")                                  // Ada 36, Grace 45
        _ = try MarkTests.counted(harness)
        #expect(!harness.statusLine.contains("sum"), "the key is not summed: \(harness.statusLine)")
        try harness.press(.char("l"), .char("l"), .char("l"))                    // age
        #expect(try harness.waitFor { _ in harness.statusLine.contains("age: sum 81 · mean 40.5") }, "\(harness.statusLine)")
        // Every record: Margaret's NULL is left out of the sum and the mean.
        try harness.command("select")
        #expect(try harness.waitFor { _ in harness.statusLine.contains("age: sum 109 · mean 36.3333") }, "\(harness.statusLine)")
        // A text column has none; an outside change is summed again.
        try harness.press(.char("h"))
        #expect(try harness.waitFor { _ in !harness.statusLine.contains("sum") && harness.statusLine.contains("4 marked") }, "\(harness.statusLine)")
        try harness.press(.char("l"))
        try LiveRefreshTests.outside(harness, "UPDATE cards SET age = 100 WHERE name = 'Linus'")
        #expect(try harness.waitFor { _ in harness.statusLine.contains("age: sum 181 · mean 60.3333") }, "\(harness.statusLine)")
    }
}
