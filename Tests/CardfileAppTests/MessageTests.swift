@testable import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing

/// Messages belong to what they are about: a screen's hint goes with the screen, outside
/// changes are said where they are, the status bar keeps the position and the save state
/// at any width, and `:messages` shows what the line cut or took away.
@Suite("Messages", .timeLimit(.minutes(Fuzz.scaled(10))))
struct MessageTests {
    @Test func aHintGoesWithTheScreenItIsAbout() throws {
        let harness = try ForeignKeyTests.books()
        // Ctrl-R from the author's form: the referencing list says how to go back…
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), .control("g"))
        try harness.press(.control("r"), .char("1"))
        #expect(harness.messageLine.contains("q or Esc goes back"), "\(harness.screen)")
        // …and the hint does not follow the person back to the form.
        try harness.press(KeyEvent(.escape))
        #expect(harness.lines[0].contains("authors › 1"), "\(harness.lines[0])")
        #expect(!harness.messageLine.contains("goes back"), "\(harness.messageLine)")
    }

    @Test func anErrorStaysItsTimeWhereverThePersonGoes() throws {
        let harness = try AppHarness()
        harness.app.show("The database reported an error: disk I/O error.", role: .error, now: harness.clock.now)
        try harness.press(KeyEvent(.enter))
        #expect(harness.messageLine.contains("disk I/O error"), "\(harness.messageLine)")
        try harness.advance(.seconds(6))
        #expect(!harness.messageLine.contains("disk I/O error"), "it goes when its time is up")
    }

    @Test func aListsMessageGoesWhenAFormCoversIt() throws {
        let harness = try AppHarness()
        try LiveRefreshTests.outside(harness, "UPDATE cards SET age = 50 WHERE id = 2")
        try harness.advance(.milliseconds(150))
        #expect(harness.messageLine.contains("Outside changes arrived"), "\(harness.messageLine)")
        try harness.press(KeyEvent(.enter))
        #expect(!harness.messageLine.contains("Outside changes"), "\(harness.messageLine)")
        // A result is not a hint: it stays when the screen changes.
        try harness.type("!")
        try harness.press(.control("s"), KeyEvent(.escape))
        #expect(harness.messageLine.contains("Saved."), "\(harness.messageLine)")
    }

    @Test func outsideChangesAreSaidOnlyWhereTheyAre() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))                             // Ada's form
        // Another record changes: the list under the form follows, the form says nothing.
        try LiveRefreshTests.outside(harness, "UPDATE cards SET age = 50 WHERE id = 2")
        try harness.advance(.milliseconds(150))
        #expect(!harness.messageLine.contains("Outside"), "\(harness.messageLine)")
        #expect(!harness.messageLine.contains("elsewhere"), "\(harness.messageLine)")
        // This record changes: the form says which fields.
        try LiveRefreshTests.outside(harness, "UPDATE cards SET age = 37, notes = 'new' WHERE id = 1")
        try harness.advance(.milliseconds(150))
        #expect(harness.messageLine.contains("Updated from elsewhere: age, notes."), "\(harness.messageLine)")
        // An edited field changed there too is said apart.
        try harness.type(" mine")
        try LiveRefreshTests.outside(harness, "UPDATE cards SET name = 'Theirs' WHERE id = 1")
        try harness.advance(.milliseconds(150))
        #expect(harness.messageLine.contains("Also changed elsewhere: name, which you edited"), "\(harness.messageLine)")
    }

    @Test func aRecordDeletedElsewhereIsCalledDeleted() throws {
        let harness = try AppHarness()
        try harness.press(.char("j"), KeyEvent(.enter))                  // Grace, unedited
        #expect(harness.lines[0].contains("cards › 2"), "\(harness.lines[0])")
        try LiveRefreshTests.outside(harness, "DELETE FROM cards WHERE id = 2")
        try harness.advance(.milliseconds(150))
        #expect(harness.lines[0].contains("deleted elsewhere"), "\(harness.lines[0])")
        #expect(harness.messageLine.hasPrefix("This record was deleted elsewhere"), "\(harness.messageLine)")
        #expect(!harness.messageLine.contains("changed"), "\(harness.messageLine)")
        // Typing is refused with the same words, not "no longer exists".
        try harness.type("x")
        #expect(harness.messageLine.contains("deleted elsewhere, so it cannot be edited"), "\(harness.messageLine)")

        // With edits, the save's sentence says deleted too.
        let edited = try AppHarness()
        try edited.press(KeyEvent(.enter))
        try edited.type(" kept")
        try LiveRefreshTests.outside(edited, "DELETE FROM cards WHERE id = 1")
        try edited.advance(.milliseconds(150))
        #expect(edited.messageLine.contains("This record was deleted elsewhere. Your edits are kept"), "\(edited.messageLine)")
        try edited.press(.control("s"))
        #expect(edited.screen.contains("Deleted elsewhere: cards › 1"), "\(edited.screen)")
        #expect(edited.messageLine.contains("the record was deleted elsewhere"), "\(edited.messageLine)")
        #expect(!edited.messageLine.contains("changed elsewhere"), "\(edited.messageLine)")
    }

    @Test func aFormOpenedByFollowingAReferenceNamesItsTableAndRecord() throws {
        let harness = try ForeignKeyTests.books()
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("books") && harness.statusLine.contains("row 1 of 4"), "\(harness.statusLine)")
        try harness.press(KeyEvent(.tab), .control("g"))
        #expect(harness.lines[0].contains("authors › 1"))
        #expect(harness.statusLine.contains("authors") && harness.statusLine.contains("record 1"), "\(harness.statusLine)")
        #expect(!harness.statusLine.contains("books"), "the list below is another table's: \(harness.statusLine)")
    }

    @Test func aNarrowStatusBarKeepsThePositionAndTheSaveState() throws {
        let harness = try AppHarness(size: Size(width: 40, height: 12), options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(.char("/"))
        try harness.type("a")
        try harness.press(KeyEvent(.enter), .char("l"), .char("]"))
        _ = try harness.waitFor { _ in !harness.app.isAwaitingAWindow }
        let position = try #require(harness.app.list?.positionText)
        #expect(harness.statusLine.contains(position), "\(harness.statusLine)")
        #expect(harness.statusLine.contains("autosave 2 s"), "\(harness.statusLine)")
        // What does not fit went, the least needed first: the sort and the file name.
        #expect(!harness.statusLine.contains("sort:") && !harness.statusLine.contains("cards.sqlite"), "\(harness.statusLine)")
        // A form's save state, at once and as it counts down.
        try harness.press(KeyEvent(.enter))
        try harness.type("x")
        #expect(harness.statusLine.contains(position) && harness.statusLine.contains("autosave in 2.0s"), "\(harness.statusLine)")
    }

    /// Seeded: at every width and in every state, the position and a save state are on the
    /// status bar whenever the two fit side by side, and nothing is cut in the middle.
    @Test func theStatusBarKeepsItsFirstPiecesAtEveryWidth() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let rounds = Fuzz.scaled(40)
        for round in 0..<rounds {
            let width = Int.random(in: 8...140, using: &random)
            let harness = try AppHarness(size: Size(width: width, height: 10), options: CardfileApp.Options(autosave: Bool.random(using: &random) ? .seconds(2) : nil))
            if Bool.random(using: &random) {
                try harness.press(.char("/"))
                try harness.type(["a", "name = 'Ada'", "age >= 30 and notes is not empty"].randomElement(using: &random)!)
                try harness.press(KeyEvent(.enter))
            }
            if Bool.random(using: &random) { try harness.press(.char("]")) }
            _ = try harness.waitFor { _ in !harness.app.isAwaitingAWindow }
            if Bool.random(using: &random) {
                try harness.press(KeyEvent(.enter))
                if Bool.random(using: &random) { try harness.type("z") }
            }
            let bar = harness.app.statusBar(width: width)
            let line = harness.statusLine
            let position = harness.app.list?.positionText ?? ""
            let save = [harness.app.saveState(short: false), harness.app.saveState(short: true)]
            #expect(bar.right == save[0] || bar.right == save[1], "seed \(seed) round \(round)")
            if position.count + save[1].count + 1 <= width {
                #expect(line.contains(position), "seed \(seed) round \(round) width \(width): \(line)")
                #expect(line.contains(bar.right), "seed \(seed) round \(round) width \(width): \(line)")
            }
            // Each piece shown is shown whole: the bar's words fit without the widget cutting them.
            let gaps = [bar.left, bar.center].filter { !$0.isEmpty }.count
            if position.count + save[1].count + 1 <= width {
                #expect(bar.left.count + bar.center.count + bar.right.count + gaps <= width, "seed \(seed) round \(round) width \(width): \(bar)")
            }
        }
    }

    @Test func messagesShowsWhatTheLineSaidInFullNewestFirst() throws {
        let harness = try AppHarness(size: Size(width: 60, height: 20))
        try harness.press(KeyEvent(.enter))
        try harness.press(.control("n"))                                // name NULL: NOT NULL
        try harness.press(.control("s"))
        let refused = harness.messageLine
        #expect(refused.hasPrefix("Not saved"), "\(refused)")
        try harness.type("Ada L.")
        try harness.press(.control("s"))
        try harness.press(.control("s"))
        try harness.press(.control("s"))
        try harness.press(KeyEvent(.function(2)))
        try harness.type("messages")
        try harness.press(KeyEvent(.enter))
        let panel = harness.screen
        #expect(panel.contains("Messages, newest first"), "\(panel)")
        let lines = harness.lines.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " │┃")) }
        let nothing = try #require(lines.firstIndex { $0.contains("Nothing to save. (×2)") }, "a repeat is counted:\n\(panel)")
        let saved = try #require(lines.firstIndex { $0.contains("Saved.") })
        let notSaved = try #require(lines.firstIndex { $0.contains("Not saved") })
        #expect(nothing < saved && saved < notSaved, "newest first:\n\(panel)")
        // In full: the sentence the one-line message cut is whole here (wrapped).
        #expect(panel.replacingOccurrences(of: "\n", with: " ").contains("needs a value"), "\(panel)")
        #expect(lines[nothing].range(of: #"^\d\d:\d\d:\d\d"#, options: .regularExpression) != nil, "each with its time: \(lines[nothing])")
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Messages, newest first"))
    }
}
