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
  /// Builds the tape of one JSON value, reusing this tape's storage.
  ///
  /// The record readers have already validated the bytes; this pass only tokenizes, but it
  /// still checks every index and throws on anything unexpected instead of trapping.
  public mutating func loadJSON(_ record: [UInt8]) throws(RecordDecodingError) {
    bytes = record
    nodes.removeAll(keepingCapacity: true)
    scalarsAreText = false
    var stack: [Int32] = []
    stack.reserveCapacity(16)
    var expectKey = false
    /// An object's key was read and its value has not started yet.
    var pendingKey = false
    let count = record.count
    try record.withUnsafeBufferPointer { (buffer) throws(RecordDecodingError) in
      guard let base = buffer.baseAddress else {
        throw RecordDecodingError(code: .syntax, path: "", message: "empty record", byteOffset: 0)
      }
      var i = 0
      func malformed(_ at: Int) -> RecordDecodingError {
        RecordDecodingError(code: .syntax, path: "", message: "malformed JSON", byteOffset: at)
      }
      /// Appends a node, checking the shape the decoder indexes by: one value at the top level,
      /// an object's children alternating key, value.
      func append(_ kind: Kind, _ start: Int, _ length: Int, flags: UInt8 = 0) throws(RecordDecodingError) {
        if let parent = stack.last, nodes[Int(parent)].kind == .object {
          guard (flags & Node.isKey != 0) != pendingKey else { throw malformed(kind == .string ? start - 1 : start) }
          pendingKey = flags & Node.isKey != 0
        } else if stack.isEmpty && !nodes.isEmpty {
          throw malformed(kind == .string ? start - 1 : start)
        }
        nodes.append(
          Node(
            kind: kind, flags: flags, start: Int32(truncatingIfNeeded: start),
            length: Int32(truncatingIfNeeded: length), count: 0,
            end: Int32(truncatingIfNeeded: nodes.count + 1), cursor: Int32(truncatingIfNeeded: nodes.count + 1)))
        if let parent = stack.last, nodes[Int(parent)].kind == .array || flags & Node.isKey != 0 {
          nodes[Int(parent)].count += 1
        }
      }
      while i < count {
        let c = base[i]
        switch c {
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"),
          UInt8(ascii: ":"):
          i += 1
        case UInt8(ascii: ","):
          if let parent = stack.last, nodes[Int(parent)].kind == .object { expectKey = true }
          i += 1
        case UInt8(ascii: "{"), UInt8(ascii: "["):
          try append(c == UInt8(ascii: "{") ? .object : .array, i, 0)
          stack.append(Int32(nodes.count - 1))
          expectKey = c == UInt8(ascii: "{")
          i += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          guard let open = stack.popLast() else { throw malformed(i) }
          let index = Int(open)
          let closesObject = c == UInt8(ascii: "}")
          guard nodes[index].kind == (closesObject ? .object : .array), !(closesObject && pendingKey) else {
            throw malformed(i)
          }
          nodes[index].end = Int32(nodes.count)
          nodes[index].length = Int32(i + 1) - nodes[index].start
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
          guard j < count else { throw malformed(i) }
          try append(.string, start, j - start, flags: flags)
          expectKey = false
          i = j + 1
        case UInt8(ascii: "t"):
          try append(.true, i, 4)
          i += 4
        case UInt8(ascii: "f"):
          try append(.false, i, 5)
          i += 5
        case UInt8(ascii: "n"):
          try append(.null, i, 4)
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
          try append(.number, i, j - i)
          i = j
        default:
          throw malformed(i)
        }
      }
    }
    guard stack.isEmpty, !nodes.isEmpty else {
      throw RecordDecodingError(code: .syntax, path: "", message: "malformed JSON", byteOffset: count)
    }
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
