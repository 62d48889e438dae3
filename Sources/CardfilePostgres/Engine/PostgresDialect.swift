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
    package var importsCopyText: Bool { true }
    package var deferForeignKeys: (sql: String, every: Bool) { ("SET CONSTRAINTS ALL DEFERRED", false) }
    package var keepingNumberedValues: String { " OVERRIDING SYSTEM VALUE" }
    package var groupsRowWrites: Bool { true }
    package var ordersAsSwiftDoes: Bool { false }
    package var nameBytes: Int? { 63 }
    package var indexCatalog: (ledBy: String, nameTaken: String)? {
        let ledBy = """
            SELECT i.relname::text FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
              JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
             WHERE x.indrelid = ?::regclass AND a.attname = ? ORDER BY 1
            """
        return (ledBy, "SELECT 1 FROM pg_class WHERE relname = ? AND relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = ?::regclass)")
    }
    /// The transaction's own statistics, which count what foreign keys' actions and triggers
    /// did too, as it goes. A partition's rows count as its partitioned table's; each table is
    /// named as a ``TableSchema/quotedName`` is (schema and name, quoted), then as shown.
    package var transactionRowCounts: String? {
        """
        SELECT '"' || replace(n.nspname, '"', '""') || '"."' || replace(c.relname, '"', '""') || '"',
               n.nspname || '.' || c.relname, sum(s.n_tup_del)::int8, sum(s.n_tup_upd)::int8
        FROM pg_catalog.pg_stat_xact_user_tables s
        JOIN pg_catalog.pg_class c ON c.oid = coalesce(pg_partition_root(s.relid), s.relid)
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE s.n_tup_del > 0 OR s.n_tup_upd > 0
        GROUP BY 1, 2
        """
    }

    /// The types with no ordering (and, but for `xml`'s text, no equality) of their own.
    static let unorderedTypes: Set<String> = ["json", "xml", "point", "line", "lseg", "box", "path", "polygon", "circle"]
    /// The types of text, whose values have a length.
    static let textTypes: Set<String> = ["text", "character varying", "bpchar", "character", "name", "citext"]

    /// An array of such a type has none either; a composite type's may fail on a member
    /// (``ColumnDescription/comparesAsText``).
    package func comparable(_ name: String, column: ColumnDescription) -> String {
        var type = Substring(column.declaredType)
        while type.hasSuffix("[]") { type = type.dropLast(2) }
        return Self.unorderedTypes.contains(String(type)) || column.comparesAsText ? "(\(name))::text" : name
    }

    /// None: `min` and `max` exist for some types only (not for a `uuid`, a `boolean`, bytes).
    package func extremeAggregates(_ name: String, column: ColumnDescription) -> (least: String, greatest: String)? { nil }

    package func holdsText(_ name: String, column: ColumnDescription) -> String? {
        Self.textTypes.contains(column.declaredType) ? "\(name) IS NOT NULL" : nil
    }

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

    /// Each term read from the array's elements and cast to its column's type (the
    /// comparison would otherwise be with `jsonb` or text). nil for a term of no column.
    package func keyInJSON(_ expressions: [String], columns: [ColumnDescription?]) -> String? {
        var types: [String] = []
        for column in columns {
            guard let column else { return nil }
            types.append(column.declaredType)
        }
        guard types.count == expressions.count, !types.isEmpty else { return nil }
        if expressions.count == 1 {
            return "\(expressions[0]) IN (SELECT element::\(types[0]) FROM jsonb_array_elements_text(?::jsonb) AS element)"
        }
        let parts = types.enumerated().map { "(element ->> \($0.offset))::\($0.element)" }.joined(separator: ", ")
        return "(\(expressions.joined(separator: ", "))) IN (SELECT \(parts) FROM jsonb_array_elements(?::jsonb) AS element)"
    }

    /// By the column's type: a number column's values are all numbers. The sum is exact
    /// (`numeric`, for integers) where the type's `sum` is, and said as an integer when whole
    /// and within 64 bits.
    package func numberMeasures(_ name: String, column: ColumnDescription) -> NumberMeasures {
        guard [.integer, .real, .numeric].contains(column.affinity) else {
            return NumberMeasures(terms: []) { _ in (0, .null, nil) }
        }
        return NumberMeasures(terms: ["count(\(name))", "sum(\(name))", "avg(\(name))::float8"]) { values in
            guard values.count >= 3, let numbers = values.first?.wholeNumber, numbers > 0 else { return (0, .null, nil) }
            var sum = values[values.startIndex + 1]
            if case .decimal(let text) = sum, let whole = Int64(text) { sum = .integer(whole) }
            return (numbers, sum, values[values.startIndex + 2].doubleValue)
        }
    }

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
