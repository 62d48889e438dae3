#ifndef CARDFILE_CSQLITE_SUPPORT_H
#define CARDFILE_CSQLITE_SUPPORT_H

#include <sqlite3.h>

/// Tells `db` not to checkpoint (nor delete) the write-ahead log when it closes.
///
/// `sqlite3_db_config` is variadic, so Swift cannot call it; this wraps the one call the
/// store needs: once the file a connection opened is no longer at its path, the log and
/// shared-memory files that path names may belong to another database, and closing must not
/// copy frames into, or delete, what is not ours. Returns SQLite's result code.
static inline int cf_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    int enabled = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &enabled);
}

// SQLite's session extension (see csqlite_support.c), with its handles as opaque pointers.

/// Starts recording every change to the tables of `db`'s main database but those `skipped`
/// names (a NULL-ended list, kept alive by the caller until `cf_session_end`); `*session` is
/// the recorder, for `cf_session_changeset` and then `cf_session_end`.
int cf_session_begin(sqlite3 *db, const char *const *skipped, void **session);
/// The changes recorded so far as a changeset; `*bytes` is freed with `sqlite3_free`.
int cf_session_changeset(void *session, int *size, void **bytes);
/// Stops recording and frees the recorder.
void cf_session_end(void *session);
/// An iterator over a changeset's changes; `cf_changeset_next` moves to the first.
int cf_changeset_start(void **iterator, int size, void *bytes);
/// SQLITE_ROW while there is a change, SQLITE_DONE at the end.
int cf_changeset_next(void *iterator);
/// The current change's table, column count and operation (SQLITE_INSERT, _UPDATE, _DELETE).
int cf_changeset_op(void *iterator, const char **table, int *columns, int *op);
/// A column's value before the change (NULL pointer: not part of an update's record).
int cf_changeset_old(void *iterator, int column, sqlite3_value **value);
/// A column's value after the change (NULL pointer: not changed by an update).
int cf_changeset_new(void *iterator, int column, sqlite3_value **value);
int cf_changeset_finish(void *iterator);

#endif
