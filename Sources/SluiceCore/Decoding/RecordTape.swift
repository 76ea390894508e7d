import Foundation

/// A record flattened into a tape of nodes: the decoder's format-neutral view of one record.
///
/// Nodes are stored in document order, one 32-bit word each, so the tape costs at most about
/// twice the record's bytes (a JSON value takes two bytes at the least: `0,`, `[]`), however the
/// record is shaped; a 60 MB line of `[0,0,…]` has a 120 MB tape. A word holds a tag (object,
/// array, string, key, number, true, false, null), two flags and a 27-bit payload:
///
/// - a container (object or array) keeps `end`, the index just past its subtree, so the decoder
///   skips a value in O(1); its children follow it, an object's alternating key node, value node;
/// - a scalar keeps `start`, the offset of its first byte in `bytes` (a string's first byte after
///   the quote), which is also how errors point at the exact byte.
///
/// What is cheap to find again is not stored: a scalar's length is found by scanning its text
/// when the decoder reads it (it reads each at most a few times), an array's element count by
/// walking its children, and a container's own first byte, which only error messages need, by
/// counting brackets from the scalar before it. So `bytes` are JSON text — strings quoted and
/// escaped, containers bracketed — and another format's reader (XML) builds its tape by writing
/// its values in that form (`RecordTape.Builder`); `origin` then says how to read it.
@_spi(Internals) public struct RecordTape: Sendable {
  public enum Kind: UInt8, Sendable {
    case object, array, string, number, `true`, `false`, null
  }

  /// One packed node: tag in bits 0–2, flags in bits 3–4, payload (`start` or `end`) above.
  public struct Node: Sendable, Hashable, BitwiseCopyable {
    var bits: UInt32

    static let object: UInt32 = 0
    static let array: UInt32 = 1
    static let string: UInt32 = 2
    /// A string that is an object's key.
    static let key: UInt32 = 3
    static let number: UInt32 = 4
    static let `true`: UInt32 = 5
    static let `false`: UInt32 = 6
    static let null: UInt32 = 7

    /// Strings and keys: the text holds a backslash escape.
    static let hasEscapes: UInt32 = 1 << 3
    /// Objects and arrays, set by the decoder: the DTO opened it as a container. Only an opened
    /// container's children can be reached, so the key sweep skips the subtree of any other.
    static let opened: UInt32 = 1 << 3
    /// Keys, set by the decoder: a key the DTO asked for.
    static let accessed: UInt32 = 1 << 4
    /// XML objects, set by the decoder: the DTO read the object as a wrapper of items.
    static let xmlWrapper: UInt32 = 1 << 4
    static let payloadShift: UInt32 = 5

    init(tag: UInt32, flags: UInt32 = 0, payload: Int) {
      bits = UInt32(truncatingIfNeeded: payload) << Self.payloadShift | flags | tag
    }

    @inline(__always) var tag: UInt32 { bits & 7 }
    @inline(__always) var payload: Int { Int(bits >> Self.payloadShift) }
    @inline(__always) public var isContainer: Bool { tag <= Self.array }
    @inline(__always) public var hasEscapes: Bool { tag & ~1 == Self.string && bits & Self.hasEscapes != 0 }
    @inline(__always) public var isKey: Bool { tag == Self.key }
    @inline(__always) var isOpened: Bool { tag <= Self.array && bits & Self.opened != 0 }
    @inline(__always) var isAccessed: Bool { bits & Self.accessed != 0 }

    @inline(__always) public var kind: Kind {
      switch tag {
      case Self.object: return .object
      case Self.array: return .array
      case Self.string, Self.key: return .string
      case Self.number: return .number
      case Self.true: return .true
      case Self.false: return .false
      default: return .null
      }
    }
  }

  /// The format a tape was made from, which decides how the decoder reads it.
  public enum Origin: Sendable, Hashable {
    /// JSON: typed scalars, arrays, a key at most once per object.
    case json
    /// XML: every scalar is text (numbers and booleans convert without counting as coercions),
    /// an empty element is absent content, and an array is repeated sibling elements or a
    /// wrapper element's children, as the DTO asks.
    case xml
    /// CSV: a flat record keyed by its header (nested by dotted names), every scalar text, or
    /// null for an empty field when the dialect says so; otherwise read as JSON is.
    case csv
  }

  public internal(set) var nodes: [Node] = []
  public internal(set) var bytes: [UInt8] = []
  public internal(set) var origin = Origin.json
  /// XML and CSV: per node, where its element or field starts in the source, relative to the record's start
  /// (`sourceOffsets`, bytes; `sourceLines`, lines). Attribute keys carry `attributeLineFlag` in
  /// their line. Empty for JSON, where a node's `start` is its place in the record's own text.
  public internal(set) var sourceOffsets: [UInt32] = []
  public internal(set) var sourceLines: [UInt32] = []
  static let attributeLineFlag: UInt32 = 1 << 31

  /// True for formats without typed scalars (XML, CSV).
  @inline(__always) public var scalarsAreText: Bool { origin != .json }

  public init() {}
}

extension RecordTape {
  /// Deepest nesting the tape builder accepts (the record readers' limit is lower by default).
  public static let maxDepth = 1_024
  /// Largest record a tape holds: offsets and indices are 27-bit payloads (the record readers'
  /// default limit is 64 MiB).
  public static let maxRecordBytes = (1 << 27) - 1
  /// Node storage above this many nodes (4 MiB) is given back after a record instead of being
  /// kept for the next one, so one huge record does not pin its tape for the rest of the run.
  static let retainedNodeCapacity = 1 << 20

  /// Builds the tape of one JSON value, reusing this tape's storage.
  ///
  /// The record readers have already validated the bytes; this pass only tokenizes, but it
  /// still checks every index and the shape the decoder relies on (one top-level value, keys
  /// and values alternating in objects, brackets that match), and throws on anything unexpected
  /// instead of trapping. Open containers are tracked on a stack in stack memory, so the pass
  /// allocates nothing but the node array's growth.
  public mutating func loadJSON(_ record: [UInt8]) throws(RecordDecodingError) {
    guard record.count <= Self.maxRecordBytes else {
      throw RecordDecodingError(
        code: .recordTooLarge, path: "", message: "record larger than \(Self.maxRecordBytes) bytes", byteOffset: 0)
    }
    bytes = record
    nodes.removeAll(keepingCapacity: true)
    origin = .json
    sourceOffsets = []
    sourceLines = []
    let count = record.count
    let result: RecordDecodingError? = record.withUnsafeBufferPointer { buffer in
      // Counting is one more pass over the bytes, paid by big records only (see `nodeCount`).
      if count > 1 << 20 { nodes.reserveCapacity(Self.nodeCount(buffer)) }
      return withUnsafeTemporaryAllocation(of: (index: Int32, isObject: Bool).self, capacity: Self.maxDepth) {
        stack in
        tokenize(buffer, count: count, stack: stack)
      }
    }
    if let result { throw result }
  }

  /// Takes a JSON record whose nodes the record reader's scan already made (`JSONScanner`, the
  /// nodes `tokenize` would make of these bytes): the same tape, without a second pass over them.
  mutating func loadJSON(_ record: [UInt8], nodes scanned: [Node]) {
    bytes = record
    nodes = scanned
    origin = .json
    sourceOffsets = []
    sourceLines = []
  }

  /// Lets go of the record's bytes and of node storage grown past `retainedNodeCapacity`; the
  /// decoder calls it after every record, so what a tape holds between records stays small.
  /// Until the next `loadJSON`, the tape must not be read.
  mutating func releaseRecord() {
    bytes = []
    sourceOffsets = []
    sourceLines = []
    if nodes.capacity > Self.retainedNodeCapacity { nodes = [] }
  }

  /// Reads a quarantined XML record back: its JSON text as the reader wrote it, read with XML's
  /// rules. Where each value sat in the original file, and which keys were attributes, is not in
  /// the text, so those are lost.
  public mutating func loadJSON(_ record: [UInt8], origin: Origin) throws(RecordDecodingError) {
    try loadJSON(record)
    self.origin = origin
  }

  /// Whether a key node was an XML attribute (false for JSON and replayed XML).
  @inline(__always)
  func isAttribute(_ key: Int) -> Bool {
    key < sourceLines.count && sourceLines[key] & Self.attributeLineFlag != 0
  }

  /// A node's place in the record's source: its offset from the record's first byte, and how
  /// many lines below the record's first line it is, when the tape knows (XML); nil for JSON.
  public func sourcePosition(of index: Int) -> (offset: Int, lines: Int)? {
    guard index < sourceOffsets.count, index < sourceLines.count else { return nil }
    return (Int(sourceOffsets[index]), Int(sourceLines[index] & ~Self.attributeLineFlag))
  }

  /// The tape's own pass over a whole record's bytes. Why a second JSON tokenizer beside the
  /// record reader's scan (`JSONScanner`, which writes these nodes as it validates, issue 56 kept
  /// both): the scan is the import's hot loop, over a refilled buffer, a record possibly spanning
  /// refills, and it stops writing nodes past `JSONScanner.tapeNodeLimit` (262,144) to bound its
  /// memory; this pass serves the records it leaves — bigger ones, whose nodes it counts first and
  /// allocates once — and JSON that no scan read (`loadJSON(_:)` of a quarantined record, the
  /// public API). Folding it into the scanner would put its checks and a second mode on every
  /// byte of every import; folding the scanner into it would read each record twice.
  private mutating func tokenize(
    _ buffer: UnsafeBufferPointer<UInt8>, count: Int,
    stack: UnsafeMutableBufferPointer<(index: Int32, isObject: Bool)>
  ) -> RecordDecodingError? {
    guard let base = buffer.baseAddress, count > 0 else {
      return RecordDecodingError(code: .syntax, path: "", message: "empty record", byteOffset: 0)
    }
    func malformed(_ at: Int) -> RecordDecodingError {
      RecordDecodingError(code: .syntax, path: "", message: "malformed JSON", byteOffset: at)
    }
    var depth = 0
    var expectKey = false
    var i = 0
    /// An object's key was read and its value has not started yet.
    var pendingKey = false
    /// Appends a node, checking the shape the decoder indexes by: one value at the top level,
    /// an object's children alternating key, value. Returns false when the shape is broken.
    @inline(__always)
    func append(_ tag: UInt32, _ start: Int, _ flags: UInt32) -> Bool {
      if depth > 0 {
        if stack[depth - 1].isObject {
          let isKey = tag == Node.key
          guard isKey != pendingKey else { return false }
          pendingKey = isKey
        }
      } else if !nodes.isEmpty {
        return false
      }
      nodes.append(Node(tag: tag, flags: flags, payload: start))
      return true
    }
    while i < count {
      let c = base[i]
      switch c {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"),
        UInt8(ascii: ":"):
        i += 1
      case UInt8(ascii: ","):
        expectKey = depth > 0 && stack[depth - 1].isObject
        i += 1
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        guard depth < Self.maxDepth else {
          return RecordDecodingError(code: .nestingTooDeep, path: "", message: "nesting too deep", byteOffset: i)
        }
        let isObject = c == UInt8(ascii: "{")
        // A container's payload is its end, filled in when it closes.
        guard append(isObject ? Node.object : Node.array, 0, 0) else { return malformed(i) }
        stack[depth] = (Int32(truncatingIfNeeded: nodes.count - 1), isObject)
        depth += 1
        expectKey = isObject
        i += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        guard depth > 0 else { return malformed(i) }
        let open = stack[depth - 1]
        let closesObject = c == UInt8(ascii: "}")
        guard open.isObject == closesObject, !(closesObject && pendingKey) else { return malformed(i) }
        depth -= 1
        nodes[Int(open.index)].bits |= UInt32(truncatingIfNeeded: nodes.count) << Node.payloadShift
        expectKey = false
        i += 1
      case UInt8(ascii: "\""):
        let start = i + 1
        var j = start
        var flags: UInt32 = 0
        while j < count {
          let b = base[j]
          if b == UInt8(ascii: "\"") { break }
          if b == UInt8(ascii: "\\") {
            flags = Node.hasEscapes
            j += 2
          } else {
            j += 1
          }
        }
        guard j < count, append(expectKey ? Node.key : Node.string, start, flags) else { return malformed(i) }
        expectKey = false
        i = j + 1
      case UInt8(ascii: "t"):
        guard append(Node.true, i, 0) else { return malformed(i) }
        i += 4
      case UInt8(ascii: "f"):
        guard append(Node.false, i, 0) else { return malformed(i) }
        i += 5
      case UInt8(ascii: "n"):
        guard append(Node.null, i, 0) else { return malformed(i) }
        i += 4
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        var j = i + 1
        while j < count, Self.isNumberByte(base[j]) { j += 1 }
        guard append(Node.number, i, 0) else { return malformed(i) }
        i = j
      default:
        return malformed(i)
      }
    }
    guard depth == 0, !nodes.isEmpty else { return malformed(count) }
    return nil
  }

  /// How many nodes `tokenize` makes of these bytes: one per bracket that opens a container,
  /// per string and per number or literal. A big record's node array is allocated once at this
  /// size instead of growing by doubling, which holds the old and the new array at once while it
  /// copies and can leave half of the last one unused: for a 60 MB `[0,0,…]`, 128 MiB at the
  /// peak and ~25 MiB of freed growth steps the allocator kept, against 114 MiB counted first.
  static func nodeCount(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
    var nodes = 0
    var i = 0
    let count = buffer.count
    while i < count {
      let c = buffer[i]
      switch c {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        nodes += 1
        i += 1
      case UInt8(ascii: "\""):
        nodes += 1
        i += 1
        while i < count {
          let b = buffer[i]
          if b == UInt8(ascii: "\"") { break }
          i += b == UInt8(ascii: "\\") ? 2 : 1
        }
        i += 1
      case UInt8(ascii: "t"), UInt8(ascii: "n"):
        nodes += 1
        i += 4
      case UInt8(ascii: "f"):
        nodes += 1
        i += 5
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        nodes += 1
        i += 1
        while i < count, isNumberByte(buffer[i]) { i += 1 }
      default:
        i += 1
      }
    }
    return nodes
  }

  @inline(__always)
  static func isNumberByte(_ b: UInt8) -> Bool {
    (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: ".") || b == UInt8(ascii: "e")
      || b == UInt8(ascii: "E") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
  }

  // MARK: - Reading nodes

  /// The index just past a node's subtree: the next sibling's index.
  @inline(__always)
  public func end(of index: Int) -> Int {
    let node = nodes[index]
    return node.isContainer ? node.payload : index + 1
  }

  /// The number of elements of an array or members of an object, found by walking them.
  public func childCount(of index: Int) -> Int {
    let node = nodes[index]
    guard node.isContainer else { return 0 }
    let end = node.payload
    let step = node.tag == Node.object ? 2 : 1
    var child = index + 1
    var count = 0
    while child < end {
      count += 1
      child = self.end(of: child + step - 1)
    }
    return count
  }

  /// The bytes of a scalar node's text: a string's between its quotes, a number's, a literal's;
  /// an empty range at a container. Found by scanning from the stored start.
  @inline(__always)
  public func textRange(of index: Int) -> Range<Int> {
    let node = nodes[index]
    let start = node.payload
    return start..<textEnd(node, from: start)
  }

  @inline(__always)
  private func textEnd(_ node: Node, from start: Int) -> Int {
    bytes.withUnsafeBufferPointer { buffer in
      let count = buffer.count
      var i = start
      switch node.tag {
      case Node.string, Node.key:
        if node.bits & Node.hasEscapes != 0 {
          while i < count {
            let b = buffer[i]
            if b == UInt8(ascii: "\"") { break }
            i += b == UInt8(ascii: "\\") ? 2 : 1
          }
          return min(i, count)
        }
        guard let base = buffer.baseAddress, i < count,
          let quote = memchr(base + i, Int32(UInt8(ascii: "\"")), count - i)
        else { return count }
        return base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
      case Node.number:
        while i < count, Self.isNumberByte(buffer[i]) { i += 1 }
        return i
      case Node.true, Node.null:
        return min(start + 4, count)
      case Node.false:
        return min(start + 5, count)
      default:
        return start
      }
    }
  }

  /// A node's first byte in `bytes`: a scalar's stored start (after a string's opening quote),
  /// or a container's opening bracket.
  ///
  /// Containers do not store it — only error messages need it. The nodes between the last
  /// scalar before the container and the container itself are all containers, so their opening
  /// brackets are the only ones in the bytes between: the container's is the (index − j)-th
  /// bracket after the end of scalar j.
  public func start(of index: Int) -> Int {
    guard index < nodes.count else { return 0 }
    if !nodes[index].isContainer { return nodes[index].payload }
    var scalar = index - 1
    while scalar >= 0 && nodes[scalar].isContainer { scalar -= 1 }
    var position = scalar >= 0 ? textRange(of: scalar).upperBound : 0
    var remaining = index - scalar
    return bytes.withUnsafeBufferPointer { buffer in
      while position < buffer.count {
        let b = buffer[position]
        if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") {
          remaining -= 1
          if remaining == 0 { return position }
        }
        position += 1
      }
      return 0
    }
  }

  /// The coding path of a node, rebuilt from the root: only computed when an error or an
  /// unknown field needs it, so decoding never pays for paths.
  public func codingPath(to target: Int) -> [any CodingKey] {
    var path: [any CodingKey] = []
    var current = 0
    while current != target, current < nodes.count {
      let node = nodes[current]
      let end = end(of: current)
      var child = current + 1
      var index = 0
      var descended = false
      while child < end {
        if node.tag == Node.object {
          let value = child + 1
          guard value < nodes.count else { return path }
          let valueEnd = self.end(of: value)
          if target == child || (target >= value && target < valueEnd) {
            path.append(TapeKey(stringValue: keyString(child)))
            if target == child { return path }
            current = value
            descended = true
            break
          }
          child = valueEnd
        } else {
          let childEnd = self.end(of: child)
          if target >= child && target < childEnd {
            path.append(TapeKey(index: index))
            current = child
            descended = true
            break
          }
          child = childEnd
          index += 1
        }
      }
      if !descended { break }
    }
    return path
  }

  /// The node a coding path leads to, the inverse of `codingPath(to:)`; where the path goes
  /// beyond the tape (a missing key, an index past the end), the last node it reached. This is
  /// how an error a DTO threw itself, which carries only a path, finds its byte offset.
  public func node(along path: [any CodingKey]) -> Int {
    var current = 0
    for key in path {
      guard current < nodes.count else { break }
      let node = nodes[current]
      let end = end(of: current)
      var child = current + 1
      var found: Int?
      if node.tag == Node.object {
        while child + 1 < end {
          if keyString(child) == key.stringValue {
            found = child + 1
            break
          }
          child = self.end(of: child + 1)
        }
      } else if node.tag == Node.array, let index = key.intValue {
        var position = 0
        while child < end {
          if position == index {
            found = child
            break
          }
          child = self.end(of: child)
          position += 1
        }
      }
      guard let found else { break }
      current = found
    }
    return current
  }

  /// The text of a string node (keys included), unescaped.
  public func keyString(_ index: Int) -> String {
    let node = nodes[index]
    let range = textRange(of: index)
    if node.hasEscapes { return JSONString.decode(bytes[range]) ?? "" }
    return String(decoding: bytes[range], as: UTF8.self)
  }
}

/// A coding key rebuilt from a tape: an object key or an array index.
package struct TapeKey: CodingKey, Sendable {
  public var stringValue: String
  public var intValue: Int?

  public init(stringValue: String) {
    self.stringValue = stringValue
    intValue = nil
  }

  public init(intValue: Int) {
    self.init(index: intValue)
  }

  public init(index: Int) {
    stringValue = "Index \(index)"
    intValue = index
  }
}
