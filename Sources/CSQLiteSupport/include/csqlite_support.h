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

// What a write transaction changes, record by record, from SQLite's pre-update hook (see
// csqlite_support.c for the layout).

#include <stddef.h>

struct cf_capture;

/// Starts capturing every record change on `db`'s main database (not SQLite's own tables);
/// past `limit` bytes, changes are counted without their values.
struct cf_capture *cf_capture_begin(sqlite3 *db, size_t limit);
/// The bytes captured so far, whether the limit was passed, and whether memory ran out.
const unsigned char *cf_capture_bytes(struct cf_capture *capture, size_t *size, int *overflowed, int *failed);
/// Where the capture is now, for `cf_capture_rewind`.
size_t cf_capture_mark(struct cf_capture *capture);
/// Forgets what was captured after `mark`: the changes of a statement SQLite rolled back.
void cf_capture_rewind(struct cf_capture *capture, size_t mark);
/// Stops capturing and frees the capture.
void cf_capture_end(sqlite3 *db, struct cf_capture *capture);

/// When the file at `path` was made, in nanoseconds since 1970, where the file system keeps it
/// (ext4, btrfs, xfs); 0 where it does not (overlay and tmpfs file systems, older kernels).
long long cf_birth_time(const char *path);

#endif
