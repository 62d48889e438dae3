import Foundation

/// What the SQL screen reads from PostgreSQL's plan of a SELECT (`EXPLAIN (VERBOSE, FORMAT
/// JSON)`): the one table it scans, if it scans one, whether each row it gives is one row of
/// that table, and which result columns are that table's columns unchanged.
///
/// A result's rows are one table's rows, once each, when the plan is a single scan of the
/// table under nodes that only filter, sort, limit, lock or project (`Limit`, `Sort`,
/// `Result`, `LockRows`, `Gather`): no join, aggregate, `Unique`, `Append`, `ProjectSet` (a
/// set-returning function) or window. A subquery computed on the side (an `InitPlan` or a
/// `SubPlan`: one value) changes nothing of that.
struct ResultPlan {
    /// The scanned table, as the catalog quotes it (`"public"."notes"`).
    let quotedTable: String
    /// The table's alias in the plan's expressions (`n` in `n.id`).
    let alias: String
    /// The top node's output expressions, one per result column (then any sort keys).
    let outputs: [String]
    let isOneRowEach: Bool

    private static let passing: Set<String> = ["Limit", "Sort", "Incremental Sort", "Result", "LockRows", "Gather", "Gather Merge"]
    private static let scans: Set<String> = ["Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan", "Tid Scan", "Tid Range Scan"]

    init?(json: String) {
        guard let data = json.data(using: .utf8),
              let top = (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]],
              var node = top.first?["Plan"] as? [String: Any] else { return nil }
        outputs = node["Output"] as? [String] ?? []
        var oneEach = true
        while true {
            let type = node["Node Type"] as? String ?? ""
            if Self.scans.contains(type) || type.hasPrefix("Parallel ") && Self.scans.contains(String(type.dropFirst(9))) { break }
            // (InitPlans and SubPlans give one value each; the rows come from the rest.)
            let children = (node["Plans"] as? [[String: Any]] ?? []).filter {
                let relation = $0["Parent Relationship"] as? String
                return relation != "InitPlan" && relation != "SubPlan"
            }
            guard children.count == 1 else { return nil }
            if !Self.passing.contains(type) { oneEach = false }
            node = children[0]
        }
        guard let relation = node["Relation Name"] as? String, let schema = node["Schema"] as? String else { return nil }
        quotedTable = "\(Self.quoted(schema)).\(Self.quoted(relation))"
        alias = node["Alias"] as? String ?? relation
        isOneRowEach = oneEach
    }

    /// The table column result column `index` is, unchanged; nil for an expression. A plan
    /// of one table writes its columns bare (`id`), of several qualified by alias (`n.id`).
    func column(at index: Int) -> String? {
        guard outputs.indices.contains(index) else { return nil }
        let output = outputs[index]
        if let name = Self.identifier(output) { return name }
        for prefix in [alias, Self.quoted(alias)] where output.hasPrefix(prefix + ".") {
            if let name = Self.identifier(String(output.dropFirst(prefix.count + 1))) { return name }
        }
        return nil
    }

    /// `text` as one identifier (bare, or quoted with `""` for a quote), or nil.
    private static func identifier(_ text: String) -> String? {
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            let inner = String(text.dropFirst().dropLast())
            // (A lone quote inside would end it: `"a"."b"` is two names.)
            guard !inner.replacingOccurrences(of: "\"\"", with: "").contains("\"") else { return nil }
            return inner.replacingOccurrences(of: "\"\"", with: "\"")
        }
        guard let first = text.first, first.isLetter || first == "_",
              text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }) else { return nil }
        return text
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
