internal import CLibXML2
import Foundation

/// Finds the records of an XML document — the elements at an element path — and turns each
/// into the tape the decoder reads, so a DTO decodes from XML as it does from JSON.
///
/// libxml2's push parser reads the document from Sluice's own input (so gzip, stdin and byte
/// counts work as for JSON) in chunks, and reports elements, attributes and text through SAX2
/// callbacks; no tree is ever built. The reader owns the parser context and frees it.
///
/// Safe by construction: no network, no DTD loading, no external entity ever read (a process
/// wide loader refuses every one), and a document that declares an entity is refused at the
/// declaration, so nothing is ever expanded — no billion laughs, no quadratic blow-up. The five
/// predefined entities and character references are decoded as usual.
///
/// How an element becomes a tape value (the conventions the README documents):
/// - an element with attributes or child elements is an object; attributes and children are
///   its keys, by local name (namespaces are matched by local name), in document order;
/// - an element with neither is its text (CDATA included), `""` when empty;
/// - an object's own text, when it is not only whitespace, is under the key `#text`;
/// - repeated children repeat their key; the decoder makes arrays of them (see `DecodingState`).
public final class XMLRecordReader: RecordReader {
  public struct Limits: Sendable {
    /// Deepest nesting of elements inside a record (the record's element is depth 0).
    public var maxDepth: Int
    /// Largest record, measured as the tape's JSON text.
    public var maxRecordBytes: Int

    public init(maxDepth: Int = 256, maxRecordBytes: Int = 64 << 20) {
      self.maxDepth = maxDepth
      self.maxRecordBytes = maxRecordBytes
    }
  }

  /// The key an object's own text is found under.
  public static let textKey = "#text"

  /// Element names from the root to the records (`["orders", "order"]`); empty: the root's children.
  public var path: [String] { assembler.pointee.path }
  public var limits: Limits { assembler.pointee.limits }
  public var recordCount: Int { assembler.pointee.recordCount }

  private let source: any ByteSource
  private let chunk: UnsafeMutableRawBufferPointer
  private var context: xmlParserCtxtPtr?
  private var sourceEnded = false
  /// What the callbacks change, behind a pointer: a class's stored properties pay a dynamic
  /// exclusivity check on every access, a quarter of the reader's time when they held it.
  private let assembler: UnsafeMutablePointer<XMLAssembler>

  public init(source: any ByteSource, path: [String], limits: Limits = Limits(), chunkSize: Int = 1 << 15) {
    _ = Self.refuseExternalEntities
    self.source = source
    chunk = .allocate(byteCount: max(chunkSize, 4), alignment: 16)
    assembler = .allocate(capacity: 1)
    assembler.initialize(to: XMLAssembler(path: path, limits: limits))
  }

  deinit {
    if let context { xmlFreeParserCtxt(context) }
    chunk.deallocate()
    assembler.pointee.deallocate()
    assembler.deinitialize(count: 1)
    assembler.deallocate()
  }

  public func next() throws -> RawRecord? {
    while true {
      if let record = try assembler.pointee.nextReady() { return record }
      if sourceEnded { return nil }
      try feed()
    }
  }

  // MARK: - Feeding the parser

  private func feed() throws {
    var count = try source.read(into: chunk)
    guard let base = chunk.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
    guard let context else {
      // The parser detects the encoding, and skips a byte order mark, from the first four bytes;
      // a source may hand back fewer on its first read (a file returns the two bytes it peeked at
      // for gzip's magic), and two bytes of a UTF-8 BOM leave libxml2 with "Document is empty".
      while count > 0 && count < 4 {
        let more = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[count...]))
        if more == 0 { break }
        count += more
      }
      guard count > 0 else {
        sourceEnded = true
        assembler.pointee.fail(code: .syntax, "empty input: no XML document")
        return
      }
      try start(first: base, count: count)
      return
    }
    if count == 0 {
      sourceEnded = true
      assembler.pointee.inputEnded = true
      _ = xmlParseChunk(context, nil, 0, 1)
      assembler.pointee.finishDocument()
    } else {
      _ = xmlParseChunk(context, base, Int32(count), 0)
    }
  }

  /// Creates the parser on the first bytes (it detects the encoding from the first four).
  private func start(first base: UnsafeMutablePointer<CChar>, count: Int) throws {
    var handler = Self.handler
    let head = Int32(min(4, count))
    guard let context = xmlCreatePushParserCtxt(&handler, nil, base, head, nil) else {
      throw RecordReadError(
        code: .syntax, message: "cannot start the XML parser", location: .init(ordinal: 0, byteOffset: 0, line: 1),
        isRecoverable: false)
    }
    self.context = context
    assembler.pointee.context = context
    _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
    context.pointee._private = UnsafeMutableRawPointer(assembler)
    if count > Int(head) { _ = xmlParseChunk(context, base + Int(head), Int32(count) - head, 0) }
  }

  // MARK: - libxml2 set-up

  /// External entities are never read, whoever asks: the loader libxml2 calls for every DTD,
  /// entity or XInclude it would fetch, process-wide, returns nothing. (`XMLOutline`, the
  /// structure pass of `sluice inspect`, sets it up through here too.)
  static let refuseExternalEntities: Void = {
    xmlInitParser()
    xmlSetExternalEntityLoader { _, _, _ in nil }
  }()

  /// The SAX2 callbacks: elements, text and errors go to the assembler; entity declarations
  /// are refused; everything a DTD could make the parser do (subsets, entity resolution) is off.
  private static var handler: xmlSAXHandler {
    var handler = xmlSAXHandler()
    handler.initialized = UInt32(XML_SAX2_MAGIC)
    handler.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
      guard let assembler = XMLAssembler.of(context), let localName else { return }
      assembler.pointee.startElement(localName, attributeCount: Int(attributeCount), attributes: attributes)
    }
    handler.endElementNs = { context, _, _, _ in
      XMLAssembler.of(context)?.pointee.endElement()
    }
    handler.characters = { context, bytes, count in
      guard let bytes else { return }
      XMLAssembler.of(context)?.pointee.characters(bytes, count: Int(count))
    }
    handler.cdataBlock = handler.characters
    handler.ignorableWhitespace = handler.characters
    handler.entityDecl = { context, name, _, _, _, _ in
      XMLAssembler.of(context)?.pointee.refuseEntity(name)
    }
    handler.unparsedEntityDecl = { context, name, _, _, _ in
      XMLAssembler.of(context)?.pointee.refuseEntity(name)
    }
    handler.serror = { context, error in
      guard let error else { return }
      XMLAssembler.of(context)?.pointee.parserError(error)
    }
    return handler
  }
}
