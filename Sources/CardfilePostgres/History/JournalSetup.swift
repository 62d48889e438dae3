/// The history journal on a PostgreSQL server, which `cardfile pg-setup` installs beside the
/// triggers that announce changes (see ``NotifySetup``): two tables and a function in the
/// `cardfile` schema, shared by everyone who edits the database with Cardfile.
///
/// - `history_entry`: one row per write transaction of Cardfile's (a form's save, a bulk edit,
///   an import's batch, a statement of the SQL screen, an undo or redo), with its time, its
///   author (`session_user`), what made it and how many records it changed.
/// - `history_change`: one row per record changed, with its table (by object id, a
///   partition's changes as its partitioned table's), its key as text (for finding a record's
///   versions) and the row before and after as `to_jsonb` gives them (read back, typed, by
///   `jsonb_populate_record`).
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
    static let tables = ["history_entry", "history_change"]

    /// The layout's tables, made when missing (idempotent); run in the setup's transaction.
    static let tablesSQL = [
        """
        CREATE TABLE IF NOT EXISTS "\(NotifySetup.schema)".history_entry(
            id bigserial PRIMARY KEY,
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
            entry bigint NOT NULL REFERENCES "\(NotifySetup.schema)".history_entry(id) ON DELETE CASCADE,
            relid oid NOT NULL,
            op text NOT NULL,
            rkey jsonb NOT NULL,
            old jsonb,
            new jsonb)
        """,
        "CREATE INDEX IF NOT EXISTS history_change_record ON \"\(NotifySetup.schema)\".history_change(relid, rkey)",
        "CREATE INDEX IF NOT EXISTS history_change_entry ON \"\(NotifySetup.schema)\".history_change(entry)",
        // Every role that edits with Cardfile writes its entries (the triggers run as it).
        "GRANT SELECT, INSERT, UPDATE, DELETE ON \"\(NotifySetup.schema)\".history_entry TO PUBLIC",
        "GRANT SELECT, INSERT, DELETE ON \"\(NotifySetup.schema)\".history_change TO PUBLIC",
        "GRANT USAGE ON ALL SEQUENCES IN SCHEMA \"\(NotifySetup.schema)\" TO PUBLIC",
        // A role sees (and prunes) the changes of the tables it may read, and no others.
        "ALTER TABLE \"\(NotifySetup.schema)\".history_change ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS readers ON \"\(NotifySetup.schema)\".history_change",
        "CREATE POLICY readers ON \"\(NotifySetup.schema)\".history_change FOR SELECT USING (pg_catalog.has_table_privilege(relid, 'SELECT'))",
        "DROP POLICY IF EXISTS writers ON \"\(NotifySetup.schema)\".history_change",
        "CREATE POLICY writers ON \"\(NotifySetup.schema)\".history_change FOR INSERT WITH CHECK (true)",
        "DROP POLICY IF EXISTS pruners ON \"\(NotifySetup.schema)\".history_change",
        "CREATE POLICY pruners ON \"\(NotifySetup.schema)\".history_change FOR DELETE USING (pg_catalog.has_table_privilege(relid, 'SELECT'))",
    ]

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
        LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp
        AS $function$
        DECLARE
            entry_id bigint;
            kept_before bigint := 0;
            keeping boolean := true;
        BEGIN
            IF p_undoes IS NOT NULL THEN
                UPDATE "\(NotifySetup.schema)".history_entry SET undone = p_undone WHERE id = ANY(p_undoes);
            END IF;
            IF p_group IS NOT NULL THEN
                SELECT coalesce(sum(records), 0), coalesce(bool_and(complete), true) INTO kept_before, keeping
                  FROM "\(NotifySetup.schema)".history_entry WHERE grp = p_group;
                IF NOT keeping OR kept_before >= p_limit THEN
                    keeping := false;
                    DELETE FROM "\(NotifySetup.schema)".history_change
                     WHERE entry IN (SELECT id FROM "\(NotifySetup.schema)".history_entry WHERE grp = p_group);
                    UPDATE "\(NotifySetup.schema)".history_entry SET complete = false WHERE grp = p_group AND complete;
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

    /// `cardfile.history_key(value)`: a key's part as the triggers keep it, `::text` under the
    /// triggers' fixed settings, so a reader finds a record's versions whatever its own
    /// session's time zone or date style.
    static let keyFunctionSQL = """
        CREATE OR REPLACE FUNCTION "\(NotifySetup.schema)".history_key(anyelement) RETURNS text
        LANGUAGE sql STABLE
        \(NotifySetup.keySettings.map { "SET \($0.0) = '\($0.1)'" }.joined(separator: " "))
        AS $function$ SELECT $1::text $function$
        """

    /// The part of the trigger function that records a statement's changes (inside its
    /// `BEGIN … END`, after `key_list` is made). A failure here never fails the person's
    /// write: the entry is marked not whole instead.
    static let captureBlock = """
            IF coalesce(current_setting('cardfile.entry', true), '') <> ''
               OR coalesce(current_setting('cardfile.capture', true), '') <> '' THEN
                BEGIN
                    entry_id := nullif(current_setting('cardfile.entry', true), '')::bigint;
                    row_limit := CASE WHEN current_setting('cardfile.capture', true) ~ '^[0-9]+$'
                                      THEN current_setting('cardfile.capture', true)::bigint ELSE 0 END;
                    IF TG_OP = 'TRUNCATE' OR key_list IS NULL THEN
                        changed := NULL;
                    ELSIF TG_OP = 'DELETE' THEN
                        SELECT count(*) INTO changed FROM cardfile_old;
                    ELSE
                        SELECT count(*) INTO changed FROM cardfile_new;
                    END IF;
                    IF changed IS NULL OR changed > 0 THEN
                        IF entry_id IS NULL THEN
                            INSERT INTO "\(NotifySetup.schema)".history_entry DEFAULT VALUES RETURNING id INTO entry_id;
                            PERFORM set_config('cardfile.entry', entry_id::text, true);
                        END IF;
                        SELECT records, complete INTO kept, keeping FROM "\(NotifySetup.schema)".history_entry WHERE id = entry_id;
                        IF changed IS NULL THEN
                            -- A TRUNCATE names no rows: the entry cannot be undone.
                            keeping := false;
                            changed := 0;
                        ELSIF keeping AND kept + changed <= row_limit THEN
                            EXECUTE format(CASE TG_OP
                                WHEN 'INSERT' THEN 'INSERT INTO "\(NotifySetup.schema)".history_change(entry, relid, op, rkey, old, new) SELECT $1, $2, ''insert'', jsonb_build_array(%1$s), NULL, to_jsonb(r) FROM cardfile_new r'
                                WHEN 'DELETE' THEN 'INSERT INTO "\(NotifySetup.schema)".history_change(entry, relid, op, rkey, old, new) SELECT $1, $2, ''delete'', jsonb_build_array(%1$s), to_jsonb(r), NULL FROM cardfile_old r'
                                ELSE 'INSERT INTO "\(NotifySetup.schema)".history_change(entry, relid, op, rkey, old, new) '
                                  || 'SELECT $1, $2, CASE WHEN a.k IS NULL THEN ''insert'' WHEN b.k IS NULL THEN ''delete'' ELSE ''update'' END, coalesce(a.k, b.k), a.j, b.j '
                                  || 'FROM (SELECT jsonb_build_array(%1$s) AS k, to_jsonb(r) AS j FROM cardfile_old r) a '
                                  || 'FULL JOIN (SELECT jsonb_build_array(%1$s) AS k, to_jsonb(r) AS j FROM cardfile_new r) b ON a.k = b.k '
                                  || 'WHERE a.j IS DISTINCT FROM b.j'
                                END, key_list) USING entry_id, root_id;
                            GET DIAGNOSTICS changed = ROW_COUNT;
                        ELSIF keeping THEN
                            -- Past the limit: the change is listed, its records not kept.
                            DELETE FROM "\(NotifySetup.schema)".history_change WHERE entry = entry_id;
                            keeping := false;
                        END IF;
                        UPDATE "\(NotifySetup.schema)".history_entry
                           SET records = records + changed, complete = keeping,
                               relids = CASE WHEN root_id = ANY(relids) THEN relids ELSE relids || root_id END
                         WHERE id = entry_id;
                    END IF;
                EXCEPTION WHEN OTHERS THEN
                    BEGIN
                        RAISE WARNING 'cardfile history not kept: %', SQLERRM;
                        UPDATE "\(NotifySetup.schema)".history_entry SET complete = false
                         WHERE id = nullif(current_setting('cardfile.entry', true), '')::bigint;
                    EXCEPTION WHEN OTHERS THEN
                        NULL;
                    END;
                END;
            END IF;
        """
}
