#include "SQLiteFloor.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The same table, index and statements as the benchmarks' other variants (RawSQLite.swift), and the
// same column order as VariablySQLite's `TableMapping` for `BenchUser`.
static const char create_sql[] =
    "CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY NOT NULL, user_name TEXT NOT NULL, "
    "email TEXT NOT NULL, age INTEGER NOT NULL, is_active INTEGER NOT NULL, score REAL NOT NULL, "
    "created_at REAL NOT NULL, tags TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS users_user_name ON users(user_name);";
static const char insert_sql[] =
    "INSERT INTO users (id, user_name, email, age, is_active, score, created_at, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
static const char upsert_sql[] =
    "INSERT INTO users (id, user_name, email, age, is_active, score, created_at, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT(id) DO UPDATE SET user_name = excluded.user_name, email = excluded.email, age = excluded.age,"
    " is_active = excluded.is_active, score = excluded.score, created_at = excluded.created_at, tags = excluded.tags";
#define SELECT_SQL "SELECT id, user_name, email, age, is_active, score, created_at, tags FROM users"
static const char select_sql[] = SELECT_SQL;
static const char query_sql[] = SELECT_SQL " WHERE age > 30 AND is_active ORDER BY user_name LIMIT 100";

enum { checkpoint_threshold = 1000, checkpoint_bound_factor = 8 };

static void report(char *error, int32_t capacity, sqlite3 *db, const char *context) {
    if (error == NULL || capacity <= 0) return;
    snprintf(error, (size_t)capacity, "%s: %s", context, db ? sqlite3_errmsg(db) : "out of memory");
}

// MARK: - Checkpoints in the background

// A copy of VariablySQLite's WALCheckpointer: one thread, a connection of its own, PASSIVE checkpoints.
typedef struct {
    const char *path;
    pthread_mutex_t lock;     // guards is_scheduled and is_closing
    pthread_mutex_t running;  // one checkpoint at a time, on the thread or on the writer
    pthread_cond_t wake;
    int is_scheduled;
    int is_closing;
    sqlite3 *connection;
    pthread_t thread;
} checkpointer;

static void checkpoint_now(checkpointer *c) {
    pthread_mutex_lock(&c->running);
    if (c->connection == NULL) {
        sqlite3 *db = NULL;
        if (sqlite3_open_v2(c->path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
            // A connection learns that the file is in WAL mode when it first reads it.
            sqlite3_exec(db, "PRAGMA journal_mode", NULL, NULL, NULL);
            c->connection = db;
        } else {
            sqlite3_close(db);
        }
    }
    if (c->connection) sqlite3_wal_checkpoint_v2(c->connection, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    pthread_mutex_unlock(&c->running);
}

static void *checkpointer_main(void *context) {
    checkpointer *c = context;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->is_scheduled && !c->is_closing) pthread_cond_wait(&c->wake, &c->lock);
        if (c->is_closing) break;
        c->is_scheduled = 0;
        pthread_mutex_unlock(&c->lock);
        checkpoint_now(c);
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

// https://www.sqlite.org/c3ref/wal_hook.html: called after each commit, the write lock released.
static int wal_did_commit(void *context, sqlite3 *db, const char *name, int pages) {
    (void)db;
    (void)name;
    checkpointer *c = context;
    if (pages < checkpoint_threshold) return SQLITE_OK;
    if (pages >= checkpoint_threshold * checkpoint_bound_factor) {
        checkpoint_now(c);
        return SQLITE_OK;
    }
    pthread_mutex_lock(&c->lock);
    if (!c->is_scheduled && !c->is_closing) {
        c->is_scheduled = 1;
        pthread_cond_signal(&c->wake);
    }
    pthread_mutex_unlock(&c->lock);
    return SQLITE_OK;
}

static int checkpointer_start(checkpointer *c, const char *path) {
    memset(c, 0, sizeof *c);
    c->path = path;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->running, NULL);
    pthread_cond_init(&c->wake, NULL);
    return pthread_create(&c->thread, NULL, checkpointer_main, c);
}

static void checkpointer_stop(checkpointer *c) {
    pthread_mutex_lock(&c->lock);
    c->is_closing = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    sqlite3_close(c->connection);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->running);
    pthread_mutex_destroy(&c->lock);
}

// MARK: - Writing

static int write_rows(sqlite3 *db, sqlite3_stmt *statement, const sqlite_floor_user *rows, int64_t count, int64_t page_size) {
    if (page_size <= 0) page_size = count > 0 ? count : 1;
    for (int64_t start = 0; start < count; start += page_size) {
        int64_t end = start + page_size < count ? start + page_size : count;
        int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc != SQLITE_OK) return rc;
        for (int64_t index = start; index < end; index++) {
            const sqlite_floor_user *row = &rows[index];
            sqlite3_bind_int64(statement, 1, row->id);
            sqlite3_bind_text(statement, 2, row->user_name, row->user_name_length, SQLITE_STATIC);
            sqlite3_bind_text(statement, 3, row->email, row->email_length, SQLITE_STATIC);
            sqlite3_bind_int64(statement, 4, row->age);
            sqlite3_bind_int(statement, 5, row->is_active);
            sqlite3_bind_double(statement, 6, row->score);
            sqlite3_bind_double(statement, 7, row->created_at);
            sqlite3_bind_text(statement, 8, row->tags, row->tags_length, SQLITE_STATIC);
            rc = sqlite3_step(statement);
            sqlite3_reset(statement);
            if (rc != SQLITE_DONE) {
                sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
                return rc;
            }
        }
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

static int prepare_and_write(sqlite3 *db, const char *sql, const sqlite_floor_user *rows, int64_t count, int64_t page_size) {
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, NULL);
    if (rc == SQLITE_OK) rc = write_rows(db, statement, rows, count, page_size);
    sqlite3_finalize(statement);
    return rc;
}

int sqlite_floor_write(
    const char *path, sqlite_floor_checkpoints checkpoints, const sqlite_floor_user *prefill, int64_t prefill_count,
    const sqlite_floor_user *rows, int64_t count, int64_t page_size, int upsert, char *error, int32_t error_capacity) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        report(error, error_capacity, db, "open");
        sqlite3_close(db);
        return rc;
    }
    // The settings VariablySQLite's writer opens with (SQLiteDatabase.init, Database.init).
    rc = sqlite3_exec(
        db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", NULL, NULL, NULL);
    sqlite3_busy_timeout(db, 5000);
    checkpointer background;
    int has_checkpointer = 0;
    if (rc == SQLITE_OK) {
        if (checkpoints == sqlite_floor_checkpoints_in_background) {
            if (checkpointer_start(&background, path) == 0) {
                has_checkpointer = 1;
                sqlite3_wal_hook(db, wal_did_commit, &background);
            }
        } else {
            sqlite3_wal_autocheckpoint(db, checkpoint_threshold);
        }
        rc = sqlite3_exec(db, create_sql, NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK && prefill_count > 0) rc = prepare_and_write(db, insert_sql, prefill, prefill_count, prefill_count);
    if (rc == SQLITE_OK) rc = prepare_and_write(db, upsert ? upsert_sql : insert_sql, rows, count, page_size);
    if (rc != SQLITE_OK) report(error, error_capacity, db, "write");
    // As VariablySQLite closes: the checkpointer's connection first, then the writer, whose close
    // checkpoints what is left and removes the WAL file.
    sqlite3_wal_hook(db, NULL, NULL);
    if (has_checkpointer) checkpointer_stop(&background);
    sqlite3_close(db);
    return rc;
}

// MARK: - Reading

struct sqlite_floor_reader {
    sqlite3 *db;
    sqlite3_stmt *select_all;
    sqlite3_stmt *query;
};

sqlite_floor_reader *sqlite_floor_reader_open(const char *path, char *error, int32_t error_capacity) {
    sqlite_floor_reader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    if (sqlite3_open_v2(path, &reader->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK
        || sqlite3_prepare_v3(reader->db, select_sql, -1, SQLITE_PREPARE_PERSISTENT, &reader->select_all, NULL) != SQLITE_OK
        || sqlite3_prepare_v3(reader->db, query_sql, -1, SQLITE_PREPARE_PERSISTENT, &reader->query, NULL) != SQLITE_OK) {
        report(error, error_capacity, reader->db, "open");
        sqlite_floor_reader_close(reader);
        return NULL;
    }
    return reader;
}

void sqlite_floor_reader_close(sqlite_floor_reader *reader) {
    if (reader == NULL) return;
    sqlite3_finalize(reader->select_all);
    sqlite3_finalize(reader->query);
    sqlite3_close(reader->db);
    free(reader);
}

static inline int copy_text(sqlite3_stmt *statement, int column, const char **text, int32_t *length, char **arena, const char *end) {
    const unsigned char *bytes = sqlite3_column_text(statement, column);
    int count = sqlite3_column_bytes(statement, column);
    if (count > end - *arena) return 0;
    memcpy(*arena, bytes, (size_t)count);
    *text = *arena;
    *length = count;
    *arena += count;
    return 1;
}

// Steps `statement` into `rows`; returns the number of rows, or -1.
static int64_t step_rows(sqlite3_stmt *statement, sqlite_floor_user *rows, int64_t capacity, char *arena, const char *end) {
    int64_t count = 0;
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
        if (count == capacity) return -1;
        sqlite_floor_user *row = &rows[count++];
        row->id = sqlite3_column_int64(statement, 0);
        row->age = sqlite3_column_int64(statement, 3);
        row->is_active = sqlite3_column_int(statement, 4);
        row->score = sqlite3_column_double(statement, 5);
        row->created_at = sqlite3_column_double(statement, 6);
        if (!copy_text(statement, 1, &row->user_name, &row->user_name_length, &arena, end)
            || !copy_text(statement, 2, &row->email, &row->email_length, &arena, end)
            || !copy_text(statement, 7, &row->tags, &row->tags_length, &arena, end))
            return -1;
    }
    return rc == SQLITE_DONE ? count : -1;
}

int64_t sqlite_floor_fetch_all(
    sqlite_floor_reader *reader, sqlite_floor_user *rows, int64_t capacity, char *arena, int64_t arena_capacity,
    char *error, int32_t error_capacity) {
    if (sqlite3_exec(reader->db, "BEGIN DEFERRED", NULL, NULL, NULL) != SQLITE_OK) {
        report(error, error_capacity, reader->db, "begin");
        return -1;
    }
    int64_t count = step_rows(reader->select_all, rows, capacity, arena, arena + arena_capacity);
    sqlite3_reset(reader->select_all);
    sqlite3_exec(reader->db, "COMMIT", NULL, NULL, NULL);
    if (count < 0) report(error, error_capacity, reader->db, "fetch all (or a full buffer)");
    return count;
}

int64_t sqlite_floor_query(
    sqlite_floor_reader *reader, int64_t repetitions, sqlite_floor_user *rows, char *arena, int64_t arena_capacity,
    char *error, int32_t error_capacity) {
    if (sqlite3_exec(reader->db, "BEGIN DEFERRED", NULL, NULL, NULL) != SQLITE_OK) {
        report(error, error_capacity, reader->db, "begin");
        return -1;
    }
    int64_t total = 0;
    for (int64_t repetition = 0; repetition < repetitions; repetition++) {
        int64_t count = step_rows(reader->query, rows, 100, arena, arena + arena_capacity);
        sqlite3_reset(reader->query);
        if (count < 0) {
            total = -1;
            break;
        }
        total += count;
    }
    sqlite3_exec(reader->db, "COMMIT", NULL, NULL, NULL);
    if (total < 0) report(error, error_capacity, reader->db, "query (or a full buffer)");
    return total;
}
