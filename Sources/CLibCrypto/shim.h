#ifndef SLUICE_CLIBCRYPTO_SHIM_H
#define SLUICE_CLIBCRYPTO_SHIM_H
// OpenSSL's libcrypto, for SHA-256 only (the input ledger's digests), through its EVP interface:
// the one OpenSSL 3 keeps undeprecated, with the block function chosen for the CPU at run time.
#include <openssl/evp.h>
// OpenSSL_version, for the version `sluice --version` shows.
#include <openssl/crypto.h>
#endif
