#ifndef SLUICE_RE2_H
#define SLUICE_RE2_H
// A C face of RE2 (Debian's libre2-dev), for a dataset file's `pattern` rules. RE2 is a C++
// library and Swift's C++ interoperability would spread to every module that imports the engine,
// so the engine sees these four C functions instead. RE2 matches in time linear in the text (no
// backtracking) and bounds the memory of a compiled pattern: a rule cannot hold a run on data.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled pattern. Matching through a `const` one is safe from any thread, as RE2 documents.
typedef struct sluice_re2 sluice_re2;

/// Compiles `pattern` (UTF-8, `length` bytes) with RE2's defaults: UTF-8 texts, `.` matching no
/// `\n`, `$` at the end of the text only. `max_memory` bounds the compiled program and its DFA
/// caches (RE2::Options::max_mem). On failure returns NULL and writes RE2's message, cut to fit
/// and NUL-terminated, into `error`; on success writes the program's size in instructions.
sluice_re2 *_Nullable sluice_re2_compile(
    const char *_Nonnull pattern, size_t length, long long max_memory, char *_Nonnull error,
    size_t error_capacity, int *_Nonnull program_size);

/// 1 when the pattern matches somewhere in `text` (`length` bytes of UTF-8), 0 when it does not,
/// -1 when RE2 could not answer (memory).
int sluice_re2_partial_match(const sluice_re2 *_Nonnull pattern, const char *_Nullable text, size_t length);

void sluice_re2_free(sluice_re2 *_Nullable pattern);

#ifdef __cplusplus
}
#endif
#endif
