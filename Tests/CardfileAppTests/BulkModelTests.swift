@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// Marks, filters, sorts, `:set`, Alt-U and Alt-R at random in the app, with another program
/// writing between the steps, against a model: after every step the file must hold what the
/// model holds, the status bar must count the records the model's rules mark (evaluated over
/// the rows as SQL reads them), and an undo or redo must leave alone exactly the records the
/// model says changed since.
@Suite("Bulk edits against a model", .timeLimit(.minutes(Fuzz.scaled(10))))
struct BulkModelTests {
    /// A rule of the marks, as the model keeps it.
    enum Rule {
        case filter(column: String, value: Int64, marked: Bool)
        case records([Int64: Bool])
    }

    /// A `:set` as the model keeps it: per record, the value before and after.
    struct Change {
        var column: Int
        var records: [Int64: (before: Value, after: Value)]
    }

    static let columns = ["a", "b"]

    /// The rows as another connection reads them: id → [a, b].
    static func rows(_ harness: AppHarness) throws -> [Int64: [Value]] {
        let queue = try DatabaseQueue(path: harness.path)
        defer { try? queue.close() }
        return try queue.read { db in
            var rows: [Int64: [Value]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, a, b FROM t") {
                rows[row["id"]] = [Value(row[1] as DatabaseValue), Value(row[2] as DatabaseValue)]
            }
            return rows
        }
    }

    /// Which records the rules mark over `rows`: the last rule that speaks of a record decides.
    static func marked(_ rules: [Rule], _ rows: [Int64: [Value]]) -> Set<Int64> {
        Set(rows.keys.filter { id in
            for rule in rules.reversed() {
                switch rule {
                case .filter(let column, let value, let marked):
                    if rows[id]![columns.firstIndex(of: column)!] == .integer(value) { return marked }
                case .records(let records):
                    if let marked = records[id] { return marked }
                }
            }
            return false
        })
    }

    /// True when no rule marks anything (as ``MarkSet/isEmpty`` says).
    static func isEmpty(_ rules: [Rule]) -> Bool {
        !rules.contains { rule in
            switch rule {
            case .filter(_, _, let marked): return marked
            case .records(let records): return records.values.contains(true)
            }
        }
    }

    @Test func randomBulkEditsAgainstAModel() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for round in 0..<Fuzz.scaled(3) {
            let inserts = (1...24).map { "(\($0), \($0 % 4), 'r\($0)')" }.joined(separator: ", ")
            let harness = try AppHarness(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT); INSERT INTO t VALUES \(inserts);",
                                         size: Size(width: 100, height: 40))
            var model = try Self.rows(harness)
            var rules: [Rule] = []
            var undos: [Change] = []
            var redos: [Change] = []
            var nextID: Int64 = 100
            var trace: [String] = []
            for step in 0..<30 {
                var context: String { "seed \(seed) (CARDFILE_SEED=\(seed) replays it), round \(round), step \(step); steps: \(trace.joined(separator: "; "))" }
                /// Undo or redo `change` (`keys`: Alt-U or Alt-R): the records that still hold
                /// its `before` take its `after`; the others are asked about, and overwritten
                /// when the answer is yes (all but those deleted since). Returns what was written.
                func replay(_ change: Change, key: KeyEvent) throws -> Change {
                    let left = change.records.filter { model[$0.key]?[change.column] != $0.value.before }
                    let gone = Set(left.keys.filter { model[$0] == nil })
                    try harness.press(key)
                    var written = Change(column: change.column, records: [:])
                    for (id, sides) in change.records where left[id] == nil {
                        written.records[id] = sides
                        model[id]![change.column] = sides.after
                    }
                    let asked = BulkEditAppTests.question(harness)
                    #expect((asked != nil) == (left.count > gone.count), "\(context): \(asked ?? "no question"), \(left.count) left, \(gone.count) gone")
                    if let asked {
                        #expect(asked.hasPrefix("\(left.count) record\(left.count == 1 ? "" : "s") changed since"), "\(context): \(asked)")
                        if random.next(below: 2) == 0 {
                            try harness.press(.char("y"))
                            for (id, sides) in left where !gone.contains(id) {
                                written.records[id] = (model[id]![change.column], sides.after)
                                model[id]![change.column] = sides.after
                            }
                        } else {
                            try harness.press(.char("n"))
                        }
                    }
                    return written
                }

                let list = try #require(harness.app.list)
                switch random.next(below: 10) {
                case 0, 1:
                    // Space on a row of the list.
                    let shown = list.live.window.rows.count
                    guard shown > 0 else { continue }
                    try harness.command("\(1 + random.next(below: shown))")
                    guard let selected = harness.app.list?.selection, case .integer(let id)? = selected.primaryKeyValues?.first else { continue }
                    let wasMarked = Self.marked(rules, model).contains(id)
                    try harness.press(.char(" "))
                    trace.append("space on \(id)")
                    if case .records(var records)? = rules.last {
                        records[id] = !wasMarked
                        rules[rules.count - 1] = .records(records)
                    } else {
                        rules.append(.records([id: !wasMarked]))
                    }
                case 2:
                    let value = Int64(random.next(below: 4))
                    let marked = random.next(below: 3) > 0
                    try harness.command("\(marked ? "select" : "unselect") a = \(value)")
                    trace.append("\(marked ? "select" : "unselect") a = \(value)")
                    if marked || !Self.isEmpty(rules) { rules.append(.filter(column: "a", value: value, marked: marked)) }
                case 3:
                    // The list's filter, or none; a sort.
                    // (Esc in the prompt clears the filter; the prompt opens holding the last.)
                    try harness.press(.char("/"), KeyEvent(.escape))
                    if random.next(below: 2) == 0 {
                        try harness.press(.char("/"))
                        try harness.type("a <= \(random.next(below: 4))")
                        try harness.press(KeyEvent(.enter))
                    }
                    try harness.press(.char("g"), random.next(below: 2) == 0 ? .char("l") : .char("h"), random.next(below: 2) == 0 ? .char("[") : .char("]"))
                    _ = try harness.waitFor { _ in !harness.app.isAwaitingAWindow }
                case 4, 5:
                    // :set on the marks, or on the selected record.
                    let column = random.next(below: 2)
                    let value: Value = column == 0 ? .integer(Int64(random.next(below: 4))) : [.text("x"), .text("y"), .null][random.next(below: 3)]
                    let targets: Set<Int64>
                    if Self.isEmpty(rules) {
                        guard let selected = list.selection, case .integer(let id)? = selected.primaryKeyValues?.first, model[id] != nil else { continue }
                        targets = [id]
                    } else {
                        targets = Self.marked(rules, model)
                    }
                    let literal = switch value { case .text(let text): "'\(text)'"; default: value.description }
                    try harness.command("set \(Self.columns[column]) = \(literal)")
                    trace.append("set \(Self.columns[column]) = \(literal) on \(targets.sorted())")
                    #expect(BulkEditAppTests.question(harness) != nil, "\(context): \(harness.messageLine)")
                    try harness.press(.char("y"))
                    var change = Change(column: column, records: [:])
                    for id in targets {
                        change.records[id] = (model[id]![column], value)
                        model[id]![column] = value
                    }
                    if !change.records.isEmpty {
                        undos.append(change)
                        redos = []
                        if !Self.isEmpty(rules) { rules = [.records(Dictionary(uniqueKeysWithValues: targets.map { ($0, true) }))] }
                    }
                case 6:
                    guard let last = undos.popLast() else { continue }
                    let undo = Change(column: last.column, records: last.records.mapValues { ($0.after, $0.before) })
                    trace.append("undo on \(undo.records.keys.sorted())")
                    let written = try replay(undo, key: .alt("u"))
                    // (Kept as written, undo's way round: a redo applies it the other way.)
                    if !written.records.isEmpty { redos.append(written) }
                case 7:
                    guard let last = redos.popLast() else { continue }
                    let redo = Change(column: last.column, records: last.records.mapValues { ($0.after, $0.before) })
                    trace.append("redo on \(redo.records.keys.sorted())")
                    let written = try replay(redo, key: .alt("r"))
                    if !written.records.isEmpty { undos.append(written) }
                default:
                    // Another program: a value changed, a record deleted, or one added.
                    let id = Int64(1 + random.next(below: 26))
                    trace.append("outside on \(id)")
                    switch random.next(below: 3) {
                    case 0:
                        let value = Int64(random.next(below: 4))
                        try LiveRefreshTests.outside(harness, "UPDATE t SET a = \(value) WHERE id = \(id)")
                        model[id]?[0] = .integer(value)
                    case 1:
                        try LiveRefreshTests.outside(harness, "DELETE FROM t WHERE id = \(id)")
                        model[id] = nil
                    default:
                        nextID += 1
                        try LiveRefreshTests.outside(harness, "INSERT INTO t VALUES (\(nextID), \(id % 4), 'outside')")
                        model[nextID] = [.integer(id % 4), .text("outside")]
                    }
                    try harness.advance(.milliseconds(300))                 // the app notices
                }

                let rows = try Self.rows(harness)
                #expect(rows == model, "\(context)")
                let expected = Self.marked(rules, model)
                if Self.isEmpty(rules) {
                    #expect(!harness.statusLine.contains("marked"), "\(context): \(harness.statusLine)")
                } else {
                    #expect(try harness.waitFor { _ in harness.statusLine.contains(" \(expected.count) marked") }, "\(context): \(harness.statusLine), expected \(expected.count)")
                    // The rows on screen drawn as marked are the model's.
                    let window = harness.app.list?.live.window.rows.compactMap { row -> Int64? in
                        if case .integer(let id)? = row.id.primaryKeyValues?.first { return id }
                        return nil
                    } ?? []
                    let onScreen = harness.app.list?.marks.onScreen ?? []
                    for id in window {
                        #expect(onScreen.contains(ObjectID(table: "t", rowid: id)) == expected.contains(id), "\(context): record \(id)")
                    }
                }
                if rows != model { return }
            }
        }
    }
}
