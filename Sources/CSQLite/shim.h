#ifndef TOUCHGATE_CSQLITE_SHIM_H
#define TOUCHGATE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// sqlite3_db_config is variadic, which Swift cannot call: the integer-option form.
static inline int touchgate_sqlite3_db_config_int(sqlite3 *db, int option, int value) {
    return sqlite3_db_config(db, option, value, (int *)0);
}
#endif
