// The C face of RE2 declared in include/sluice_re2.h. No exception crosses into Swift: RE2 reports
// its own errors through `ok()`, and an allocation failure becomes NULL or -1.
#include "sluice_re2.h"

#include <re2/re2.h>

#include <cstring>
#include <new>
#include <string>

struct sluice_re2 {
  RE2 expression;
  sluice_re2(const re2::StringPiece &pattern, const RE2::Options &options) : expression(pattern, options) {}
};

extern "C" sluice_re2 *sluice_re2_compile(
    const char *pattern, size_t length, long long max_memory, char *error, size_t error_capacity,
    int *program_size) {
  if (error_capacity > 0) error[0] = 0;
  *program_size = 0;
  try {
    RE2::Options options;
    // RE2 logs a bad pattern to stderr by default; the caller reports it with its JSON path.
    options.set_log_errors(false);
    options.set_max_mem(max_memory);
    auto *compiled = new sluice_re2(re2::StringPiece(pattern, length), options);
    if (!compiled->expression.ok()) {
      const std::string &message = compiled->expression.error();
      if (error_capacity > 0) {
        size_t count = message.size() < error_capacity - 1 ? message.size() : error_capacity - 1;
        std::memcpy(error, message.data(), count);
        error[count] = 0;
      }
      delete compiled;
      return nullptr;
    }
    *program_size = compiled->expression.ProgramSize();
    return compiled;
  } catch (...) {
    if (error_capacity > 0) std::strncpy(error, "out of memory", error_capacity - 1), error[error_capacity - 1] = 0;
    return nullptr;
  }
}

extern "C" int sluice_re2_partial_match(const sluice_re2 *pattern, const char *text, size_t length) {
  try {
    return RE2::PartialMatch(re2::StringPiece(text == nullptr ? "" : text, length), pattern->expression) ? 1 : 0;
  } catch (...) {
    return -1;
  }
}

extern "C" void sluice_re2_free(sluice_re2 *pattern) { delete pattern; }
