internal import CLibXML2
import Foundation
@_spi(Internals) import SluiceCore

/// The first records of an XML document as a document of their own: each record element as
/// libxml2 serializes it (its outer XML: attributes, children, text, CDATA and comments, and the
/// namespaces it uses declared on it), inside the elements of the record path, so that reading
/// the excerpt at the same record path finds exactly those records. `sluice init` writes it as
/// an XML dump's contract fixture.
///
/// libxml2's text reader does the work: it builds the tree of one record at a time, which the
/// record reader's SAX parser never does, and serializes it. It reads Sluice's own input (gzip
/// works as for a run) with the record reader's safety settings: no network, no DTD loaded, no
/// entity substituted, no external entity ever read (the process-wide loader refuses them).
package final class XMLExcerpt {
  /// The excerpt's text, or nil when the document has no record at the path.
  package let text: String?

  /// Reads up to `limit` records at `path` (local names from the root; empty: the root's
  /// children) from the start of `source`.
  package init(source: any ByteSource, path: [String], limit: Int) throws {
    _ = XMLRecordReader.refuseExternalEntities
    sluice_silenceGenericErrors()
    let feed = Feed(source: source)
    let context = Unmanaged.passUnretained(feed).toOpaque()
    guard
      let reader = xmlReaderForIO(
        { context, buffer, length in
          guard let context, let buffer, length > 0 else { return 0 }
          return Unmanaged<Feed>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: Int(length))
        }, nil, context, nil, nil, Int32(XML_PARSE_NONET.rawValue))
    else {
      throw RecordReadError(
        code: .syntax, message: "cannot start the XML reader", location: .init(ordinal: 0, byteOffset: 0, line: 1),
        isRecoverable: false)
    }
    defer {
      xmlFreeTextReader(reader)
      // The reader's callback reads through `feed` until it is freed.
      withExtendedLifetime(feed) {}
    }
    // Parse errors are the record reader's to report; the excerpt keeps the records read before one.
    xmlTextReaderSetStructuredErrorHandler(reader, { _, _ in }, nil)
    var (records, wrappers) = ([String](), [String]())
    /// Local names of the open elements, from the root.
    var open: [String] = []
    var status = xmlTextReaderRead(reader)
    while status == 1 && records.count < limit {
      let depth = Int(xmlTextReaderDepth(reader))
      guard xmlTextReaderNodeType(reader) == Int32(XML_READER_TYPE_ELEMENT.rawValue) else {
        status = xmlTextReaderRead(reader)
        continue
      }
      open.removeLast(max(0, open.count - depth))
      let name = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
      let isRecord =
        path.isEmpty
        ? depth == 1 : depth == path.count - 1 && zip(open + [name], path).allSatisfy { $0.0 == $0.1 }
      guard isRecord else {
        if xmlTextReaderIsEmptyElement(reader) != 1 { open.append(name) }
        status = xmlTextReaderRead(reader)
        continue
      }
      guard let outer = xmlTextReaderReadOuterXml(reader) else { break }
      records.append(String(cString: outer))
      sluice_xmlFree(outer)
      if wrappers.isEmpty { wrappers = open }
      // The record's subtree is read: go on with its next sibling.
      status = xmlTextReaderNext(reader)
    }
    if let error = feed.error { throw error }
    guard !records.isEmpty else {
      text = nil
      return
    }
    text =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      + wrappers.map { "<\($0)>\n" }.joined()
      + records.map { $0 + "\n" }.joined()
      + wrappers.reversed().map { "</\($0)>\n" }.joined()
  }

  /// The reader's input callback's side: Sluice's byte source, and the error a read threw.
  private final class Feed {
    let source: any ByteSource
    var error: (any Error)?

    init(source: any ByteSource) {
      self.source = source
    }

    /// Fills `buffer` with up to `count` bytes: how many, 0 at the end, -1 after an error.
    func read(into buffer: UnsafeMutablePointer<CChar>, count: Int) -> Int32 {
      do {
        return Int32(try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count)))
      } catch {
        self.error = error
        return -1
      }
    }
  }
}
