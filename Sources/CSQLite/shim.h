#ifndef SLUICE_CSQLITE_SHIM_H
#define SLUICE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// `sqlite3_config` is variadic, which Swift cannot call. Memory statistics cost a global mutex
/// on every allocation SQLite makes; Sluice reads none of them. Must run before SQLite is
/// initialized; afterwards it returns SQLITE_MISUSE and changes nothing.
static inline int sluice_sqlite_disable_memory_statistics(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
