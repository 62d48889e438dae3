/// Which records of one table are marked, kept as rules rather than as a list of records.
///
/// Marking every match of a filter adds one rule, whatever the number of matches: counting
/// them and finding them among the rows on screen are each one query. A rule is a filter (its
/// matches marked or unmarked) or records marked or unmarked one by one (by a person, or all
/// the records a bulk edit wrote: beyond a few hundred they are bound as one JSON array);
/// the last rule that speaks of a record decides, and a record no rule speaks of is not
/// marked.
///
/// A filter rule speaks of the records that match it *now*: a record changed elsewhere so that
/// it no longer matches is no longer marked by it, one deleted simply drops out.
public struct MarkSet: Hashable, Sendable {
    public enum Rule: Hashable, Sendable {
        /// The records matching the predicate are marked (or unmarked).
        case filter(Predicate, marked: Bool)
        /// These records are marked (true) or unmarked (false).
        case records([ObjectID: Bool])
    }

    public private(set) var rules: [Rule] = []

    public init() {}

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
        if case .records? = rules.last, case .records(var records) = rules.removeLast() {
            // (Taken out of the list first: changed in place, not copied, so marking n
            // records one by one is not n² work.)
            records[id] = marked
            rules.append(.records(records))
        } else {
            rules.append(.records([id: marked]))
        }
    }

    /// True when a record rule can name all of `ids`: as one JSON argument, or within
    /// SQLite's limit of 32,766 bound values (keys holding blobs cannot go as JSON).
    public static func canName(_ ids: some Collection<ObjectID>, in table: TableSchema) -> Bool {
        let width = max(1, table.primaryKey.keyExpressions.count)
        if ids.count * width <= 32_766 { return true }
        // Beyond the limit, as JSON: every key must be one JSON carries exactly.
        return ids.allSatisfy { id in
            id.primaryKeyValues?.allSatisfy { value in
                switch value {
                case .integer, .text: return true
                case .real(let double): return double.isFinite
                case .null, .blob, .decimal, .boolean: return false
                }
            } ?? false
        }
    }

    /// Marks exactly the keys of `records` (the records a bulk edit wrote), whatever was marked
    /// before. The dictionary's table is kept, not every key hashed again: from a list of the
    /// keys, 100,000 records took 73 ms.
    public mutating func replace<T>(withKeysOf records: [ObjectID: T]) {
        rules = [.records(records.mapValues { _ in true })]
    }

    /// Unmarks everything.
    public mutating func clear() {
        rules = []
    }

    /// The filter rules' predicates, oldest first: what ``isMarked(_:filterMatches:)`` needs
    /// to know of a record from SQL.
    public var filters: [Predicate] {
        rules.compactMap { rule in
            if case .filter(let predicate, _) = rule { return predicate }
            return nil
        }
    }

    /// Whether `id` is marked, given whether it matches each of ``filters`` (same order): the
    /// last rule that speaks of it decides. Record rules are looked up here, not in SQL, so a
    /// screenful is checked against a hundred thousand marked records without sending them.
    public func isMarked(_ id: ObjectID, filterMatches: [Bool]) -> Bool {
        var filter = filterMatches.count
        for rule in rules.reversed() {
            switch rule {
            case .filter(_, let marked):
                filter -= 1
                if filterMatches.indices.contains(filter), filterMatches[filter] { return marked }
            case .records(let records):
                if let marked = records[id] { return marked }
            }
        }
        return false
    }

    /// A condition true for the marked rows of `table`: the rules as one `CASE`, the last rule
    /// first, in the table's dialect. Filters were read for this table; a record rule lists its keys.
    public func predicate(for table: TableSchema) throws(StoreError) -> Predicate {
        guard !isEmpty else { return .sql(table.dialect.alwaysFalse, arguments: []) }
        var sql = "(CASE"
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
                    let condition = table.keySetSQL(keys)
                    sql += " WHEN \(condition.sql) THEN \(marked ? 1 : 0)"
                    arguments += condition.arguments
                }
            }
        }
        // (Compared with 1: a condition must be a boolean on PostgreSQL.)
        return .sql(sql + " ELSE 0 END) = 1", arguments: arguments)
    }
}
