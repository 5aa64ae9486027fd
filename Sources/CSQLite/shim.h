#ifndef VARIABLY_CSQLITE_SHIM_H
#define VARIABLY_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro that Swift cannot import: expose it as a function.
// https://www.sqlite.org/c3ref/c_static.html
static inline sqlite3_destructor_type variably_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
