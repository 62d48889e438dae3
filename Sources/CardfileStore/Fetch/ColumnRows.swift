/// One column of a table over the rows a predicate matches, ready for aggregate SQL: what
/// `I`, `F` and their helpers read.
struct ColumnRows {
    /// The column's name, quoted.
    let column: String
    /// The column as introspected, and the select-list entry reading its values.
    let described: ColumnDescription
    let read: String
    /// `FROM … WHERE …` (no WHERE for every row).
    let from: String
    let arguments: [Value]
    /// The table's read source, and the WHERE part alone (empty, or ` WHERE …`).
    let source: String
    let filter: String
    /// Whose rows they are (where they are read: ``StoreCore/session(for:_:)``).
    let entity: Entity

    var dialect: any SQLDialect { entity.table.dialect }

    /// The rows where `condition` holds too.
    func also(_ condition: String) -> String {
        "FROM \(source)\(filter.isEmpty ? " WHERE" : filter + " AND") \(condition)"
    }
}

extension Container {
    /// `column` of `table` over the rows `predicate` matches (every row when nil).
    /// - Throws: ``StoreError/noSuchField(table:field:)``, an unknown table or a bad predicate.
    func columnRows(_ column: String, table: String, where predicate: Predicate?) throws(StoreError) -> ColumnRows {
        let entity = try core.entity(table)
        let schema = entity.table
        guard let described = schema.column(named: column) else { throw StoreError.noSuchField(table: schema.name, field: column) }
        let condition = try predicate?.sql(for: schema)
        let filter = condition.map { " WHERE \($0.sql)" } ?? ""
        return ColumnRows(column: described.name.quotedIdentifier, described: described, read: schema.dialect.selectExpression(described),
                          from: "FROM \(schema.fromSQL)\(filter)", arguments: condition?.arguments ?? [],
                          source: schema.fromSQL, filter: filter, entity: entity)
    }
}
