@_spi(Internals) import SluiceCore

/// A JSON value whose objects keep their keys in the order written, so a contract reads
/// top-down (`$schema`, `title`, `type`, `properties`…) and prints the same every time.
public indirect enum ContractJSON: Sendable, Hashable {
  case string(String)
  /// A number, written as given (integers beyond `Double`'s precision stay exact).
  case number(String)
  case bool(Bool)
  case null
  case array([ContractJSON])
  case object([(key: String, value: ContractJSON)])

  public static func == (lhs: ContractJSON, rhs: ContractJSON) -> Bool {
    switch (lhs, rhs) {
    case (.string(let a), .string(let b)), (.number(let a), .number(let b)): return a == b
    case (.bool(let a), .bool(let b)): return a == b
    case (.null, .null): return true
    case (.array(let a), .array(let b)): return a == b
    case (.object(let a), .object(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: return false
    }
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(text())
  }

  static func integer<I: BinaryInteger>(_ value: I) -> ContractJSON { .number("\(value)") }

  /// A bound as JSON writes it: `9999`, not `9999.0`.
  static func number(_ value: Double) -> ContractJSON {
    if value == value.rounded(), abs(value) < 1e15 { return .number("\(Int64(value))") }
    return .number("\(value)")
  }

  /// The value of `key` in an object.
  public subscript(key: String) -> ContractJSON? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.key == key }?.value
  }

  /// Sets `key`, keeping its place when it is there already.
  mutating func set(_ key: String, _ value: ContractJSON) {
    guard case .object(var members) = self else { return }
    if let index = members.firstIndex(where: { $0.key == key }) {
      members[index].value = value
    } else {
      members.append((key, value))
    }
    self = .object(members)
  }

  /// Pretty-printed, two spaces, keys in their order; arrays of scalars on one line.
  public func text(indent: String = "") -> String {
    switch self {
    case .string(let text): return Self.quoted(text)
    case .number(let text): return text
    case .bool(let value): return value ? "true" : "false"
    case .null: return "null"
    case .array(let items):
      if items.isEmpty { return "[]" }
      if items.allSatisfy(\.isScalar) { return "[" + items.map { $0.text() }.joined(separator: ", ") + "]" }
      let inner = indent + "  "
      return "[\n" + items.map { inner + $0.text(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
    case .object(let members):
      if members.isEmpty { return "{}" }
      let inner = indent + "  "
      return "{\n"
        + members.map { inner + Self.quoted($0.key) + ": " + $0.value.text(indent: inner) }.joined(separator: ",\n")
        + "\n\(indent)}"
    }
  }

  private var isScalar: Bool {
    switch self {
    case .array, .object: false
    default: true
    }
  }

  /// A JSON string literal: quotes, backslashes and control characters escaped.
  static func quoted(_ text: String) -> String { ShapeCollector.quoted(text) }
}
