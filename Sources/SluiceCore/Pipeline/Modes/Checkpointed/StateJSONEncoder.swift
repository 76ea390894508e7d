import Foundation

/// A small JSON `Encoder` for Sluice's own state — a checkpoint — that `SluiceDecoder` reads
/// back: objects with their keys sorted (a dictionary's order is not the process's hash seed's),
/// strings escaped as JSON requires, integers as digits, doubles in their shortest exact form.
///
/// Not Foundation's `JSONEncoder`, whose code would otherwise come into memory at a checkpointed
/// run's first commit, where the run's memory is at its peak (0.7 MiB of code pages, measured).
/// A `Date` is written as `JSONEncoder` writes it by default, seconds since 2001, which
/// `SluiceDecoder` reads back exactly with `datesAsReferenceSeconds`; the other types whose JSON
/// `JSONEncoder` special-cases — `Data`, `Decimal`, `URL` — are refused rather than written in a
/// form the decoder would read differently.
package enum StateJSONEncoder {
  package static func encode(_ value: some Encodable) throws -> String {
    let root = StateNode()
    try root.encode(value, codingPath: [])
    var text = ""
    try root.write(to: &text, codingPath: [])
    return text
  }
}

/// One value of the tree being encoded; containers fill it in place.
private final class StateNode {
  enum Value {
    case unset
    case scalar(String)
    case object([String: StateNode])
    case array([StateNode])
  }

  var value = Value.unset

  func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
    if let date = value as? Date {
      // As `JSONEncoder` writes a date by default, exact; `SluiceDecoder` reads it back with
      // `datesAsReferenceSeconds`.
      return try setDouble(date.timeIntervalSinceReferenceDate, codingPath: codingPath)
    }
    if T.self == Data.self || T.self == Decimal.self || T.self == URL.self {
      throw EncodingError.invalidValue(
        value,
        .init(codingPath: codingPath, debugDescription: "\(T.self) has no state encoding; store it as a number or text")
      )
    }
    try value.encode(to: StateNodeEncoder(node: self, codingPath: codingPath))
  }

  func write(to text: inout String, codingPath: [any CodingKey]) throws {
    switch value {
    case .unset:
      throw EncodingError.invalidValue(
        (), .init(codingPath: codingPath, debugDescription: "a value encoded nothing"))
    case .scalar(let scalar):
      text += scalar
    case .object(let members):
      text += "{"
      for (index, key) in members.keys.sorted().enumerated() {
        if index > 0 { text += "," }
        Self.appendString(key, to: &text)
        text += ":"
        try members[key]!.write(to: &text, codingPath: codingPath + [StateKey(key)])
      }
      text += "}"
    case .array(let elements):
      text += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { text += "," }
        try element.write(to: &text, codingPath: codingPath + [StateKey(index)])
      }
      text += "]"
    }
  }

  static func appendString(_ string: String, to text: inout String) {
    text += "\""
    text += JSONString.escaped(string)
    text += "\""
  }

  func setScalar(_ scalar: String) { value = .scalar(scalar) }

  func setDouble(_ number: Double, codingPath: [any CodingKey]) throws {
    guard number.isFinite else {
      throw EncodingError.invalidValue(
        number, .init(codingPath: codingPath, debugDescription: "\(number) is not a JSON number"))
    }
    // `description` is the shortest text that reads back as the same double.
    value = .scalar(number.description)
  }

  func child(forKey key: String) -> StateNode {
    guard case .object(var members) = value else { preconditionFailure("not an object") }
    let node = StateNode()
    value = .unset  // keeps `members` uniquely referenced while it is changed
    members[key] = node
    value = .object(members)
    return node
  }

  func appendChild() -> StateNode {
    guard case .array(var elements) = value else { preconditionFailure("not an array") }
    let node = StateNode()
    value = .unset
    elements.append(node)
    value = .array(elements)
    return node
  }

  var count: Int {
    if case .array(let elements) = value { elements.count } else { 0 }
  }
}

private struct StateKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(_ string: String) { stringValue = string }
  init(_ index: Int) {
    stringValue = String(index)
    intValue = index
  }
  init?(stringValue: String) { self.init(stringValue) }
  init?(intValue: Int) { self.init(intValue) }
}

private struct StateNodeEncoder: Encoder {
  let node: StateNode
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .object = node.value {} else { node.value = .object([:]) }
    return KeyedEncodingContainer(StateKeyedContainer<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .array = node.value {} else { node.value = .array([]) }
    return StateUnkeyedContainer(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    StateSingleValueContainer(node: node, codingPath: codingPath)
  }
}

private struct StateKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: StateNode
  let codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) throws { node.child(forKey: key.stringValue).setScalar("null") }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try node.child(forKey: key.stringValue).encode(value, codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    StateNodeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
      .container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    StateNodeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    StateNodeEncoder(node: node.child(forKey: "super"), codingPath: codingPath + [StateKey("super")])
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    StateNodeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
  }
}

private struct StateUnkeyedContainer: UnkeyedEncodingContainer {
  let node: StateNode
  let codingPath: [any CodingKey]
  var count: Int { node.count }

  private var nextPath: [any CodingKey] { codingPath + [StateKey(node.count)] }

  mutating func encodeNil() throws { node.appendChild().setScalar("null") }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let path = nextPath
    try node.appendChild().encode(value, codingPath: path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
    NestedKey
  > {
    let path = nextPath
    return StateNodeEncoder(node: node.appendChild(), codingPath: path).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let path = nextPath
    return StateNodeEncoder(node: node.appendChild(), codingPath: path).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    let path = nextPath
    return StateNodeEncoder(node: node.appendChild(), codingPath: path)
  }
}

private struct StateSingleValueContainer: SingleValueEncodingContainer {
  let node: StateNode
  let codingPath: [any CodingKey]

  mutating func encodeNil() throws { node.setScalar("null") }
  mutating func encode(_ value: Bool) throws { node.setScalar(value ? "true" : "false") }
  mutating func encode(_ value: String) throws {
    var text = ""
    StateNode.appendString(value, to: &text)
    node.setScalar(text)
  }
  mutating func encode(_ value: Double) throws { try node.setDouble(value, codingPath: codingPath) }
  mutating func encode(_ value: Float) throws {
    guard value.isFinite else { return try node.setDouble(Double(value), codingPath: codingPath) }
    node.setScalar(value.description)
  }
  mutating func encode(_ value: Int) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: Int8) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: Int16) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: Int32) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: Int64) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: UInt) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: UInt8) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: UInt16) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: UInt32) throws { node.setScalar(String(value)) }
  mutating func encode(_ value: UInt64) throws { node.setScalar(String(value)) }
  mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, codingPath: codingPath) }
}
