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
  public let path: [String]
  public let limits: Limits
  public private(set) var recordCount = 0

  private let source: any ByteSource
  private let chunk: UnsafeMutableRawBufferPointer
  private var context: xmlParserCtxtPtr?
  private var sourceEnded = false

  /// Records (or recoverable errors) the parser finished during the last chunk, in order.
  private var ready: [Result<RawRecord, RecordReadError>] = []
  private var readyHead = 0
  /// The parse error that stops the document, delivered after the records before it.
  private var failure: RecordReadError?

  /// What the SAX callbacks change on every element, behind a pointer: a stored `var` of a class
  /// pays a dynamic exclusivity check on every access — four or five per element here, which
  /// cost a third of the reader's instructions — and accesses through the pointer are unchecked.
  /// The reader is single-threaded and never holds two accesses to one of these at once.
  private struct State {
    // Where the parser is in the document.
    var depth = 0
    /// How many of the current element's ancestors-or-self match the path's first names.
    var matched = 0
    // The record being built.
    var builder = RecordTape.Builder()
    var frames: [Frame] = []
    var text: [UInt8] = []
    var recordStart = RecordLocation(ordinal: 0, byteOffset: 0, line: 1)
    /// Set when the record went past a limit: the rest of it is skipped, then reported.
    var skipped: RecordReadError?
  }
  private let state: UnsafeMutablePointer<State>

  private var depth: Int {
    _read { yield state.pointee.depth }
    _modify { yield &state.pointee.depth }
  }
  private var matched: Int {
    _read { yield state.pointee.matched }
    _modify { yield &state.pointee.matched }
  }
  private var builder: RecordTape.Builder {
    _read { yield state.pointee.builder }
    _modify { yield &state.pointee.builder }
  }
  private var frames: [Frame] {
    _read { yield state.pointee.frames }
    _modify { yield &state.pointee.frames }
  }
  private var text: [UInt8] {
    _read { yield state.pointee.text }
    _modify { yield &state.pointee.text }
  }
  private var recordStart: RecordLocation {
    _read { yield state.pointee.recordStart }
    _modify { yield &state.pointee.recordStart }
  }
  private var skipped: RecordReadError? {
    _read { yield state.pointee.skipped }
    _modify { yield &state.pointee.skipped }
  }

  /// The first element found where a record was expected but named differently, for the
  /// message when no record is found at all.
  private var strayName: String?

  private struct Frame {
    /// The object node once the element is known to be an object, else -1.
    var object: Int
    /// Where this element's text starts in `text`.
    var textStart: Int
    var offset: Int
    var lines: Int
  }

  /// The records' depth in the document (the root is 1).
  private let recordDepth: Int
  /// Inside a record: its element and all of its ancestors matched the path.
  private var inRecord: Bool { matched == recordDepth }

  public init(source: any ByteSource, path: [String], limits: Limits = Limits(), chunkSize: Int = 1 << 15) {
    _ = Self.refuseExternalEntities
    self.source = source
    self.path = path
    self.limits = limits
    recordDepth = path.isEmpty ? 2 : path.count
    chunk = .allocate(byteCount: max(chunkSize, 4), alignment: 16)
    state = .allocate(capacity: 1)
    state.initialize(to: State())
  }

  deinit {
    if let context { xmlFreeParserCtxt(context) }
    chunk.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  public func next() throws -> RawRecord? {
    while readyHead == ready.count {
      ready.removeAll(keepingCapacity: true)
      readyHead = 0
      if let failure { throw failure }
      if sourceEnded { return nil }
      try feed()
    }
    defer { readyHead += 1 }
    return try ready[readyHead].get()
  }

  // MARK: - Feeding the parser

  private func feed() throws {
    let count = try source.read(into: chunk)
    guard let base = chunk.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
    if context == nil {
      guard count > 0 else {
        sourceEnded = true
        failure = RecordReadError(
          code: .syntax, message: "empty input: no XML document", location: .init(ordinal: 0, byteOffset: 0, line: 1),
          isRecoverable: false)
        return
      }
      try start(first: base, count: count)
      return
    }
    if count == 0 {
      sourceEnded = true
      _ = xmlParseChunk(context, nil, 0, 1)
      finishDocument()
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
    _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
    context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
    if count > Int(head) { _ = xmlParseChunk(context, base + Int(head), Int32(count) - head, 0) }
  }

  /// After the last chunk: a document without a single record may have a wrong path.
  private func finishDocument() {
    guard failure == nil, recordCount == 0 else { return }
    if let strayName, let parent = pathDescription(upTo: recordDepth - 1) {
      failure = RecordReadError(
        code: .invalidValue,
        message: "no <\(path.last ?? strayName)> elements under \(parent); found <\(strayName)>",
        location: .init(ordinal: 0, byteOffset: byteOffset(), line: line()), isRecoverable: false)
    }
  }

  private func pathDescription(upTo count: Int) -> String? {
    guard count >= 1, path.count >= count else { return nil }
    return path.prefix(count).map { "<\($0)>" }.joined()
  }

  // MARK: - Positions

  /// The offset, in the decompressed stream, of the parser's current position.
  private func byteOffset(at cursor: UnsafePointer<xmlChar>? = nil) -> Int64 {
    guard let input = context?.pointee.input?.pointee, let base = input.base else { return 0 }
    let current = cursor ?? input.cur ?? base
    return Int64(input.consumed) + Int64(base.distance(to: current))
  }

  private func line() -> Int { Int(context?.pointee.input?.pointee.line ?? 1) }

  /// The position of the start tag just parsed: the parser stands at its end (`>` or `/>`), and
  /// the start tag's `<` is the last before it (attribute values hold no `<`).
  private func startTagPosition() -> (offset: Int64, line: Int) {
    guard let input = context?.pointee.input?.pointee, let base = input.base, var cursor = input.cur else {
      return (byteOffset(), line())
    }
    var lines = 0
    while cursor > base {
      cursor -= 1
      if cursor.pointee == UInt8(ascii: "<") { break }
      if cursor.pointee == UInt8(ascii: "\n") { lines += 1 }
    }
    return (byteOffset(at: cursor), line() - lines)
  }

  // MARK: - Events

  fileprivate func startElement(
    _ name: UnsafePointer<xmlChar>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
  ) {
    depth += 1
    if depth > recordDepth {
      guard inRecord, skipped == nil else { return }
      guard depth - recordDepth <= limits.maxDepth else {
        skip(
          RecordReadError(
            code: .nestingTooDeep, message: "elements nested deeper than \(limits.maxDepth) levels in a record",
            location: recordStart, isRecoverable: true))
        return
      }
      openElement(name, attributeCount: attributeCount, attributes: attributes)
      return
    }
    guard matched == depth - 1 else { return }
    let isRecordLevel = depth == recordDepth
    if depth <= path.count {
      guard matches(name, path[depth - 1]) else {
        if depth == 1 {
          fail(code: .invalidValue, "the root element is <\(String(cString: name))>, not <\(path[0])> as the record path says")
        } else if isRecordLevel, strayName == nil {
          strayName = String(cString: name)
        }
        return
      }
    }
    matched = depth
    guard isRecordLevel else { return }
    recordCount += 1
    let position = startTagPosition()
    recordStart = RecordLocation(ordinal: recordCount, byteOffset: position.offset, line: position.line)
    builder.reset(origin: .xml)
    frames.removeAll(keepingCapacity: true)
    text.removeAll(keepingCapacity: true)
    skipped = nil
    openElement(name, attributeCount: attributeCount, attributes: attributes, position: position)
  }

  private func matches(_ name: UnsafePointer<xmlChar>, _ expected: String) -> Bool {
    var expected = expected
    return expected.withUTF8 { utf8 in
      var i = 0
      while i < utf8.count {
        if name[i] != utf8[i] { return false }
        i += 1
      }
      return name[i] == 0
    }
  }

  private func openElement(
    _ name: UnsafePointer<xmlChar>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
    position: (offset: Int64, line: Int)? = nil
  ) {
    let position = position ?? startTagPosition()
    let offset = Int(position.offset - recordStart.byteOffset)
    let lines = position.line - recordStart.line
    if var parent = frames.last {
      if parent.object < 0 {
        parent.object = builder.openObject(offset: parent.offset, lines: parent.lines)
        frames[frames.count - 1] = parent
      }
      builder.key(UnsafeBufferPointer(start: name, count: strlen(name)), offset: offset, lines: lines)
    }
    var frame = Frame(object: -1, textStart: text.count, offset: offset, lines: lines)
    if attributeCount > 0, let attributes {
      frame.object = builder.openObject(offset: offset, lines: lines)
      // Five pointers per attribute: local name, prefix, URI, value start, value end.
      for index in 0..<attributeCount {
        guard let localName = attributes[index * 5], let start = attributes[index * 5 + 3],
          let end = attributes[index * 5 + 4]
        else { continue }
        builder.key(
          UnsafeBufferPointer(start: localName, count: strlen(localName)), offset: offset, lines: lines, isAttribute: true)
        builder.string(UnsafeBufferPointer(start: start, count: start.distance(to: end)), offset: offset, lines: lines)
      }
    }
    frames.append(frame)
    checkSize()
  }

  fileprivate func endElement() {
    defer { depth -= 1 }
    let inRecord = inRecord
    if matched == depth { matched = depth - 1 }
    guard inRecord else { return }
    if skipped == nil, let frame = frames.popLast() {
      text.withUnsafeBufferPointer { all in
        let own = UnsafeBufferPointer(rebasing: all[frame.textStart...])
        if frame.object >= 0 {
          if own.contains(where: { !Self.isWhitespace($0) }) {
            builder.key("#text", offset: frame.offset, lines: frame.lines)
            builder.string(own, offset: frame.offset, lines: frame.lines)
          }
          builder.closeObject(frame.object)
        } else {
          builder.string(own, offset: frame.offset, lines: frame.lines)
        }
      }
      text.removeSubrange(frame.textStart...)
      checkSize()
    }
    guard depth == recordDepth else { return }
    if let skipped {
      ready.append(.failure(skipped))
      self.skipped = nil
      frames.removeAll(keepingCapacity: true)
      text.removeAll(keepingCapacity: true)
      return
    }
    let tape = builder.finish()
    ready.append(.success(RawRecord(location: recordStart, tape: tape)))
  }

  fileprivate func characters(_ bytes: UnsafePointer<xmlChar>, count: Int) {
    guard inRecord, skipped == nil else { return }
    text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    if text.count > limits.maxRecordBytes { checkSize(pending: text.count) }
  }

  private func checkSize(pending: Int = 0) {
    guard skipped == nil, builder.byteCount + pending > limits.maxRecordBytes else { return }
    skip(
      RecordReadError(
        code: .recordTooLarge, message: "record larger than \(limits.maxRecordBytes) bytes", location: recordStart,
        isRecoverable: true))
  }

  /// Gives up the record: its events are ignored until it ends, then the error is reported.
  private func skip(_ error: RecordReadError) {
    skipped = error
    builder.reset(origin: .xml)
    frames.removeAll()
    text = []
  }

  fileprivate func refuseEntity(_ name: UnsafePointer<xmlChar>?) {
    let entity = name.map { String(cString: $0) } ?? "?"
    fail(
      code: .unsafeXML,
      "the document declares the entity '\(entity)'; Sluice never expands or loads DTD entities (they are how billion-laughs and XXE attacks work)")
  }

  fileprivate func parserError(_ error: UnsafePointer<xmlError>) {
    guard failure == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    let message = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
    let trimmed = message.hasSuffix("\n") ? String(message.dropLast()) : message
    failure = RecordReadError(
      code: .syntax, message: "malformed XML: \(trimmed)",
      location: .init(ordinal: recordCount, byteOffset: byteOffset(), line: Int(error.pointee.line)), isRecoverable: false)
  }

  private func fail(code: IssueCode, _ message: String) {
    guard failure == nil else { return }
    failure = RecordReadError(
      code: code, message: message, location: .init(ordinal: recordCount, byteOffset: byteOffset(), line: line()),
      isRecoverable: false)
    if let context { xmlStopParser(context) }
  }

  @inline(__always)
  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  // MARK: - libxml2 set-up

  /// External entities are never read, whoever asks: the loader libxml2 calls for every DTD,
  /// entity or XInclude it would fetch, process-wide, returns nothing.
  private static let refuseExternalEntities: Void = {
    xmlInitParser()
    xmlSetExternalEntityLoader { _, _, _ in nil }
  }()

  /// The SAX2 callbacks: elements, text and errors go to the reader; entity declarations are
  /// refused; everything a DTD could make the parser do (subsets, entity resolution) is off.
  private static var handler: xmlSAXHandler {
    var handler = xmlSAXHandler()
    handler.initialized = UInt32(XML_SAX2_MAGIC)
    handler.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
      guard let reader = XMLRecordReader.reader(context), let localName else { return }
      reader.startElement(localName, attributeCount: Int(attributeCount), attributes: attributes)
    }
    handler.endElementNs = { context, _, _, _ in
      XMLRecordReader.reader(context)?.endElement()
    }
    handler.characters = { context, bytes, count in
      guard let bytes else { return }
      XMLRecordReader.reader(context)?.characters(bytes, count: Int(count))
    }
    handler.cdataBlock = handler.characters
    handler.ignorableWhitespace = handler.characters
    handler.entityDecl = { context, name, _, _, _, _ in
      XMLRecordReader.reader(context)?.refuseEntity(name)
    }
    handler.unparsedEntityDecl = { context, name, _, _, _ in
      XMLRecordReader.reader(context)?.refuseEntity(name)
    }
    handler.serror = { context, error in
      guard let error else { return }
      XMLRecordReader.reader(context)?.parserError(error)
    }
    return handler
  }

  /// The reader behind a callback's context (the parser context, whose `_private` holds it).
  private static func reader(_ context: UnsafeMutableRawPointer?) -> XMLRecordReader? {
    guard let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self), let reader = parser.pointee._private
    else { return nil }
    return Unmanaged<XMLRecordReader>.fromOpaque(reader).takeUnretainedValue()
  }
}
