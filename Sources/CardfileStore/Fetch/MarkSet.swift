/// Which records of one table are marked, kept as rules rather than as a list of records.
///
/// Marking every match of a filter adds one rule, whatever the number of matches: counting
/// them, showing them and writing to them are each one query. A rule is a filter (its
/// matches marked or unmarked) or a handful of records marked or unmarked one by one; the
/// last rule that speaks of a record decides, and a record no rule speaks of is not marked.
///
/// A filter rule speaks of the records that match it *now*: a record changed elsewhere so that
/// it no longer matches leaves the marks with it, one deleted simply drops out. Callers that
/// need the marks to stay on the same records across their own writes (a bulk edit of the
/// column a filter reads) replace the rules with those records (``init(records:)``).
public struct MarkSet: Hashable, Sendable {
    public enum Rule: Hashable, Sendable {
        /// The records matching the predicate are marked (or unmarked).
        case filter(Predicate, marked: Bool)
        /// These records are marked (true) or unmarked (false).
        case records([ObjectID: Bool])
    }

    public private(set) var rules: [Rule] = []

    public init() {}

    /// Exactly `ids` marked.
    public init(records ids: Set<ObjectID>) {
        if !ids.isEmpty { rules = [.records(Dictionary(uniqueKeysWithValues: ids.map { ($0, true) }))] }
    }

    /// True when nothing is marked (no rule marks anything).
    public var isEmpty: Bool {
        !rules.contains { rule in
            switch rule {
            case .filter(_, let marked): return marked
            case .records(let records): return records.values.contains(true)
            }
        }
    }

    /// Marks (or unmarks) every record matching `predicate`.
    public mutating func set(matching predicate: Predicate, marked: Bool) {
        // Unmarking matches when nothing is marked changes nothing.
        if !marked, isEmpty { return }
        rules.append(.filter(predicate, marked: marked))
    }

    /// Marks or unmarks one record.
    public mutating func set(_ id: ObjectID, marked: Bool) {
        if case .records(var records)? = rules.last {
            records[id] = marked
            rules[rules.count - 1] = .records(records)
        } else {
            rules.append(.records([id: marked]))
        }
    }

    /// Unmarks everything.
    public mutating func clear() {
        rules = []
    }

    /// Whether the last rule that speaks of `id` marks it, for the rules that name records;
    /// nil when only a filter can tell (see ``predicate(for:)``).
    public func explicitly(_ id: ObjectID) -> Bool? {
        for rule in rules.reversed() {
            switch rule {
            case .records(let records): if let marked = records[id] { return marked }
            case .filter: return nil
            }
        }
        return false
    }

    /// A condition true for the marked rows of `table`: the rules as one `CASE`, the last rule
    /// first. Filters were read for this table; a record rule lists its keys.
    public func predicate(for table: TableSchema) throws(StoreError) -> Predicate {
        guard !isEmpty else { return .sql("0", arguments: []) }
        var sql = "CASE"
        var arguments: [Value] = []
        for rule in rules.reversed() {
            switch rule {
            case .filter(let predicate, let marked):
                let condition = try predicate.sql(for: table)
                sql += " WHEN \(condition.sql) THEN \(marked ? 1 : 0)"
                arguments += condition.arguments
            case .records(let records):
                for marked in [true, false] {
                    let keys = records.filter { $0.value == marked }.keys.compactMap(\.primaryKeyValues)
                    guard !keys.isEmpty else { continue }
                    sql += " WHEN \(table.keyInSQL(count: keys.count)) THEN \(marked ? 1 : 0)"
                    arguments += keys.flatMap { $0 }
                }
            }
        }
        return .sql(sql + " ELSE 0 END", arguments: arguments)
    }
}
