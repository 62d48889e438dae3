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
