import CardfileStore

extension PostgresTableDescription {
    /// The table as the store knows tables: its columns with their base types as declared
    /// types, its key, and PostgreSQL's dialect, named schema-qualified in every statement.
    ///
    /// A table without a primary key is keyed by `ctid` (read-only: the address moves on
    /// every update; ``readOnlyReason`` says so).
    package var tableSchema: TableSchema {
        var columns: [ColumnDescription] = []
        for column in self.columns {
            var described = ColumnDescription(
                name: column.name, declaredType: column.castType, isNotNull: column.isNotNull,
                defaultSQL: column.defaultExpression,
                primaryKeyPosition: primaryKey.firstIndex(of: column.name).map { $0 + 1 },
                generation: column.isGenerated ? .stored : .none)
            described.affinity = Self.affinity(of: column.kind)
            columns.append(described)
        }
        let key: PrimaryKey = primaryKey.isEmpty ? .implicitRowid(accessor: "ctid::text") : .columns(primaryKey)
        return TableSchema(
            name: relation.displayName, columns: columns, primaryKey: key,
            dialect: PostgresDialect(), quotedName: relation.quotedName)
    }

    /// How the store treats a value typed in for a column of this kind.
    static func affinity(of kind: PostgresTableColumn.Kind) -> Affinity {
        switch kind {
        case .integer: return .integer
        case .real: return .real
        case .decimal: return .numeric
        case .bytes: return .blob
        case .boolean, .text, .textual: return .text
        }
    }
}
