import PostgresNIO

/// Reads what a PostgreSQL database holds from its system catalogs: the tables and views of the
/// search path's schemas, and one table's columns and key.
public struct PostgresCatalog: Sendable {
    public let session: PostgresSession

    public init(session: PostgresSession) {
        self.session = session
    }

    /// The tables and views (ordinary, partitioned, foreign, materialized) of the schemas in the
    /// search path, in the path's order and then by name. Partitions are left out: their
    /// parent shows their rows. Relations this user may not read are left out too, and so is
    /// Cardfile's own history journal (a user named `cardfile` has its schema in the path).
    public func relations() throws(PostgresProblem) -> [PostgresRelation] {
        let rows = try session.rows(PostgresQuery(unsafeSQL: Self.relationColumns + """
            WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
              AND n.nspname = ANY (current_schemas(false))
              AND NOT c.relispartition
              AND has_table_privilege(c.oid, 'SELECT')
              AND NOT (n.nspname = '\(NotifySetup.schema)' AND c.relname IN (\(JournalSetup.tables.map { "'\($0)'" }.joined(separator: ", "))))
            ORDER BY array_position(current_schemas(false), n.nspname), c.relname
            """))
        return try rows.map { row throws(PostgresProblem) in try Self.relation(from: row) }
    }

    /// The schema a new table goes in: the first of the search path, passing over Cardfile's
    /// own `cardfile` schema (a user named `cardfile` has it first, as `$user`) unless it is
    /// the only one; nil when the path names none that exists.
    public func schemaForNewTables() throws(PostgresProblem) -> String? {
        let rows = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT s::text FROM unnest(current_schemas(false)) WITH ORDINALITY AS p(s, n)
            ORDER BY (s = '\(NotifySetup.schema)'), n LIMIT 1
            """))
        do {
            return try rows.first?.decode(String.self)
        } catch {
            throw .refused(message: "unexpected answer reading the search path: \(error)", detail: nil, sqlState: "")
        }
    }

    /// What is read of each relation, for ``relation(from:)``.
    private static let relationColumns = """
        SELECT c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text, c.reltuples::float8,
               pg_table_is_visible(c.oid),
               pg_relation_is_updatable(c.oid, true)::int8,
               has_table_privilege(c.oid, 'INSERT'), has_table_privilege(c.oid, 'UPDATE'),
               has_table_privilege(c.oid, 'DELETE')
        FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace

        """

    /// The relation `name` names: `schema.name` (any schema), or a name the search path
    /// reaches. A plain name is taken as written first (so `Books` finds the table created as
    /// `"Books"`), then as PostgreSQL reads a name (unquoted parts folded to lower case); a
    /// name with a dot or a quote is read as PostgreSQL reads it first (`archive.books` is
    /// schema archive's table books, though public may have a table named "archive.books").
    /// Nil when there is none, or this user may not read it.
    public func relation(named name: String) throws(PostgresProblem) -> PostgresRelation? {
        let qualified = name.contains(".") || name.contains("\"")
        if !qualified, let listed = try listed(name) { return listed }
        if let read = try read(name) { return read }
        return qualified ? try listed(name) : nil
    }

    /// The relation of the search path listed under `name` as written.
    private func listed(_ name: String) throws(PostgresProblem) -> PostgresRelation? {
        try relations().first { $0.displayName == name || "\($0.schema).\($0.name)" == name }
    }

    /// The relation `name` is as PostgreSQL reads a name.
    private func read(_ name: String) throws(PostgresProblem) -> PostgresRelation? {
        let found: [PostgresRow]
        do {
            found = try session.rows("SELECT to_regclass(\(name))::oid::int8")
        } catch .refused(_, _, let state) where state.hasPrefix("42") || state == "0A000" {
            return nil   // not a name PostgreSQL can read (`a.b.c.d`, an unclosed quote, `db.s.t`)
        }
        let oid: Int64?
        do {
            oid = try found.first?.decode(Int64?.self)
        } catch {
            throw .refused(message: "unexpected answer reading \(name): \(error)", detail: nil, sqlState: "")
        }
        guard let oid else { return nil }
        var binds = PostgresBindings()
        binds.append(oid)
        let rows = try session.rows(PostgresQuery(unsafeSQL: Self.relationColumns + """
            WHERE c.oid = $1::oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND has_table_privilege(c.oid, 'SELECT')
            """, binds: binds))
        return try rows.first.map { row throws(PostgresProblem) in try Self.relation(from: row) }
    }

    /// `relation`'s columns in table order and its primary key.
    public func describe(_ relation: PostgresRelation) throws(PostgresProblem) -> PostgresTableDescription {
        // (Always there: every relation given is described.)
        try describe([relation])[relation.oid] ?? PostgresTableDescription(relation: relation, columns: [], primaryKey: [])
    }

    /// Each relation's columns and primary key, by object id, in two statements for all of
    /// them (a pair for each took 1.1 ms a relation at each start: 0.35 s for 300 tables).
    public func describe(_ relations: [PostgresRelation]) throws(PostgresProblem) -> [Int64: PostgresTableDescription] {
        guard !relations.isEmpty else { return [:] }
        let oids = "'{" + relations.map { String($0.oid) }.joined(separator: ",") + "}'::oid[]"
        let columnRows = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT a.attrelid::int8, a.attname::text, format_type(a.atttypid, a.atttypmod), t.typcategory::text, a.attnotnull,
                   pg_get_expr(d.adbin, d.adrelid), a.attidentity::text, a.attgenerated::text,
                   format_type(base.oid, -1), base.oid::int8
            FROM pg_catalog.pg_attribute a
            JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
            -- A domain's base type, through domains over domains.
            CROSS JOIN LATERAL (
                WITH RECURSIVE chain(oid, base, depth) AS (
                    SELECT a.atttypid, t.typbasetype, 0
                    UNION ALL
                    SELECT p.oid, p.typbasetype, chain.depth + 1
                    FROM pg_catalog.pg_type p JOIN chain ON p.oid = chain.base
                    WHERE chain.base <> 0
                )
                SELECT oid FROM chain ORDER BY depth DESC LIMIT 1
            ) AS base
            LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid = ANY (\(oids)) AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attrelid, a.attnum
            """))
        let keyRows = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT i.indrelid::int8, a.attname::text
            FROM pg_catalog.pg_index i
            CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE i.indrelid = ANY (\(oids)) AND i.indisprimary AND k.position <= i.indnkeyatts   -- (not INCLUDE's)
            ORDER BY i.indrelid, k.position
            """))
        var columns: [Int64: [PostgresTableColumn]] = [:]
        var keys: [Int64: [String]] = [:]
        do {
            for row in columnRows {
                let (oid, name, type, category, notNull, defaultExpression, identity, generated, castType, baseType) =
                    try row.decode((Int64, String, String, String, Bool, String?, String, String, String, Int64).self)
                columns[oid, default: []].append(PostgresTableColumn(
                    name: name, typeName: type, category: category.first ?? "U", isNotNull: notNull,
                    defaultExpression: defaultExpression, identity: PostgresTableColumn.Identity(rawValue: identity) ?? .none,
                    isGenerated: generated == "s", castType: castType, kind: PostgresTableColumn.Kind(baseType: baseType)))
            }
            for row in keyRows {
                let (oid, name) = try row.decode((Int64, String).self)
                keys[oid, default: []].append(name)
            }
        } catch {
            throw .refused(message: "unexpected answer describing the tables: \(error)", detail: nil, sqlState: "")
        }
        // (A table may have no columns: `CREATE TABLE t ()`.)
        var described: [Int64: PostgresTableDescription] = [:]
        for relation in relations {
            described[relation.oid] = PostgresTableDescription(relation: relation, columns: columns[relation.oid] ?? [], primaryKey: keys[relation.oid] ?? [])
        }
        return described
    }

    private static func relation(from row: PostgresRow) throws(PostgresProblem) -> PostgresRelation {
        do {
            let (oid, schema, name, kindText, tuples, visible, updatable, insert, update, delete) =
                try row.decode((Int64, String, String, String, Double, Bool, Int64, Bool, Bool, Bool).self)
            let kind = PostgresRelation.Kind(rawValue: kindText) ?? .table
            let hasRows = kind != .view && tuples >= 0
            return PostgresRelation(
                oid: oid, schema: schema, name: name, kind: kind,
                estimatedRows: hasRows ? Int(tuples) : nil, isVisible: visible,
                canInsert: insert && updatable & 8 != 0, canUpdate: update && updatable & 4 != 0,
                canDelete: delete && updatable & 16 != 0)
        } catch {
            throw .refused(message: "unexpected answer listing the tables: \(error)", detail: nil, sqlState: "")
        }
    }
}
