/// A record flattened into a tape of nodes: the decoder's format-neutral view of one record.
///
/// Nodes are stored in document order. A container node (object or array) is followed by its
/// children and records `end`, the index just past its subtree, so the decoder skips a value in
/// O(1). An object's children alternate key node, value node. Scalar nodes point into `bytes`
/// (`start`, `length`): for JSON, the record's own bytes — a string node spans the text between
/// its quotes, `hasEscapes` says whether it needs unescaping. `start` is also the node's byte
/// offset inside the record, which is how errors point at the exact byte.
///
/// The XML reader builds the same tape (elements → objects, attributes and text → strings, with
/// `scalarsAreText` set because XML has no numbers or booleans), so one decoder serves both.
public struct RecordTape: Sendable {
  public enum Kind: UInt8, Sendable {
    case object, array, string, number, `true`, `false`, null
  }

  public struct Node: Sendable {
    public var kind: Kind
    var flags: UInt8
    /// Offset of the node's first byte in `bytes` (a string's first byte after the quote).
    public var start: Int32
    /// Byte length (a string's, between the quotes; a container's, brackets included).
    public var length: Int32
    /// Members of an object or elements of an array.
    public var count: Int32
    /// Index just past this node's subtree.
    public var end: Int32
    /// For objects, used by the decoder: the key node after the last key it found, where the
    /// next lookup starts (DTOs usually ask for keys in the order the producer wrote them).
    var cursor: Int32 = 0

    static let hasEscapes: UInt8 = 1
    static let isKey: UInt8 = 2
    /// Set by the decoder: a key the DTO asked for.
    static let accessed: UInt8 = 4
    /// Set by the decoder: an object the DTO opened as a keyed container.
    static let opened: UInt8 = 8

    public var hasEscapes: Bool { flags & Self.hasEscapes != 0 }
    public var isKey: Bool { flags & Self.isKey != 0 }
  }

  public internal(set) var nodes: [Node] = []
  public internal(set) var bytes: [UInt8] = []
  /// True for formats without typed scalars (XML): numbers and booleans arrive as strings and
  /// convert without counting as coercions.
  public var scalarsAreText = false

  public init() {}
}

extension RecordTape {
  /// Deepest nesting the tape builder accepts (the record readers' limit is lower by default).
  public static let maxDepth = 1_024

  /// Builds the tape of one JSON value, reusing this tape's storage.
  ///
  /// The record readers have already validated the bytes; this pass only tokenizes, but it
  /// still checks every index and the shape the decoder relies on (one top-level value, keys
  /// and values alternating in objects, brackets that match), and throws on anything unexpected
  /// instead of trapping. Open
  /// containers are tracked on a stack in stack memory, with their element counts, so the pass
  /// allocates nothing but the node array's growth.
  public mutating func loadJSON(_ record: [UInt8]) throws(RecordDecodingError) {
    bytes = record
    nodes.removeAll(keepingCapacity: true)
    scalarsAreText = false
    let count = record.count
    let result: RecordDecodingError? = record.withUnsafeBufferPointer { buffer in
      withUnsafeTemporaryAllocation(of: (index: Int32, count: Int32, isObject: Bool).self, capacity: Self.maxDepth) {
        stack in
        tokenize(buffer, count: count, stack: stack)
      }
    }
    if let result { throw result }
  }

  private mutating func tokenize(
    _ buffer: UnsafeBufferPointer<UInt8>, count: Int,
    stack: UnsafeMutableBufferPointer<(index: Int32, count: Int32, isObject: Bool)>
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
    func append(_ kind: Kind, _ start: Int, _ length: Int, _ flags: UInt8) -> Bool {
      let isKey = flags & Node.isKey != 0
      if depth > 0 {
        if stack[depth - 1].isObject {
          guard isKey != pendingKey else { return false }
          pendingKey = isKey
        }
      } else if !nodes.isEmpty {
        return false
      }
      let index = Int32(truncatingIfNeeded: nodes.count)
      nodes.append(
        Node(
          kind: kind, flags: flags, start: Int32(truncatingIfNeeded: start),
          length: Int32(truncatingIfNeeded: length), count: 0, end: index + 1, cursor: index + 1))
      // Objects count their keys, arrays their elements.
      if depth > 0, !stack[depth - 1].isObject || isKey {
        stack[depth - 1].count += 1
      }
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
        guard append(isObject ? .object : .array, i, 0, 0) else { return malformed(i) }
        stack[depth] = (Int32(truncatingIfNeeded: nodes.count - 1), 0, isObject)
        depth += 1
        expectKey = isObject
        i += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        guard depth > 0 else { return malformed(i) }
        let open = stack[depth - 1]
        let closesObject = c == UInt8(ascii: "}")
        guard open.isObject == closesObject, !(closesObject && pendingKey) else { return malformed(i) }
        depth -= 1
        let index = Int(open.index)
        nodes[index].end = Int32(truncatingIfNeeded: nodes.count)
        nodes[index].length = Int32(truncatingIfNeeded: i + 1) - nodes[index].start
        nodes[index].count = open.count
        expectKey = false
        i += 1
      case UInt8(ascii: "\""):
        let start = i + 1
        var j = start
        var flags: UInt8 = expectKey ? Node.isKey : 0
        while j < count {
          let b = base[j]
          if b == UInt8(ascii: "\"") { break }
          if b == UInt8(ascii: "\\") {
            flags |= Node.hasEscapes
            j += 2
          } else {
            j += 1
          }
        }
        guard j < count, append(.string, start, j - start, flags) else { return malformed(i) }
        expectKey = false
        i = j + 1
      case UInt8(ascii: "t"):
        guard append(.true, i, 4, 0) else { return malformed(i) }
        i += 4
      case UInt8(ascii: "f"):
        guard append(.false, i, 5, 0) else { return malformed(i) }
        i += 5
      case UInt8(ascii: "n"):
        guard append(.null, i, 4, 0) else { return malformed(i) }
        i += 4
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        var j = i + 1
        while j < count {
          let b = base[j]
          guard (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") || b == UInt8(ascii: "+")
            || b == UInt8(ascii: "-")
          else { break }
          j += 1
        }
        guard append(.number, i, j - i, 0) else { return malformed(i) }
        i = j
      default:
        return malformed(i)
      }
    }
    guard depth == 0, !nodes.isEmpty else { return malformed(count) }
    return nil
  }

  /// The coding path of a node, rebuilt from the root: only computed when an error or an
  /// unknown field needs it, so decoding never pays for paths.
  public func codingPath(to target: Int) -> [any CodingKey] {
    var path: [any CodingKey] = []
    var current = 0
    while current != target, current < nodes.count {
      let node = nodes[current]
      var child = current + 1
      var index = 0
      var descended = false
      while child < Int(node.end) {
        if node.kind == .object {
          let value = child + 1
          guard value < nodes.count else { return path }
          if target == child || (target >= value && target < Int(nodes[value].end)) {
            path.append(TapeKey(stringValue: keyString(child)))
            if target == child { return path }
            current = value
            descended = true
            break
          }
          child = Int(nodes[value].end)
        } else {
          if target >= child && target < Int(nodes[child].end) {
            path.append(TapeKey(index: index))
            current = child
            descended = true
            break
          }
          child = Int(nodes[child].end)
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
      var child = current + 1
      var found: Int?
      if node.kind == .object {
        while child + 1 < Int(node.end) {
          if keyString(child) == key.stringValue {
            found = child + 1
            break
          }
          child = Int(nodes[child + 1].end)
        }
      } else if node.kind == .array, let index = key.intValue {
        var position = 0
        while child < Int(node.end) {
          if position == index {
            found = child
            break
          }
          child = Int(nodes[child].end)
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
    let range = Int(node.start)..<Int(node.start + node.length)
    if node.hasEscapes { return JSONString.decode(bytes[range]) ?? "" }
    return String(decoding: bytes[range], as: UTF8.self)
  }
}

/// A coding key rebuilt from a tape: an object key or an array index.
public struct TapeKey: CodingKey, Sendable {
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
