package import CLibXML2

/// Counts the attributes of the start tag libxml2's push parser is still waiting for, so that a
/// tag with far too many is refused before libxml2 parses it.
///
/// libxml2 2.9's start-tag parser compares every attribute's name with every earlier one (XML's
/// "unique attribute" rule), in time quadratic in their number, before any callback sees the
/// tag: 100,000 attributes took it 5 s, 200,000 (1.4 MB of XML) 23 s, and a start tag may be
/// 10 MB long. The push parser parses a tag only once its `>` has arrived, so while a long tag
/// comes in, its bytes wait in the parser's input buffer: the guard counts the `=` signs outside
/// quoted values there, resuming where it stopped, so each byte is looked at once. A tag that
/// arrives whole within one call of `xmlParseChunk` is not seen: callers hand the parser a few
/// KiB at a time, which bounds what it parses unguarded.
package struct XMLStartTagGuard {
  /// The slice of input the record reader and the outline hand libxml2 at a time.
  package static let sliceSize = 4_096

  /// Where the tag being counted starts, in the decompressed stream; -1 when none is.
  private var tagStart: Int64 = -1
  /// How far the tag has been scanned, in the decompressed stream.
  private var scanned: Int64 = 0
  /// The quote of the attribute value the scan is in, or 0.
  private var quote: UInt8 = 0
  private var attributes = 0

  package init() {}

  /// The attributes counted so far in the start tag libxml2 waits to complete; 0 when it waits
  /// for none.
  package mutating func pendingAttributes(in context: xmlParserCtxtPtr) -> Int {
    guard context.pointee.instate == XML_PARSER_START_TAG,
      let input = context.pointee.input?.pointee,
      let base = input.base, let current = input.cur, let end = input.end, current < end,
      current.pointee == UInt8(ascii: "<")
    else {
      tagStart = -1
      return 0
    }
    let consumed = Int64(input.consumed)
    let start = consumed + Int64(base.distance(to: current))
    if start != tagStart {
      tagStart = start
      scanned = start + 1
      quote = 0
      attributes = 0
    }
    var cursor = base + Int(scanned - consumed)
    while cursor < end {
      let byte = cursor.pointee
      if quote != 0 {
        if byte == quote { quote = 0 }
      } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
        quote = byte
      } else if byte == UInt8(ascii: "=") {
        attributes += 1
      }
      cursor += 1
    }
    scanned = consumed + Int64(base.distance(to: end))
    return attributes
  }
}
