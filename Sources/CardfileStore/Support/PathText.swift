/// A path's folder, name and extension, taken apart as text.
///
/// NSString's `deletingLastPathComponent` traps on some short paths without a slash (`"a"`,
/// `"."`, `"é"`) in the Foundation this project builds with on Linux, and paths here come
/// from people typing them; so they are split by hand, the way a shell reads them.
public enum PathText {
    /// Everything before the last `/` (`"/"` for a file at the root, `"."` when there is no
    /// slash). A trailing slash is ignored.
    public static func folder(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = trimmed[..<slash]
        return folder.isEmpty ? "/" : String(folder)
    }

    /// What follows the last `/` (a trailing slash is ignored).
    public static func name(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// The name's extension, lowercased, without its dot; empty when it has none (a name
    /// that only starts with a dot has none).
    public static func lowercasedExtension(of path: String) -> String {
        let name = name(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
