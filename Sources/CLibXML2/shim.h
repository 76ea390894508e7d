#ifndef SLUICE_CLIBXML2_SHIM_H
#define SLUICE_CLIBXML2_SHIM_H
// Debian's libxml2 headers pull in the system ICU headers, which clash with Foundation's own ICU
// in any module that sees both ("'UErrorCode' has different definitions"). Including
// xmlversion.h first and undefining LIBXML_ICU_ENABLED keeps ICU out. Consequence: never
// allocate or embed xmlCharEncodingHandler from Swift.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/// `xmlFree` is a C global function pointer, which Swift 6 strict concurrency rejects.
static inline void sluice_xmlFree(void *pointer) { xmlFree(pointer); }

/// Some libxml2 errors bypass a parser's structured handler and go to its generic error function,
/// stderr by default — among them a failed encoding conversion, which prints the input bytes it
/// failed on ("bytes 0xC1 0x00 0x0D 0x0A"), record content Sluice never shows. The parse error
/// that follows reaches the structured handler. Variadic, so written in C; the setting is per
/// thread, so the reader makes it on the thread that parses.
static inline void sluice_dropGenericError(void *context, const char *message, ...) {
  (void)context;
  (void)message;
}
static inline void sluice_silenceGenericErrors(void) { xmlSetGenericErrorFunc(NULL, sluice_dropGenericError); }

/// The version of the libxml2 the program runs against (`"20914"`), which `sluice --version`
/// shows: a C global constant, which Swift 6 strict concurrency would not read directly.
static inline const char *sluice_xmlParserVersion(void) { return xmlParserVersion; }
#endif
