import CardfileStore

/// The question asked before records are deleted, naming what goes with them: `Delete
/// parent 1? Also deletes 2 child records and 2 grandchild records.`
enum DeleteQuestion {
    /// The dialog's message for deleting `what` (`parent 1`). `effects` nil: they could not
    /// be counted (`why`), which the question then says rather than implying there are none.
    static func message(deleting what: String, effects: DeletionEffects?, uncounted why: String? = nil) -> String {
        var sentences = ["Delete \(what)?"]
        if let effects {
            var clauses: [String] = []
            if !effects.deleted.isEmpty {
                clauses.append("deletes " + list(effects.deleted.map { records($0.count, of: $0.table) }))
            }
            for changed in effects.changed {
                let target = records(changed.count, of: changed.table)
                switch (changed.action, changed.columns.isEmpty) {
                case (.setNull?, false): clauses.append("sets \(list(changed.columns)) to NULL in \(target)")
                case (.setDefault?, false): clauses.append("sets \(list(changed.columns)) to \(changed.columns.count == 1 ? "its" : "their") default in \(target)")
                default: clauses.append("changes \(target)")
                }
            }
            if !clauses.isEmpty { sentences.append("Also " + list(clauses) + ".") }
        } else if let why {
            sentences.append("(What its foreign keys delete with it could not be counted: \(why).)")
        }
        sentences.append("This is saved at once.")
        return sentences.joined(separator: " ")
    }

    private static func records(_ count: Int, of table: String) -> String {
        "\(ValueText.count(count)) \(table) record\(count == 1 ? "" : "s")"
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
