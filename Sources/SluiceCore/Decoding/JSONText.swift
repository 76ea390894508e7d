import Foundation

/// Any JSON value of a record, kept as its JSON text: a field whose values no one type decodes
/// (Telegram's `text`, a string in one message and an array of strings and entities in the
/// next), or an array empty in every record `sluice init` read, whose elements may be anything.
///
/// The text is the value as the record writes it, less the whitespace between tokens: strings
/// keep their escapes and numbers their digits (`1.50` stays `1.50`). A dataset file's `json`
/// field stores it as `TEXT`, which SQLite's `json_extract` and PostgreSQL's `::jsonb` read.
/// JSON and NDJSON records only: an XML element is not JSON, and is refused as a mismatch.
public struct JSONText: Decodable, Sendable, Hashable {
  public var text: String

  public init(text: String) { self.text = text }

  public init(from decoder: any Decoder) throws {
    guard let decoder = decoder as? TapeDecoder else {
      text = try Self.encoded(decoder)
      return
    }
    let state = decoder.state
    guard !state.isXML else {
      throw state.mismatch(decoder.node, JSONText.self, expected: "a JSON value (XML elements are not JSON)")
    }
    var bytes: [UInt8] = []
    Self.write(state.tape, node: decoder.node, into: &bytes)
    text = String(decoding: bytes, as: UTF8.self)
  }

  /// The node's value as compact JSON, from the record's own bytes.
  private static func write(_ tape: RecordTape, node: Int, into bytes: inout [UInt8]) {
    let current = tape.nodes[node]
    switch current.kind {
    case .object, .array:
      let isObject = current.kind == .object
      bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
      var child = node + 1
      let end = tape.end(of: node)
      var first = true
      while child < end {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        if isObject {
          write(tape, node: child, into: &bytes)
          bytes.append(UInt8(ascii: ":"))
          child += 1
        }
        write(tape, node: child, into: &bytes)
        child = tape.end(of: child)
      }
      bytes.append(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
    case .string:
      bytes.append(UInt8(ascii: "\""))
      bytes += tape.bytes[tape.textRange(of: node)]
      bytes.append(UInt8(ascii: "\""))
    default:
      bytes += tape.bytes[tape.textRange(of: node)]
    }
  }

  /// The value as compact JSON through any other decoder's containers (a test's, a recorder's).
  private static func encoded(_ decoder: any Decoder) throws -> String {
    if let object = try? decoder.container(keyedBy: AnyKey.self) {
      let members = try object.allKeys.map { key in
        quoted(key.stringValue) + ":" + (try encoded(object.superDecoder(forKey: key)))
      }
      return "{" + members.joined(separator: ",") + "}"
    }
    if var array = try? decoder.unkeyedContainer() {
      var elements: [String] = []
      while !array.isAtEnd { elements.append(try encoded(array.superDecoder())) }
      return "[" + elements.joined(separator: ",") + "]"
    }
    let value = try decoder.singleValueContainer()
    if value.decodeNil() { return "null" }
    if let bool = try? value.decode(Bool.self) { return bool ? "true" : "false" }
    if let integer = try? value.decode(Int64.self) { return String(integer) }
    if let number = try? value.decode(Double.self) { return "\(number)" }
    return quoted(try value.decode(String.self))
  }

  /// `text` as a JSON string literal.
  private static func quoted(_ text: String) -> String { "\"" + JSONString.escaped(text) + "\"" }

  private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
}
