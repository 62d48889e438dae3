/// A table's rows in one order under one filter, with the SQL to walk them by key.
///
/// The order is total: the sort columns, then the primary key. A row's *key* is its values for
/// those terms, so "the rows after this one" is a keyset condition that an index serving the
/// order answers in O(log n), wherever the row is.
struct OrderedQuery: Sendable {
    struct Term: Sendable {
        /// The SQL expression, with an explicit COLLATE when the sort overrides the column's.
        let expression: String
        /// What a select list reads the term's value with (the engine may read a column of
        /// some types as text, as whole rows do, so a key compares with a row's values).
        let readExpression: String
        let ascending: Bool
        /// Where the term's value sits in a row read with the table's select list.
        let slot: Int
        let collation: Collation
        /// False for a value that is never NULL (a rowid, a NOT NULL column): its conditions
        /// then leave out `OR … IS NULL`, which would stop SQLite from using an index range.
        var canBeNull = true

        /// `comparison`, or NULL too when the term can be NULL (NULLs sort first ascending).
        func orNull(_ comparison: String) -> String {
            canBeNull ? "(\(comparison) OR \(expression) IS NULL)" : comparison
        }
    }

    let entity: Entity
    let terms: [Term]
    let filter: (sql: String, arguments: [Value])?

    init(entity: Entity, sort: [ColumnSort], filter: Predicate?) throws(StoreError) {
        self.entity = entity
        let table = entity.table
        var terms: [Term] = []
        var used: Set<String> = []
        for descriptor in sort {
            guard let index = table.columnIndex(named: descriptor.column) else {
                throw StoreError.noSuchField(table: table.name, field: descriptor.column)
            }
            // A sort by a key column under another collation does not make the order total.
            if descriptor.collation == nil || descriptor.collation == table.columns[index].collation {
                used.insert(table.columns[index].name.lowercased())
            }
            // (A column the engine cannot order by its own rules, json or a composite type on
            // PostgreSQL, is ordered by its text.)
            var expression = table.dialect.comparable(table.quotedColumnNames[index], column: table.columns[index])
            // A view's column may carry a collation SQLite does not report (`name COLLATE
            // NOCASE AS name`): the order is made explicit, so SQL sorts as Swift compares.
            if let collation = descriptor.collation ?? (table.isView ? table.columns[index].collation : nil) {
                expression += " COLLATE \(collation.name)"
            }
            let isRowid = table.primaryKey == .rowidAlias(column: table.columns[index].name)
            terms.append(Term(
                expression: expression, readExpression: table.dialect.selectExpression(table.columns[index]),
                ascending: descriptor.ascending, slot: table.keyWidth + index,
                collation: descriptor.collation ?? table.columns[index].collation,
                canBeNull: !(table.columns[index].isNotNull || isRowid)))
        }
        // The key breaks ties in the direction of the last sort key, so that an index on the
        // sort column (whose entries end with the key) serves the whole order either way.
        let tieBreakAscending = sort.last?.ascending ?? true
        let keyNames = table.primaryKey.columnNames
        for (position, expression) in table.primaryKey.keyExpressions.enumerated() {
            if keyNames.indices.contains(position), used.contains(keyNames[position].lowercased()) { continue }
            let column = keyNames.indices.contains(position) ? table.column(named: keyNames[position]) : nil
            let collation = column?.collation ?? .binary
            // A rowid (alias or implicit) and a WITHOUT ROWID key are never NULL; a declared
            // key of a rowid table can be (an old SQLite quirk) unless it says NOT NULL.
            let neverNull: Bool
            switch table.primaryKey {
            case .rowidAlias, .implicitRowid, .withoutRowid: neverNull = true
            default: neverNull = column?.isNotNull ?? false
            }
            terms.append(Term(expression: expression, readExpression: table.keyReadExpressions[position], ascending: tieBreakAscending, slot: position, collation: collation, canBeNull: !neverNull))
        }
        self.terms = terms
        self.filter = try filter?.sql(for: table)
    }

    var table: TableSchema { entity.table }

    /// The key of a row read with the select list.
    func key(of row: [Value]) -> [Value] {
        terms.map { row[$0.slot] }
    }

    /// The ObjectID of a row read with the select list.
    func objectID(of row: [Value]) -> ObjectID {
        entity.objectID(fromKey: row[0..<table.keyWidth])
    }

    /// `ORDER BY` terms, or their reverse.
    func orderBy(reversed: Bool = false) -> String {
        terms.map { table.dialect.orderTerm($0.expression, ascending: $0.ascending != reversed, canBeNull: $0.canBeNull) }.joined(separator: ", ")
    }

    /// Compares two keys in this order (Swift's reproduction of SQLite's ordering).
    func compare(_ a: [Value], _ b: [Value]) -> Int {
        for (index, term) in terms.enumerated() {
            let order = Value.compare(a[index], b[index], collation: term.collation)
            if order != 0 { return term.ascending ? order : -order }
        }
        return 0
    }

    // MARK: - SQL

    /// The WHERE clause combining the filter and `conditions`, and its arguments.
    func whereClause(_ conditions: [(sql: String, arguments: [Value])]) -> (sql: String, arguments: [Value]) {
        var parts: [String] = []
        var arguments: [Value] = []
        if let filter {
            parts.append(filter.sql)
            arguments += filter.arguments
        }
        for condition in conditions {
            parts.append(condition.sql)
            arguments += condition.arguments
        }
        return (parts.isEmpty ? "" : " WHERE " + parts.joined(separator: " AND "), arguments)
    }

    /// Up to `limit` whole rows in order (or in reverse with `backward`), starting after `key`
    /// (at `key` when `inclusive`), skipping `offset` rows.
    /// `also` narrows the rows further (a search).
    func page(from key: [Value]?, inclusive: Bool = false, backward: Bool = false, limit: Int, offset: Int = 0,
              also: [(sql: String, arguments: [Value])] = []) -> (sql: String, arguments: [Value]) {
        let condition = key.map { [self.condition(after: $0, inclusive: inclusive, backward: backward)] } ?? []
        let clause = whereClause(condition + also)
        let sql = "SELECT \(table.selectList) FROM \(table.fromSQL)\(clause.sql) ORDER BY \(orderBy(reversed: backward)) LIMIT ? OFFSET ?"
        return (sql, clause.arguments + [.integer(Int64(limit)), .integer(Int64(offset))])
    }

    /// The keys of every matching row, in order: what positions and sorted orders are built from.
    func allKeys() -> (sql: String, arguments: [Value]) {
        let clause = whereClause([])
        let sql = "SELECT \(terms.map(\.readExpression).joined(separator: ", ")) FROM \(table.fromSQL)\(clause.sql) ORDER BY \(orderBy())"
        return (sql, clause.arguments)
    }

    /// How many matching rows lie in `[from, before)` (from the start when `from` is nil),
    /// stopping at `limit`.
    func countBetween(from: [Value]?, before: [Value], limit: Int) -> (sql: String, arguments: [Value]) {
        var conditions = [condition(after: before, inclusive: false, backward: true)]
        if let from { conditions.append(condition(after: from, inclusive: true, backward: false)) }
        let clause = whereClause(conditions)
        let sql = "SELECT count(*) FROM (SELECT 1 FROM \(table.fromSQL)\(clause.sql) LIMIT ?) AS counted"
        return (sql, clause.arguments + [.integer(Int64(limit))])
    }

    /// The row with this ObjectID, when it exists and matches the filter.
    func row(id: ObjectID) -> (sql: String, arguments: [Value]) {
        let clause = whereClause([(table.keyMatchSQL, id.primaryKeyValues ?? [])])
        return ("SELECT \(table.selectList) FROM \(table.fromSQL)\(clause.sql)", clause.arguments)
    }

    /// The rows among `ids` that exist and match the filter.
    func rows(ids: [ObjectID]) -> (sql: String, arguments: [Value]) {
        let clause = whereClause([(table.keyInSQL(count: ids.count), ids.flatMap { $0.primaryKeyValues ?? [] })])
        return ("SELECT \(table.selectList) FROM \(table.fromSQL)\(clause.sql)", clause.arguments)
    }

    /// `SELECT count(*)` of the matching rows.
    func count() -> (sql: String, arguments: [Value]) {
        let clause = whereClause([])
        return ("SELECT count(*) FROM \(table.fromSQL)\(clause.sql)", clause.arguments)
    }

    /// The keyset condition "comes after `key`" in this order (or in the reverse order with
    /// `backward`), NULL-aware: NULLs sort first ascending and last descending, as in SQLite.
    /// A leading range on the first term lets an index start at the right place.
    func condition(after key: [Value], inclusive: Bool, backward: Bool) -> (sql: String, arguments: [Value]) {
        var arguments: [Value] = []
        let nested = chain(from: 0, key: key, inclusive: inclusive, backward: backward, arguments: &arguments)
        guard let first = terms.first, !key[0].isNull else { return (nested, arguments) }
        let ascending = first.ascending != backward
        let leading = ascending ? "\(first.expression) >= ?" : first.orNull("\(first.expression) <= ?")
        return ("(\(leading) AND \(nested))", [key[0]] + arguments)
    }

    private func chain(from index: Int, key: [Value], inclusive: Bool, backward: Bool, arguments: inout [Value]) -> String {
        let term = terms[index]
        let value = key[index]
        let dialect = table.dialect
        let ascending = term.ascending != backward
        let last = index == terms.count - 1
        let expression = term.expression
        if last {
            switch (ascending, value.isNull, inclusive) {
            case (true, false, false): arguments.append(value); return "\(expression) > ?"
            case (true, false, true): arguments.append(value); return "\(expression) >= ?"
            case (true, true, false): return "\(expression) IS NOT NULL"
            case (true, true, true): return dialect.alwaysTrue
            case (false, false, false): arguments.append(value); return term.orNull("\(expression) < ?")
            case (false, false, true): arguments.append(value); return term.orNull("\(expression) <= ?")
            case (false, true, false): return dialect.alwaysFalse
            case (false, true, true): return "\(expression) IS NULL"
            }
        }
        let strictly: String
        switch (ascending, value.isNull) {
        case (true, false): arguments.append(value); strictly = "\(expression) > ?"
        case (true, true): strictly = "\(expression) IS NOT NULL"
        case (false, false): arguments.append(value); strictly = term.orNull("\(expression) < ?")
        case (false, true): strictly = dialect.alwaysFalse
        }
        arguments.append(value)
        let rest = chain(from: index + 1, key: key, inclusive: inclusive, backward: backward, arguments: &arguments)
        return "(\(strictly) OR (\(dialect.isSame(expression, "?")) AND \(rest)))"
    }

    /// True when the engine serves this order (with the filter) without sorting: walking it by
    /// key is then cheap. Asked of the engine's query planner, not guessed from the indexes.
    func isServedByIndex(_ session: any EngineSession) throws -> Bool {
        let page = page(from: nil, limit: 1)
        return try session.isServedByIndex(page.sql, page.arguments)
    }
}
