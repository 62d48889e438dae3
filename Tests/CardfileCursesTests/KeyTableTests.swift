import Foundation
import Testing

/// The README's key table is the demo's key map, printed by the demo itself.
@Test func readmeKeyTableComesFromTheKeyMap() throws {
    let demo = try TmuxSession.demoPath()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: demo)
    process.arguments = ["--keys"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let table = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(table.hasPrefix("| Keys | Action |"))
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    #expect(text.contains(table.trimmingCharacters(in: .whitespacesAndNewlines)), "README.md must contain the output of `cardfile-termdemo --keys`")
}

/// The README's editor key tables are the editor's key maps, printed by `cardfile keys`.
@Test func readmeEditorKeyTablesComeFromTheKeyMaps() throws {
    let cardfile = try TmuxSession.programPath("cardfile")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: cardfile)
    process.arguments = ["keys"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let tables = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(tables.contains("| Keys | Action |"))
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    #expect(text.contains(tables.trimmingCharacters(in: .whitespacesAndNewlines)), "README.md must contain the output of `cardfile keys`")
}
