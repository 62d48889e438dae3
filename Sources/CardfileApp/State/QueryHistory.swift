import Foundation

/// The statements run on the SQL screen, kept per database file in one small JSON file in the
/// user's state folder (see ``ColumnMemory/defaultFolder(environment:)``): `queries.json`,
/// by the database's path, oldest first, the last ``limit`` of each.
///
/// Like the column choices, it is a comfort: a file that cannot be read is taken as empty,
/// and one that cannot be written is said by the caller and otherwise ignored.
struct QueryHistory: Sendable {
    static let limit = 100

    /// The JSON file; nil keeps nothing.
    let file: String?

    init(folder: String?) {
        file = folder.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + "queries.json" }
    }

    /// The statements run on the database at `database`, oldest first.
    func queries(database: String) -> [String] {
        stored()[Self.key(database)] ?? []
    }

    /// The database's absolute path: the same file opened from another folder keeps its history.
    static func key(_ database: String) -> String {
        URL(fileURLWithPath: database).standardizedFileURL.path
    }

    /// Adds `query` as the newest of `database` (an earlier copy of it goes).
    /// - Throws: the file system's error when the file cannot be written.
    func remember(_ query: String, database: String) throws {
        guard let file else { return }
        var all = stored()
        let database = Self.key(database)
        var queries = all[database] ?? []
        queries.removeAll { $0 == query }
        queries.append(query)
        all[database] = Array(queries.suffix(Self.limit))
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: file).deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(all).write(to: URL(fileURLWithPath: file), options: .atomic)
    }

    private func stored() -> [String: [String]] {
        guard let file, let data = FileManager.default.contents(atPath: file) else { return [:] }
        return (try? JSONDecoder().decode([String: [String]].self, from: data)) ?? [:]
    }
}
