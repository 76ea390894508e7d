#ifndef SLUICE_CZLIB_SHIM_H
#define SLUICE_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro Swift cannot import; this forwards to it with the header's own
/// version and struct size, so a mismatched zlib is reported by zlib rather than misread.
static inline int sluice_inflateInit2(z_streamp stream, int windowBits) {
  return inflateInit2(stream, windowBits);
}

/// `deflateInit2` is a macro too (used by tests and the sample-data tools to write gzip).
static inline int sluice_deflateInit2(z_streamp stream, int level, int windowBits) {
  return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
