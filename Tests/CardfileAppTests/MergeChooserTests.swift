@testable import CardfileApp
@testable import CardfileStore
import CardfileTerminal
import Testing

/// `cardfile merge`'s conflict dialog: each key's choice becomes the writes into OURS that the
/// README and the dialog promise.
@Suite("Merge chooser")
struct MergeChooserTests {
    static let columns = ["name", "city", "notes"]

    static func contest(original: [Value]?, mine: [Value]?, theirs: [Value]?, contested: [Int] = []) -> DatabaseMerge.Contest {
        DatabaseMerge.Contest(table: "cards", columns: columns, keyColumns: ["id"], key: [.integer(1)],
                              original: original, mine: mine, theirs: theirs, contested: contested)
    }

    static let bothChanged = contest(original: ["Ada", "London", "n"], mine: ["Ada", "Paris", "n"], theirs: ["Ada", "Rome", "theirs"], contested: [1])

    static func choose(_ contest: DatabaseMerge.Contest, _ keys: [KeyEvent]) -> (MergeChooser.Step, [DatabaseMerge.Write]) {
        var chooser = MergeChooser(contests: [contest])!
        var step = MergeChooser.Step.choosing
        for key in keys { step = chooser.handle(key) }
        return (step, chooser.writes)
    }

    static func update(_ columns: [String], _ values: [Value]) -> DatabaseMerge.Write {
        .update(table: "cards", key: ["id"], keyValues: [.integer(1)], columns: columns, values: values)
    }

    @Test func eachKeyOfTheDialogWritesWhatItSays() {
        // K: mine whole (OURS already holds it).
        #expect(Self.choose(Self.bothChanged, [.char("K")]) == (.done, []))
        // t: theirs whole.
        #expect(Self.choose(Self.bothChanged, [.char("t")]) == (.done, [Self.update(["city", "notes"], ["Rome", "theirs"])]))
        // m: my changed fields, theirs for the rest.
        #expect(Self.choose(Self.bothChanged, [.char("m")]) == (.done, [Self.update(["notes"], ["theirs"])]))
        // Enter: the contested field as chosen (mine by default), the rest merged.
        #expect(Self.choose(Self.bothChanged, [KeyEvent(.enter)]) == (.done, [Self.update(["notes"], ["theirs"])]))
        // → to Theirs, then Enter.
        #expect(Self.choose(Self.bothChanged, [KeyEvent(.right), KeyEvent(.enter)]) == (.done, [Self.update(["city", "notes"], ["Rome", "theirs"])]))
        // ← to Original, then Enter.
        #expect(Self.choose(Self.bothChanged, [KeyEvent(.left), KeyEvent(.enter)]) == (.done, [Self.update(["city", "notes"], ["London", "theirs"])]))
        // Esc: nothing.
        #expect(Self.choose(Self.bothChanged, [KeyEvent(.escape)]) == (.stopped, []))
    }

    @Test func aRecordDeletedOnOneSideIsKeptOrLetGo() {
        let deletedInTheirs = Self.contest(original: ["Ada", "London", "n"], mine: ["Ada", "Paris", "n"], theirs: nil)
        #expect(Self.choose(deletedInTheirs, [.char("r")]) == (.done, []), "r keeps ours")
        #expect(Self.choose(deletedInTheirs, [.char("t")]) == (.done, [.delete(table: "cards", key: ["id"], keyValues: [.integer(1)])]))
        #expect(Self.choose(deletedInTheirs, [KeyEvent(.enter)]).0 == .choosing, "Enter has nothing to write field by field")
        let deletedInOurs = Self.contest(original: ["Ada", "London", "n"], mine: nil, theirs: ["Ada", "Rome", "n"])
        // (The key is not among these columns, as in a table keyed by its rowid: it is written too.)
        let back = DatabaseMerge.Write.insert(table: "cards", columns: ["id"] + Self.columns, values: [1, "Ada", "Rome", "n"])
        #expect(Self.choose(deletedInOurs, [KeyEvent(.enter)]) == (.done, [back]))
        #expect(Self.choose(deletedInOurs, [.char("t")]) == (.done, [back]))
        #expect(Self.choose(deletedInOurs, [.char("K")]) == (.done, []), "K keeps the deletion")
    }

    @Test func aRecordWhoseKeyHoldsNullIsNeverWritten() {
        let nullKey = DatabaseMerge.Contest(table: "cards", columns: Self.columns, keyColumns: ["code"], key: [.null],
                                            original: ["Ada", "London", "n"], mine: ["Ada", "Paris", "n"], theirs: nil, contested: [])
        // (`code IS NULL` would name every such record.)
        #expect(DatabaseMerge.resolution(of: nullKey, as: nil) == [])
        #expect(DatabaseMerge.resolution(of: nullKey, as: ["Ada", "Rome", "n"]) == [])
    }

    @Test func recordsAreChosenOneAfterAnotherAndTheScreenNamesThem() {
        let second = DatabaseMerge.Contest(table: "cards", columns: Self.columns, keyColumns: ["id"], key: [.integer(2)],
                                           original: nil, mine: ["Bo", "Oslo", "m"], theirs: ["Bo", "Bergen", "t"], contested: [])
        var chooser = MergeChooser(contests: [Self.bothChanged, second])!
        var screen = chooser.render(size: Size(width: 100, height: 24)).lines.joined(separator: "\n")
        #expect(screen.contains("Changed on both sides (1 of 2): cards 1") && screen.contains("London") && screen.contains("Rome"), "\(screen)")
        #expect(chooser.handle(.char("K")) == .choosing)
        screen = chooser.render(size: Size(width: 100, height: 24)).lines.joined(separator: "\n")
        #expect(screen.contains("(2 of 2): cards 2") && screen.contains("Both sides added this record"), "\(screen)")
        #expect(chooser.handle(.char("t")) == .done)
        #expect(chooser.writes == [.update(table: "cards", key: ["id"], keyValues: [.integer(2)], columns: ["city", "notes"], values: ["Bergen", "t"])])
        // Tiny terminals still draw (nothing to check but that it does not trap).
        _ = chooser.render(size: Size(width: 20, height: 5))
    }
}
