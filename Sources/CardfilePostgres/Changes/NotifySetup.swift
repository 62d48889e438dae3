import PostgresNIO

/// `cardfile pg-setup`: the triggers that make a table announce its changes, so editors showing
/// it refresh at once (`live: notify`) instead of polling.
///
/// Each table gets four statement-level triggers (insert, update, delete, truncate), which call
/// one function, `cardfile.notify_change()`, in a schema of its own. At commit the server sends
/// one notification per statement on the channel ``channel``: the table, and the keys of the
/// records changed (their text, as `::text` prints them), or no keys when more than
/// ``keyLimit`` records changed or the keys would not fit in the notification. A statement
/// costs the table one scan of at most `keyLimit + 1` changed rows, however many it changed.
///
/// A partitioned table's partitions get the triggers too (a statement aimed at a partition fires
/// only the partition's), and announce their changes as the partitioned table's. Run it again
/// after adding tables or partitions: installing is idempotent, also when another role runs it
/// (the schema and function are made only when missing or older), and `remove` takes it away.
///
/// The function runs with fixed settings (UTC, ISO dates, all float digits, the catalog's
/// search path), so a key prints the same whoever's session changed it; a reader comparing
/// keys reads them with the same settings.
public struct NotifySetup: Sendable {
    /// The channel every notification goes on.
    public static let channel = "cardfile_changes"
    /// The schema holding the function.
    public static let schema = "cardfile"
    /// More changed records than this in one statement are announced as "many" (the editor then
    /// reads its window again).
    public static let keyLimit = 100

    /// What the setup needs of the user, for the messages that say it.
    public static let rightsNeeded = "pg-setup needs, the first time on a database, CREATE on it (for the schema cardfile); then to own each table (replacing a trigger is its owner's right)"

    /// The settings under which keys are printed, as `SET` clauses of the function. A reader
    /// that matches announced keys with its own sets the same.
    public static let keySettings: [(String, String)] = [
        ("TimeZone", "UTC"), ("DateStyle", "ISO, YMD"), ("IntervalStyle", "postgres"), ("extra_float_digits", "3"),
    ]

    /// Marks the function's version in its body: a setup finding an older one replaces it.
    static let version = "cardfile notify_change version 6"

    public let session: PostgresSession

    public init(session: PostgresSession) {
        self.session = session
    }

    /// What happened to one table.
    public enum Outcome: Sendable, Equatable {
        case installed
        case removed
        /// Not set up, and why (a view, no primary key); the editor polls it.
        case skipped(String)
        /// The server refused (most often: the user does not own the table).
        case failed(PostgresProblem)
    }

    /// Installs the function (when missing or older) and each table's triggers.
    public func install(_ tables: [PostgresTableDescription]) throws(PostgresProblem) -> [(PostgresRelation, Outcome)] {
        try installFunction()
        return tables.map { table in
            if let reason = Self.reasonToSkip(table) { return (table.relation, .skipped(reason)) }
            do throws(PostgresProblem) {
                let targets = [table.relation.quotedName] + (try partitions(of: table.relation))
                try session.run("BEGIN")
                for target in targets {
                    for statement in Self.triggerStatements(on: target, key: table.primaryKey) {
                        try session.run(PostgresQuery(unsafeSQL: statement))
                    }
                }
                try session.run("COMMIT")
                return (table.relation, .installed)
            } catch {
                try? session.run("ROLLBACK")
                return (table.relation, .failed(error))
            }
        }
    }

    /// Drops each table's triggers; with `everything`, also the functions (and with them the
    /// triggers of every other table), the history journal's tables, and then the schema,
    /// only if nothing else is in it: a
    /// schema named `cardfile` that holds a person's own tables is never dropped with them.
    /// Returns whether the schema went.
    @discardableResult
    public func remove(_ relations: [PostgresRelation], everything: Bool) throws(PostgresProblem) -> (outcomes: [(PostgresRelation, Outcome)], schemaDropped: Bool) {
        let outcomes = relations.map { relation in
            do throws(PostgresProblem) {
                for target in [relation.quotedName] + (try partitions(of: relation)) {
                    for event in Self.events {
                        try session.run(PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(Self.triggerName(event)) ON \(target)"))
                    }
                }
                return (relation, Outcome.removed)
            } catch {
                return (relation, .failed(error))
            }
        }
        guard everything else { return (outcomes, false) }
        let schema = PostgresName.quoted(Self.schema)
        try session.run(PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(schema).notify_change() CASCADE"))
        // The history journal goes too: everything Cardfile put in the database.
        try session.run(PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(schema).history_begin(text, text, bigint[], boolean, bigint)"))
        try session.run(PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(schema).history_key(anyelement)"))
        try session.run(PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(schema).history_prune()"))
        try session.run(PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(schema).history_keep(oid[], bigint, text[], jsonb[], json[], json[])"))
        for table in JournalSetup.tables.reversed() {
            try session.run(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(schema).\(PostgresName.quoted(table))"))
        }
        do {
            try session.run(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema)"))   // no CASCADE
            return (outcomes, true)
        } catch .refused(_, _, "2BP01") {
            return (outcomes, false)   // other objects depend on it: theirs, kept
        }
    }

    /// The object ids of the search path's tables (and of `others`) whose changes are
    /// announced: all four triggers on the table and, for a partitioned one, on each of its
    /// partitions.
    public func announcedTables(also others: [Int64] = []) throws(PostgresProblem) -> Set<Int64> {
        // (Only the search path's tables and `others`, the partition tree only of a
        // partitioned one: on a new connection, every relation the query opens is read into
        // its caches first, and asking about every table of the catalog took 127 ms of each
        // start. And planned cheap: a form whose estimate passed `jit_above_cost` was
        // compiled by the server's JIT at each start, 36 ms.)
        func triggers(of relation: String) -> String {
            "(SELECT count(*) FROM pg_catalog.pg_trigger g WHERE g.tgrelid = \(relation) AND g.tgname LIKE 'cardfile_notify_%' AND NOT g.tgisinternal)"
        }
        let rows = try session.rows(PostgresQuery(unsafeSQL: """
            SELECT c.oid::int8 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
              AND (ns.nspname = ANY (current_schemas(false)) OR c.oid = ANY ('{\(others.map(String.init).joined(separator: ","))}'::oid[]))
              AND \(triggers(of: "c.oid")) = \(Self.events.count)
              AND (c.relkind = 'r' OR NOT EXISTS (
                    SELECT 1 FROM pg_catalog.pg_partition_tree(c.oid) t
                     WHERE t.relid <> c.oid AND \(triggers(of: "t.relid")) <> \(Self.events.count)))
            """))
        do {
            return Set(try rows.map { try $0.decode(Int64.self) })
        } catch {
            throw .refused(message: "unexpected answer listing the triggers: \(error)", detail: nil, sqlState: "")
        }
    }

    /// Makes the schema and function when missing or older than this version. Only then does
    /// it need the right to: a role that may add triggers to its tables runs it after another
    /// made them.
    private func installFunction() throws(PostgresProblem) {
        let rows = try session.rows("""
            SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = \(Self.schema)),
                   EXISTS (SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
                           WHERE n.nspname = \(Self.schema) AND p.proname = 'notify_change' AND p.prosrc LIKE '%' || \(Self.version) || '%')
            """)
        let (hasSchema, isCurrent) = (try? rows.first?.decode((Bool, Bool).self)) ?? (false, false)
        if !hasSchema {
            try session.run(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(PostgresName.quoted(Self.schema))"))
            // Every role that adds the triggers to its tables calls the function through it.
            try session.run(PostgresQuery(unsafeSQL: "GRANT USAGE ON SCHEMA \(PostgresName.quoted(Self.schema)) TO PUBLIC"))
        }
        if !isCurrent {
            // (The journal's tables first: the function names them.)
            for statement in JournalSetup.tablesSQL + [JournalSetup.beginFunctionSQL, JournalSetup.pruneFunctionSQL, JournalSetup.keepFunctionSQL,
                                                       JournalSetup.keyFunctionSQL, Self.functionSQL] {
                try session.run(PostgresQuery(unsafeSQL: statement))
            }
        }
    }

    /// The partitions of a partitioned table, at every level, as quoted names; none for others.
    private func partitions(of relation: PostgresRelation) throws(PostgresProblem) -> [String] {
        guard relation.kind == .partitionedTable else { return [] }
        let rows = try session.rows("""
            SELECT format('%I.%I', n.nspname, c.relname)
            FROM pg_partition_tree(\(relation.oid)::oid) t
            JOIN pg_catalog.pg_class c ON c.oid = t.relid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE t.relid <> \(relation.oid)::oid AND c.relkind IN ('r', 'p')
            ORDER BY t.level, c.relname
            """)
        return rows.compactMap { try? $0.decode(String.self) }
    }

    /// Why a table is not set up, or nil when it is.
    static func reasonToSkip(_ table: PostgresTableDescription) -> String? {
        switch table.relation.kind {
        case .view: return "a view (its tables announce their own changes; the editor polls the view)"
        case .materializedView: return "a materialized view (it changes only when refreshed)"
        case .foreignTable: return "a foreign table (its server does not run triggers here)"
        case .table, .partitionedTable: break
        }
        if table.primaryKey.isEmpty { return "no primary key (the editor cannot edit it)" }
        return nil
    }

    static let events = ["insert", "update", "delete", "truncate"]

    static func triggerName(_ event: String) -> String { "cardfile_notify_\(event)" }

    /// Drops and makes again the four triggers on `target` (a quoted name), whose key is `key`
    /// (CREATE OR REPLACE TRIGGER needs PostgreSQL 14; this works from 10 on).
    static func triggerStatements(on target: String, key: [String]) -> [String] {
        let keys = key.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ")
        let function = "\(PostgresName.quoted(schema)).notify_change(\(keys))"
        let transition: [String: String] = [
            "insert": "REFERENCING NEW TABLE AS cardfile_new",
            "update": "REFERENCING OLD TABLE AS cardfile_old NEW TABLE AS cardfile_new",
            "delete": "REFERENCING OLD TABLE AS cardfile_old",
            "truncate": "",
        ]
        return events.flatMap { event in
            [
                "DROP TRIGGER IF EXISTS \(triggerName(event)) ON \(target)",
                "CREATE TRIGGER \(triggerName(event)) AFTER \(event.uppercased()) ON \(target) \(transition[event] ?? "") FOR EACH STATEMENT EXECUTE FUNCTION \(function)",
            ]
        }
    }

    /// The trigger function. Its arguments are the key's columns. The keys of the changed rows
    /// are read as `::text` prints them (what a client reading text gets), at most `keyLimit + 1`
    /// of them; past the limit, or past 7,900 bytes (the server's limit is 8,000), no keys are
    /// sent and the notification means "this table changed".
    static let functionSQL = """
        CREATE OR REPLACE FUNCTION "\(schema)".notify_change() RETURNS trigger
        LANGUAGE plpgsql
        \(keySettings.map { "SET \($0.0) = '\($0.1)'" }.joined(separator: " "))
        SET search_path = pg_catalog, pg_temp
        AS $function$
        -- \(version)
        DECLARE
            key_list text;
            keys jsonb;
            counted bigint := 0;
            found_keys jsonb;
            payload text;
            table_schema text := TG_TABLE_SCHEMA;
            table_name text := TG_TABLE_NAME;
            root_id oid := coalesce(pg_partition_root(TG_RELID), TG_RELID);
            changed bigint;
            row_limit bigint;
            cap_ops text[];
            cap_keys jsonb[];
            cap_olds json[];
            cap_news json[];
        BEGIN
            -- A partition's changes are announced as its partitioned table's.
            SELECT n.nspname, c.relname INTO table_schema, table_name
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE c.oid = root_id;
            IF TG_OP <> 'TRUNCATE' AND TG_NARGS > 0 THEN
                SELECT string_agg(format('r.%I::text', argument), ', ' ORDER BY position)
                  INTO key_list
                  FROM unnest(TG_ARGV) WITH ORDINALITY AS a(argument, position);
                keys := '[]'::jsonb;
                IF TG_OP IN ('INSERT', 'UPDATE') THEN
                    EXECUTE format('SELECT count(*), coalesce(jsonb_agg(k), ''[]'') FROM (SELECT jsonb_build_array(%s) AS k FROM (SELECT * FROM cardfile_new LIMIT %s) r) s',
                                   key_list, \(keyLimit + 1))
                      INTO counted, found_keys;
                    keys := keys || found_keys;
                END IF;
                IF TG_OP IN ('UPDATE', 'DELETE') AND counted <= \(keyLimit) THEN
                    EXECUTE format('SELECT count(*), coalesce(jsonb_agg(k), ''[]'') FROM (SELECT jsonb_build_array(%s) AS k FROM (SELECT * FROM cardfile_old LIMIT %s) r) s',
                                   key_list, \(keyLimit + 1))
                      INTO counted, found_keys;
                    IF TG_OP = 'UPDATE' THEN
                        SELECT coalesce(jsonb_agg(DISTINCT k), '[]') INTO keys
                          FROM jsonb_array_elements(keys || found_keys) AS e(k);
                        counted := jsonb_array_length(keys);
                    ELSE
                        keys := found_keys;
                    END IF;
                END IF;
                IF counted > \(keyLimit) THEN
                    keys := NULL;
                END IF;
            END IF;
            -- Cardfile's own writes are recorded in its history journal (see JournalSetup).
        \(JournalSetup.captureBlock)
            payload := jsonb_build_object('schema', table_schema, 'table', table_name, 'op', lower(TG_OP), 'keys', keys)::text;
            IF octet_length(payload) > 7900 THEN
                payload := jsonb_build_object('schema', table_schema, 'table', table_name, 'op', lower(TG_OP), 'keys', NULL)::text;
            END IF;
            PERFORM pg_notify('\(channel)', payload);
            RETURN NULL;
        END
        $function$
        """
}
