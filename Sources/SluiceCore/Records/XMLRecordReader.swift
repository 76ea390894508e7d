package import CLibXML2
import Foundation

/// Finds the records of an XML document — the elements at an element path — and turns each
/// into the tape the decoder reads, so a DTO decodes from XML as it does from JSON.
///
/// libxml2's push parser reads the document from Sluice's own input (so gzip, stdin and byte
/// counts work as for JSON) in chunks, and reports elements, attributes and text through SAX2
/// callbacks; no tree is ever built. The reader owns the parser context and frees it.
///
/// Safe by construction: no network, no DTD loading, no external entity ever read (a process
/// wide loader refuses every one), and nothing from a DTD is applied: a document that declares
/// an entity is refused at the declaration, so nothing is ever expanded — no billion laughs, no
/// quadratic blow-up — and so is one whose DTD would change attribute values (a default or fixed
/// value, a type other than CDATA); a defaulted attribute would be ignored in any case. The five
/// predefined entities and character references are decoded as usual.
///
/// Bounded: libxml2 gets the input 4 KiB at a time, and only when no finished record waits, so
/// the records queued for `next()` are those one slice finished; a start tag with more than
/// twice `maxAttributes` attributes is refused before libxml2 parses it (see `XMLStartTagGuard`).
///
/// How an element becomes a tape value (the conventions the README documents):
/// - an element with attributes or child elements is an object; attributes and children are
///   its keys, by local name (namespaces are matched by local name), or prefixed names whole
///   when `naming` is `.qualified`, in document order;
/// - an element with neither is its text (CDATA included), `""` when empty;
/// - an object's own text, when it is not only whitespace, is under the key `#text`;
/// - repeated children repeat their key; the decoder makes arrays of them (see `DecodingState`).
@_spi(Internals) public final class XMLRecordReader: RecordReader {
  public struct Limits: Sendable {
    /// Deepest nesting of elements inside a record (the record's element is depth 0).
    public var maxDepth: Int
    /// Largest record, measured as the tape's JSON text.
    public var maxRecordBytes: Int
    /// Most attributes on one element of a record: more skip the record. A start tag with more
    /// than twice as many ends the document before libxml2 parses it (its check of attribute
    /// names is quadratic).
    public var maxAttributes: Int
    /// Longest text of one element of a record (CDATA included), in UTF-8 bytes: libxml2's own
    /// bound for an attribute value or a CDATA section, which it does not apply to text.
    public var maxTextBytes: Int

    public init(
      maxDepth: Int = 256, maxRecordBytes: Int = 64 << 20, maxAttributes: Int = 10_000, maxTextBytes: Int = 10_000_000
    ) {
      self.maxDepth = maxDepth
      self.maxRecordBytes = maxRecordBytes
      self.maxAttributes = maxAttributes
      self.maxTextBytes = maxTextBytes
    }
  }

  /// The key an object's own text is found under.
  public static let textKey = "#text"

  /// Element names from the root to the records (`["orders", "order"]`); empty: the root's children.
  public var path: [String] { assembler.pointee.path }
  public var limits: Limits { assembler.pointee.limits }
  public var recordCount: Int { assembler.pointee.recordCount }
  /// Records (and recoverable errors) the parser finished that `next()` has not handed out yet.
  var queuedRecordCount: Int { assembler.pointee.queuedCount }

  private let source: any ByteSource
  private let chunk: UnsafeMutableRawBufferPointer
  /// The bytes of `chunk` read from the source, and how many of them the parser has been given.
  private var chunkCount = 0
  private var chunkFed = 0
  /// Bytes handed to the parser so far, the first four included.
  private var fedBytes: Int64 = 0
  private var context: xmlParserCtxtPtr?
  private var sourceEnded = false
  private var startTagGuard = XMLStartTagGuard()
  /// What the callbacks change, behind a pointer: a class's stored properties pay a dynamic
  /// exclusivity check on every access, a quarter of the reader's time when they held it.
  private let assembler: UnsafeMutablePointer<XMLAssembler>

  /// How elements and attributes are keyed in a record.
  public enum Naming: String, Sendable {
    /// By local name: `<c:customer>` is `customer` (the default).
    case local
    /// Prefixed names whole, `prefix:local`: `<content:encoded>` and `<excerpt:encoded>` (a
    /// WordPress export's) are two fields, where by local name they would be one, repeated.
    /// Unprefixed names (the default namespace's, none) stay local; the record path still
    /// matches by local name.
    case qualified
  }

  public init(
    source: any ByteSource, path: [String], limits: Limits = Limits(), chunkSize: Int = 1 << 15,
    naming: Naming = .local
  ) {
    _ = Self.refuseExternalEntities
    self.source = source
    chunk = .allocate(byteCount: max(chunkSize, 4), alignment: 16)
    assembler = .allocate(capacity: 1)
    var assembling = XMLAssembler(path: path, limits: limits)
    assembling.isQualified = naming == .qualified
    assembler.initialize(to: assembling)
  }

  deinit {
    if let context { Self.free(context) }
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

  /// Hands the parser its next slice of input, reading the source when the chunk is used up.
  private func feed() throws {
    guard let base = chunk.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
    sluice_silenceGenericErrors()
    if let context, chunkFed < chunkCount {
      let slice = min(XMLStartTagGuard.sliceSize, chunkCount - chunkFed)
      assembler.pointee.parsed(status: xmlParseChunk(context, base + chunkFed, Int32(slice), 0), slice: fedBytes)
      chunkFed += slice
      fedBytes += Int64(slice)
      guardStartTag(context)
      return
    }
    var count = try source.read(into: chunk)
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
      assembler.pointee.parsed(status: xmlParseChunk(context, nil, 0, 1), slice: fedBytes)
      assembler.pointee.finishDocument()
    } else {
      chunkCount = count
      chunkFed = 0
      try feed()
    }
  }

  /// Ends the document at a start tag libxml2 would spend quadratic time on.
  private func guardStartTag(_ context: xmlParserCtxtPtr) {
    let bound = 2 * assembler.pointee.limits.maxAttributes
    guard startTagGuard.pendingAttributes(in: context) > bound else { return }
    assembler.pointee.fail(
      code: .tooManyAttributes, "a start tag with more than \(bound) attributes; the document is not read further")
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
    chunkCount = count
    chunkFed = Int(head)
    fedBytes = Int64(head)
  }

  // MARK: - libxml2 set-up

  /// External entities are never read, whoever asks: the loader libxml2 calls for every DTD,
  /// entity or XInclude it would fetch, process-wide, returns nothing. (`XMLOutline`, the
  /// structure pass of `sluice inspect`, sets it up through here too.)
  package static let refuseExternalEntities: Void = {
    xmlInitParser()
    xmlSetExternalEntityLoader { _, _, _ in nil }
  }()

  /// Frees a parser context and the document libxml2 may have made behind it: "for expat
  /// compatibility in SAX mode" (parser.c), an entity declaration makes the parser create
  /// `myDoc` to record the entity in, even after the handler stopped the parser, and
  /// `xmlFreeParserCtxt` leaves that document to its caller (found by the xml-reader fuzz target).
  package static func free(_ context: xmlParserCtxtPtr) {
    if let document = context.pointee.myDoc {
      context.pointee.myDoc = nil
      xmlFreeDoc(document)
    }
    xmlFreeParserCtxt(context)
  }

  /// The SAX2 callbacks: elements, text and errors go to the assembler; entity declarations,
  /// and attribute declarations that would change values, are refused; everything a DTD could
  /// make the parser do (subsets, entity resolution) is off.
  private static var handler: xmlSAXHandler {
    var handler = xmlSAXHandler()
    handler.initialized = UInt32(XML_SAX2_MAGIC)
    handler.startElementNs = { context, localName, prefix, _, _, _, attributeCount, defaulted, attributes in
      guard let assembler = XMLAssembler.of(context), let localName else { return }
      assembler.pointee.startElement(
        localName, prefix: prefix, attributeCount: Int(attributeCount), defaulted: Int(defaulted),
        attributes: attributes)
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
    handler.attributeDecl = { context, element, name, type, defaultKind, defaultValue, values in
      // "tree: the tree of enumerated value set" belongs to the handler, as in libxml2's own
      // xmlSAX2AttributeDecl, which hands it on; here it is only freed.
      if let values { xmlFreeEnumeration(values) }
      guard
        let refusal = XMLAssembler.attributeDeclarationRefusal(
          element: element, attribute: name, type: type, defaultKind: defaultKind, hasDefault: defaultValue != nil)
      else { return }
      XMLAssembler.of(context)?.pointee.fail(code: .unsafeXML, refusal)
    }
    handler.serror = { context, error in
      guard let error else { return }
      XMLAssembler.of(context)?.pointee.parserError(error)
    }
    return handler
  }
}
