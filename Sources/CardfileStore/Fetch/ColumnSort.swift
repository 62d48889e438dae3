
/// One key of a sort order: a column, a direction, and optionally a collation that overrides
/// the column's own.
public struct ColumnSort: Hashable, Sendable {
    public var column: String
    public var ascending: Bool
    public var collation: Collation?

    public init(_ column: String, ascending: Bool = true, collation: Collation? = nil) {
        self.column = column
        self.ascending = ascending
        self.collation = collation
    }
}

/// A request for the records of one table.
public struct FetchRequest: Hashable, Sendable {
    public var table: String
    public var predicate: Predicate?
    /// Sort keys; the primary key is always appended as the final tie-break (in the direction
    /// of the last sort key), so the order is total and stable.
    public var sort: [ColumnSort]
    public var limit: Int?
    public var offset: Int
    /// Include records marked for deletion in the context (as `.deleted`); off by default.
    public var includesPendingDeletes: Bool

    public init(
        table: String, predicate: Predicate? = nil, sort: [ColumnSort] = [],
        limit: Int? = nil, offset: Int = 0, includesPendingDeletes: Bool = false
    ) {
        self.table = table
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.includesPendingDeletes = includesPendingDeletes
    }
}

extension TableSchema {
    /// The `ORDER BY` terms for `sort`, ending with the primary key as tie-break.
    /// `keyAliases` names the key columns when the query renames them.
    func orderTerms(_ sort: [ColumnSort], keyAliases: [String]? = nil) throws(StoreError) -> [String] {
        var terms: [String] = []
        var seen: Set<String> = []
        for descriptor in sort {
            guard let column = column(named: descriptor.column) else {
                throw StoreError.noSuchField(table: name, field: descriptor.column)
            }
            if descriptor.collation == nil || descriptor.collation == column.collation {
                seen.insert(column.name.lowercased())
            }
            var term = dialect.comparable(column.name.quotedIdentifier, column: column)
            if let collation = descriptor.collation { term += " COLLATE \(collation.name)" }
            terms.append(dialect.orderTerm(term, ascending: descriptor.ascending, canBeNull: !column.isNotNull))
        }
        // Ties break on the key, in the direction of the last sort key (so an index on the sort
        // column serves the whole order).
        let ascending = sort.last?.ascending ?? true
        let keys = keyAliases ?? primaryKey.keyExpressions
        for (index, key) in keys.enumerated() {
            let name = primaryKey.columnNames.indices.contains(index) ? primaryKey.columnNames[index].lowercased() : nil
            if let name, seen.contains(name) { continue }
            terms.append(dialect.orderTerm(key, ascending: ascending, canBeNull: false))
        }
        return terms
    }
}
