import CardfileStore

/// A form field whose column references another table (a one-column foreign key): where it
/// points, and how the referenced record is named beside the value.
struct Reference: Sendable {
    /// The field (column) of this table.
    let field: String
    /// The referenced table.
    let parent: TableSchema
    /// The referenced column (the parent's primary key when the schema names none).
    let parentColumn: String

    /// The references of `table`'s fields, by field name. Foreign keys over several columns are
    /// left out: a field alone does not name their record.
    static func all(of table: TableSchema, in schema: DatabaseSchema) -> [String: Reference] {
        var found: [String: Reference] = [:]
        for key in table.foreignKeys where key.columns.count == 1 {
            guard let parent = schema.table(named: key.parentTable) else { continue }
            let keyColumns = parent.primaryKey.columnNames
            guard let column = key.parentColumns.first.flatMap({ $0 }) ?? (keyColumns.count == 1 ? keyColumns[0] : nil) else { continue }
            found[key.columns[0]] = Reference(field: key.columns[0], parent: parent, parentColumn: column)
        }
        return found
    }

    /// What the field shows beside its value.
    enum Label: Equatable, Sendable {
        /// The referenced record, named by its first text column (or its key).
        case found(String, ObjectID)
        /// No referenced record has this value.
        case missing(String)
    }

    /// The referenced record for `value` as `context` sees it (its pending changes included);
    /// nil for NULL, which references nothing.
    func label(for value: Value, in context: ObjectContext) -> Label? {
        guard !value.isNull else { return nil }
        let request = FetchRequest(table: parent.name, predicate: .compare(parentColumn, .equal, value), limit: 1)
        guard let record = try? context.fetch(request).first else {
            return .missing("no \(parent.name) row with \(parentColumn) \(ValueText.quoted(value))")
        }
        let keys = Set(parent.primaryKey.columnNames.map { $0.lowercased() })
        let naming = parent.columns.first { $0.affinity == .text && !keys.contains($0.name.lowercased()) && !$0.isHidden }
        let name = naming.flatMap { record[$0.name] }.flatMap { $0.isNull ? nil : ValueText.cell($0) }
        return .found(name ?? ValueText.cell(value), record.id)
    }

    /// The filter (in the list's filter language) that lists the records whose `field` holds
    /// `value`: the other side of the relation.
    static func filter(field: String, value: Value) -> String {
        let name = field.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? field : "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        switch value {
        case .integer, .real: return "\(name) = \(value.description)"
        default: return "\(name) = '\(ValueText.editable(value).replacingOccurrences(of: "'", with: "''"))'"
        }
    }
}
