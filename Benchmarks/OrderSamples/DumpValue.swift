import SluiceCore

/// A record as a format-neutral tree, so that one order — valid or damaged — is written alike as
/// JSON and as XML: the generators build the tree once and render it in every format.
///
/// The XML rendering follows Sluice's conventions: attribute fields become attributes, a `list`
/// is a wrapper element whose children are named `item`, `null` is XML Schema's
/// `xsi:nil="true"` (which Sluice reads as JSON's null), and every scalar is text.
public indirect enum DumpValue: Sendable {
  /// A JSON string; XML text.
  case text(String)
  /// A JSON number, written as this literal; XML text.
  case number(String)
  case null
  case object([DumpField])
  /// A JSON array; an XML wrapper element with one `<item>` child per value.
  case list(item: String, [DumpValue])

  // MARK: - JSON

  /// The value as compact JSON on one line.
  public var json: String {
    var out = ""
    writeJSON(to: &out)
    return out
  }

  func writeJSON(to out: inout String) {
    switch self {
    case .text(let text):
      out += "\""
      out += Self.jsonEscaped(text)
      out += "\""
    case .number(let literal): out += literal
    case .null: out += "null"
    case .object(let fields):
      out += "{"
      for (index, field) in fields.enumerated() {
        if index > 0 { out += "," }
        out += "\"\(Self.jsonEscaped(field.name))\":"
        field.value.writeJSON(to: &out)
      }
      out += "}"
    case .list(_, let values):
      out += "["
      for (index, value) in values.enumerated() {
        if index > 0 { out += "," }
        value.writeJSON(to: &out)
      }
      out += "]"
    }
  }

  /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
  public static func jsonString(_ text: String) -> String { "\"" + jsonEscaped(text) + "\"" }

  static func jsonEscaped(_ text: String) -> String { JSONString.escaped(text) }

  // MARK: - XML

  /// The value as the element `name`, on one line.
  public func xml(element name: String) -> String {
    var out = ""
    writeXML(element: name, to: &out)
    return out
  }

  func writeXML(element name: String, to out: inout String) {
    switch self {
    case .text(let text), .number(let text):
      out += "<\(name)>\(Self.xmlEscaped(text, inAttribute: false))</\(name)>"
    case .null:
      out += "<\(name) xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:nil=\"true\"/>"
    case .object(let fields):
      out += "<" + name
      for field in fields where field.isAttribute {
        switch field.value {
        case .text(let text), .number(let text):
          out += " \(field.name)=\"\(Self.xmlEscaped(text, inAttribute: true))\""
        case .null, .object, .list:
          preconditionFailure("attribute \(field.name) must be a scalar")
        }
      }
      let children = fields.filter { !$0.isAttribute }
      if children.isEmpty {
        out += "/>"
        return
      }
      out += ">"
      for field in children { field.value.writeXML(element: field.name, to: &out) }
      out += "</\(name)>"
    case .list(let item, let values):
      if values.isEmpty {
        out += "<\(name)/>"
        return
      }
      out += "<\(name)>"
      for value in values { value.writeXML(element: item, to: &out) }
      out += "</\(name)>"
    }
  }

  /// Text escaped for XML content or a double-quoted attribute value: `&`, `<` and `>` always;
  /// in an attribute also `"`, and tabs and line breaks as character references (a parser
  /// would otherwise normalize them to spaces); a carriage return always (else it reads `\n`).
  static func xmlEscaped(_ text: String, inAttribute: Bool) -> String {
    func needs(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\r"): return true
      case UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\t"): return inAttribute
      default: return false
      }
    }
    guard text.utf8.contains(where: needs) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\r": out += "&#13;"
      case "\"" where inAttribute: out += "&quot;"
      case "\n" where inAttribute: out += "&#10;"
      case "\t" where inAttribute: out += "&#9;"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

/// A named field of a `DumpValue.object`; in XML an attribute when `isAttribute`.
public struct DumpField: Sendable {
  public var name: String
  public var value: DumpValue
  public var isAttribute: Bool

  public init(_ name: String, _ value: DumpValue, isAttribute: Bool = false) {
    self.name = name
    self.value = value
    self.isAttribute = isAttribute
  }
}

extension DumpValue {
  /// The field `name` of an object; nil when absent or not an object.
  public subscript(field name: String) -> DumpValue? {
    get {
      guard case .object(let fields) = self else { return nil }
      return fields.first { $0.name == name }?.value
    }
    set {
      guard case .object(var fields) = self else { return }
      if let index = fields.firstIndex(where: { $0.name == name }) {
        if let newValue {
          fields[index].value = newValue
        } else {
          fields.remove(at: index)
        }
      } else if let newValue {
        fields.append(DumpField(name, newValue))
      }
      self = .object(fields)
    }
  }
}
