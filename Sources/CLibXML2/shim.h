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
#endif
