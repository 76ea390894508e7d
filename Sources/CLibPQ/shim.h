#ifndef SLUICE_CLIBPQ_SHIM_H
#define SLUICE_CLIBPQ_SHIM_H
// libpq, PostgreSQL's client library (Debian's libpq-dev; pkg-config finds its headers in
// /usr/include/postgresql). Only libpq-fe.h: the server headers are not needed by a client.
#include <libpq-fe.h>
#endif
