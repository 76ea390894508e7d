/* The floor of a Sluice XML import: libxml2 reading every node of the gzip XML dump and doing
 * nothing with it — what is left when Sluice's tape, decoding, validation, mapping and SQLite
 * cost nothing. Two ways of reading, both fed by zlib's gzread like Sluice's own input:
 *
 *   reader  xmlTextReader over the stream (xmlReaderForIO), xmlTextReaderRead on every node;
 *   sax     the SAX2 push parser (what Sluice uses) fed 32 KiB chunks, with empty callbacks
 *           (they only count elements, which is the check printed).
 *
 *   cc -O2 -o xml_floor xml_floor.c $(pkg-config --cflags --libs libxml-2.0) -lz
 *   ./xml_floor reader|sax orders.xml.gz
 *
 * Options as Sluice's: no network, no entity substitution, no DTD loading. Prints the count of
 * nodes (reader) or elements (sax). Benchmarks/run builds and runs it.
 */
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#define CHUNK (1 << 15)

static int read_gzip(void *context, char *buffer, int length) {
  return gzread((gzFile)context, buffer, (unsigned)length);
}

static int close_gzip(void *context) { return gzclose((gzFile)context) == Z_OK ? 0 : -1; }

static int with_reader(gzFile input) {
  xmlTextReaderPtr reader = xmlReaderForIO(read_gzip, close_gzip, input, NULL, NULL, XML_PARSE_NONET);
  if (!reader) { fprintf(stderr, "cannot create the reader\n"); return 70; }
  long long nodes = 0;
  int status;
  while ((status = xmlTextReaderRead(reader)) == 1) nodes++;
  xmlFreeTextReader(reader);
  if (status != 0) { fprintf(stderr, "malformed XML after %lld nodes\n", nodes); return 65; }
  printf("%lld nodes\n", nodes);
  return 0;
}

static long long elements;
static int failed;

static void start_element(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
                          int namespaces, const xmlChar **namespace_list, int attributes, int defaulted,
                          const xmlChar **attribute_list) {
  elements++;
}

static void end_element(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {}

static void characters(void *context, const xmlChar *text, int length) {}

static void structured_error(void *context, xmlErrorPtr error) {
  if (error && error->level >= XML_ERR_ERROR) failed = 1;
}

static int with_push_parser(gzFile input) {
  xmlSAXHandler handler;
  memset(&handler, 0, sizeof handler);
  handler.initialized = XML_SAX2_MAGIC;
  handler.startElementNs = start_element;
  handler.endElementNs = end_element;
  handler.characters = characters;
  handler.cdataBlock = characters;
  handler.ignorableWhitespace = characters;
  handler.serror = structured_error;
  static char chunk[CHUNK];
  int count = gzread(input, chunk, 4);
  xmlParserCtxtPtr parser = xmlCreatePushParserCtxt(&handler, NULL, chunk, count > 0 ? count : 0, NULL);
  if (!parser) { fprintf(stderr, "cannot create the parser\n"); return 70; }
  xmlCtxtUseOptions(parser, XML_PARSE_NONET);
  while ((count = gzread(input, chunk, CHUNK)) > 0) xmlParseChunk(parser, chunk, count, 0);
  xmlParseChunk(parser, NULL, 0, 1);
  int wellFormed = parser->wellFormed;
  xmlFreeParserCtxt(parser);
  gzclose(input);
  if (count < 0 || failed || !wellFormed) { fprintf(stderr, "malformed XML after %lld elements\n", elements); return 65; }
  printf("%lld elements\n", elements);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "reader") && strcmp(argv[1], "sax"))) {
    fprintf(stderr, "usage: xml_floor reader|sax FILE.xml.gz\n");
    return 64;
  }
  gzFile input = gzopen(argv[2], "rb");
  if (!input) { perror(argv[2]); return 66; }
  gzbuffer(input, 1 << 17);
  xmlInitParser();
  int status = strcmp(argv[1], "reader") == 0 ? with_reader(input) : with_push_parser(input);
  xmlCleanupParser();
  return status;
}
