// The C floor: what SQLite itself costs for the benchmarks' users, with nothing but C around it.
//
// Every function does its whole job in one call, on rows prepared before the timing starts (numbers
// as numbers, text as UTF-8 pointers with their lengths, the tags already written as JSON text), so
// that a benchmark timing one call times SQLite and a minimal loop around it, and no Swift.
#ifndef SQLITE_FLOOR_H
#define SQLITE_FLOOR_H

#include <stdint.h>

/// One user: the row of the `users` table the benchmarks write and read. Text is not NUL-terminated.
typedef struct {
    int64_t id;
    const char *user_name;
    int32_t user_name_length;
    const char *email;
    int32_t email_length;
    int64_t age;
    int32_t is_active;
    double score;
    double created_at;
    const char *tags;
    int32_t tags_length;
} sqlite_floor_user;

/// When the WAL file is copied back into the database file.
typedef enum {
    /// SQLite's own automatic checkpoint, in the commit that passes 1,000 pages (`wal_autocheckpoint`).
    sqlite_floor_checkpoints_on_commit = 0,
    /// Like VariablySQLite's default: a commit that passes 1,000 pages wakes a thread that checkpoints
    /// (PASSIVE) on a connection of its own; one that passes 8,000 pages checkpoints before it returns.
    sqlite_floor_checkpoints_in_background = 1,
} sqlite_floor_checkpoints;

/// Opens (creating) the file at `path` in WAL mode with `synchronous = NORMAL`, creates the `users`
/// table and its `user_name` index, inserts `prefill` in one transaction, then writes `rows` with one
/// prepared statement (`INSERT`, or with `upsert` `INSERT ... ON CONFLICT (id) DO UPDATE`), committing
/// every `page_size` rows, and closes the file (the last checkpoint included).
/// Returns SQLITE_OK (0) or an SQLite result code, with a message in `error`.
int sqlite_floor_write(
    const char *path, sqlite_floor_checkpoints checkpoints, const sqlite_floor_user *prefill, int64_t prefill_count,
    const sqlite_floor_user *rows, int64_t count, int64_t page_size, int upsert, char *error, int32_t error_capacity);

/// A read-only connection with its two statements prepared.
typedef struct sqlite_floor_reader sqlite_floor_reader;

/// Opens `path` for reading; NULL on failure, with a message in `error`.
sqlite_floor_reader *sqlite_floor_reader_open(const char *path, char *error, int32_t error_capacity);

void sqlite_floor_reader_close(sqlite_floor_reader *reader);

/// In one read transaction, steps `SELECT ... FROM users` into `rows`, copying text into `arena`.
/// Returns the number of rows, or -1 (a message in `error`) on an SQLite error or a full buffer.
int64_t sqlite_floor_fetch_all(
    sqlite_floor_reader *reader, sqlite_floor_user *rows, int64_t capacity, char *arena, int64_t arena_capacity,
    char *error, int32_t error_capacity);

/// In one read transaction, runs `... WHERE age > 30 AND is_active ORDER BY user_name LIMIT 100`
/// `repetitions` times, each time stepping its rows into `rows` (at least 100) and its text into
/// `arena`. Returns the number of rows read in all, or -1 (a message in `error`).
int64_t sqlite_floor_query(
    sqlite_floor_reader *reader, int64_t repetitions, sqlite_floor_user *rows, char *arena, int64_t arena_capacity,
    char *error, int32_t error_capacity);

#endif
