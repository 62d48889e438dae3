
/// Where a search took the selection.
public enum SearchOutcome: Equatable, Sendable {
    /// The next matching row is selected.
    case found
    /// Nothing matched past the selection: the search went round from the other end.
    case wrapped
    /// No row of the list matches.
    case notFound
}

/// Searching the list without filtering it (`n` / `N`).
extension LiveQuery {
    /// Selects the next row in the list's order (the previous one with `backward`) after the
    /// selection that also matches `search`, written in the filter language; past the end it
    /// goes round from the start. The list keeps every row: only the selection moves.
    /// - Throws: the filter language's errors for a search it cannot read.
    public func selectNext(matching search: String, backward: Bool = false) throws(StoreError) -> SearchOutcome {
        guard let predicate = try predicate(for: search) else { return .notFound }
        let condition = try predicate.sql(for: entity.table)
        let line = window.selectedLine
        let key: [Value]? = line.flatMap { windowKeys.indices.contains($0) ? windowKeys[$0] : nil }
        let query = self.query
        let (next, first) = try read { db -> ([Value]?, [Value]?) in
            func one(after key: [Value]?) throws -> [Value]? {
                let page = query.page(from: key, backward: backward, limit: 1, also: [condition])
                return try db.rows(page.sql, page.arguments).first
            }
            let next = try key == nil ? nil : one(after: key)
            return (next, next == nil ? try one(after: nil) : nil)
        }
        guard let row = next ?? first else { return .notFound }
        try select(query.objectID(of: row))
        return next != nil || key == nil ? .found : .wrapped
    }

    /// `text` read in the filter's language for this list: words search the columns the
    /// list searches (``LiveQuerySpec/searchColumns``, else every column shown). Nil for
    /// text that asks for nothing (empty).
    public func predicate(for text: String) throws(StoreError) -> Predicate? {
        try Self.predicate(for: text, entity: entity, spec: spec)
    }

    static func predicate(for text: String, entity: Entity, spec: LiveQuerySpec) throws(StoreError) -> Predicate? {
        let searchable = spec.searchColumns ?? entity.table.columns.filter { !$0.isHidden }.map(\.name)
        return try FilterParser.parse(text, table: entity.table, searchColumns: searchable)
    }
}
