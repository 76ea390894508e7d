internal import CLibXML2
import Foundation
@_spi(Internals) import SluiceCore

/// A pass over an XML document's elements that lists the repeated ones — the record paths
/// `sluice run --format xml` could read — with how many there are.
///
/// libxml2's push parser reads the document from Sluice's own input with the record reader's
/// safety settings (no network, no external entity ever loaded, a document that declares an
/// entity or an attribute declaration that would change values refused, a start tag with far
/// too many attributes refused before libxml2 parses it) and reports start and end tags through SAX2; the pass keeps a counter per
/// element path (local names from the root) and the stack of open elements, nothing else. An
/// element path is a candidate when it is a child of the root or when some element held two or
/// more of it. Paths past `maxPaths` or deeper than `maxDepth` are not tracked. With a sample
/// size it stops as `JSONOutline` does: once one element holds that many of a path no repeated
/// element encloses, or a path has ten times that many in all.
///
/// Why a pass of its own beside `XMLRecordReader` (issue 56 kept both): the reader is given a
/// record path and assembles each record under it, text and attributes, into JSON
/// (`XMLAssembler`); the outline has no record path yet — finding one is its job — and keeps no
/// text, only a counter per element path over the whole document. What must be the same is
/// shared, not copied: the reader's safety settings (`XMLRecordReader.refuseExternalEntities`,
/// `XMLStartTagGuard`, its attribute limit) and its way to free a parser (`XMLRecordReader.free`).
final class XMLOutline {
  struct Result {
    var candidates: [RecordPathCandidate]
    var isComplete: Bool
    /// Elements at paths left untracked once `maxPaths` were known.
    var untrackedElements: Int
    /// The first element path whose elements were written with two prefixes (`content:encoded`,
    /// `excerpt:encoded`): by local name, two fields would be read as one.
    var prefixedTwice: String? = nil
  }

  private let source: any ByteSource
  private let chunk: UnsafeMutableRawBufferPointer
  private var context: xmlParserCtxtPtr?
  private let state: UnsafeMutablePointer<XMLOutlineState>
  private var startTagGuard = XMLStartTagGuard()
  /// The record reader's bound: a start tag with more attributes ends the document.
  private let maxPendingAttributes = 2 * XMLRecordReader.Limits().maxAttributes

  init(source: any ByteSource, sampleSize: Int?, maxPaths: Int = 1_024, maxDepth: Int = 64) {
    _ = XMLRecordReader.refuseExternalEntities
    self.source = source
    chunk = .allocate(byteCount: 1 << 16, alignment: 16)
    state = .allocate(capacity: 1)
    state.initialize(to: XMLOutlineState(sampleSize: sampleSize, maxPaths: maxPaths, maxDepth: maxDepth))
  }

  deinit {
    if let context { XMLRecordReader.free(context) }
    chunk.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// Parses the document (or its sample); throws `RecordReadError` for malformed or unsafe XML.
  func run() throws -> Result {
    guard let base = chunk.baseAddress?.assumingMemoryBound(to: CChar.self) else {
      return Result(candidates: [], isComplete: true, untrackedElements: 0)
    }
    var ended = false
    sluice_silenceGenericErrors()
    while !ended && state.pointee.failure == nil && !state.pointee.sampleReached {
      var count = try source.read(into: chunk)
      if let context {
        if count == 0 {
          ended = true
          state.pointee.parsed(status: xmlParseChunk(context, nil, 0, 1))
        } else {
          parse(base, count: count, in: context)
        }
        continue
      }
      // The parser detects the encoding, and skips a byte order mark, from the first four bytes.
      while count > 0 && count < 4 {
        let more = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[count...]))
        if more == 0 { break }
        count += more
      }
      guard count > 0 else {
        throw RecordReadError(
          code: .syntax, message: "empty input: no XML document", location: .init(ordinal: 0, byteOffset: 0, line: 1),
          isRecoverable: false)
      }
      var handler = Self.handler
      let head = Int32(min(4, count))
      guard let created = xmlCreatePushParserCtxt(&handler, nil, base, head, nil) else {
        throw RecordReadError(
          code: .syntax, message: "cannot start the XML parser", location: .init(ordinal: 0, byteOffset: 0, line: 1),
          isRecoverable: false)
      }
      context = created
      state.pointee.context = created
      _ = xmlCtxtUseOptions(created, Int32(XML_PARSE_NONET.rawValue))
      created.pointee._private = UnsafeMutableRawPointer(state)
      if count > Int(head) { parse(base + Int(head), count: count - Int(head), in: created) }
    }
    if let failure = state.pointee.failure { throw failure }
    let outline = state.pointee
    let candidates = outline.paths.indices.compactMap { index -> RecordPathCandidate? in
      let path = outline.paths[index]
      guard path.depth >= 2, path.depth == 2 || path.longest >= 2 else { return nil }
      return RecordPathCandidate(
        keys: outline.keys(of: index), records: path.count, longest: path.longest, isExact: !outline.sampleReached,
        nesting: outline.nesting(of: index))
    }
    return Result(
      candidates: candidates, isComplete: !outline.sampleReached, untrackedElements: outline.untrackedElements,
      prefixedTwice: outline.prefixedTwice.map { outline.keys(of: $0).joined(separator: ".") })
  }

  /// Hands the parser `count` bytes a slice at a time, as the record reader does, and ends the
  /// document at a start tag with far too many attributes before libxml2 parses it.
  private func parse(_ bytes: UnsafeMutablePointer<CChar>, count: Int, in context: xmlParserCtxtPtr) {
    var fed = 0
    while fed < count && state.pointee.failure == nil && !state.pointee.sampleReached {
      let slice = min(XMLStartTagGuard.sliceSize, count - fed)
      state.pointee.parsed(status: xmlParseChunk(context, bytes + fed, Int32(slice), 0))
      fed += slice
      if startTagGuard.pendingAttributes(in: context) > maxPendingAttributes {
        state.pointee.refuseStartTag(maxAttributes: maxPendingAttributes)
      }
    }
  }

  /// Start and end tags, entity and attribute declarations (refused as the record reader
  /// refuses them) and errors; no text is needed.
  private static var handler: xmlSAXHandler {
    var handler = xmlSAXHandler()
    handler.initialized = UInt32(XML_SAX2_MAGIC)
    handler.startElementNs = { context, localName, prefix, _, _, _, _, _, _ in
      guard let state = XMLOutlineState.of(context), let localName else { return }
      state.pointee.startElement(localName, prefix: prefix)
    }
    handler.endElementNs = { context, _, _, _ in
      XMLOutlineState.of(context)?.pointee.endElement()
    }
    handler.entityDecl = { context, name, _, _, _, _ in
      XMLOutlineState.of(context)?.pointee.refuseEntity(name)
    }
    handler.unparsedEntityDecl = { context, name, _, _, _ in
      XMLOutlineState.of(context)?.pointee.refuseEntity(name)
    }
    handler.attributeDecl = { context, element, name, type, defaultKind, defaultValue, values in
      // The enumeration belongs to the handler (see XMLRecordReader's).
      if let values { xmlFreeEnumeration(values) }
      guard
        let refusal = XMLAssembler.attributeDeclarationRefusal(
          element: element, attribute: name, type: type, defaultKind: defaultKind, hasDefault: defaultValue != nil)
      else { return }
      XMLOutlineState.of(context)?.pointee.refuse(refusal)
    }
    handler.serror = { context, error in
      guard let error else { return }
      XMLOutlineState.of(context)?.pointee.parserError(error)
    }
    return handler
  }
}

/// What the outline's callbacks change, behind a pointer the parser context carries.
struct XMLOutlineState {
  struct ElementPath {
    var parent: Int
    var name: String
    var depth: Int
    var count = 0
    /// The most elements of this path under one parent element.
    var longest = 0
  }

  private struct PathKey: Hashable {
    var parent: Int
    var name: String
  }

  private struct Frame {
    /// The element's path, -1 when untracked.
    var path: Int
    /// Children seen so far, per path.
    var children: [Int: Int] = [:]
  }

  let sampleSize: Int?
  let maxPaths: Int
  let maxDepth: Int
  var context: xmlParserCtxtPtr?
  private(set) var paths: [ElementPath] = []
  private var index: [PathKey: Int] = [:]
  private var frames: [Frame] = []
  private(set) var untrackedElements = 0
  /// Each tracked path's first prefix ("" for none), and the first path met with another.
  private var prefixes: [Int: String] = [:]
  private(set) var prefixedTwice: Int?
  private(set) var sampleReached = false
  private(set) var failure: RecordReadError?

  init(sampleSize: Int?, maxPaths: Int, maxDepth: Int) {
    self.sampleSize = sampleSize
    self.maxPaths = maxPaths
    self.maxDepth = maxDepth
  }

  static func of(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<XMLOutlineState>? {
    guard let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self), let state = parser.pointee._private
    else { return nil }
    return state.assumingMemoryBound(to: XMLOutlineState.self)
  }

  /// The ancestors of a path that repeat under their parent: how deep its elements are nested
  /// in repeated elements (`osm.way.nd`: one, `way`).
  func nesting(of path: Int) -> Int {
    var count = 0
    var current = paths[path].parent
    while current >= 0 {
      if paths[current].longest >= 2 { count += 1 }
      current = paths[current].parent
    }
    return count
  }

  /// The names from the root to a path.
  func keys(of path: Int) -> [String] {
    var keys: [String] = []
    var current = path
    while current >= 0 {
      keys.append(paths[current].name)
      current = paths[current].parent
    }
    return keys.reversed()
  }

  mutating func startElement(_ localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>? = nil) {
    guard failure == nil, !sampleReached else { return }
    let parent = frames.last?.path ?? -1
    let depth = frames.count + 1
    guard depth <= maxDepth, frames.isEmpty || parent >= 0 else {
      frames.append(Frame(path: -1))
      return
    }
    let key = PathKey(parent: parent, name: String(cString: localName))
    var path = index[key] ?? -1
    if path < 0 {
      guard paths.count < maxPaths else {
        untrackedElements += 1
        frames.append(Frame(path: -1))
        return
      }
      paths.append(ElementPath(parent: parent, name: key.name, depth: depth))
      path = paths.count - 1
      index[key] = path
    }
    paths[path].count += 1
    if prefixedTwice == nil {
      let written = prefix.map { String(cString: $0) } ?? ""
      if let first = prefixes[path] {
        if first != written { prefixedTwice = path }
      } else {
        prefixes[path] = written
      }
    }
    if !frames.isEmpty {
      let siblings = (frames[frames.count - 1].children[path] ?? 0) + 1
      frames[frames.count - 1].children[path] = siblings
      paths[path].longest = max(paths[path].longest, siblings)
    } else {
      paths[path].longest = max(paths[path].longest, 1)
    }
    frames.append(Frame(path: path))
    if let sampleSize,
      (paths[path].longest >= sampleSize && nesting(of: path) == 0)
        || paths[path].count >= sampleSize * JSONOutline.nestedSampleFactor
    {
      sampleReached = true
      if let context { xmlStopParser(context) }
    }
  }

  mutating func endElement() {
    guard failure == nil else { return }
    if !frames.isEmpty { frames.removeLast() }
  }

  mutating func refuseEntity(_ name: UnsafePointer<xmlChar>?) {
    let entity = name.map { String(cString: $0) } ?? "?"
    fail(
      RecordReadError(
        code: .unsafeXML,
        message:
          "the document declares the entity '\(entity)'; Sluice never expands or loads DTD entities (they are how billion-laughs and XXE attacks work)",
        location: location(line: nil), isRecoverable: false))
  }

  /// What `xmlParseChunk` returned: an error no callback reported (a failed encoding
  /// conversion halts the parser silently) ends the pass as in the record reader.
  mutating func parsed(status: Int32) {
    guard status != 0, failure == nil, !sampleReached else { return }
    fail(
      RecordReadError(
        code: .syntax, message: XMLParserFailure.stopMessage(status: status), location: location(line: nil),
        isRecoverable: false),
      stopping: false)
  }

  mutating func refuse(_ message: String) {
    fail(RecordReadError(code: .unsafeXML, message: message, location: location(line: nil), isRecoverable: false))
  }

  mutating func refuseStartTag(maxAttributes: Int) {
    fail(
      RecordReadError(
        code: .tooManyAttributes,
        message: "a start tag with more than \(maxAttributes) attributes; the document is not read further",
        location: location(line: nil), isRecoverable: false))
  }

  /// An error libxml2 reports ends the pass; the parser is not stopped from inside its error
  /// callback (it may be in a start tag whose attribute values point into the buffer stopping
  /// frees), but the events after it are ignored and `run` feeds it nothing more.
  mutating func parserError(_ error: UnsafePointer<xmlError>) {
    guard error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
    let mapped = XMLParserFailure(error)
    fail(
      RecordReadError(
        code: mapped.code, message: mapped.message, location: location(line: Int(error.pointee.line)),
        isRecoverable: false),
      stopping: false)
  }

  private mutating func fail(_ error: RecordReadError, stopping: Bool = true) {
    guard failure == nil, !sampleReached else { return }
    failure = error
    if stopping, let context { xmlStopParser(context) }
  }

  /// The parser's position in the decompressed stream.
  private func location(line: Int?) -> RecordLocation {
    guard let input = context?.pointee.input?.pointee, let base = input.base else {
      return RecordLocation(ordinal: 0, byteOffset: 0, line: line ?? 1)
    }
    let offset = Int64(input.consumed) + Int64(base.distance(to: input.cur ?? base))
    return RecordLocation(ordinal: 0, byteOffset: offset, line: line ?? Int(input.line))
  }
}
