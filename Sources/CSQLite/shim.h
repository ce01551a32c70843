#ifndef TOUCHGATE_CSQLITE_SHIM_H
#define TOUCHGATE_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
