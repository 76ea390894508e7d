/// A record path's last component that names a collection keyed by id: `recipes{id}` — the
/// members of the object under `recipes` are the records, each member's name added to its
/// record as the string field `id` — or `{id}`, the members of the top-level object.
///
/// The name is added at the record's end (`{"title": "Soup"}` under `"05zEp"` is read as
/// `{"title": "Soup","id":"05zEp"}`), so every byte of the record keeps its offset in the input
/// and issues point where they did; an issue about the added field points at the record's
/// closing brace. A record that already holds a field of that name has it twice (`duplicateKey`
/// under the policy's rule for repeated keys). A member whose value is not an object is read as
/// it is, and a DTO rejects it as any record of the wrong type.
package struct KeyedCollection: Equatable, Sendable {
  /// The key path's last key, whose object holds the records; empty for the top-level object.
  package var key: String
  /// The field each record gets its member's name in.
  package var field: String

  /// The keyed collection a path component names, or nil: `key{field}`, with a field name of at
  /// least one character and no braces.
  package init?(_ component: String) {
    guard component.hasSuffix("}"), let open = component.firstIndex(of: "{") else { return nil }
    let field = component[component.index(after: open)..<component.index(before: component.endIndex)]
    let key = component[..<open]
    guard !field.isEmpty, !field.contains("{"), !field.contains("}"), !key.contains("}") else { return nil }
    self.key = String(key)
    self.field = String(field)
  }

  /// Whether a path component is meant as a keyed collection (it has a brace), well formed or not.
  package static func isMeant(_ component: String) -> Bool {
    component.contains("{") || component.contains("}")
  }

  /// What is wrong with `path` as a record path of `format` where keyed collections are
  /// concerned, or nil: one only as the path's last component, well formed, in JSON.
  package static func problem(in path: [String], jsonFormat: Bool) -> String? {
    for (index, component) in path.enumerated() where isMeant(component) {
      guard KeyedCollection(component) != nil else {
        return
          "'\(component)': a keyed collection is written key{field} (or {field} for the top-level object), the field naming where each member's name goes"
      }
      guard index == path.count - 1 else {
        return "'\(component)': a keyed collection can only end the record path"
      }
      guard jsonFormat else { return "'\(component)': keyed collections are JSON objects; XML has none" }
    }
    return nil
  }

  /// Adds `name` to the record `bytes` (a JSON value as read) as the string field `field`, just
  /// before its closing brace; a value that is not an object is left as it is.
  static func add(_ name: String, as field: String, to bytes: inout [UInt8]) {
    guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return }
    var before = bytes.count - 2
    while before > 0, bytes[before] == 0x20 || bytes[before] == 0x09 || bytes[before] == 0x0A || bytes[before] == 0x0D {
      before -= 1
    }
    let empty = bytes[before] == UInt8(ascii: "{")
    var member = Array((empty ? "\"" : ",\"").utf8)
    member += Array(JSONString.escaped(field).utf8) + Array("\":\"".utf8)
    member += Array(JSONString.escaped(name).utf8) + [UInt8(ascii: "\"")]
    bytes.insert(contentsOf: member, at: bytes.count - 1)
  }
}
