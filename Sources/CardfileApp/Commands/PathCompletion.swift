import Foundation

/// File-name completion for `:import` and `:export`, as a shell does it: the typed path's
/// folder is listed, and the part after its last `/` is extended as far as every match
/// agrees. A single folder match gets its `/`; hidden files show only when the part starts
/// with a dot.
enum PathCompletion {
    struct Outcome: Equatable {
        /// The path, extended.
        var text: String
        /// What it could still become (empty when the match was unique or there was none).
        var alternatives: [String]
    }

    /// Completes `typed` (relative to `base`, the current folder when nil, unless it starts
    /// with `/` or `~`).
    static func complete(_ typed: String, base: String?, fileManager: FileManager = .default) -> Outcome {
        let slash = typed.lastIndex(of: "/")
        let folderPart = slash.map { String(typed[...$0]) } ?? ""
        let partial = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        var folder = folderPart.isEmpty ? "." : expandingTilde(folderPart)
        if let base, !folder.hasPrefix("/") { folder = base + "/" + folder }
        guard let names = try? fileManager.contentsOfDirectory(atPath: folder) else { return Outcome(text: typed, alternatives: []) }
        let matches = names.filter { $0.hasPrefix(partial) && (partial.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted()
        guard let first = matches.first else { return Outcome(text: typed, alternatives: []) }
        if matches.count == 1 {
            var isFolder: ObjCBool = false
            let full = (folder as NSString).appendingPathComponent(first)
            let suffix = fileManager.fileExists(atPath: full, isDirectory: &isFolder) && isFolder.boolValue ? "/" : ""
            return Outcome(text: folderPart + first + suffix, alternatives: [])
        }
        var common = first
        for name in matches.dropFirst() {
            common = String(common.commonPrefix(with: name))
        }
        return Outcome(text: folderPart + (common.count > partial.count ? common : partial), alternatives: matches)
    }
}
