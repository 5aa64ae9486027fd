#ifndef VARIABLY_CSQLITE_SHIM_H
#define VARIABLY_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import: expose it as a function.
// https://www.sqlite.org/c3ref/c_static.html
static inline sqlite3_destructor_type variably_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// SQLITE_STATIC, for text whose bytes outlive the binding (a statement's own buffer).
static inline sqlite3_destructor_type variably_sqlite_static(void) {
    return SQLITE_STATIC;
}

// sqlite3_db_config is variadic, which Swift cannot call: one fixed-argument wrapper per option used.
// https://www.sqlite.org/c3ref/c_dbconfig_defensive.html#sqlitedbconfigenabletrigger
static inline int variably_sqlite_enable_triggers(sqlite3 *db, int enable) {
    int enabled = -1;
    int code = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enable, &enabled);
    return code == SQLITE_OK ? enabled : -1;
}

#endif
