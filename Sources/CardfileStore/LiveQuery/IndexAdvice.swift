import GRDB

/// A column of a large table whose index would make a list fast: the list is sorted by it and
/// SQLite sorts the rows itself, or filtered by it and SQLite reads every row. The status bar
/// offers `:index` for it (see ``Container/createIndex(on:of:)``).
///
/// It is asked of SQLite's query planner, not read from the schema Cardfile read at open, so
/// an index made since counts at once.
public struct IndexAdvice: Hashable, Sendable {
    /// True when `table` has at least `rows` rows (a scan of that many at most).
    static func hasRows(_ rows: Int, table: TableSchema, db: Database) throws -> Bool {
        guard rows > 0 else { return false }
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT 1 FROM \(table.quotedName) LIMIT \(rows))") == rows
    }

    public enum Use: Hashable, Sendable {
        case sort, filter
    }

    public let table: String
    public let column: String
    public let use: Use

    /// The advice for `query` (walked by key or not), or nil: none for a small table (see
    /// `isLarge`), a view, a table without a key, a query's result, an order of several
    /// columns (one column's index would not serve it), or a column that leads an index
    /// already (the file's indexes as they are now, not as read at open). `isLarge` is asked
    /// only when there is an order or a filter to advise on.
    static func find(for query: OrderedQuery, spec: LiveQuerySpec, predicate: Predicate?, walksByKey: Bool, db: Database,
                     isLarge: (Database) throws -> Bool) throws -> IndexAdvice? {
        let table = query.table
        let sorted = !walksByKey && spec.sort.count == 1
        guard sorted || !(predicate?.comparedColumns.isEmpty ?? true),
              !table.isView, table.isIdentifiable, table.source == nil, try isLarge(db) else { return nil }
        let keys = Set(table.primaryKey.columnNames.map { $0.lowercased() })
        let leading = Set(try String.fetchAll(db, sql: """
            SELECT info.name FROM pragma_index_list(?) AS list, pragma_index_info(list.name) AS info WHERE info.seqno = 0 AND info.name IS NOT NULL
            """, arguments: [table.name]).map { $0.lowercased() })
        func wanted(_ name: String) -> ColumnDescription? {
            guard let column = table.column(named: name), !keys.contains(column.name.lowercased()), !leading.contains(column.name.lowercased()) else { return nil }
            return column
        }
        if sorted, let column = wanted(spec.sort[0].column) {
            return IndexAdvice(table: table.name, column: column.name, use: .sort)
        }
        guard let predicate, let filter = query.filter, let column = predicate.comparedColumns.lazy.compactMap(wanted).first else { return nil }
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT 1 FROM \(table.fromSQL) WHERE \(filter.sql)", arguments: filter.arguments.statementArguments)
        let searched = plan.contains { row in (row["detail"] as String? ?? "").hasPrefix("SEARCH") }
        return searched ? nil : IndexAdvice(table: table.name, column: column.name, use: .filter)
    }
}

extension Predicate {
    /// The columns compared with a value or with NULL, in order (what an index could serve;
    /// a substring search could not).
    var comparedColumns: [String] {
        switch self {
        case .compare(let column, _, _), .isNull(let column), .isEmpty(let column): [column]
        case .and(let parts), .or(let parts): parts.flatMap(\.comparedColumns)
        case .not(let part): part.comparedColumns
        case .contains, .sql: []
        }
    }
}
