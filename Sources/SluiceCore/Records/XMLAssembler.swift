package import CLibXML2
import Foundation

/// Turns the parser's events into records: follows the element path, builds each record's
/// tape, bounds it, and queues finished records and errors for `next()`.
package struct XMLAssembler {
  let path: [String]
  let limits: XMLRecordReader.Limits
  /// Keys of prefixed elements and attributes are `prefix:local`, not the local name
  /// (`XMLRecordReader.Naming.qualified`).
  var isQualified = false
  /// The prefix of the element being started, when qualified: valid during its callback only.
  private var prefix: UnsafePointer<xmlChar>?
  /// The bytes of a qualified key being made, reused.
  private var qualifiedName: [UInt8] = []
  var context: xmlParserCtxtPtr?
  private(set) var recordCount = 0

  /// Records (or recoverable errors) the parser finished during the last slice of input, in
  /// order. The reader feeds the parser only when this is empty, a slice of at most 4 KiB at a
  /// time, so it holds at most about a thousand records (`<a/>` is four bytes), all but the one
  /// open when the slice began made of that slice's bytes; nothing from a DTD adds to them.
  /// Each is taken out (`take()`) when handed on, so the record is moved, not copied: a copy
  /// retained, and the queue's clean-up released, the tape's arrays one by one.
  private var ready: [Result<RawRecord, RecordReadError>?] = []
  private var readyHead = 0
  var queuedCount: Int { ready.count - readyHead }
  /// The error that stops the document, delivered after the records before it.
  private var failure: RecordReadError?
  /// The parser has been given the last of the input.
  var inputEnded = false

  // Where the parser is in the document.
  private var depth = 0
  /// How many of the current element's ancestors-or-self match the path's first names.
  private var matched = 0
  /// The first element found where a record was expected but named differently, for the
  /// message when no record is found at all.
  private var strayName: String?

  // The record being built.
  private var builder = RecordTape.Builder()
  private var frames = GrowableBuffer<Frame>(capacity: 64)
  /// The text of the open elements, innermost last (`Frame.textStart`).
  private var text = GrowableBuffer<UInt8>(capacity: 4096)
  private var recordStart = RecordLocation(ordinal: 0, byteOffset: 0, line: 1)
  /// Whether the document's encoding, once known at the root, is one whose byte offsets are
  /// exact (`XMLEncodings`); nil before the root or for UTF-8.
  private var encodingIsLocatable: Bool?
  /// Set when the record went past a limit: the rest of it is skipped, then reported.
  private var skipped: RecordReadError?

  private struct Frame {
    /// The object node once the element is known to be an object, else -1.
    var object: Int
    /// Where this element's text starts in `text`.
    var textStart: Int
    var offset: Int
    var lines: Int
    /// `xsi:nil="true"`: the element is null, unless it turns out to have children.
    var isNil = false
  }

  init(path: [String], limits: XMLRecordReader.Limits) {
    self.path = path
    self.limits = limits
  }

  /// Frees the buffers; the assembler is not used again.
  func deallocate() {
    builder.deallocate()
    frames.deallocate()
    text.deallocate()
  }

  /// The assembler behind a callback's context (the parser context, whose `_private` holds it).
  static func of(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<XMLAssembler>? {
    guard let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self), let assembler = parser.pointee._private
    else { return nil }
    return assembler.assumingMemoryBound(to: XMLAssembler.self)
  }

  /// The records' depth in the document (the root is 1).
  private var recordDepth: Int { path.isEmpty ? 2 : path.count }
  /// Inside a record: its element and all of its ancestors matched the path.
  private var inRecord: Bool { matched == recordDepth }

  /// The next finished record, or nil when the parser must be fed; throws the document's error
  /// once the records before it are delivered.
  mutating func nextReady() throws -> RawRecord? {
    if readyHead < ready.count {
      defer { readyHead += 1 }
      return try ready[readyHead].take()?.get()
    }
    ready.removeAll(keepingCapacity: true)
    readyHead = 0
    if let failure { throw failure }
    return nil
  }

  /// After the last chunk: a document without a single record may have a wrong path.
  mutating func finishDocument() {
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

  /// The offset, in the decompressed stream, of the parser's current position (or `cursor`, a
  /// place in the parser's buffer before it).
  ///
  /// A document in another encoding (ISO-8859-1, UTF-16, Shift_JIS, …) reaches the parser as
  /// libxml2's UTF-8 copy, whose offsets are not the stream's. libxml2 tells the stream's offset
  /// of its current position (`xmlByteConsumed`: the bytes it has converted, less the length in
  /// the original encoding of the copy's rest, which it converts back to count); it is asked with
  /// `cur` moved to `cursor` for the call and put back at once. That count is exact only for an
  /// encoding in which every character has one spelling and no state (`XMLEncodings`); a
  /// document in any other is refused at its root (`checkEncoding()`), and an error before it is
  /// placed where libxml2's conversion had got to.
  private func byteOffset() -> Int64 {
    Self.byteOffset(in: context, encodingIsLocatable: encodingIsLocatable)
  }

  private static func byteOffset(
    in context: xmlParserCtxtPtr?, at cursor: UnsafePointer<xmlChar>? = nil, encodingIsLocatable: Bool?
  ) -> Int64 {
    guard let context, let input = context.pointee.input, let base = input.pointee.base else { return 0 }
    let current = cursor ?? input.pointee.cur ?? base
    if let buffer = input.pointee.buf, let encoder = buffer.pointee.encoder {
      guard encodingIsLocatable ?? XMLEncodings.isLocatable(encoder.pointee.name) else {
        return Int64(buffer.pointee.rawconsumed)
      }
      let saved = input.pointee.cur
      input.pointee.cur = current
      let consumed = xmlByteConsumed(context)
      input.pointee.cur = saved
      if consumed >= 0 { return Int64(consumed) }
    }
    return Int64(input.pointee.consumed) + Int64(base.distance(to: current))
  }

  private func line() -> Int { Int(context?.pointee.input?.pointee.line ?? 1) }

  /// The position of the start tag just parsed: the parser stands at its end (`>` or `/>`), and
  /// the start tag's `<` is the last before it (attribute values hold no `<`).
  ///
  /// Called for every element, so a UTF-8 document's offset is worked out here, without
  /// `byteOffset`'s look at the encoder. Static, like `byteOffset(in:at:encodingIsLocatable:)`
  /// and `matches`: a mutating method that calls a non-mutating one on this struct first copies
  /// all of it (536 bytes, a `memcpy` per element, more than the scan costs).
  private static func startTagPosition(
    in context: xmlParserCtxtPtr?, encodingIsLocatable: Bool?
  ) -> (offset: Int64, line: Int) {
    guard let input = context?.pointee.input, let base = input.pointee.base, var cursor = input.pointee.cur else {
      return (
        byteOffset(in: context, encodingIsLocatable: encodingIsLocatable),
        Int(context?.pointee.input?.pointee.line ?? 1)
      )
    }
    let line = Int(input.pointee.line)
    var lines = 0
    while cursor > base {
      cursor -= 1
      let byte = cursor.pointee
      if byte == UInt8(ascii: "<") { break }
      if byte == UInt8(ascii: "\n") { lines += 1 }
    }
    if input.pointee.buf?.pointee.encoder == nil {
      return (Int64(input.pointee.consumed) + Int64(base.distance(to: cursor)), line - lines)
    }
    return (byteOffset(in: context, at: cursor, encodingIsLocatable: encodingIsLocatable), line - lines)
  }

  // MARK: - Events

  /// An element starts. Of its `attributeCount` attributes, the last `defaulted` come from the
  /// DTD's defaults ("the defaulted ones are at the end of the array", SAX2's documentation);
  /// they are ignored, although a document that declares one is refused before any element.
  mutating func startElement(
    _ name: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>? = nil, attributeCount: Int, defaulted: Int,
    attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
  ) {
    self.prefix = isQualified ? prefix : nil
    // After an error libxml2 reports but reads past (a namespace error), nothing more is a record.
    guard failure == nil else { return }
    let attributeCount = max(0, attributeCount - max(0, defaulted))
    depth += 1
    if depth == 1 {
      checkEncoding()
      guard failure == nil else { return }
    }
    // libxml2's push parser keeps state for every open element and sets no bound of its own: a
    // record nested too deep is skipped, but one nested past twice the limit (or anything that
    // deep outside a record) gives the document up, so memory stays bounded.
    if depth - recordDepth - limits.maxDepth > limits.maxDepth {
      fail(
        code: .nestingTooDeep, "elements nested deeper than \(limits.maxDepth) levels; the document is not read further"
      )
      return
    }
    if depth > recordDepth {
      guard inRecord, skipped == nil else { return }
      guard depth - recordDepth <= limits.maxDepth else {
        skip(
          RecordReadError(
            code: .nestingTooDeep, message: "elements nested deeper than \(limits.maxDepth) levels in a record",
            location: recordStart, isRecoverable: true))
        return
      }
      guard attributeCount <= limits.maxAttributes else {
        skipForAttributes(attributeCount, element: name)
        return
      }
      openElement(name, attributeCount: attributeCount, attributes: attributes)
      return
    }
    guard matched == depth - 1 else { return }
    let isRecordLevel = depth == recordDepth
    if depth <= path.count {
      guard Self.matches(name, path[depth - 1]) else {
        if depth == 1 {
          fail(
            code: .invalidValue,
            "the root element is <\(String(cString: name))>, not <\(path[0])> as the record path says")
        } else if isRecordLevel, strayName == nil {
          strayName = String(cString: name)
        }
        return
      }
    }
    matched = depth
    guard isRecordLevel else { return }
    recordCount += 1
    let position = Self.startTagPosition(in: context, encodingIsLocatable: encodingIsLocatable)
    recordStart = RecordLocation(ordinal: recordCount, byteOffset: position.offset, line: position.line)
    builder.reset()
    frames.removeAll(shrinkingAbove: 1 << 16)
    text.removeAll(shrinkingAbove: 1 << 20)
    skipped = nil
    guard attributeCount <= limits.maxAttributes else {
      skipForAttributes(attributeCount, element: name)
      return
    }
    openElement(name, attributeCount: attributeCount, attributes: attributes, position: position)
  }

  /// A key of the record: the local name, or `prefix:local` for a prefixed name when qualified.
  private mutating func key(
    _ name: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, offset: Int, lines: Int, isAttribute: Bool = false
  ) {
    guard let prefix else {
      builder.key(name, count: strlen(name), offset: offset, lines: lines, isAttribute: isAttribute)
      return
    }
    let prefixCount = strlen(prefix)
    let nameCount = strlen(name)
    qualifiedName.removeAll(keepingCapacity: true)
    qualifiedName.append(contentsOf: UnsafeBufferPointer(start: prefix, count: prefixCount))
    qualifiedName.append(UInt8(ascii: ":"))
    qualifiedName.append(contentsOf: UnsafeBufferPointer(start: name, count: nameCount))
    qualifiedName.withUnsafeBufferPointer { buffer in
      if let base = buffer.baseAddress {
        builder.key(base, count: buffer.count, offset: offset, lines: lines, isAttribute: isAttribute)
      }
    }
  }

  private mutating func skipForAttributes(_ count: Int, element name: UnsafePointer<xmlChar>) {
    var error = RecordReadError(
      code: .tooManyAttributes,
      message: "<\(String(cString: name))> has \(count) attributes, more than \(limits.maxAttributes)",
      location: recordStart, isRecoverable: true)
    error.path = elementPath(current: name)
    skip(error)
  }

  private static func matches(_ name: UnsafePointer<xmlChar>, _ expected: String) -> Bool {
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

  private mutating func openElement(
    _ name: UnsafePointer<xmlChar>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
    position: (offset: Int64, line: Int)? = nil
  ) {
    let position = position ?? Self.startTagPosition(in: context, encodingIsLocatable: encodingIsLocatable)
    let offset = Int(position.offset - recordStart.byteOffset)
    let lines = position.line - recordStart.line
    if var parent = frames.last {
      if parent.object < 0 {
        parent.object = builder.openObject(offset: parent.offset, lines: parent.lines)
        frames[frames.count - 1] = parent
      }
      key(name, prefix: prefix, offset: offset, lines: lines)
    }
    var frame = Frame(object: -1, textStart: text.count, offset: offset, lines: lines)
    if attributeCount > 0, let attributes, Self.isNil(attributeCount: attributeCount, attributes: attributes) {
      frame.isNil = true
    } else if attributeCount > 0, let attributes {
      // Five pointers per attribute: local name, prefix, URI, value start, value end. XML
      // Schema instance attributes (xsi:nil, xsi:schemaLocation) describe the document, not data.
      for index in 0..<attributeCount {
        guard let localName = attributes[index * 5], let start = attributes[index * 5 + 3],
          let end = attributes[index * 5 + 4], !Self.isSchemaInstance(attributes[index * 5 + 2])
        else { continue }
        if frame.object < 0 { frame.object = builder.openObject(offset: offset, lines: lines) }
        key(
          localName, prefix: isQualified ? attributes[index * 5 + 1] : nil, offset: offset, lines: lines,
          isAttribute: true)
        let value = UnsafeBufferPointer(start: start, count: start.distance(to: end))
        if value.contains(UInt8(ascii: "&")) {
          Self.ampersandsDecoded(value).withUnsafeBufferPointer { decoded in
            if let base = decoded.baseAddress {
              builder.string(base, count: decoded.count, offset: offset, lines: lines)
            }
          }
        } else {
          builder.string(start, count: value.count, offset: offset, lines: lines)
        }
      }
    }
    frames.append(frame)
    checkSize()
  }

  mutating func endElement() {
    guard failure == nil else { return }
    defer { depth -= 1 }
    let inRecord = inRecord
    if matched == depth { matched = depth - 1 }
    guard inRecord else { return }
    if skipped == nil, let frame = frames.last {
      frames.removeLast(1)
      let own = text.base + frame.textStart
      let length = text.count - frame.textStart
      if frame.isNil && frame.object < 0 {
        builder.null(offset: frame.offset, lines: frame.lines)
      } else if frame.object >= 0 {
        if UnsafeBufferPointer(start: own, count: length).contains(where: { !Self.isWhitespace($0) }) {
          builder.key("#text", offset: frame.offset, lines: frame.lines)
          builder.string(own, count: length, offset: frame.offset, lines: frame.lines)
        }
        builder.closeObject(frame.object)
      } else {
        builder.string(own, count: length, offset: frame.offset, lines: frame.lines)
      }
      text.truncate(to: frame.textStart)
      checkSize()
    }
    guard depth == recordDepth else { return }
    if let skipped {
      ready.append(.failure(skipped))
      self.skipped = nil
      return
    }
    let tape = builder.finish(origin: .xml)
    ready.append(.success(RawRecord(location: recordStart, tape: tape)))
  }

  mutating func characters(_ bytes: UnsafePointer<xmlChar>, count: Int) {
    guard inRecord, skipped == nil, failure == nil else { return }
    text.append(bytes, count: count)
    if let frame = frames.last, text.count - frame.textStart > limits.maxTextBytes {
      var error = RecordReadError(
        code: .valueTooLarge, message: "an element's text longer than \(limits.maxTextBytes) bytes",
        location: recordStart, isRecoverable: true)
      error.path = elementPath(current: nil)
      skip(error)
      return
    }
    if text.count > limits.maxRecordBytes { checkSize(pending: text.count) }
  }

  /// The path of the innermost open element from the record's (dotted local names, as the
  /// tape's keys are), with `current` when it has not been pushed yet; empty for the record's
  /// own element. Read off libxml2's stack of element names; only for an issue.
  private func elementPath(current: UnsafePointer<xmlChar>?) -> String {
    var names: [String] = []
    if let context, let stack = context.pointee.nameTab {
      var index = recordDepth
      while index < Int(context.pointee.nameNr) {
        if let name = stack[index] { names.append(String(cString: name)) }
        index += 1
      }
    }
    if let current, depth > recordDepth { names.append(String(cString: current)) }
    return names.joined(separator: ".")
  }

  @inline(__always)
  private mutating func checkSize(pending: Int = 0) {
    guard skipped == nil, builder.byteCount + pending > limits.maxRecordBytes else { return }
    skip(
      RecordReadError(
        code: .recordTooLarge, message: "record larger than \(limits.maxRecordBytes) bytes", location: recordStart,
        isRecoverable: true))
  }

  /// Gives up the record: its events are ignored until it ends, then the error is reported.
  private mutating func skip(_ error: RecordReadError) {
    skipped = error
    builder.reset()
    frames.removeAll(shrinkingAbove: 1 << 16)
    text.removeAll(shrinkingAbove: 1 << 20)
  }

  /// Why a DTD's attribute declaration refuses the document, or nil when it changes nothing: a
  /// CDATA attribute with no default (`#IMPLIED`, `#REQUIRED`). A default or fixed value would
  /// add attributes the document does not hold (even `xsi:nil`, nulling every record), and
  /// every other type makes an XML parser normalize the attribute's whitespace.
  package static func attributeDeclarationRefusal(
    element: UnsafePointer<xmlChar>?, attribute: UnsafePointer<xmlChar>?, type: Int32, defaultKind: Int32,
    hasDefault: Bool
  ) -> String? {
    let isPlain =
      type == Int32(XML_ATTRIBUTE_CDATA.rawValue) && !hasDefault
      && (defaultKind == Int32(XML_ATTRIBUTE_IMPLIED.rawValue) || defaultKind == Int32(XML_ATTRIBUTE_REQUIRED.rawValue))
    guard !isPlain else { return nil }
    let name = attribute.map { String(cString: $0) } ?? "?"
    let owner = element.map { String(cString: $0) } ?? "?"
    if hasDefault {
      return
        "the document's DTD declares a default value for the attribute '\(name)' of <\(owner)>; Sluice never applies DTD attribute defaults (they add data the document does not hold)"
    }
    return
      "the document's DTD declares the attribute '\(name)' of <\(owner)> with a type other than CDATA; Sluice never applies DTD attribute types (they change the values the document holds)"
  }

  mutating func refuseEntity(_ name: UnsafePointer<xmlChar>?) {
    let entity = name.map { String(cString: $0) } ?? "?"
    fail(
      code: .unsafeXML,
      "the document declares the entity '\(entity)'; Sluice never expands or loads DTD entities (they are how billion-laughs and XXE attacks work)"
    )
  }

  /// An error libxml2 reports: the document's end, after the records finished before it. Some
  /// (a namespace error) libxml2 reads past; the events after it are ignored, so the records
  /// delivered do not depend on how far the parser got. The parser is not stopped here: libxml2
  /// may be inside a start tag whose attribute values point into the buffer stopping frees.
  /// libxml2's message quotes the document, so Sluice's own is made from the code.
  mutating func parserError(_ error: UnsafePointer<xmlError>) {
    guard failure == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    var mapped = XMLParserFailure(error)
    // libxml2 calls a document cut short "Extra content at the end of the document".
    if inputEnded, depth > 0, error.pointee.code == Int32(XML_ERR_DOCUMENT_END.rawValue) {
      mapped.message = "malformed XML: the input ends before the document does (\(depth) element(s) still open)"
    }
    failure = RecordReadError(
      code: mapped.code, message: mapped.message,
      location: .init(ordinal: recordCount, byteOffset: byteOffset(), line: Int(error.pointee.line)),
      isRecoverable: false)
  }

  /// What `xmlParseChunk` returned: 0, or the error that stopped the parser. Almost every such
  /// error reached `parserError` first; an input libxml2 cannot convert from its encoding does
  /// not — the parser halts without a word, and the document would look complete (found by the
  /// xml-reader fuzz target: `run` succeeded on the records before the bad bytes).
  /// The parser then has nothing left to say where it stopped: the error's place is where the
  /// slice it was given starts (`slice`, in the stream).
  mutating func parsed(status: Int32, slice: Int64) {
    guard status != 0, failure == nil else { return }
    failure = RecordReadError(
      code: .syntax, message: XMLParserFailure.stopMessage(status: status),
      location: .init(ordinal: recordCount, byteOffset: max(byteOffset(), slice), line: line()), isRecoverable: false)
  }

  /// At the root element, the encoding is known: a document in one whose byte offsets Sluice
  /// cannot tell (`XMLEncodings`) is refused, with the way to read it.
  private mutating func checkEncoding() {
    guard let encoder = context?.pointee.input?.pointee.buf?.pointee.encoder else { return }
    encodingIsLocatable = XMLEncodings.isLocatable(encoder.pointee.name)
    guard encodingIsLocatable == false else { return }
    let name = encoder.pointee.name.map { String(cString: $0) } ?? "?"
    failure = RecordReadError(
      code: .syntax,
      message: "the document is in \(name), an encoding in which Sluice cannot tell byte offsets "
        + "(a character may be written more than one way, or depends on the bytes before it); "
        + "convert it to UTF-8 first, e.g. iconv -f \(name) -t UTF-8",
      location: .init(ordinal: 0, byteOffset: 0, line: 1), isRecoverable: false)
    if let context { xmlStopParser(context) }
  }

  mutating func fail(code: IssueCode, _ message: String) {
    guard failure == nil else { return }
    failure = RecordReadError(
      code: code, message: message, location: .init(ordinal: recordCount, byteOffset: byteOffset(), line: line()),
      isRecoverable: false)
    if let context { xmlStopParser(context) }
  }

  /// XML Schema's null, `xsi:nil="true"` (or `"1"`): JSON's `null`, so an element a DTO needs
  /// is `nullValue` and an optional one nil, exactly as in JSON. Other attributes of a nil
  /// element are ignored; `xsi:nil="false"` is no attribute at all.
  private static func isNil(attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>) -> Bool {
    for index in 0..<attributeCount {
      guard let localName = attributes[index * 5], let uri = attributes[index * 5 + 2],
        let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4]
      else { continue }
      guard strcmp(localName, "nil") == 0, isSchemaInstance(uri) else { continue }
      let value = UnsafeBufferPointer(start: start, count: start.distance(to: end))
      return value.elementsEqual("true".utf8) || value.elementsEqual("1".utf8)
    }
    return false
  }

  /// An attribute value with its `&#38;` sequences made `&` again.
  ///
  /// Without entity substitution (`XML_PARSE_NOENT`, which this reader leaves off) libxml2
  /// hands SAX2 attribute values with every `&` the document escaped — `&amp;`, `&#38;`,
  /// `&#x26;` — written back as `&#38;`, for a tree to re-parse; other references arrive decoded.
  /// A bare `&` cannot occur in a well-formed attribute value, so each `&#38;` in what libxml2
  /// reports stands for exactly one `&` (`&amp;#38;` arrives as `&#38;#38;` and becomes `&#38;`).
  static func ampersandsDecoded(_ value: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    let escaped: [UInt8] = Array("&#38;".utf8)
    var decoded: [UInt8] = []
    decoded.reserveCapacity(value.count)
    var index = 0
    while index < value.count {
      if value[index] == UInt8(ascii: "&"), index + escaped.count <= value.count,
        value[index..<index + escaped.count].elementsEqual(escaped)
      {
        decoded.append(UInt8(ascii: "&"))
        index += escaped.count
      } else {
        decoded.append(value[index])
        index += 1
      }
    }
    return decoded
  }

  private static func isSchemaInstance(_ uri: UnsafePointer<xmlChar>?) -> Bool {
    guard let uri else { return false }
    return strcmp(uri, "http://www.w3.org/2001/XMLSchema-instance") == 0
  }

  @inline(__always)
  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }
}
