import Foundation

/// The columns a person chose for a table's list: which are shown, in what order, and whether
/// the key is pinned at the left.
public struct ColumnChoice: Codable, Equatable, Sendable {
    public var shown: [String]
    public var pinned: Bool
    /// Widths chosen with `_`, `<` and `>`, by column name (absent in files written before).
    public var widths: [String: Int]?

    public init(shown: [String], pinned: Bool, widths: [String: Int]? = nil) {
        self.shown = shown
        self.pinned = pinned
        self.widths = widths?.isEmpty == true ? nil : widths
    }
}

/// Column choices remembered per database file and table, in one small JSON file in the
/// user's state folder (`$XDG_STATE_HOME/cardfile`, else `~/.local/state/cardfile`).
///
/// Remembering is a comfort: a file that cannot be read is treated as empty, and one that
/// cannot be written is reported by the caller and otherwise ignored.
public struct ColumnMemory: Sendable {
    /// The JSON file; nil remembers nothing.
    let file: String?

    public init(folder: String?) {
        file = folder.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + "columns.json" }
    }

    /// The state folder the XDG base directory rules name for this program.
    public static func defaultFolder(environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/cardfile" }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/state/cardfile"
    }

    /// Every choice made for the tables of the database at `database`, by table name.
    public func choices(database: String) -> [String: ColumnChoice] {
        let prefix = Self.key(database, "")
        var found: [String: ColumnChoice] = [:]
        for (key, choice) in stored() where key.hasPrefix(prefix) {
            found[String(key.dropFirst(prefix.count))] = choice
        }
        return found
    }

    /// Remembers `choice` (nil forgets it).
    /// - Throws: the file system's error when the file cannot be written.
    public func remember(_ choice: ColumnChoice?, database: String, table: String) throws {
        guard let file else { return }
        var all = stored()
        all[Self.key(database, table)] = choice
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(all).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    private func stored() -> [String: ColumnChoice] {
        guard let file, let data = FileManager.default.contents(atPath: file) else { return [:] }
        return (try? JSONDecoder().decode([String: ColumnChoice].self, from: data)) ?? [:]
    }

    /// One entry per file (by its absolute, resolved path) and table.
    private static func key(_ database: String, _ table: String) -> String {
        let absolute = URL(fileURLWithPath: database).standardizedFileURL.resolvingSymlinksInPath().path
        return absolute + " › " + table
    }
}
