/// What a view lets through: SQLite writes to a view only by its `INSTEAD OF` triggers, one
/// per kind of statement, so each kind is allowed exactly when such a trigger exists.
public struct ViewWrites: Hashable, Sendable {
    /// The statement kinds a trigger can stand in for.
    public enum Kind: String, Hashable, Sendable {
        case insert = "INSERT", update = "UPDATE", delete = "DELETE"
    }

    /// Which columns an `INSTEAD OF UPDATE` trigger covers.
    public enum Updates: Hashable, Sendable {
        /// No trigger: the view's rows cannot be changed.
        case none
        /// `INSTEAD OF UPDATE`: any column.
        case all
        /// Only `INSTEAD OF UPDATE OF a, b` triggers: these columns, lowercased. Updating
        /// another column would fire no trigger and change nothing.
        case columns(Set<String>)
    }

    public var insert: Bool
    public var update: Updates
    public var delete: Bool
    /// The table whose rows the view shows, each once and by that table's key (so a write
    /// through the view is a write of that table's row); nil for a keyless view.
    public var rowsOf: String?

    public init(insert: Bool = false, update: Updates = .none, delete: Bool = false, rowsOf: String? = nil) {
        self.insert = insert
        self.update = update
        self.delete = delete
        self.rowsOf = rowsOf
    }

    /// True when a trigger lets an update of `column` through.
    public func canUpdate(_ column: String) -> Bool {
        switch update {
        case .none: return false
        case .all: return true
        case .columns(let names): return names.contains(column.lowercased())
        }
    }

    /// True when a trigger stands in for `kind` (for an update, of at least one column).
    public func allows(_ kind: Kind) -> Bool {
        switch kind {
        case .insert: return insert
        case .delete: return delete
        case .update: return update != .none
        }
    }


    /// Adds what one `CREATE TRIGGER` statement on the view lets through. Triggers on a view
    /// are always `INSTEAD OF`; the statement kind follows those words, and `UPDATE OF`
    /// lists the columns. Text that does not read as a trigger adds nothing.
    mutating func add(triggerSQL sql: String) {
        guard let tokens = try? SQLTokenizer.tokenize(sql),
              let instead = tokens.indices.first(where: { tokens[$0].isWord("INSTEAD") }),
              instead + 2 < tokens.count, tokens[instead + 1].isWord("OF") else { return }
        let kind = tokens[instead + 2]
        if kind.isWord("INSERT") { insert = true }
        if kind.isWord("DELETE") { delete = true }
        guard kind.isWord("UPDATE") else { return }
        guard instead + 3 < tokens.count, tokens[instead + 3].isWord("OF") else {
            update = .all
            return
        }
        var named: Set<String> = []
        var index = instead + 4
        while index < tokens.count, !tokens[index].isWord("ON") {
            if tokens[index].isIdentifier { named.insert(tokens[index].value.lowercased()) }
            index += 1
        }
        switch update {
        case .all: break
        case .none: update = .columns(named)
        case .columns(let earlier): update = .columns(earlier.union(named))
        }
    }
}
