// The session extension's declarations are guarded in sqlite3.h; the system library is built
// with them (`pragma compile_options` lists ENABLE_SESSION and ENABLE_PREUPDATE_HOOK), so they
// are switched on here, in this one file, and reached from Swift through the wrappers below.
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include "csqlite_support.h"

// Whether the session records `table`: not one of the names `context` lists (NULL-ended),
// the tables with generated columns, which SQLite 3.40's session extension cannot record (it
// fails the whole changeset with SQLITE_SCHEMA).
static int cf_session_records(void *context, const char *table) {
    for (const char *const *skipped = (const char *const *)context; skipped && *skipped; skipped++) {
        if (sqlite3_stricmp(*skipped, table) == 0) return 0;
    }
    return 1;
}

int cf_session_begin(sqlite3 *db, const char *const *skipped, void **session) {
    sqlite3_session *made = 0;
    int rc = sqlite3session_create(db, "main", &made);
    if (rc != SQLITE_OK) return rc;
    sqlite3session_table_filter(made, cf_session_records, (void *)skipped);
    rc = sqlite3session_attach(made, 0);
    if (rc != SQLITE_OK) {
        sqlite3session_delete(made);
        return rc;
    }
    *session = made;
    return SQLITE_OK;
}

int cf_session_changeset(void *session, int *size, void **bytes) {
    return sqlite3session_changeset((sqlite3_session *)session, size, bytes);
}

void cf_session_end(void *session) {
    sqlite3session_delete((sqlite3_session *)session);
}

int cf_changeset_start(void **iterator, int size, void *bytes) {
    return sqlite3changeset_start((sqlite3_changeset_iter **)iterator, size, bytes);
}

int cf_changeset_next(void *iterator) {
    return sqlite3changeset_next((sqlite3_changeset_iter *)iterator);
}

int cf_changeset_op(void *iterator, const char **table, int *columns, int *op) {
    int indirect = 0;
    return sqlite3changeset_op((sqlite3_changeset_iter *)iterator, table, columns, op, &indirect);
}

int cf_changeset_old(void *iterator, int column, sqlite3_value **value) {
    return sqlite3changeset_old((sqlite3_changeset_iter *)iterator, column, value);
}

int cf_changeset_new(void *iterator, int column, sqlite3_value **value) {
    return sqlite3changeset_new((sqlite3_changeset_iter *)iterator, column, value);
}

int cf_changeset_finish(void *iterator) {
    return sqlite3changeset_finalize((sqlite3_changeset_iter *)iterator);
}
