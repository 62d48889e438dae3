import GRDB

/// Turns a constraint failure SQLite reported for one statement into validation failures
/// naming the field and rule involved.
///
/// SQLite's messages name the columns of NOT NULL and UNIQUE failures and the name or text of
/// a CHECK; a FOREIGN KEY failure names nothing, so the mapper looks for the missing parent
/// (or, for a delete, the referring children) itself.
/// What a refused statement was doing to its record, for the words of its failure.
package enum WriteOperation {
    /// The row's values by column; empty when they are not known (a batch).
    case write(values: [Value])
    case delete(key: [Value])
}

enum ConstraintMapper {
    typealias Operation = WriteOperation

    static func failures(
        for error: DatabaseError, id: ObjectID, entity: Entity, operation: Operation, db: Database, schema: DatabaseSchema
    ) -> [ValidationFailure] {
        let table = entity.table
        let message = error.message ?? ""
        let detail = message.split(separator: ":", maxSplits: 1).dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        func value(_ column: String) -> Value? {
            guard case .write(let values) = operation, let index = table.columnIndex(named: column), values.indices.contains(index) else { return nil }
            return values[index]
        }
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_NOTNULL:
            let column = columnNames(in: detail, table: table).first
            return [ValidationFailure(objectID: id, field: column, rule: .notNull, value: nil)]
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
            let columns = columnNames(in: detail, table: table)
            return [ValidationFailure(
                objectID: id, field: columns.first, rule: .unique(columns: columns),
                value: columns.count == 1 ? value(columns[0]) : nil)]
        case .SQLITE_CONSTRAINT_CHECK:
            // SQLite names the first rule broken; every rule the values break is found by
            // evaluating each one over them, so one save reports them all.
            if case .write(let values) = operation, let broken = brokenChecks(table: table, values: values, db: db), !broken.isEmpty {
                return broken.map { check in
                    let field = check.columns.first
                    return ValidationFailure(objectID: id, field: field, rule: .check(expression: check.expression), value: field.flatMap(value))
                }
            }
            let check = table.checks.first { $0.name != nil && $0.name == detail }
                ?? table.checks.first { normalized($0.expression) == normalized(detail) }
            let field = check?.columns.first
            return [ValidationFailure(
                objectID: id, field: field, rule: .check(expression: check?.expression ?? detail),
                value: field.flatMap(value))]
        case .SQLITE_CONSTRAINT_FOREIGNKEY:
            switch operation {
            case .write(let values):
                return missingParents(id: id, table: table, values: values, db: db, schema: schema)
            case .delete(let key):
                return referringChildren(id: id, table: table, key: key, db: db, schema: schema)
            }
        default:
            return [ValidationFailure(objectID: id, field: nil, rule: .check(expression: detail.isEmpty ? message : detail), value: nil)]
        }
    }

    /// Column names from SQLite's "t.a, t.b" list, in schema spelling.
    private static func columnNames(in detail: String, table: TableSchema) -> [String] {
        detail.split(separator: ",").compactMap { part in
            let name = part.trimmingCharacters(in: .whitespaces)
            let column = name.hasPrefix(table.name + ".") ? String(name.dropFirst(table.name.count + 1)) : name
            return table.column(named: column)?.name
        }
    }

    private static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
    }

    private static func missingParents(id: ObjectID, table: TableSchema, values: [Value], db: Database, schema: DatabaseSchema) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for key in table.foreignKeys {
            let childValues = key.columns.compactMap { table.columnIndex(named: $0).flatMap { values.indices.contains($0) ? values[$0] : nil } }
            guard childValues.count == key.columns.count, !childValues.contains(where: \.isNull) else { continue }
            let parentColumns: [String]
            if key.parentColumns.contains(where: { $0 == nil }) {
                parentColumns = schema.table(named: key.parentTable)?.primaryKey.columnNames ?? []
            } else {
                parentColumns = key.parentColumns.compactMap { $0 }
            }
            guard parentColumns.count == childValues.count else { continue }
            let condition = parentColumns.map { "\($0.quotedIdentifier) = ?" }.joined(separator: " AND ")
            let sql = "SELECT 1 FROM \(key.parentTable.quotedIdentifier) WHERE \(condition) LIMIT 1"
            let exists = (try? Row.fetchOne(db, sql: sql, arguments: childValues.statementArguments)) != nil
            if !exists {
                failures.append(ValidationFailure(
                    objectID: id, field: key.columns.first, rule: .foreignKey(parentTable: key.parentTable),
                    value: childValues.count == 1 ? childValues[0] : nil))
            }
        }
        if failures.isEmpty {
            failures.append(ValidationFailure(objectID: id, field: nil, rule: .foreignKey(parentTable: table.foreignKeys.first?.parentTable ?? "?"), value: nil))
        }
        return failures
    }

    /// The CHECK rules of `table` that a row of `values` breaks (its expression is false; NULL
    /// passes, as in SQLite), evaluated in one statement over the values as named columns.
    /// nil when an expression cannot be evaluated that way.
    private static func brokenChecks(table: TableSchema, values: [Value], db: Database) -> [CheckConstraint]? {
        guard !table.checks.isEmpty, values.count == table.columns.count else { return nil }
        let row = table.quotedColumnNames.map { "? AS \($0)" }.joined(separator: ", ")
        let tests = table.checks.map { "coalesce(NOT (\($0.expression)), 0)" }.joined(separator: ", ")
        guard let result = try? Row.fetchOne(db, sql: "SELECT \(tests) FROM (SELECT \(row))", arguments: values.statementArguments) else { return nil }
        return table.checks.indices.filter { (result[$0] as Int?) == 1 }.map { table.checks[$0] }
    }

    private static func referringChildren(id: ObjectID, table: TableSchema, key: [Value], db: Database, schema: DatabaseSchema) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let ownKey = table.primaryKey.columnNames
        let row = try? Row.fetchOne(
            db, sql: "SELECT * FROM \(table.fromSQL) WHERE \(table.keyMatchSQL)", arguments: key.statementArguments)
        for child in schema.tables {
            // Only a key without an action refuses the delete; a cascade or SET NULL does not.
            for foreign in child.foreignKeys where foreign.parentTable.lowercased() == table.name.lowercased()
                && (foreign.onDelete == .noAction || foreign.onDelete == .restrict) {
                let parentColumns = foreign.parentColumns.enumerated().map { $0.element ?? (ownKey.indices.contains($0.offset) ? ownKey[$0.offset] : "rowid") }
                guard let row else { continue }
                let parentValues: [Value] = parentColumns.map { Value((row[$0] as DatabaseValue?) ?? .null) }
                let condition = foreign.columns.map { "\($0.quotedIdentifier) = ?" }.joined(separator: " AND ")
                let sql = "SELECT 1 FROM \(child.quotedName) WHERE \(condition) LIMIT 1"
                if (try? Row.fetchOne(db, sql: sql, arguments: parentValues.statementArguments)) != nil {
                    failures.append(ValidationFailure(objectID: id, field: nil, rule: .referenced(by: child.name), value: nil))
                }
            }
        }
        if failures.isEmpty {
            failures.append(ValidationFailure(objectID: id, field: nil, rule: .referenced(by: "another table"), value: nil))
        }
        return failures
    }
}
