/// Names made distinct, compared as SQLite compares column names (case-insensitively): a
/// blank name becomes `blank(position)` (from 1), a repeated one `repeated(name, n)` for
/// n = 2, 3…; names in `taken` are never given.
func uniqueNames(_ names: [String], taken reserved: Set<String> = [], blank: (Int) -> String, repeated: (String, Int) -> String) -> [String] {
    var taken = Set(reserved.map { $0.lowercased() })
    return names.enumerated().map { index, name in
        let base = name.isEmpty ? blank(index + 1) : name
        var candidate = base
        var number = 2
        while taken.contains(candidate.lowercased()) {
            candidate = repeated(base, number)
            number += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }
}

extension String {
    /// The string cut to at most `bytes` bytes of UTF-8, at a character's end (PostgreSQL
    /// keeps 63 bytes of a name, and would cut a longer one itself).
    package func cut(toBytes bytes: Int) -> String {
        guard utf8.count > bytes else { return self }
        var kept = ""
        for character in self {
            guard kept.utf8.count + String(character).utf8.count <= bytes else { break }
            kept.append(character)
        }
        return kept
    }
}
