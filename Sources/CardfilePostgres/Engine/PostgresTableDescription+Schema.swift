import CardfileStore

extension PostgresTableDescription {
    /// The table as the store knows tables: its columns with their base types as declared
    /// types, its key, and PostgreSQL's dialect, named schema-qualified in every statement.
    ///
    /// A table without a primary key is keyed by `ctid` (read-only: the address moves on
    /// every update; ``readOnlyReason`` says so).
    package var tableSchema: TableSchema { tableSchema(PostgresConstraints()) }

    /// ``tableSchema`` with its constraints and indexes (``PostgresCatalog/constraints(of:)``).
    package func tableSchema(_ constraints: PostgresConstraints) -> TableSchema {
        var columns: [ColumnDescription] = []
        for column in self.columns {
            var described = ColumnDescription(
                name: column.name, declaredType: column.castType, isNotNull: column.isNotNull,
                defaultSQL: column.defaultExpression,
                primaryKeyPosition: primaryKey.firstIndex(of: column.name).map { $0 + 1 },
                generation: column.isGenerated || column.identity != .none ? .stored : .none)
            described.affinity = Self.affinity(of: column.kind)
            described.isNumberedByDatabase = column.identity != .none
            described.comparesAsText = column.category == "C"
            columns.append(described)
        }
        return TableSchema(
            name: relation.displayName, columns: columns, primaryKey: key,
            uniqueIndexes: constraints.uniqueIndexes, indexes: constraints.indexes,
            foreignKeys: constraints.foreignKeys, checks: constraints.checks,
            dialect: PostgresDialect(), quotedName: relation.quotedName, readOnlyReason: readOnlyReason)
    }

    /// The primary key; without one (read-only), the row's address in a relation that has one
    /// (with the partition's, as partitions repeat addresses), else every column: a view's rows
    /// are told apart by their values.
    var key: PrimaryKey {
        if !primaryKey.isEmpty { return .columns(primaryKey) }
        switch relation.kind {
        case .table, .partitionedTable, .materializedView:
            return .implicitRowid(accessor: "(tableoid::text || ':' || ctid::text)")
        case .view, .foreignTable:
            return .columns(columns.map(\.name))
        }
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
