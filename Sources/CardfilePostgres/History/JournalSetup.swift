/// The history journal on a PostgreSQL server, which `cardfile pg-setup` installs beside the
/// triggers that announce changes (see ``NotifySetup``): two tables and a function in the
/// `cardfile` schema, shared by everyone who edits the database with Cardfile.
///
/// - `history_entry`: one row per write transaction of Cardfile's (a form's save, a bulk edit,
///   an import's batch, a statement of the SQL screen, an undo or redo), with its time, its
///   author (`session_user`), what made it and how many records it changed.
/// - `history_change`: one row per record changed, with its entry, its table (by object id,
///   a partition's changes as its partitioned table's), its key (for finding a record's
///   versions) and the row before and after, as `to_json` gives them (a `json` column's
///   text kept as it was; read back, typed, by `json_populate_record`). Deleting an entry is its deleter's to finish (no foreign key:
///   a save would pay for its check).
///
/// The changes are recorded by the same statement-level triggers that announce them, with
/// their transition tables, and only in transactions of Cardfile's: those on a connection
/// that set `cardfile.capture` (the most records one change keeps) or that began with
/// ``beginFunction``. Other writers (psql, the team's programs) pay for one `current_setting`
/// a statement. A change of more records than the limit is listed without them, as is an
/// import whose batches together pass it.
///
/// The rows of `history_change` are readable only by those who may read their table (row
/// security), so the journal shows nobody a value their rights hide.
enum JournalSetup {
    /// The journal's tables, in the `cardfile` schema.
    static let tables = ["history_entry", "history_change", "history_settings"]

    /// The layout's tables, made when missing (idempotent), and who may do what with them:
    /// - nobody but their owner writes them: the functions that do (the triggers', `history_begin`,
    ///   `history_prune`) run as their owner (`SECURITY DEFINER`), so no role can forge an
    ///   entry for another's undo to write;
    /// - a role reads the changes of the tables it may read, and the entries that are its own
    ///   or touch such a table (row security);
    /// - an entry is appended to only in the transaction that made it (`txid`).
    static let tablesSQL = [
        """
        CREATE TABLE IF NOT EXISTS "\(NotifySetup.schema)".history_entry(
            id bigserial PRIMARY KEY,
            txid bigint NOT NULL DEFAULT txid_current(),
            time timestamptz NOT NULL DEFAULT clock_timestamp(),
            author text NOT NULL DEFAULT session_user,
            source text NOT NULL DEFAULT 'form',
            grp text,
            undoes bigint[],
            undone boolean NOT NULL DEFAULT false,
            complete boolean NOT NULL DEFAULT true,
            records bigint NOT NULL DEFAULT 0,
            relids oid[] NOT NULL DEFAULT '{}')
        """,
        "CREATE INDEX IF NOT EXISTS history_entry_grp ON \"\(NotifySetup.schema)\".history_entry(grp) WHERE grp IS NOT NULL",
        "CREATE INDEX IF NOT EXISTS history_entry_relids ON \"\(NotifySetup.schema)\".history_entry USING gin(relids)",
        """
        CREATE TABLE IF NOT EXISTS "\(NotifySetup.schema)".history_change(
            id bigserial PRIMARY KEY,
            entry bigint NOT NULL,
            relid oid NOT NULL,
            op text NOT NULL,
            rkey jsonb NOT NULL,
            old json,
            new json)
        """,
        """
        CREATE TABLE IF NOT EXISTS "\(NotifySetup.schema)".history_settings(
            capacity bigint NOT NULL DEFAULT 67108864, only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row))
        """,
        "INSERT INTO \"\(NotifySetup.schema)\".history_settings DEFAULT VALUES ON CONFLICT DO NOTHING",
        "REVOKE ALL ON \"\(NotifySetup.schema)\".history_settings FROM PUBLIC",
        "GRANT SELECT ON \"\(NotifySetup.schema)\".history_settings TO PUBLIC",
        "CREATE INDEX IF NOT EXISTS history_change_record ON \"\(NotifySetup.schema)\".history_change(relid, rkey)",
        "CREATE INDEX IF NOT EXISTS history_change_entry ON \"\(NotifySetup.schema)\".history_change(entry)",
        "REVOKE ALL ON \"\(NotifySetup.schema)\".history_entry, \"\(NotifySetup.schema)\".history_change FROM PUBLIC",
        "GRANT SELECT ON \"\(NotifySetup.schema)\".history_entry, \"\(NotifySetup.schema)\".history_change TO PUBLIC",
        "ALTER TABLE \"\(NotifySetup.schema)\".history_change ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS readers ON \"\(NotifySetup.schema)\".history_change",
        "CREATE POLICY readers ON \"\(NotifySetup.schema)\".history_change FOR SELECT USING (pg_catalog.has_table_privilege(relid, 'SELECT'))",
        "ALTER TABLE \"\(NotifySetup.schema)\".history_entry ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS readers ON \"\(NotifySetup.schema)\".history_entry",
        """
        CREATE POLICY readers ON "\(NotifySetup.schema)".history_entry FOR SELECT
            USING (author = session_user OR EXISTS (SELECT 1 FROM unnest(relids) AS r WHERE pg_catalog.has_table_privilege(r, 'SELECT')))
        """,
    ]

    /// `cardfile.history_prune()`: drops the oldest entries, with their changes, while the
    /// changes kept take more than the capacity in `history_settings` (64 MiB unless the
    /// journal's owner sets another) as stored; an import's batches go together (half an
    /// import is not something to undo). Changes left without their entry go too. As the
    /// journal's owner (it sees every table's changes, whoever asks), and with no argument:
    /// whoever calls it, it only ever keeps the journal within what its owner set.
    static let pruneFunctionSQL = """
        CREATE OR REPLACE FUNCTION "\(NotifySetup.schema)".history_prune() RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        AS $function$
        DECLARE
            limit_bytes bigint;
            cut bigint;
            dropped bigint;
        BEGIN
            SELECT capacity INTO limit_bytes FROM "\(NotifySetup.schema)".history_settings;
            IF limit_bytes IS NULL OR pg_total_relation_size('"\(NotifySetup.schema)".history_change') <= limit_bytes THEN
                RETURN 0;
            END IF;
            SELECT max(entry) INTO cut FROM (
                SELECT entry, sum(sum(coalesce(pg_column_size(old), 0) + coalesce(pg_column_size(new), 0))) OVER (ORDER BY entry DESC) AS newer
                  FROM "\(NotifySetup.schema)".history_change GROUP BY entry) s
             WHERE newer > limit_bytes;
            IF cut IS NULL THEN
                RETURN 0;
            END IF;
            WITH gone AS (
                DELETE FROM "\(NotifySetup.schema)".history_entry e
                 WHERE e.id <= cut OR e.grp IN (SELECT grp FROM "\(NotifySetup.schema)".history_entry WHERE id <= cut AND grp IS NOT NULL)
                RETURNING e.id)
            SELECT count(*) INTO dropped FROM gone;
            DELETE FROM "\(NotifySetup.schema)".history_change c WHERE NOT EXISTS (SELECT 1 FROM "\(NotifySetup.schema)".history_entry e WHERE e.id = c.entry);
            RETURN dropped;
        END
        $function$
        """

    /// `cardfile.history_keep(relids, changed, ops, keys, olds, news)`: the owner's one
    /// function the trigger function calls, with values it has already made (so no code of a
    /// table's owner, a cast or an output function, ever runs with the journal owner's
    /// rights). It writes only the entry of its caller's own transaction, in its caller's
    /// name, for a table its caller may write:
    /// - the changes, when they may be kept;
    /// - else (no changes given: a TRUNCATE, or more than the records one change keeps; a
    ///   table with row security; past `cardfile.capture`) the entry listed without records,
    ///   its `changed` records counted.
    ///
    /// (One call a statement: a save with the journal cost 1.63 times a plain UPDATE with
    /// the triggers when it took two, each switching rights and search path.)
    static let keepFunctionSQL = """
        CREATE OR REPLACE FUNCTION "\(NotifySetup.schema)".history_keep(p_relids oid[], p_changed bigint, p_ops text[], p_keys jsonb[], p_olds json[], p_news json[])
        RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        AS $function$
        DECLARE
            entry_id bigint := nullif(current_setting('cardfile.entry', true), '')::bigint;
            root oid := p_relids[1];
            kept bigint := 0;
            keeping boolean := true;
            found_entry boolean;
            given bigint := coalesce(cardinality(p_ops), 0);
            row_limit bigint := CASE WHEN current_setting('cardfile.capture', true) ~ '^[0-9]+$'
                                     THEN current_setting('cardfile.capture', true)::bigint ELSE 0 END;
        BEGIN
            IF NOT has_table_privilege(session_user, root, 'INSERT, UPDATE, DELETE, TRUNCATE') THEN
                RETURN;
            END IF;
            found_entry := false;
            IF entry_id IS NOT NULL THEN
                SELECT records, complete INTO kept, keeping FROM "\(NotifySetup.schema)".history_entry
                 WHERE id = entry_id AND txid = txid_current() AND author = session_user;
                found_entry := FOUND;
            END IF;
            IF NOT found_entry THEN
                -- (A setting naming another transaction's entry, or another's: one of its own.)
                entry_id := NULL;
                kept := 0;
                keeping := true;
            END IF;
            IF keeping AND (p_ops IS NULL OR kept + given > row_limit
                            OR EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE oid = ANY(p_relids) AND relrowsecurity)) THEN
                keeping := false;
                IF found_entry THEN
                    DELETE FROM "\(NotifySetup.schema)".history_change WHERE entry = entry_id;
                END IF;
            END IF;
            IF keeping THEN
                IF NOT found_entry THEN
                    entry_id := nextval('"\(NotifySetup.schema)".history_entry_id_seq');
                END IF;
                INSERT INTO "\(NotifySetup.schema)".history_change(entry, relid, op, rkey, old, new)
                SELECT entry_id, root, u.op, u.rkey, u.old, u.new FROM unnest(p_ops, p_keys, p_olds, p_news) AS u(op, rkey, old, new);
            ELSE
                given := greatest(p_changed, given);
            END IF;
            IF found_entry THEN
                UPDATE "\(NotifySetup.schema)".history_entry
                   SET records = records + given, complete = keeping,
                       relids = CASE WHEN root = ANY(relids) THEN relids ELSE relids || root END
                 WHERE id = entry_id;
            ELSE
                INSERT INTO "\(NotifySetup.schema)".history_entry(id, records, complete, relids)
                    VALUES (coalesce(entry_id, nextval('"\(NotifySetup.schema)".history_entry_id_seq')), given, keeping, ARRAY[root])
                    RETURNING id INTO entry_id;
                PERFORM set_config('cardfile.entry', entry_id::text, true);
            END IF;
        END
        $function$
        """

    /// `cardfile.history_begin(source, grp, undoes, undone, row_limit)`: called first in a
    /// transaction that is not a form's save, it names the transaction's entry (the triggers
    /// then add the changes to it), marks the entries an undo undoes (`undone` true) or a
    /// redo writes again (false), and says how many records may still be kept: an import's
    /// batches share `row_limit` through their group, and a group past it is kept without
    /// records from then on (its kept batches are emptied: half an import cannot be undone).
    /// Returns the entry's id.
    static let beginFunctionSQL = """
        CREATE OR REPLACE FUNCTION "\(NotifySetup.schema)".history_begin(p_source text, p_group text, p_undoes bigint[], p_undone boolean, p_limit bigint)
        RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, pg_temp
        AS $function$
        DECLARE
            entry_id bigint;
            kept_before bigint := 0;
            keeping boolean := true;
        BEGIN
            IF p_undoes IS NOT NULL THEN
                UPDATE "\(NotifySetup.schema)".history_entry SET undone = p_undone WHERE id = ANY(p_undoes) AND author = session_user;
            END IF;
            IF p_group IS NOT NULL THEN
                SELECT coalesce(sum(records), 0), coalesce(bool_and(complete), true) INTO kept_before, keeping
                  FROM "\(NotifySetup.schema)".history_entry WHERE grp = p_group AND author = session_user;
                IF NOT keeping OR kept_before >= p_limit THEN
                    keeping := false;
                    DELETE FROM "\(NotifySetup.schema)".history_change
                     WHERE entry IN (SELECT id FROM "\(NotifySetup.schema)".history_entry WHERE grp = p_group AND author = session_user);
                    UPDATE "\(NotifySetup.schema)".history_entry SET complete = false WHERE grp = p_group AND author = session_user AND complete;
                END IF;
            END IF;
            INSERT INTO "\(NotifySetup.schema)".history_entry(source, grp, undoes, complete)
                VALUES (p_source, p_group, p_undoes, keeping) RETURNING id INTO entry_id;
            PERFORM set_config('cardfile.entry', entry_id::text, true);
            PERFORM set_config('cardfile.capture', (CASE WHEN keeping THEN greatest(p_limit - kept_before, 0) ELSE 0 END)::text, true);
            RETURN entry_id;
        END
        $function$
        """

    /// `cardfile.history_key(value)`: a key's part as the triggers keep it, `to_jsonb` under
    /// the triggers' fixed settings, so a reader finds a record's versions whatever its own
    /// session's time zone or interval style.
    static let keyFunctionSQL = """
        CREATE OR REPLACE FUNCTION "\(NotifySetup.schema)".history_key(anyelement) RETURNS jsonb
        LANGUAGE sql STABLE
        \(NotifySetup.keySettings.map { "SET \($0.0) = '\($0.1)'" }.joined(separator: " "))
        AS $function$ SELECT to_jsonb($1) $function$
        """

    /// The part of the trigger function that records a statement's changes (inside its
    /// `BEGIN … END`), as the writer: it makes each row's `to_json` and key (a table's own
    /// casts and output functions run with the writer's rights, never the journal owner's),
    /// and hands them to `history_keep` (see ``keepFunctionSQL``). A failure here never fails the person's write: the entry
    /// is marked not whole instead.
    ///
    /// A key of one column (the most common) is made without a subquery: `:set` on 100,000
    /// records took 2.49 s with one for every key.
    static let captureBlock = """
            IF coalesce(current_setting('cardfile.entry', true), '') <> ''
               OR coalesce(current_setting('cardfile.capture', true), '') <> '' THEN
                BEGIN
                    row_limit := CASE WHEN current_setting('cardfile.capture', true) ~ '^[0-9]+$'
                                      THEN current_setting('cardfile.capture', true)::bigint ELSE 0 END;
                    IF TG_OP = 'TRUNCATE' OR TG_NARGS = 0 THEN
                        PERFORM "\(NotifySetup.schema)".history_keep(ARRAY[root_id, TG_RELID], 0, NULL, NULL, NULL, NULL);
                    ELSE
                        -- (At most one row past the limit is made: past it, none is kept.)
                        IF TG_OP = 'INSERT' THEN
                            SELECT array_agg('insert'::text), array_agg(CASE WHEN TG_NARGS = 1 THEN jsonb_build_array(n.j -> TG_ARGV[0]) ELSE (SELECT jsonb_agg(n.j -> x.k ORDER BY x.o) FROM unnest(TG_ARGV) WITH ORDINALITY AS x(k, o)) END), array_agg(NULL::json), array_agg(n.j)
                              INTO cap_ops, cap_keys, cap_olds, cap_news
                              FROM (SELECT to_json(r) AS j FROM cardfile_new r LIMIT row_limit + 1) n;
                        ELSIF TG_OP = 'DELETE' THEN
                            SELECT array_agg('delete'::text), array_agg(CASE WHEN TG_NARGS = 1 THEN jsonb_build_array(o.j -> TG_ARGV[0]) ELSE (SELECT jsonb_agg(o.j -> x.k ORDER BY x.o) FROM unnest(TG_ARGV) WITH ORDINALITY AS x(k, o)) END), array_agg(o.j), array_agg(NULL::json)
                              INTO cap_ops, cap_keys, cap_olds, cap_news
                              FROM (SELECT to_json(r) AS j FROM cardfile_old r LIMIT row_limit + 1) o;
                        ELSE
                            -- Rows paired by key; a key changed is a delete and an insert, a
                            -- row written with its own values no change at all.
                            SELECT array_agg(c.op), array_agg(c.k), array_agg(c.oj), array_agg(c.nj)
                              INTO cap_ops, cap_keys, cap_olds, cap_news
                              FROM (SELECT CASE WHEN a.k IS NULL THEN 'insert' WHEN b.k IS NULL THEN 'delete' ELSE 'update' END AS op,
                                           coalesce(a.k, b.k) AS k, a.j AS oj, b.j AS nj
                                      FROM (SELECT o.j, CASE WHEN TG_NARGS = 1 THEN jsonb_build_array(o.j -> TG_ARGV[0]) ELSE (SELECT jsonb_agg(o.j -> x.k ORDER BY x.o) FROM unnest(TG_ARGV) WITH ORDINALITY AS x(k, o)) END AS k FROM (SELECT to_json(r) AS j FROM cardfile_old r) o) a
                                      FULL JOIN (SELECT n.j, CASE WHEN TG_NARGS = 1 THEN jsonb_build_array(n.j -> TG_ARGV[0]) ELSE (SELECT jsonb_agg(n.j -> x.k ORDER BY x.o) FROM unnest(TG_ARGV) WITH ORDINALITY AS x(k, o)) END AS k FROM (SELECT to_json(r) AS j FROM cardfile_new r) n) b ON a.k = b.k
                                     WHERE a.j::text IS DISTINCT FROM b.j::text
                                     LIMIT row_limit + 1) c;
                        END IF;
                        changed := coalesce(cardinality(cap_ops), 0);
                        IF changed > row_limit THEN
                            -- Too many to keep: counted, none handed over.
                            IF TG_OP = 'DELETE' THEN
                                SELECT count(*) INTO changed FROM cardfile_old;
                            ELSE
                                SELECT count(*) INTO changed FROM cardfile_new;
                            END IF;
                            cap_ops := NULL;
                        END IF;
                        IF changed > 0 THEN
                            PERFORM "\(NotifySetup.schema)".history_keep(ARRAY[root_id, TG_RELID], changed, cap_ops, cap_keys, cap_olds, cap_news);
                        END IF;
                    END IF;
                EXCEPTION WHEN OTHERS THEN
                    BEGIN
                        RAISE WARNING 'cardfile history not kept: %', SQLERRM;
                        PERFORM "\(NotifySetup.schema)".history_keep(ARRAY[root_id, TG_RELID], 0, NULL, NULL, NULL, NULL);
                    EXCEPTION WHEN OTHERS THEN
                        NULL;
                    END;
                END;
            END IF;
        """
}
