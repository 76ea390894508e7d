// SHA-256's compression function on the CPU's SHA extensions (x86-64 SHA-NI), for the input
// ledger's digest (SluiceCore's SHA256): what no library Sluice may link exports. The portable
// compression is SluiceCore's Swift one; this one is used only where the CPU says it has them.
#ifndef SLUICE_CSHA256_H
#define SLUICE_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the SHA extensions (and SSE4.1 and SSSE3, which the code also uses).
int sluice_sha256_accelerated(void);

/// Compresses `blocks` 64-byte blocks at `data` into `state` (a, b, …, h, as FIPS 180-4 numbers
/// them). Call only when `sluice_sha256_accelerated()` is 1.
void sluice_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
