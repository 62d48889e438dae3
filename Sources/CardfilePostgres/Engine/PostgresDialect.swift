import CardfileStore

/// PostgreSQL's SQL for the statements the store builds.
///
/// Values are sent as text of no declared type (see ``PostgresEngineSession``), so the server
/// gives each the type of what it is compared with or assigned to (`"price" > $1` reads `$1`
/// as the column's type); only where nothing gives a value its type does the dialect cast it
/// (``placeholder(for:)``).
package struct PostgresDialect: SQLDialect {
    package init() {}

    package var name: String { "PostgreSQL" }
    package var alwaysTrue: String { "TRUE" }
    package var alwaysFalse: String { "FALSE" }
    package var same: String { "IS NOT DISTINCT FROM" }
    package var unlimited: Value { .null }
    package var lockForWrite: String { " FOR UPDATE" }
    package var storesValuesAsGiven: Bool { false }
    package var typesTextByColumn: Bool { true }

    /// Cast to the column's base type, which ``PostgresTableDescription/tableSchema`` keeps
    /// as the declared type.
    package func placeholder(for column: ColumnDescription) -> String {
        "?::\(column.declaredType)"
    }

    /// NULLs as SQLite orders them: first going up, last going down. PostgreSQL's default is
    /// the other way round, and its planner does not match `ASC NULLS FIRST` with an index
    /// even on a column without NULLs, so a term that cannot be NULL is ordered plainly.
    package func orderTerm(_ expression: String, ascending: Bool, canBeNull: Bool) -> String {
        guard canBeNull else { return "\(expression) \(ascending ? "ASC" : "DESC")" }
        return ascending ? "\(expression) ASC NULLS FIRST" : "\(expression) DESC NULLS LAST"
    }

    /// `ILIKE` on the value's text: any column can be searched, in either case.
    package func containsText(_ expression: String) -> String {
        "\(expression)::text ILIKE ? ESCAPE '\\'"
    }

    /// The value as read: a type read as text is compared as its text (json has no equality
    /// of its own), any other by its own equality.
    package func unchanged(_ name: String, column: ColumnDescription) -> (sql: String, typed: Bool) {
        (Self.binaryTypes.contains(column.declaredType) ? "\(name) IS NOT DISTINCT FROM ?" : "\(name)::text IS NOT DISTINCT FROM ?", false)
    }

    /// On the value's text: `''` compared with a number or a date would be an error.
    package func isEmptyText(_ expression: String) -> String { "\(expression)::text = ''" }

    /// A list of row constructors.
    package func keyTupleIn(_ expressions: [String], count: Int) -> String {
        let tuple = "(" + Array(repeating: "?", count: expressions.count).joined(separator: ", ") + ")"
        return "(\(expressions.joined(separator: ", "))) IN (\(Array(repeating: tuple, count: count).joined(separator: ", ")))"
    }

    /// None yet: keys go one placeholder each (at most 65,535 in one statement).
    package func keyInJSON(_ expressions: [String]) -> String? { nil }

    /// The column as it comes in binary form when ``PostgresEngineSession`` reads that form,
    /// else as the text its type prints. The text is named apart from the column: PostgreSQL
    /// takes a name in `ORDER BY` for an output column first, and would sort the text (an
    /// enum by its label, `{10}` before `{9}`) where the column's own order is meant.
    package func selectExpression(_ column: ColumnDescription) -> String {
        let name = column.name.quotedIdentifier
        return Self.binaryTypes.contains(column.declaredType) ? name : "\(name)::text AS \(("__cf_text_" + column.name).quotedIdentifier)"
    }

    /// The column itself, which `COPY` writes in its type's text (a cast to text first cost a
    /// quarter more), except booleans, written `true`/`false`, and bytes, in `\x` hex whatever
    /// `bytea_output` says (what the import reads back).
    package func exportText(_ column: ColumnDescription) -> (expression: String, bare: Bool)? {
        let name = column.name.quotedIdentifier
        switch column.declaredType {
        case "boolean": return ("CASE WHEN \(name) THEN 'true' WHEN NOT \(name) THEN 'false' END", true)
        // (`chr(92)`, a backslash: a literal one would depend on `standard_conforming_strings`.)
        case "bytea": return ("chr(92) || 'x' || encode(\(name), 'hex')", true)
        default: return (name, [.integer, .real, .numeric].contains(column.affinity))
        }
    }

    /// The base types (as `format_type(oid, -1)` writes them) whose binary form
    /// ``PostgresEngineSession`` reads.
    static let binaryTypes: Set<String> = [
        "smallint", "integer", "bigint", "real", "double precision", "numeric", "boolean", "bytea",
        "text", "character varying", "bpchar", "name", "uuid",
    ]
}
