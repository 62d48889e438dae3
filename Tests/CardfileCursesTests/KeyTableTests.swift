import Foundation
import Testing

/// The README's key table is the demo's key map, printed by the demo itself.
@Test func readmeKeyTableComesFromTheKeyMap() throws {
    let table = try printed(by: "cardfile-termdemo", ["--keys"])
    #expect(table.hasPrefix("| Keys | Action |"))
    #expect(try readme().contains(table), "README.md must contain the output of `cardfile-termdemo --keys`")
}

/// The README's editor key tables are the editor's key maps, printed by `cardfile keys`.
@Test func readmeEditorKeyTablesComeFromTheKeyMaps() throws {
    let tables = try printed(by: "cardfile", ["keys"])
    #expect(tables.contains("| Keys | Action |"))
    #expect(try readme().contains(tables), "README.md must contain the output of `cardfile keys`")
}

/// A newcomer finds `cardfile keys` in `--help`, and it lists the commands too.
@Test func helpNamesTheKeysCommand() throws {
    let help = try printed(by: "cardfile", ["--help"])
    #expect(help.contains("`cardfile keys` lists every key and : command"), "\(help)")
    #expect(help.contains("  keys "), "the subcommand is shown: \(help)")
    let keys = try printed(by: "cardfile", ["keys"])
    #expect(keys.contains("### Commands (type `:` first)") && keys.contains("| :messages, :mes |"), "\(keys)")
}

/// What a product prints, trimmed.
private func printed(by program: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try TmuxSession.programPath(program))
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
}

private func readme() throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")
    return try String(contentsOf: url, encoding: .utf8)
}
