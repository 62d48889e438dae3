import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// `:123`, finding without filtering (`f`, `n`, `N`), and copying through OSC 52.
@Suite("Find, jump and copy", .timeLimit(.minutes(Fuzz.scaled(10))))
struct FindAndCopyTests {
    @Test func jumpToARowByNumber() throws {
        let harness = try AppHarness(options: CardfileApp.Options(table: "books", autosave: nil), demoRows: 300)
        try harness.command("250")
        #expect(harness.statusLine.contains("row 250 of"), "\(harness.statusLine)")
        try harness.command("1")
        #expect(harness.statusLine.contains("row 1 of"))
        let small = try AppHarness()
        try small.command("3")
        #expect(small.statusLine.contains("row 3 of 4"))
        try small.command("99")
        #expect(small.statusLine.contains("row 4 of 4"))
        #expect(small.messageLine.contains("has 4 rows"), "\(small.messageLine)")
        try small.command("0")
        #expect(small.messageLine.contains("numbered from 1"))
        #expect(small.statusLine.contains("row 4 of 4"))
    }

    @Test func findMovesTheSelectionAndKeepsEveryRow() throws {
        let harness = try AppHarness()
        try harness.press(.char("f"))
        try harness.type("Linus")
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("row 3 of 4"), "\(harness.statusLine)")
        #expect(!harness.statusLine.contains("filter"))
        #expect(harness.screen.contains("Ada") && harness.screen.contains("Margaret"), "the list is not filtered")
        // The filter language works too; n goes on, and round from the start.
        try harness.command("find age >= 30")
        #expect(harness.statusLine.contains("row 1 of 4"), "wrapped past Linus to Ada: \(harness.statusLine)")
        #expect(harness.messageLine.contains("going round"), "\(harness.messageLine)")
        try harness.press(.char("n"))
        #expect(harness.statusLine.contains("row 2 of 4"))
        try harness.press(.char("N"))
        #expect(harness.statusLine.contains("row 1 of 4"))
        try harness.press(.char("N"))
        #expect(harness.statusLine.contains("row 2 of 4"), "backwards, round from the end")
        try harness.command("find nobody")
        #expect(harness.messageLine.contains("No record matches"))
        #expect(harness.statusLine.contains("row 2 of 4"))
        // f offers the last search typed; Enter repeats it.
        try harness.press(.char("f"))
        #expect(harness.messageLine.contains("nobody"))
        try harness.press(KeyEvent(.escape))
        try harness.command("find age >= 30")
        #expect(harness.statusLine.contains("row 1 of 4"), "round from Grace to Ada: \(harness.statusLine)")
        try harness.press(.char("f"))
        #expect(harness.messageLine.contains("age >= 30"))
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("row 2 of 4"), "Enter found the next match: \(harness.statusLine)")
    }

    @Test func findWithNothingToRepeatSaysSo() throws {
        let harness = try AppHarness()
        try harness.press(.char("n"))
        #expect(harness.messageLine.contains("Nothing to repeat"))
    }

    /// The copied text, decoded from the last OSC 52 sequence written.
    static func copied(_ harness: AppHarness) throws -> String {
        let sequence = try #require(harness.backend.controlWrites.last)
        #expect(sequence.hasPrefix("\u{1B}]52;c;") && sequence.hasSuffix("\u{07}"))
        let payload = sequence.dropFirst("\u{1B}]52;c;".count).dropLast()
        #expect(payload.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" || $0 == "=" }, "base64 only, never raw text")
        return String(decoding: try #require(Data(base64Encoded: String(payload))), as: UTF8.self)
    }

    @Test func copyTheCellTheRecordAsTSVAndAsJSON() throws {
        let harness = try AppHarness()
        try harness.press(.char("l"), .char("y"))
        #expect(try Self.copied(harness) == "Ada")
        #expect(harness.messageLine.contains("Copied name (3 bytes) to the clipboard"), "\(harness.messageLine)")
        try harness.press(.char("Y"))
        #expect(try Self.copied(harness) == "1\tAda\t111\t36\tfirst")
        try harness.press(.char("j"), .char("j"), .alt("y"))
        let json = try JSONSerialization.jsonObject(with: Data(try Self.copied(harness).utf8)) as? [String: Any]
        #expect(json?["name"] as? String == "Linus")
        #expect(json?["notes"] as? String == "line one\nline two")
        #expect(json?["age"] as? Int == 28)
        try harness.press(.char("Y"))
        #expect(try Self.copied(harness) == "3\tLinus\t333\t28\t\"line one\nline two\"")
        // NULL copies as empty text, and says so.
        try harness.press(.char("j"), .char("l"), .char("l"), .char("y"))
        #expect(try Self.copied(harness) == "")
        #expect(harness.messageLine.contains("NULL"))
        #expect(harness.backend.controlWrites.count == 5)
    }

    @Test func controlCharactersInDataTravelAsBase64() throws {
        let harness = try AppHarness(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES ('a' || char(27) || ']52;c;evil' || char(7) || char(155));")
        try harness.press(.char("l"), .char("y"))
        let sequence = try #require(harness.backend.controlWrites.last)
        #expect(sequence.filter { $0 == "\u{1B}" }.count == 1 && sequence.filter { $0 == "\u{07}" }.count == 1)
        #expect(try Self.copied(harness) == "a\u{1B}]52;c;evil\u{07}\u{9B}")
    }

    /// Seeded: from the first row, `n` visits exactly the rows SQL says match, in the list's
    /// order, then goes round; `N` visits them backwards.
    @Test func findVisitsTheMatchesSQLFindsInOrder() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(4) {
            let words = ["red", "green", "blue", "grey"]
            var inserts: [String] = []
            for _ in 0..<(20 + random.next(below: 120)) {
                let word = random.next(below: 5) == 0 ? "NULL" : "'\(words[random.next(below: words.count)]) \(random.next(below: 10))'"
                inserts.append("(\(word), \(random.next(below: 6) == 0 ? "NULL" : String(random.next(below: 50))))")
            }
            let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b INTEGER); INSERT INTO t (a, b) VALUES \(inserts.joined(separator: ", "));"
            let harness = try AppHarness(schema: schema, size: Size(width: 60, height: 12))
            let descending = random.next(below: 2) == 0
            let (search, sql): (String, String) = random.next(below: 2) == 0
                ? { let w = words[random.next(below: words.count)]; return (w, "a LIKE '%\(w)%'") }()
                : { let k = random.next(below: 50); return ("b >= \(k)", "b >= \(k)") }()
            // Sorted by b: NULLs first ascending (as SQLite), ties by id.
            try harness.press(.char("l"), .char("l"), .char(descending ? "]" : "["))
            #expect(try harness.waitFor { _ in harness.lines[0].contains(descending ? "b↓" : "b↑") && !harness.app.isAwaitingAWindow }, "seed \(seed)")
            let order = descending ? "b DESC, id DESC" : "b ASC, id ASC"
            let queue = try DatabaseQueue(path: harness.path)
            let positions = try queue.read { db in
                try Int.fetchAll(db, sql: "SELECT p FROM (SELECT row_number() OVER (ORDER BY \(order)) AS p, * FROM t) WHERE \(sql) ORDER BY p")
            }
            try queue.close()
            try harness.press(.char("g"))
            try harness.command("find \(search)")
            var visited: [Int] = []
            for _ in 0..<(positions.count + 1) {
                visited.append(Self.position(harness.statusLine))
                try harness.press(.char("n"))
            }
            let context = "seed \(seed), round \(round), search \(search), \(descending ? "descending" : "ascending")"
            if positions.isEmpty {
                #expect(harness.messageLine.contains("No record matches"), "\(context)")
            } else {
                let startsAtFirst = positions.first == 1
                // The first row itself is a match only after going round (the search starts after the selection).
                let expected = Array((startsAtFirst ? Array(positions.dropFirst()) + [1] : positions) + (startsAtFirst ? [positions.dropFirst().first ?? 1] : [positions[0]]))
                #expect(visited == Array(expected.prefix(visited.count)), "\(context)")
                // The last n went one match on; N comes back to the last one visited.
                try harness.press(.char("N"))
                #expect(Self.position(harness.statusLine) == visited.last, "\(context)")
            }
        }
    }

    static func position(_ status: String) -> Int {
        guard let range = status.range(of: #"row [0-9,]+"#, options: .regularExpression) else { return -1 }
        return Int(status[range].dropFirst(4).replacingOccurrences(of: ",", with: "")) ?? -1
    }
}
