import CardfileApp
import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import GRDB
import Testing

/// The editor as a person meets it: keys in, the screen and the file read back.
@Suite("Editor", .timeLimit(.minutes(Fuzz.scaled(10))))
struct EditorTests {
    @Test func browseSortAndFilter() throws {
        let harness = try AppHarness()
        #expect(harness.screen.contains("Ada"))
        #expect(harness.statusLine.contains("row 1 of 4"))
        #expect(harness.lines[3].contains("Linus"))
        #expect(harness.lines[3].contains("line one␊line two"), "a line break is shown as ␊: \(harness.lines[3])")
        #expect(harness.lines[4].contains("∅"), "NULL is drawn distinctly")
        try harness.press(.char("j"))
        #expect(harness.statusLine.contains("row 2 of 4"))

        // Sort by name, descending (no index serves it: sorted in the background, the old
        // rows shown meanwhile); the selection (Grace) stays selected.
        try harness.press(.char("l"), .char("]"))
        #expect(try harness.waitFor { _ in harness.lines[1].contains("Margaret") && !harness.statusLine.contains("sorting") })
        #expect(harness.statusLine.contains("sort: name ↓"))
        #expect(harness.statusLine.contains("row 3 of 4"))

        // An incremental filter: Enter keeps it, Esc clears it.
        try harness.press(.char("/"))
        try harness.type("age >= 30")
        #expect(try harness.waitFor { _ in harness.statusLine.contains("of 2") && !harness.statusLine.contains("sorting") })
        try harness.press(KeyEvent(.enter))
        #expect(harness.statusLine.contains("filter: age >= 30"), "\(harness.statusLine)")
        try harness.press(.char("/"), KeyEvent(.escape))
        #expect(try harness.waitFor { _ in harness.statusLine.contains("of 4") && !harness.statusLine.contains("sorting") })
        #expect(!harness.statusLine.contains("filter"))

        // A filter it cannot read says so, and Enter neither closes the prompt nor applies it.
        try harness.press(.char("/"))
        try harness.type("nosuchcolumn = 1")
        let before = harness.lines.prefix(3)
        try harness.press(KeyEvent(.enter))
        #expect(harness.screen.contains("Not applied at character 1: no column is named “nosuchcolumn”"), "\(harness.screen)")
        #expect(harness.messageLine.hasPrefix("Filter: nosuchcolumn = 1"))
        #expect(harness.lines.prefix(3) == before, "the list is unchanged")
        try harness.press(KeyEvent(.escape))
        #expect(try harness.waitFor { _ in harness.statusLine.contains("of 4") && !harness.statusLine.contains("sorting") })
    }

    @Test func editSaveAndFindItOnDisk() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        #expect(harness.lines[0].contains("cards › 1"))
        try harness.type(" L.")
        #expect(harness.statusLine.contains("modified"))
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada L.")
        #expect(harness.messageLine.contains("Saved"))
        #expect(harness.statusLine.contains("saved "))
        try harness.press(KeyEvent(.escape))
        #expect(harness.lines[1].contains("Ada L."))
    }

    @Test func leavingWithChangesAsksSaveDiscardOrCancel() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("X")
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("Unsaved changes"))
        #expect(harness.screen.contains("name"), "the question names what would be lost")
        // Cancel: still in the form, the edit kept.
        try harness.press(.char("c"))
        #expect(harness.lines[0].contains("cards › 1"))
        #expect(harness.screen.contains("AdaX"))
        // Discard: back to the list; nothing written, nothing pending.
        try harness.press(KeyEvent(.escape), .char("d"))
        #expect(!harness.screen.contains("Unsaved changes"))
        #expect(harness.lines[0].contains("name"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
        #expect(!harness.container.viewContext.hasChanges)
        // Save: written.
        try harness.press(KeyEvent(.enter))
        try harness.type("Y")
        try harness.press(KeyEvent(.escape), .char("s"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AdaY")
        #expect(harness.lines[0].contains("name"))
    }

    @Test func typingAndDeletingAgainIsNoChange() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("zz")
        try harness.press(KeyEvent(.backspace), KeyEvent(.backspace))
        #expect(harness.statusLine.contains("no changes"))
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Unsaved changes"))
        #expect(harness.lines[0].contains("name"))
    }

    @Test func autosaveWaitsItsDelayRestartsOnEachEditAndPausesOnErrors() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(KeyEvent(.enter))
        try harness.type("x")
        #expect(harness.statusLine.contains("autosave in 2.0s"))
        try harness.advance(.milliseconds(1500))
        #expect(harness.statusLine.contains("autosave in 0.5s"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
        try harness.type("y")                                   // restarts the delay
        try harness.advance(.milliseconds(1500))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
        try harness.advance(.milliseconds(600))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Adaxy")
        #expect(harness.statusLine.contains("saved "))

        // A validation error pauses it, says why, and writes nothing.
        try harness.press(.control("n"))                        // name is NOT NULL
        try harness.advance(.milliseconds(2100))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Adaxy")
        #expect(harness.statusLine.contains("not saved"))
        #expect(harness.screen.contains("needs a value"))
        // Leaving with autosave on saves at once, and asks only when that fails.
        try harness.press(KeyEvent(.escape))
        #expect(harness.screen.contains("Unsaved changes"))
        try harness.press(.char("d"))
        try harness.press(KeyEvent(.enter))
        try harness.type("!")
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Unsaved changes"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Adaxy!")
    }

    @Test func validationMessagesAppearAtTheirFields() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter), KeyEvent(.tab), KeyEvent(.tab))    // age
        try harness.press(KeyEvent(.backspace), KeyEvent(.backspace))
        try harness.type("abc")
        try harness.press(.control("s"))
        let lines = harness.lines
        let ageLine = try #require(lines.firstIndex { $0.hasPrefix("age") })
        #expect(lines[ageLine + 1].contains("must be a whole number"))
        #expect(try harness.disk("SELECT age FROM cards WHERE id = 1") == 36.databaseValue)
        // The UNIQUE rule too.
        try harness.press(KeyEvent(.backTab))
        try harness.press(KeyEvent(.backspace), KeyEvent(.backspace), KeyEvent(.backspace))
        try harness.type("222")
        try harness.press(KeyEvent(.tab), .control("a"), .control("k"))
        try harness.type("40")
        try harness.press(.control("s"))
        #expect(harness.screen.contains("Another record already has this"))
        #expect(try harness.diskText("SELECT phone FROM cards WHERE id = 1") == "111")
    }

    @Test func addAndDeleteRecords() throws {
        let harness = try AppHarness()
        try harness.press(.char("a"))
        #expect(harness.lines[0].contains("new record"))
        // Leaving an untouched new form asks nothing.
        try harness.press(KeyEvent(.escape))
        #expect(!harness.screen.contains("Unsaved changes"))
        try harness.press(.char("a"))
        try harness.type("Zed")
        try harness.press(.control("s"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 5.databaseValue)
        #expect(harness.lines[0].contains("cards › 5"))
        try harness.press(KeyEvent(.escape))
        #expect(try harness.waitFor { _ in harness.statusLine.contains("row 5 of 5") })

        try harness.press(.char("d"))
        #expect(harness.screen.contains("Delete cards 5?"))
        try harness.press(.char("n"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 5.databaseValue)
        try harness.press(.char("d"), .char("y"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 4.databaseValue)
        #expect(try harness.waitFor { $0.contains("of 4") })
    }

    @Test func readOnlyShowsEverythingAndRefusesEdits() throws {
        let harness = try AppHarness(readOnly: true)
        #expect(harness.statusLine.contains("read-only"))
        try harness.press(KeyEvent(.enter))
        try harness.type("x")
        #expect(harness.messageLine.contains("Read-only"))
        #expect(harness.screen.contains("Ada") && !harness.screen.contains("Adax"))
        try harness.press(KeyEvent(.escape), .char("d"))
        #expect(harness.messageLine.contains("Read-only"))
        #expect(try harness.disk("SELECT count(*) FROM cards") == 4.databaseValue)
    }

    /// Read-only: the hints do not offer adding or deleting, and `a` is refused at once with
    /// the reason (no form of a record that could never be saved).
    @Test func readOnlyOffersNoAddAndRefusesItAtOnce() throws {
        let harness = try AppHarness(readOnly: true)
        try harness.settle()
        #expect(harness.messageLine.hasPrefix("Enter open · / filter · [ ] sort"), "\(harness.messageLine)")
        try harness.press(.char("a"))
        #expect(!harness.lines[0].contains("cards › ") && harness.lines[0].contains("name"), "still the list: \(harness.lines[0])")
        #expect(harness.messageLine.hasPrefix("Read-only: opened with --read-only. No record can be added."), "\(harness.messageLine)")
        try harness.press(KeyEvent(.enter))
        try harness.advance(.seconds(6))                                  // the notice goes
        #expect(harness.messageLine.hasPrefix("Esc back · F1 help"), "a read-only form offers no save: \(harness.messageLine)")
        // A writable list offers both.
        let writable = try AppHarness()
        #expect(writable.messageLine.hasPrefix("Enter open · a add · d delete · / filter"))
    }

    @Test func quittingWithPendingChangesAsks() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("Q")
        try harness.press(.control("q"))
        #expect(harness.screen.contains("Unsaved changes"))
        try harness.press(.char("c"))
        #expect(harness.app.isRunning)
        try harness.press(.control("q"), .char("d"))
        #expect(!harness.app.isRunning)
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
    }

    @Test func commandLine() throws {
        let harness = try AppHarness()
        try harness.command("w")
        #expect(harness.messageLine.contains("Nothing to save here"))
        try harness.command("bogus")
        #expect(harness.messageLine.contains("Unknown command :bogus"))
        try harness.command("autosave 1.5")
        #expect(harness.messageLine.contains("Autosave 1.5 s"))
        try harness.command("autosave soon")
        #expect(harness.messageLine.contains("seconds"))
        try harness.command("theme light")
        #expect(harness.messageLine.contains("Theme: light"))
        // Completion and history.
        try harness.press(.char(":"))
        try harness.type("aut")
        try harness.press(KeyEvent(.tab))
        #expect(harness.messageLine.contains("autosave "))
        try harness.press(KeyEvent(.escape))
        try harness.press(.char(":"), KeyEvent(.up))
        #expect(harness.messageLine.contains("theme light"))
        try harness.press(KeyEvent(.escape))
        // :help opens the help at the commands; the keys are above them.
        try harness.command("help")
        #expect(harness.screen.contains("Commands (type : first") && harness.screen.contains(":columns"), "\(harness.screen)")
        for _ in 0..<20 { try harness.press(KeyEvent(.pageUp)) }
        #expect(harness.screen.contains("Sort by this column"), "\(harness.screen)")
        try harness.press(KeyEvent(.escape))

        // In a form: :w saves, :wq saves and quits.
        try harness.press(KeyEvent(.enter))
        try harness.type("W")
        try harness.press(KeyEvent(.function(2)))
        try harness.type("w")
        try harness.press(KeyEvent(.enter))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AdaW")
        try harness.type("Q")
        try harness.press(KeyEvent(.function(2)))
        try harness.type("wq")
        try harness.press(KeyEvent(.enter))
        #expect(!harness.app.isRunning)
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AdaWQ")
    }

    @Test func aSignalOrAVanishedTerminalEndsTheProgramAfterSavingWhatItCan() throws {
        // Found by hand: a killed tmux left the editor asking a question nobody could answer,
        // reading end-of-file in a loop.
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("T")
        harness.backend.enqueue([.terminate])
        try harness.settle()
        #expect(!harness.app.isRunning)
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AdaT")

        let invalid = try AppHarness()
        try invalid.press(KeyEvent(.enter), .control("n"))        // name is NOT NULL: cannot be saved
        invalid.backend.enqueue([.terminate])
        try invalid.settle()
        #expect(!invalid.app.isRunning)
        #expect(try invalid.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
    }

    @Test func quitDiscardingAsksNothing() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("Z")
        try harness.press(KeyEvent(.function(2)))
        try harness.type("q!")
        try harness.press(KeyEvent(.enter))
        #expect(!harness.app.isRunning)
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
    }

    @Test func aConflictWritesNothingKeepsTheEditsAndSaysWhich() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(KeyEvent(.enter))
        try harness.type(" mine")
        let other = try DatabaseQueue(path: harness.path)
        try other.write { try $0.execute(sql: "UPDATE cards SET name = 'Theirs', notes = 'theirs too' WHERE id = 1") }
        try other.close()
        try harness.press(.control("s"))
        #expect(harness.messageLine.contains("name changed elsewhere"))
        #expect(harness.statusLine.contains("conflict"))
        #expect(harness.screen.contains("Ada mine"))
        #expect(try harness.diskText("SELECT name || '/' || notes FROM cards WHERE id = 1") == "Theirs/theirs too")
        // Autosave stays paused.
        try harness.advance(.seconds(3))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Theirs")
    }

    @Test func aSaveLeavesTheCursorWhereItWas() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(KeyEvent(.enter))                         // Ada, the cursor at its end
        try harness.press(KeyEvent(.left), KeyEvent(.left))
        try harness.type("XY")
        try harness.advance(.seconds(3))                             // autosave
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AXYda")
        try harness.type("Z")
        try harness.press(.control("s"))                             // and Ctrl-S
        try harness.type("!")
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AXYZ!da")
    }

    /// Seeded: random moves, letters, deletions, Ctrl-S and autosaves in one field, against a
    /// model of its text and cursor: a save never moves the cursor, and the disk ends as typed.
    @Test func typingAroundSavesFollowsTheModel() throws {
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(KeyEvent(.enter))
        var text = Array("Ada")
        var cursor = text.count
        for _ in 0..<Fuzz.scaled(120) {
            switch random.next(below: 8) {
            case 0: try harness.press(KeyEvent(.left)); cursor = max(0, cursor - 1)
            case 1: try harness.press(KeyEvent(.right)); cursor = min(text.count, cursor + 1)
            case 2: try harness.press(KeyEvent(.home)); cursor = 0
            case 3 where cursor > 0:
                try harness.press(KeyEvent(.backspace))
                text.remove(at: cursor - 1)
                cursor -= 1
            case 4: try harness.press(.control("s"))
            case 5: try harness.advance(.seconds(3))
            default:
                let letter = Character(UnicodeScalar(UInt8(97 + random.next(below: 26))))
                try harness.press(KeyEvent(.character(letter)))
                text.insert(letter, at: cursor)
                cursor += 1
            }
        }
        try harness.press(.control("s"))
        let stored = try harness.diskText("SELECT name FROM cards WHERE id = 1")
        #expect(stored == String(text), "seed \(seed)")
    }

    @Test func aSaveLeavesAMultiLineFieldsCursorOnItsLine() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(.char("j"), .char("j"), KeyEvent(.enter))  // Linus: notes has two lines
        for _ in 0..<3 { try harness.press(KeyEvent(.tab)) }         // name → phone → age → notes
        try harness.press(KeyEvent(.up))                              // from the end of line two to line one
        try harness.type("A")
        try harness.advance(.seconds(3))
        #expect(try harness.diskText("SELECT notes FROM cards WHERE id = 3") == "line oneA\nline two")
        try harness.type("B")
        try harness.advance(.seconds(3))
        #expect(try harness.diskText("SELECT notes FROM cards WHERE id = 3") == "line oneAB\nline two")
    }

    @Test func wordKeysMoveByWordInAFormField() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))                         // the focus starts on name
        try harness.type(" Lovelace")
        try harness.press(KeyEvent(.left, modifiers: .control))
        try harness.type("K. ")
        #expect(harness.lines.contains { $0.hasPrefix("name") && $0.contains("Ada K. Lovelace") }, "\(harness.screen)")
        try harness.press(.alt("b"))
        try harness.press(.alt("b"))
        try harness.type("<")
        try harness.press(.alt("f"))
        try harness.press(KeyEvent(.right, modifiers: .control))
        try harness.type(">")
        #expect(harness.lines.contains { $0.hasPrefix("name") && $0.contains("<Ada K>. Lovelace") }, "\(harness.screen)")
    }

    @Test func aSavedValueShowsAsStored() throws {
        let harness = try AppHarness(schema: "CREATE TABLE m (id INTEGER PRIMARY KEY, price REAL); INSERT INTO m VALUES (1, 2.5);")
        try harness.press(KeyEvent(.enter))                         // the focus starts on price
        for _ in 0..<3 { try harness.press(KeyEvent(.backspace)) }
        try harness.type("10")
        try harness.press(.control("s"))
        #expect(try harness.disk("SELECT typeof(price) || ':' || price FROM m") == "real:10.0".databaseValue)
        #expect(harness.lines.contains { $0.hasPrefix("price") && $0.contains("10.0") }, "\(harness.screen)")
    }

    @Test func aBusyDatabaseFreezesNothingAndTheSaveIsRetriedUntilWritten() throws {
        let harness = try AppHarness()
        // Every save from the loop waits at most 50 ms for another program's lock…
        #expect(harness.container.viewContext.saveBusyTimeout == .milliseconds(50))
        try harness.press(KeyEvent(.enter))
        try harness.type("B")
        let lock = try LockHolder(path: harness.path)
        // …and that is the wait a save meets: it comes back long before the store's own 5 s
        // (the bound is loose on purpose: a loaded machine is slow, not 100 times slower).
        let began = ContinuousClock.now
        try harness.press(.control("s"))
        #expect(ContinuousClock.now - began < .seconds(2), "the save waited \(ContinuousClock.now - began)")
        #expect(harness.messageLine.contains("busy"))
        #expect(harness.statusLine.contains("database busy"))
        // Keys are handled, in order, while the lock is held; retries keep failing quietly.
        try harness.type("CD")
        try harness.advance(.milliseconds(600))
        try harness.type("E")
        try harness.advance(.milliseconds(600))
        #expect(harness.screen.contains("AdaBCDE"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "Ada")
        // Quitting meanwhile asks rather than losing the edits.
        try harness.press(.control("q"))
        #expect(harness.screen.contains("Unsaved changes"))
        try harness.press(.char("c"))
        lock.release()
        // The retry writes it without another key.
        try harness.advance(.milliseconds(600))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AdaBCDE")
        #expect(harness.statusLine.contains("saved "))
        // The busy notice goes with the save that ends it (it lingered for seconds beside "saved").
        #expect(!harness.messageLine.contains("busy"), "\(harness.messageLine)")
    }

    @Test func leavingSavesAndTheBusyNoticeGoesWithThatSave() throws {
        let harness = try AppHarness(options: CardfileApp.Options(autosave: .seconds(2)))
        try harness.press(KeyEvent(.enter))
        try harness.type("B")
        let lock = try LockHolder(path: harness.path)
        try harness.press(.control("s"))
        #expect(harness.messageLine.contains("busy"))
        lock.release()
        // Esc saves on the way out (autosave is on); the busy notice must not outlive that save.
        try harness.press(KeyEvent(.escape))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AdaB")
        #expect(harness.statusLine.contains("cards"), "back at the list")
        #expect(!harness.messageLine.contains("busy"), "\(harness.messageLine)")
    }

    @Test func tablesScreenCountsInTheBackgroundAndOpensATable() throws {
        let harness = try AppHarness(demoRows: 50)
        #expect(harness.lines[0].contains("Tables"))
        #expect(try harness.waitFor { $0.contains("50 records") })
        try harness.press(.char("j"), KeyEvent(.enter))
        #expect(harness.statusLine.contains("books"))
        try harness.press(.char("q"))
        #expect(harness.lines[0].contains("Tables"))
        try harness.press(.char("q"))
        #expect(!harness.app.isRunning, "\(harness.screen)")
    }

    @Test func nextAndPreviousRecordFromTheForm() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter), KeyEvent(.pageDown))
        #expect(harness.lines[0].contains("cards › 2"))
        try harness.type("!")
        try harness.press(KeyEvent(.pageDown))
        #expect(harness.screen.contains("Unsaved changes"))
        try harness.press(.char("s"))
        #expect(harness.lines[0].contains("cards › 3"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 2") == "Grace!")
        try harness.press(KeyEvent(.pageUp))
        #expect(harness.lines[0].contains("cards › 2"))
    }

    @Test func tinyAndResizedScreensKeepTheForm() throws {
        let harness = try AppHarness()
        try harness.press(KeyEvent(.enter))
        try harness.type("R")
        for size in [Size(width: 10, height: 4), Size(width: 1, height: 1), Size(width: 0, height: 0), Size(width: 3, height: 2)] {
            try harness.resize(size)
        }
        try harness.resize(Size(width: 80, height: 24))
        #expect(harness.screen.contains("AdaR"))
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT name FROM cards WHERE id = 1") == "AdaR")
    }
}

/// Another connection holding the write lock (an open write transaction) until released.
/// `exclusive` takes SQLite's exclusive lock, which in a rollback journal keeps readers out
/// too (as a commit being written does), and sets `age` to `exclusiveAge`.
final class LockHolder: @unchecked Sendable {
    private let release_ = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    static let exclusiveAge = 99

    init(path: String, exclusive: Bool = false) throws {
        // Waits for the app's own reads to end (a rollback journal's BEGIN EXCLUSIVE fails at
        // once while any reader holds the file: the list's background count at open did, on a
        // loaded machine, and the lock was "not taken within 10 s").
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        let locked = DispatchSemaphore(value: 0)
        let release = release_
        let done = self.done
        DispatchQueue.global().async {
            try? queue.inTransaction(exclusive ? .exclusive : .deferred) { db in
                try db.execute(sql: exclusive ? "UPDATE cards SET age = \(Self.exclusiveAge) WHERE id = 2" : "UPDATE cards SET age = age WHERE id = 2")
                locked.signal()
                release.wait()
                return .commit
            }
            try? queue.close()
            done.signal()
        }
        // A lock that cannot be taken (another holds it) fails the test rather than hanging it.
        guard locked.wait(timeout: .now() + 10) == .success else {
            throw LockNotTaken()
        }
    }

    struct LockNotTaken: Error, CustomStringConvertible {
        var description: String { "the lock was not taken within 10 s" }
    }

    func release() {
        release_.signal()
        done.wait()
    }
}
