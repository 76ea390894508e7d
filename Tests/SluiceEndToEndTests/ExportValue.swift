import Foundation
import FoundationXML

/// A real export as Foundation's own parsers read it (`JSONSerialization`, `XMLParser`), with
/// its values: what `InitRealExportsTests` compares each loaded column with. An XML element is
/// its attributes, its child elements (by qualified name and by local name) and its text.
indirect enum ExportValue {
  case json(Any)
  case xml(ExportElement)

  /// The value along a dataset file's dotted field path (`a\.b` is the key `a.b`), or nil when
  /// missing or null; `.` is this value itself.
  func value(at path: String) -> ExportValue? {
    if path == "." { return self }
    var current = self
    for key in Self.keys(path) {
      switch current {
      case .json(let value):
        guard let next = (value as? [String: Any])?[key], !(next is NSNull) else { return nil }
        current = .json(next)
      case .xml(let element):
        if let attribute = element.attributes[key] { return .xml(ExportElement(text: attribute)) }
        if key == "#text" { return .xml(ExportElement(text: element.text)) }
        guard let child = element.children.first(where: { $0.matches(key) }) else { return nil }
        current = .xml(child)
      }
    }
    return current
  }

  /// The non-null elements of the array at a field path: a child table's rows.
  func elements(at path: String) -> [ExportValue] {
    if path == "." {
      guard case .json(let value) = self else { return [] }
      return (value as? [Any] ?? []).filter { !($0 is NSNull) }.map { .json($0) }
    }
    var keys = Self.keys(path)
    let last = keys.removeLast()
    var holder: ExportValue? = self
    if !keys.isEmpty {
      holder = value(at: keys.map { $0.replacingOccurrences(of: ".", with: "\\.") }.joined(separator: "."))
    }
    switch holder {
    case .json(let value)?:
      return ((value as? [String: Any])?[last] as? [Any] ?? []).filter { !($0 is NSNull) }.map { .json($0) }
    case .xml(let element)?:
      let named = element.children.filter { $0.matches(last) }
      // One element holding only repeated children of one name is a wrapper of them.
      if named.count == 1, let wrapper = named.first, wrapper.attributes.isEmpty,
        let first = wrapper.children.first, wrapper.children.allSatisfy({ $0.name == first.name })
      {
        return wrapper.children.map { .xml($0) }
      }
      return named.map { .xml($0) }
    case nil:
      return []
    }
  }

  /// A column's value as text to compare with the database's, for a field of `type` (a dataset
  /// file's); nil for a type this comparison leaves out (timestamps: normalized by the loader).
  func expected(as type: String) -> String?? {
    switch (self, type) {
    case (_, "timestamp"): return .none
    case (.json(let value), "json"): return .some(Self.canonicalJSON(value))
    case (.json(let value as String), _): return .some(value)
    case (.json(let value as NSNumber), "boolean"): return .some(value.boolValue ? "1" : "0")
    case (.json(let value as NSNumber), "integer"): return .some(String(value.int64Value))
    case (.json(let value as NSNumber), _): return .some(Self.number(value.doubleValue))
    case (.xml(let element), "integer"): return .some(Int64(element.text).map(String.init) ?? element.text)
    case (.xml(let element), "number"): return .some(Double(element.text).map(Self.number) ?? element.text)
    case (.xml(let element), "boolean"):
      return .some(["true", "1", "True"].contains(element.text) ? "1" : "0")
    case (.xml(let element), _): return .some(element.text)
    default: return .some("?")
    }
  }

  static func number(_ value: Double) -> String { String(format: "%.12g", value) }

  /// JSON text with sorted keys, for comparing two spellings of one value.
  static func canonicalJSON(_ value: Any) -> String {
    let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
  }

  static func keys(_ path: String) -> [String] {
    var keys = [""]
    var escaped = false
    for character in path {
      if escaped {
        keys[keys.count - 1].append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "." {
        keys.append("")
      } else {
        keys[keys.count - 1].append(character)
      }
    }
    return path.isEmpty ? [] : keys
  }

  /// The records at a spec's record path (JSON, or XML matched by local name).
  static func records(of path: String, format: String, recordPath: [String]) throws -> [ExportValue] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    if format == "xml" {
      let root = try ExportElement.parse(data)
      var holders = [root]
      for key in recordPath.dropFirst() { holders = holders.flatMap { $0.children.filter { $0.name == key } } }
      return holders.map { .xml($0) }
    }
    var value: Any = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
    for key in recordPath {
      let name = key.hasSuffix("[]") ? String(key.dropLast(2)) : key
      value = (value as? [String: Any])?[name] ?? []
    }
    return (value as? [Any] ?? []).map { .json($0) }
  }
}

/// An XML element as `XMLParser` reads it.
final class ExportElement {
  let name: String
  let qualifiedName: String
  var attributes: [String: String] = [:]
  var text = ""
  var children: [ExportElement] = []

  init(name: String = "", qualifiedName: String = "", text: String = "") {
    self.name = name
    self.qualifiedName = qualifiedName
    self.text = text
  }

  func matches(_ key: String) -> Bool { key == qualifiedName || (!key.contains(":") && key == name) }

  static func parse(_ data: Data) throws -> ExportElement {
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    let builder = Builder()
    parser.delegate = builder
    guard parser.parse(), let root = builder.root else { throw CocoaError(.fileReadCorruptFile) }
    return root
  }

  private final class Builder: NSObject, XMLParserDelegate {
    var root: ExportElement?
    var stack: [ExportElement] = []

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      let element = ExportElement(name: elementName, qualifiedName: qualifiedName ?? elementName)
      element.attributes = attributes.filter { !$0.key.hasPrefix("xmlns") }
      if let parent = stack.last { parent.children.append(element) } else { root = element }
      stack.append(element)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.text += string }
    func parser(_ parser: XMLParser, foundCDATA block: Data) {
      stack.last?.text += String(decoding: block, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
      if let element = stack.last, !element.children.isEmpty,
        element.text.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
      {
        element.text = ""
      }
      stack.removeLast()
    }
  }
}
