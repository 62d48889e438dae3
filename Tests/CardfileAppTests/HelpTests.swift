import CardfileStore
import CardfileTerminal
import CardfileTestSupport
import Foundation
import Testing
@testable import CardfileApp

/// The help lists every key of the screen (and of the overlay) it is opened on, from the maps
/// that handle them, and every `:` command from the table the command line reads.
@Suite("Help", .timeLimit(.minutes(Fuzz.scaled(10))))
struct HelpTests {
    /// The help's entries for what is on screen now.
    static func entries(_ harness: AppHarness) -> [(keys: String, help: String)] {
        let covered: Overlay? = if case .help(let help)? = harness.app.overlay { help.over } else { harness.app.overlay }
        return harness.app.helpOverlay(HelpPanel(over: covered)).entries.map { ($0.keys, $0.help) }
    }

    /// Every binding of the map that handles keys now is in the help, with its keys.
    static func expectEveryKeyListed(_ harness: AppHarness, _ map: KeyMap<AppAction>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let listed = entries(harness)
        for entry in map.helpEntries {
            #expect(listed.contains { $0.keys == entry.keys && $0.help == entry.help }, "\(what): “\(entry.keys)  \(entry.help)” is not in the help", sourceLocation: sourceLocation)
        }
    }

    /// Property: on every screen and over every overlay a person can open there, the help holds
    /// every binding of the key map that handles the keys (the screen's, or the overlay's).
    @Test func everyKeyOfEveryScreenAndOverlayIsInItsHelp() throws {
        // The tables screen, then a list, a form, a picker; over each, what it opens.
        let harness = try AppHarness(schema: ForeignKeyTests.schema, size: Size(width: 100, height: 30))
        Self.expectEveryKeyListed(harness, KeyMaps.tables, "tables")
        try harness.press(.char(":"))
        Self.expectEveryKeyListed(harness, KeyMaps.commandLine, "tables › command line")
        Self.expectEveryKeyListed(harness, KeyMaps.tables, "tables under the command line")
        try harness.press(KeyEvent(.escape), .char("/"))
        Self.expectEveryKeyListed(harness, KeyMaps.tablesFilter, "tables › filter")
        try harness.press(KeyEvent(.escape), KeyEvent(.down), KeyEvent(.enter))     // books
        #expect(harness.statusLine.contains("books"), "\(harness.statusLine)")
        Self.expectEveryKeyListed(harness, KeyMaps.list, "list")
        for (key, map, name) in [(KeyEvent.char("/"), KeyMaps.filter, "filter"), (.char("f"), KeyMaps.find, "find"), (.char(":"), KeyMaps.commandLine, "command line"), (.char("d"), KeyMaps.dialog, "question")] {
            try harness.press(key)
            #expect(harness.app.overlay != nil, "\(name) opened")
            Self.expectEveryKeyListed(harness, map, "list › \(name)")
            try harness.press(KeyEvent(.escape))
        }
        try harness.command("messages")
        guard case .panel? = harness.app.overlay else {
            Issue.record("no panel: \(harness.screen)")
            return
        }
        Self.expectEveryKeyListed(harness, KeyMaps.reading, "list › messages")
        try harness.press(KeyEvent(.escape), KeyEvent(.enter))
        Self.expectEveryKeyListed(harness, KeyMaps.form, "form")
        try harness.press(KeyEvent(.function(2)))
        Self.expectEveryKeyListed(harness, KeyMaps.commandLine, "form › command line")
        try harness.press(KeyEvent(.escape), KeyEvent(.tab), .control("p"))
        #expect(harness.app.picking != nil, "the picker opened: \(harness.screen)")
        Self.expectEveryKeyListed(harness, KeyMaps.list, "picker")
        try harness.press(KeyEvent(.escape))
        // A conflict in the form.
        try harness.press(KeyEvent(.backTab))
        try harness.type(" mine")
        try LiveRefreshTests.outside(harness, "UPDATE books SET title = 'Theirs' WHERE id = 1")
        try harness.advance(.milliseconds(150))
        try harness.press(.control("s"))
        guard case .conflict? = harness.app.overlay else {
            Issue.record("no conflict dialog: \(harness.screen)")
            return
        }
        Self.expectEveryKeyListed(harness, KeyMaps.conflict, "conflict")
        try harness.press(KeyEvent(.function(1)))
        Self.expectEveryKeyListed(harness, KeyMaps.conflict, "help over the conflict")
        Self.expectEveryKeyListed(harness, KeyMaps.reading, "help over the conflict")
    }

    /// Every command name, aliases too, is in the help, which `:help` opens at the commands.
    @Test func helpListsEveryCommandAndOpensAtThem() throws {
        let harness = try AppHarness(size: Size(width: 80, height: 24))
        try harness.command("help")
        #expect(harness.screen.contains("Commands (type : first"), "\(harness.screen)")
        // Read the whole help as a person would: from the top, a page at a time.
        for _ in 0..<30 { try harness.press(KeyEvent(.pageUp)) }
        var tokens = Set<Substring>()
        var previous = ""
        for _ in 0..<60 {
            for line in harness.lines { tokens.formUnion(line.split(whereSeparator: { " ,│┃".contains($0) })) }
            if harness.screen == previous { break }
            previous = harness.screen
            try harness.press(KeyEvent(.pageDown))
        }
        for command in CommandLineCommands.commands {
            for name in command.names {
                #expect(tokens.contains(Substring(":" + name)), ":\(name) is not in the help")
            }
        }
        #expect(tokens.contains("Sort") && tokens.contains("Commands"), "keys and commands both")
    }

    /// Property: the command line takes no name the table (and so the help) does not list.
    /// Every word of one to three letters is tried, and a seeded sample of longer ones.
    @Test func theCommandLineTakesOnlyTheCommandsTheHelpLists() {
        let names = Set(CommandLineCommands.commands.flatMap(\.names))
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var words = letters.map { String($0) }
        for first in letters { for second in letters { words.append(String([first, second])) } }
        for first in letters { for second in letters { for third in letters { words.append(String([first, second, third])) } } }
        let seed = Fuzz.seed()
        var random = SeededRandom(seed: seed)
        for _ in 0..<Fuzz.scaled(20_000) {
            words.append(String((0..<Int.random(in: 4...9, using: &random)).map { _ in letters.randomElement(using: &random)! }))
        }
        words += words.prefix(800).map { $0 + "!" }
        for word in words {
            let parsed = CommandLineCommands.parse(word)
            if case .problem(let message) = parsed, message.hasPrefix("Unknown command") { continue }
            #expect(names.contains(word), "seed \(seed): :\(word) is taken (\(parsed)) but not listed")
        }
    }

    @Test func theHelpOfEveryScreenFitsFortyColumnsWithNothingCut() throws {
        // The longest description of the list, whole once its lines are joined.
        let harness = try AppHarness(size: Size(width: 40, height: 12))
        try harness.press(KeyEvent(.function(1)))
        var text = ""
        var previous = ""
        // (To the end: the loop stops when a key no longer scrolls.)
        for _ in 0..<600 {
            text += harness.lines.dropLast(2).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " │")) }.joined(separator: " ") + " "
            if harness.screen == previous { break }
            previous = harness.screen
            try harness.press(KeyEvent(.down))
        }
        let squeezed = text.split(separator: " ").joined(separator: " ")
        let longest = try #require(KeyMaps.list.bindings.map(\.help).max { $0.count < $1.count })
        #expect(squeezed.contains(longest), "“\(longest)” is cut in:\n\(squeezed)")
    }
}
