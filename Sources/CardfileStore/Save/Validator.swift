import Foundation

/// Checks objects before a save writes them, reporting every failure it finds: NOT NULL,
/// type affinity, declared field rules, and edits to fields the database owns (keys of
/// existing rows, generated columns).
enum Validator {
    static func validateInsert(_ object: ManagedObject, id: ObjectID, entity: Entity) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let table = entity.table
        let keyColumns = Set(table.keyColumnIndexes)
        for (index, column) in table.columns.enumerated() {
            let value = object.edits[index]?.value
            if value != nil, !column.isWritable {
                failures.append(failure(id, entity, index, .readOnlyField, value))
                continue
            }
            guard column.isWritable else { continue }
            let autoAssigned = table.primaryKey == .rowidAlias(column: column.name)
            let needsValue = (column.isNotNull || (keyColumns.contains(index) && !autoAssigned)) && !autoAssigned
            if needsValue, value == nil ? column.defaultSQL == nil : value!.isNull {
                failures.append(failure(id, entity, index, .notNull, nil))
                continue
            }
            if let value {
                failures += check(value, field: index, id: id, entity: entity)
            } else if entity.rules[index]?.contains(.required) == true, column.defaultSQL == nil {
                failures.append(failure(id, entity, index, .required, nil))
            }
        }
        for field in entity.columnCount..<entity.fieldNames.count {
            failures += rules(object.value(field, entity: entity), field: field, id: id, entity: entity)
        }
        return failures
    }

    static func validateUpdate(_ object: ManagedObject, id: ObjectID, entity: Entity) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        let keyColumns = Set(entity.table.keyColumnIndexes)
        for field in object.edits.keys.sorted() where object.isChanged(field) {
            let value = object.edits[field]!.value
            guard entity.isPersistent(field) else {
                failures += rules(value, field: field, id: id, entity: entity)
                continue
            }
            let column = entity.table.columns[field]
            if !column.isWritable || keyColumns.contains(field) {
                failures.append(failure(id, entity, field, .readOnlyField, value))
                continue
            }
            if column.isNotNull, value.isNull {
                failures.append(failure(id, entity, field, .notNull, nil))
                continue
            }
            failures += check(value, field: field, id: id, entity: entity)
        }
        return failures
    }

    /// The failures of writing `value` to `field` of an existing record in a bulk edit: a
    /// field the database owns (a key, a generated column), NULL in a NOT NULL column, the
    /// type, and the field's declared rules.
    static func validateBulkValue(_ value: Value, field: Int, id: ObjectID, entity: Entity) -> [ValidationFailure] {
        let column = entity.table.columns[field]
        if !column.isWritable || entity.table.keyColumnIndexes.contains(field) {
            return [failure(id, entity, field, .readOnlyField, value)]
        }
        if column.isNotNull, value.isNull { return [failure(id, entity, field, .notNull, nil)] }
        if value.isNull { return entity.rules[field]?.contains(.required) == true ? [failure(id, entity, field, .required, nil)] : [] }
        return check(value, field: field, id: id, entity: entity)
    }

    private static func check(_ value: Value, field: Int, id: ObjectID, entity: Entity) -> [ValidationFailure] {
        if case .real(let double) = value, double.isNaN {
            return [failure(id, entity, field, .notANumber, value)]
        }
        let affinity = entity.table.columns[field].affinity
        if !affinity.accepts(value) {
            return [failure(id, entity, field, .type(affinity), value)]
        }
        return rules(value, field: field, id: id, entity: entity)
    }

    private static func rules(_ value: Value, field: Int, id: ObjectID, entity: Entity) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for rule in entity.rules[field] ?? [] {
            switch rule {
            case .required:
                if value.isEmpty { failures.append(failure(id, entity, field, .required, nil)) }
            case .length(let min, let max):
                guard case .text(let text) = value else { continue }
                let count = text.count
                if let min, count < min { failures.append(failure(id, entity, field, .length(min: min, max: max), value)) }
                else if let max, count > max { failures.append(failure(id, entity, field, .length(min: min, max: max), value)) }
            case .range(let min, let max):
                let number: Double?
                switch value {
                case .integer(let int): number = Double(int)
                case .real(let double): number = double
                case .text(let text), .decimal(let text): number = Double(text.trimmingCharacters(in: .whitespaces))
                case .boolean(let flag): number = flag ? 1 : 0
                default: number = nil
                }
                guard let number else { continue }
                if let min, number < min { failures.append(failure(id, entity, field, .range(min: min, max: max), value)) }
                else if let max, number > max { failures.append(failure(id, entity, field, .range(min: min, max: max), value)) }
            }
        }
        return failures
    }

    private static func failure(_ id: ObjectID, _ entity: Entity, _ field: Int, _ rule: ValidationFailure.Rule, _ value: Value?) -> ValidationFailure {
        ValidationFailure(objectID: id, field: entity.fieldNames[field], rule: rule, value: value)
    }
}
