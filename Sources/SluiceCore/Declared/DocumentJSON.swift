/// A JSON value whose objects keep their members in the order written: a dataset file read back
/// so that schema evolution (`DatasetEvolution`) can add fields, columns and tables to it and
/// write it again with the author's keys in the author's order.
///
/// Read by Sluice's own decoder (its keyed containers list keys in document order); written with
/// two-space indents, an object on one line when it fits and holds no array of objects — the
/// layout `sluice init --declarative` writes.
package indirect enum DocumentJSON: Decodable, Sendable, Equatable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([DocumentJSON])
  case object([Member])

  package struct Member: Sendable, Equatable {
    package var key: String
    package var value: DocumentJSON

    package init(_ key: String, _ value: DocumentJSON) {
      self.key = key
      self.value = value
    }
  }

  private struct Key: CodingKey {
    var stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
  }

  package init(from decoder: any Decoder) throws {
    if let container = try? decoder.container(keyedBy: Key.self) {
      self = .object(
        try container.allKeys.map { Member($0.stringValue, try container.decode(DocumentJSON.self, forKey: $0)) })
      return
    }
    if var container = try? decoder.unkeyedContainer() {
      var items: [DocumentJSON] = []
      while !container.isAtEnd { items.append(try container.decode(DocumentJSON.self)) }
      self = .array(items)
      return
    }
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else {
      self = .string(try container.decode(String.self))
    }
  }

  /// The value of an object's member, nil for another value or a missing key.
  package subscript(key: String) -> DocumentJSON? {
    get {
      guard case .object(let members) = self else { return nil }
      return members.first { $0.key == key }?.value
    }
    set {
      guard case .object(var members) = self else { return }
      if let index = members.firstIndex(where: { $0.key == key }) {
        if let newValue { members[index].value = newValue } else { members.remove(at: index) }
      } else if let newValue {
        members.append(Member(key, newValue))
      }
      self = .object(members)
    }
  }

  package var stringValue: String? {
    if case .string(let text) = self { text } else { nil }
  }

  package var items: [DocumentJSON] {
    if case .array(let items) = self { items } else { [] }
  }

  /// The document's text, ending in a newline.
  package var text: String { Self.compact(self, indent: "") + "\n" }

  private static func compact(_ value: DocumentJSON, indent: String) -> String {
    if case .object = value, let line = inline(value), indent.count + line.count <= 110 { return line }
    let inner = indent + "  "
    switch value {
    case .object(let members) where !members.isEmpty:
      return "{\n"
        + members.map { "\(inner)\(quoted($0.key)): \(compact($0.value, indent: inner))" }.joined(separator: ",\n")
        + "\n\(indent)}"
    case .array(let items) where !items.isEmpty:
      if let line = inline(value), indent.count + line.count <= 110 { return line }
      return "[\n" + items.map { inner + compact($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
    default:
      return inline(value) ?? "null"
    }
  }

  /// A value on one line, or nil when it holds an array of objects (a field's `fields`, a
  /// table's `columns`), which reads better a member a line.
  private static func inline(_ value: DocumentJSON) -> String? {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .integer(let number): return String(number)
    case .number(let number): return number.description
    case .string(let text): return quoted(text)
    case .object(let members):
      if members.isEmpty { return "{}" }
      let texts = members.compactMap { member in inline(member.value).map { "\(quoted(member.key)): \($0)" } }
      return texts.count == members.count ? "{ " + texts.joined(separator: ", ") + " }" : nil
    case .array(let items):
      if items.contains(where: { if case .object = $0 { true } else { false } }) { return nil }
      let texts = items.compactMap(inline)
      return texts.count == items.count ? "[" + texts.joined(separator: ", ") + "]" : nil
    }
  }

  /// `text` as a JSON string literal.
  private static func quoted(_ text: String) -> String { "\"" + JSONString.escaped(text) + "\"" }
}
