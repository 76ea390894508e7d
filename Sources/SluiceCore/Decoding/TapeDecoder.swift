import Foundation

/// The `Decoder` handed to a DTO's `init(from:)`: one node of the current record's tape.
///
/// Its coding path is rebuilt from the tape only when asked for, so decoding a record
/// allocates no paths.
struct TapeDecoder: Decoder {
  /// Unowned and unchecked: decoders and containers live only inside one `decode` call, while
  /// `SluiceDecoder` keeps the state alive; reference counting here cost ~5% of decoding.
  unowned(unsafe) let state: DecodingState
  let node: Int
  /// The object the node was found in by key, or −1: XML's repeated siblings are read from it.
  var parent = -1

  var codingPath: [any CodingKey] { state.codingPath(to: node) }
  var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(try tapeContainer(keyedBy: type))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try tapeUnkeyedContainer() }

  // The containers as their own types, for the engine's own records (`DeclaredRecord`): called
  // on them directly, a value's decoding is a direct call, where `KeyedDecodingContainer` boxes
  // its container (an allocation and two generic metadata look-ups per object) and forwards each
  // call through the box and a witness table, and `any UnkeyedDecodingContainer` boxes an array's.

  func tapeContainer<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedTapeContainer<Key> {
    guard state.kind(node) == .object else {
      throw state.mismatch(node, [String: Any].self, expected: "an object")
    }
    state.tape.nodes[node].bits |= RecordTape.Node.opened
    return KeyedTapeContainer<Key>(state: state, object: node, cursor: state.openCursor(on: node))
  }

  func tapeUnkeyedContainer() throws -> UnkeyedTapeContainer {
    guard state.kind(node) == .array else {
      if state.isXML {
        return UnkeyedTapeContainer(state: state, array: node, xml: state.xmlItems(of: node, parent: parent))
      }
      throw state.mismatch(node, [Any].self, expected: "an array")
    }
    state.tape.nodes[node].bits |= RecordTape.Node.opened
    return UnkeyedTapeContainer(state: state, array: node)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueTapeContainer(state: state, node: node)
  }
}

struct KeyedTapeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  unowned(unsafe) let state: DecodingState
  let object: Int
  /// This container's lookup cursor in `state.cursors`.
  let cursor: Int

  var codingPath: [any CodingKey] { state.codingPath(to: object) }

  var allKeys: [Key] {
    var keys: [Key] = []
    var k = object + 1
    let end = state.tape.end(of: object)
    while k < end {
      if let key = Key(stringValue: state.tape.keyString(k)) { keys.append(key) }
      k = state.tape.end(of: k + 1)
    }
    return keys
  }

  func contains(_ key: Key) -> Bool { state.find(key, in: object, cursor: cursor) != nil }

  @inline(__always)
  private func value(_ key: Key) throws -> Int {
    guard let node = state.find(key, in: object, cursor: cursor) else {
      throw state.keyNotFound(key, in: object)
    }
    return node
  }

  func decodeNil(forKey key: Key) throws -> Bool { state.isNull(try value(key)) }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try state.bool(try value(key)) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try state.string(try value(key)) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try state.double(try value(key)) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try state.float(try value(key)) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try state.integer(try value(key), type) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try state.integer(try value(key), type) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try state.integer(try value(key), type) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try state.integer(try value(key), type) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try state.integer(try value(key), type) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try state.integer(try value(key), type) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try state.integer(try value(key), type) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try state.integer(try value(key), type) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try state.integer(try value(key), type) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try state.integer(try value(key), type) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let node = try value(key)
    if state.isXML { return try state.decodeXML(type, at: node, in: object) }
    return try state.decode(type, at: node)
  }

  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    guard let node = state.find(key, in: object, cursor: cursor), !state.isNull(node) else { return nil }
    return try state.string(node)
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    let node = state.find(key, in: object, cursor: cursor)
    guard let node, !state.isAbsent(node, as: T.self) else { return nil }
    if state.isXML { return try state.decodeXML(type, at: node, in: object) }
    return try state.decode(type, at: node)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    KeyedDecodingContainer(try nestedTapeContainer(keyedBy: type, forKey: key))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try nestedTapeUnkeyedContainer(forKey: key)
  }

  func nestedTapeContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedTapeContainer<NestedKey>
  {
    try TapeDecoder(state: state, node: try value(key)).tapeContainer(keyedBy: type)
  }

  func nestedTapeUnkeyedContainer(forKey key: Key) throws -> UnkeyedTapeContainer {
    try TapeDecoder(state: state, node: try value(key), parent: object).tapeUnkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    let superKey = TapeKey(stringValue: "super")
    guard let node = state.find(superKey, in: object, cursor: cursor) else {
      throw state.keyNotFound(superKey, in: object)
    }
    return TapeDecoder(state: state, node: node)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    TapeDecoder(state: state, node: try value(key), parent: object)
  }
}

struct UnkeyedTapeContainer: UnkeyedDecodingContainer {
  unowned(unsafe) let state: DecodingState
  let array: Int
  /// The next element's node; for XML keys, the next item's key.
  private var next: Int
  private(set) var currentIndex = 0
  /// The index just past the array's subtree (for XML keys, the object's): the elements are
  /// used up when `next` reaches it.
  private let end: Int
  /// XML: where the items are (`DecodingState.xmlItems`); nil for a JSON array.
  private let xml: XMLItems?

  init(state: DecodingState, array: Int, xml: XMLItems? = nil) {
    self.state = state
    self.array = array
    self.xml = xml
    switch xml {
    case nil:
      next = array + 1
      end = state.tape.end(of: array)
    case .keys(let object, let first, _):
      next = first
      end = state.tape.end(of: object)
    case .one(let node):
      next = node
      end = node + 1
    case .empty:
      next = 0
      end = 0
    }
  }

  /// Counted by walking the elements, only when asked: the standard library's collections
  /// decode until `isAtEnd` and never ask.
  var count: Int? {
    guard case .keys(let object, let first, let elementsOnly) = xml else {
      return xml == nil ? state.tape.childCount(of: array) : (end > next ? 1 : 0)
    }
    var count = 0
    var key = first
    while key < end {
      count += 1
      key = state.nextItemKey(
        from: state.tape.end(of: key + 1), object: object, first: first, elementsOnly: elementsOnly)
    }
    return count
  }

  var codingPath: [any CodingKey] { state.codingPath(to: array) }
  var isAtEnd: Bool { next >= end }

  private mutating func advance() throws -> Int {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        Any.self,
        DecodingError.Context(
          codingPath: codingPath + [TapeKey(index: currentIndex)],
          debugDescription: "the array has no more elements",
          underlyingError: DecodeFailure(
            code: .missingField, message: "the array has only \(count ?? 0) elements",
            byteOffset: state.offset(of: array))))
    }
    currentIndex += 1
    if case .keys(let object, let first, let elementsOnly) = xml {
      let key = next
      state.tape.nodes[key].bits |= RecordTape.Node.accessed
      next = state.nextItemKey(
        from: state.tape.end(of: key + 1), object: object, first: first, elementsOnly: elementsOnly)
      return key + 1
    }
    let node = next
    next = state.tape.end(of: node)
    return node
  }

  /// The node `advance()` would return next.
  private var upcoming: Int {
    if case .keys = xml { return next + 1 }
    return next
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, state.isNull(upcoming) else { return false }
    _ = try advance()
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try state.bool(try advance()) }
  mutating func decode(_ type: String.Type) throws -> String { try state.string(try advance()) }
  mutating func decode(_ type: Double.Type) throws -> Double { try state.double(try advance()) }
  mutating func decode(_ type: Float.Type) throws -> Float { try state.float(try advance()) }
  mutating func decode(_ type: Int.Type) throws -> Int { try state.integer(try advance(), type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try state.integer(try advance(), type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try state.integer(try advance(), type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try state.integer(try advance(), type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try state.integer(try advance(), type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try state.integer(try advance(), type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try state.integer(try advance(), type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try state.integer(try advance(), type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try state.integer(try advance(), type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try state.integer(try advance(), type) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try state.decode(type, at: try advance())
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    KeyedDecodingContainer(try nestedTapeContainer(keyedBy: type))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try nestedTapeUnkeyedContainer()
  }

  mutating func nestedTapeContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedTapeContainer<NestedKey>
  {
    try TapeDecoder(state: state, node: try advance()).tapeContainer(keyedBy: type)
  }

  mutating func nestedTapeUnkeyedContainer() throws -> UnkeyedTapeContainer {
    try TapeDecoder(state: state, node: try advance()).tapeUnkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder {
    TapeDecoder(state: state, node: try advance())
  }
}

struct SingleValueTapeContainer: SingleValueDecodingContainer {
  unowned(unsafe) let state: DecodingState
  let node: Int

  var codingPath: [any CodingKey] { state.codingPath(to: node) }

  func decodeNil() -> Bool { state.isNull(node) }
  func decode(_ type: Bool.Type) throws -> Bool { try state.bool(node) }
  func decode(_ type: String.Type) throws -> String { try state.string(node) }
  func decode(_ type: Double.Type) throws -> Double { try state.double(node) }
  func decode(_ type: Float.Type) throws -> Float { try state.float(node) }
  func decode(_ type: Int.Type) throws -> Int { try state.integer(node, type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try state.integer(node, type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try state.integer(node, type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try state.integer(node, type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try state.integer(node, type) }
  func decode(_ type: UInt.Type) throws -> UInt { try state.integer(node, type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try state.integer(node, type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try state.integer(node, type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try state.integer(node, type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try state.integer(node, type) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try state.decode(type, at: node) }
}

/// An array a DTO declares (`let items: [OrderItemDTO]`), decoded as `Array.init(from:)` would —
/// element by element until the end, each element's errors its own — but through the tape's
/// unkeyed container as its own type and into storage reserved for the elements the tape
/// counted: `init(from:)` boxes the container, grows the array as it appends, and reaches each
/// element through two witness tables.
protocol TapeDecodableArray {
  static func decodeElements<T>(_ state: DecodingState, node: Int, parent: Int, as type: T.Type) throws -> T
}

extension Array: TapeDecodableArray where Element: Decodable {
  static func decodeElements<T>(_ state: DecodingState, node: Int, parent: Int, as type: T.Type) throws -> T {
    var container = try TapeDecoder(state: state, node: node, parent: parent).tapeUnkeyedContainer()
    var elements: [Element] = []
    elements.reserveCapacity(state.isXML ? container.count ?? 0 : state.tape.childCount(of: node))
    while !container.isAtEnd { elements.append(try container.decode(Element.self)) }
    // `T` is `[Element]`: the caller found this conformance through `T`.
    return unsafeBitCast(elements, to: T.self)
  }
}
