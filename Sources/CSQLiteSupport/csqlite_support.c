// SQLite's pre-update hook, which the system library is built with (`pragma compile_options`
// lists ENABLE_PREUPDATE_HOOK), is declared behind that option in sqlite3.h: it is switched on
// here, in this one file, and reached from Swift through the functions below.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include "csqlite_support.h"

struct cf_capture {
    unsigned char *bytes;
    size_t size;
    size_t capacity;
    size_t limit;
    int overflowed;
    int failed;
};

static void cf_put(struct cf_capture *capture, const void *data, size_t count) {
    if (capture->failed) return;
    if (capture->size + count > capture->capacity) {
        size_t wanted = capture->capacity ? capture->capacity : 256;
        while (wanted < capture->size + count) wanted *= 2;
        unsigned char *grown = realloc(capture->bytes, wanted);
        if (!grown) {
            capture->failed = 1;
            return;
        }
        capture->bytes = grown;
        capture->capacity = wanted;
    }
    memcpy(capture->bytes + capture->size, data, count);
    capture->size += count;
}

static void cf_put_value(struct cf_capture *capture, sqlite3_value *value) {
    unsigned char type = value ? (unsigned char)sqlite3_value_type(value) : SQLITE_NULL;
    cf_put(capture, &type, 1);
    switch (type) {
    case SQLITE_INTEGER: {
        sqlite3_int64 number = sqlite3_value_int64(value);
        cf_put(capture, &number, 8);
        break;
    }
    case SQLITE_FLOAT: {
        double number = sqlite3_value_double(value);
        cf_put(capture, &number, 8);
        break;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
        const void *data = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(value) : sqlite3_value_blob(value);
        unsigned int count = (unsigned int)sqlite3_value_bytes(value);
        cf_put(capture, &count, 4);
        if (count) cf_put(capture, data, count);
        break;
    }
    default:
        break;
    }
}

// One record change: its operation, table, rowids before and after, column count, then (past
// the limit: none) the old values (not for an insert) and the new ones (not for a delete).
static void cf_preupdate(void *context, sqlite3 *db, int op, const char *database, const char *table,
                         sqlite3_int64 oldRowid, sqlite3_int64 newRowid) {
    struct cf_capture *capture = context;
    if (strcmp(database, "main") != 0 || strncmp(table, "sqlite_", 7) == 0) return;
    int columns = sqlite3_preupdate_count(db);
    unsigned char kind = (unsigned char)op;
    unsigned int length = (unsigned int)strlen(table);
    if (capture->size > capture->limit) capture->overflowed = 1;
    unsigned char withValues = capture->overflowed ? 0 : 1;
    cf_put(capture, &kind, 1);
    cf_put(capture, &withValues, 1);
    cf_put(capture, &length, 4);
    cf_put(capture, table, length);
    cf_put(capture, &oldRowid, 8);
    cf_put(capture, &newRowid, 8);
    cf_put(capture, &columns, 4);
    if (!withValues) return;
    // (A value the hook cannot give, a virtual generated column's, is written as NULL: such
    // columns are computed, never kept.)
    for (int column = 0; column < columns; column++) {
        sqlite3_value *value = 0;
        if (op != SQLITE_INSERT) {
            if (sqlite3_preupdate_old(db, column, &value) != SQLITE_OK) value = 0;
            cf_put_value(capture, value);
        }
        value = 0;
        if (op != SQLITE_DELETE) {
            if (sqlite3_preupdate_new(db, column, &value) != SQLITE_OK) value = 0;
            cf_put_value(capture, value);
        }
    }
}

struct cf_capture *cf_capture_begin(sqlite3 *db, size_t limit) {
    struct cf_capture *capture = calloc(1, sizeof(struct cf_capture));
    if (!capture) return 0;
    capture->limit = limit;
    sqlite3_preupdate_hook(db, cf_preupdate, capture);
    return capture;
}

const unsigned char *cf_capture_bytes(struct cf_capture *capture, size_t *size, int *overflowed, int *failed) {
    *size = capture->size;
    *overflowed = capture->overflowed;
    *failed = capture->failed;
    return capture->bytes;
}

size_t cf_capture_mark(struct cf_capture *capture) {
    return capture->size;
}

void cf_capture_rewind(struct cf_capture *capture, size_t mark) {
    if (mark <= capture->size) capture->size = mark;
}

void cf_capture_end(sqlite3 *db, struct cf_capture *capture) {
    sqlite3_preupdate_hook(db, 0, 0);
    free(capture->bytes);
    free(capture);
}

long long cf_birth_time(const char *path) {
    struct statx info;
    if (statx(AT_FDCWD, path, 0, STATX_BTIME, &info) != 0 || !(info.stx_mask & STATX_BTIME)) return 0;
    return (long long)info.stx_btime.tv_sec * 1000000000LL + info.stx_btime.tv_nsec;
}
