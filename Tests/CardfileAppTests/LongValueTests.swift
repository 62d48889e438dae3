import CardfileStore
import CardfileTerminal
import Foundation
import GRDB
import Testing
@testable import CardfileApp

/// A long one-line value is read from its start, wrapped over a few rows; one too long for
/// them says its length; typing in it works at either end.
@Suite("Long values in a form", .timeLimit(.minutes(10)))
struct LongValueTests {
    static let title = "A long single line title that goes on and on well past the width of a narrow terminal, with more words at its end: THE END"

    static func harness(_ body: String, size: Size) throws -> AppHarness {
        let harness = try AppHarness(schema: "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, n INTEGER);", size: size,
                                     options: CardfileApp.Options(table: "notes", autosave: nil))
        try LiveRefreshTests.outside(harness, "INSERT INTO notes (title, n) VALUES ('\(body)', 5)")
        try harness.advance(.milliseconds(150))
        try harness.press(KeyEvent(.enter))
        return harness
    }

    /// The value's rows as drawn: from the title line's column on, up to the next field.
    static func valueRows(_ harness: AppHarness) -> [String] {
        let lines = harness.lines
        guard let start = lines.firstIndex(where: { $0.hasPrefix("title") }) else { return [] }
        var rows: [String] = []
        for line in lines[start...] {
            if line != lines[start], !line.hasPrefix(" ") { break }
            rows.append(String(line.dropFirst(8)))
        }
        return rows
    }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 40, height: 12), Size(width: 120, height: 30)])
    func aLongValueIsShownFromItsStartWrapped(size: Size) throws {
        let harness = try Self.harness(Self.title, size: size)
        let rows = Self.valueRows(harness)
        #expect(rows.first?.hasPrefix("A long single line title") == true, "\(harness.screen)")
        // All of it, over its rows (a row break may fall inside a word).
        #expect(rows.joined().replacingOccurrences(of: " ", with: "") == Self.title.replacingOccurrences(of: " ", with: ""), "\(harness.screen)")
        #expect(rows.count > 1 || size.width >= 120, "\(harness.screen)")
        // The field after it is drawn below its rows, not over them.
        #expect(harness.lines.contains { $0.hasPrefix("n ") && $0.contains("5") }, "\(harness.screen)")
        // Typing at the end goes on from there (End), and the end shows.
        try harness.press(KeyEvent(.end))
        try harness.type("!")
        #expect(Self.valueRows(harness).joined().trimmingCharacters(in: .whitespaces).hasSuffix("THE END!"), "\(harness.screen)")
    }

    @Test func aValueLongerThanItsRowsSaysItsLength() throws {
        let words = (0..<400).map { "word\($0)" }.joined(separator: " ")
        let harness = try Self.harness(words, size: Size(width: 80, height: 24))
        let rows = Self.valueRows(harness)
        #expect(rows.first?.hasPrefix("word0 word1 word2") == true, "from the start: \(harness.screen)")
        #expect(harness.screen.contains("⋯ \(ValueText.count(words.count)) characters"), "\(harness.screen)")
        #expect(rows.count == FieldModel.wrapRows + 1, "\(harness.screen)")
        // End shows the end; typing there is saved whole.
        try harness.press(KeyEvent(.end))
        try harness.type(" fin")
        #expect(Self.valueRows(harness).dropLast().joined().trimmingCharacters(in: .whitespaces).hasSuffix("word399 fin"), "\(harness.screen)")
        try harness.press(.control("s"))
        #expect(try harness.diskText("SELECT title FROM notes") == words + " fin")
    }

    @Test func aFieldWithoutTheFocusShowsItsStartEvenWhenItFillsItsRows() throws {
        // A key that fills its two rows exactly, its cursor at its end: without the focus it
        // is shown from its first character, not scrolled to make room for a cursor.
        let harness = try AppHarness(schema: "CREATE TABLE k (key TEXT PRIMARY KEY, v TEXT);", size: Size(width: 80, height: 24),
                                     options: CardfileApp.Options(table: "k", autosave: nil))
        let width = 80 - 4 - 2                                  // the label "key " and the gap
        let key = "0" + String(repeating: "x", count: 2 * width - 1)
        try LiveRefreshTests.outside(harness, "INSERT INTO k VALUES ('\(key)', 'v')")
        try harness.advance(.milliseconds(150))
        try harness.press(KeyEvent(.enter))
        #expect(harness.app.form?.valueWidth == width)
        let keyLine = try #require(harness.lines.first { $0.hasPrefix("key") })
        #expect(keyLine.dropFirst(6).hasPrefix("0xxx"), "\(harness.screen)")
        #expect(harness.lines[2].trimmingCharacters(in: .whitespaces).allSatisfy { $0 == "x" }, "its second row: \(harness.screen)")
        #expect(harness.lines[3].hasPrefix("v "), "no blank row after it: \(harness.screen)")
        // With the focus (every field read-only, as on a table of a key and a blob), it still
        // shows from its start.
        let blob = try AppHarness(schema: "CREATE TABLE k (key TEXT PRIMARY KEY, v BLOB);", size: Size(width: 80, height: 24),
                                  options: CardfileApp.Options(table: "k", autosave: nil))
        try LiveRefreshTests.outside(blob, "INSERT INTO k VALUES ('\(key)', x'0102')")
        try blob.advance(.milliseconds(150))
        try blob.press(KeyEvent(.enter))
        #expect(blob.app.form.map { $0.fields[$0.focus].name } == "key")
        #expect(try #require(blob.lines.first { $0.hasPrefix("key") }).dropFirst(6).hasPrefix("0xxx"), "\(blob.screen)")
    }

    @Test func aShortValueKeepsItsCursorAtTheEnd() throws {
        let harness = try Self.harness("short", size: Size(width: 80, height: 24))
        try harness.type("er")
        #expect(harness.lines.contains { $0.hasPrefix("title") && $0.contains("shorter") }, "\(harness.screen)")
    }
}
