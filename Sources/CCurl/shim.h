#ifndef SLUICE_CCURL_SHIM_H
#define SLUICE_CCURL_SHIM_H
// libcurl's curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: these
// wrappers give each argument type a function of its own.
#include <curl/curl.h>

static inline CURLcode sluice_curl_setopt_long(CURL *curl, CURLoption option, long value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode sluice_curl_setopt_string(CURL *curl, CURLoption option, const char *value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode sluice_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode sluice_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(curl, option, value);
}
typedef size_t (*sluice_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode sluice_curl_setopt_write(CURL *curl, sluice_curl_data_callback callback, void *context) {
  CURLcode code = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
  if (code != CURLE_OK) return code;
  return curl_easy_setopt(curl, CURLOPT_WRITEDATA, context);
}
static inline CURLcode sluice_curl_setopt_header(CURL *curl, sluice_curl_data_callback callback, void *context) {
  CURLcode code = curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, callback);
  if (code != CURLE_OK) return code;
  return curl_easy_setopt(curl, CURLOPT_HEADERDATA, context);
}
static inline CURLcode sluice_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
  return curl_easy_getinfo(curl, info, value);
}
static inline CURLcode sluice_curl_getinfo_offset(CURL *curl, CURLINFO info, curl_off_t *value) {
  return curl_easy_getinfo(curl, info, value);
}
/// The libcurl the program runs against, for `sluice --version`: CURLVERSION_NOW, the age of
/// the struct these headers declare, is a macro Swift does not import.
static inline const curl_version_info_data *sluice_curl_version_info(void) {
  return curl_version_info(CURLVERSION_NOW);
}
/// CURL_WRITEFUNC_PAUSE is a macro of an unsigned constant Swift does not import as a value.
static inline size_t sluice_curl_write_pause(void) { return CURL_WRITEFUNC_PAUSE; }
#endif
