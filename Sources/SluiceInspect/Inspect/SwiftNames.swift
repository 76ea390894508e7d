import Foundation
@_spi(Internals) import SluiceCore

/// Swift names for wire names: `created_at` → `createdAt`, `line_items` → `LineItem`,
/// `class` → `classValue`, `2fa` → `_2fa`. ASCII letters and digits only, so every name compiles
/// whatever the input's keys hold.
enum SwiftNames {
  /// Reserved words that cannot name a property without backticks.
  static let keywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
    "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
    "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
    "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
    "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "_",
  ]

  /// Type names a nested struct must not shadow: the generated code uses them.
  static let reservedTypes: Set<String> = [
    "String", "Int", "Int64", "Double", "Bool", "Date", "Decimal", "URL", "Data", "Decodable", "Encodable",
    "Codable", "CodingKey", "CodingKeys", "Optional", "Array", "Dictionary", "Set", "Character", "Error", "Never",
    "Any", "AnyObject", "Self", "Type", "Protocol", "Sendable", "Decoder",
  ]

  /// Whether `name` can be used as a type name as it is: an ASCII identifier, not a keyword.
  static func isTypeName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, first == "_" || isLetter(first) else { return false }
    return name.unicodeScalars.allSatisfy { $0 == "_" || isLetter($0) || isDigit($0) } && !keywords.contains(name)
      && !reservedTypes.contains(name)
  }

  /// The words of a wire name: split at anything not a letter or digit, and at case changes
  /// (`postTypeId` → post, Type, Id; `HTMLBody` → HTML, Body).
  static func words(_ name: String) -> [String] {
    var words: [String] = []
    var current: [Unicode.Scalar] = []
    let scalars = Array(latin(name).unicodeScalars)
    for (index, scalar) in scalars.enumerated() {
      guard isLetter(scalar) || isDigit(scalar) else {
        if !current.isEmpty { words.append(String(String.UnicodeScalarView(current))) }
        current = []
        continue
      }
      if let previous = current.last, isUpper(scalar) {
        let nextIsLower = index + 1 < scalars.count && isLower(scalars[index + 1])
        // A new word at lower→Upper (`postType`), or at the last capital of a run (`HTMLBody`).
        if !isUpper(previous) || nextIsLower {
          words.append(String(String.UnicodeScalarView(current)))
          current = []
        }
      }
      current.append(scalar)
    }
    if !current.isEmpty { words.append(String(String.UnicodeScalarView(current))) }
    return words
  }

  /// Latin letters with diacritics as their base letters (`descripción` → `descripcion`,
  /// `Größe` → `Grosse`, `Øre` → `Ore`), without ICU: each scalar's canonical decomposition less
  /// its combining marks, and the letters that have none (`ß`, `ø`, `æ`, `ł`, …) by a table.
  /// Other scripts are left as they are (and split words, as any other character).
  static func latin(_ name: String) -> String {
    guard !name.unicodeScalars.allSatisfy(\.isASCII) else { return name }
    var result = String.UnicodeScalarView()
    for scalar in name.unicodeScalars {
      if let spelled = unaccented[scalar] {
        result.append(contentsOf: spelled.unicodeScalars)
        continue
      }
      let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
      guard decomposed.first?.isASCII == true else {
        result.append(scalar)
        continue
      }
      result.append(contentsOf: decomposed.filter { $0.properties.generalCategory != .nonspacingMark })
    }
    return String(result)
  }

  /// Latin letters no canonical decomposition takes apart, as ASCII.
  private static let unaccented: [Unicode.Scalar: String] = [
    "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i", "ħ": "h", "Ħ": "H",
  ]

  /// `created_at` → `createdAt`, `Id` → `id`, `class` → `classValue`, `#text` → `text`.
  static func propertyName(_ key: String) -> String {
    let parts = words(key)
    guard let head = parts.first else { return "field" }
    var name = head.lowercased() + parts.dropFirst().map(capitalized).joined()
    if let first = name.unicodeScalars.first, isDigit(first) { name = "_" + name }
    if keywords.contains(name) { name += "Value" }
    return name
  }

  /// `line_items` → `LineItems`; `singular` makes element types (`LineItem`, `Category`).
  static func typeName(_ key: String, singular: Bool = false) -> String {
    var parts = words(key).map(capitalized)
    if singular, let last = parts.last { parts[parts.count - 1] = self.singular(last) }
    var name = parts.joined()
    if name.isEmpty { name = singular ? "Element" : "Object" }
    if let first = name.unicodeScalars.first, isDigit(first) { name = "T" + name }
    if reservedTypes.contains(name) || keywords.contains(name) { name += "Value" }
    return name
  }

  /// A plural's singular, for the usual English endings; other words are left alone.
  static func singular(_ word: String) -> String {
    let lower = word.lowercased()
    if lower.hasSuffix("ies") && word.count > 4 { return String(word.dropLast(3)) + "y" }
    if lower.hasSuffix("sses") || lower.hasSuffix("xes") || lower.hasSuffix("ches") || lower.hasSuffix("shes") {
      return String(word.dropLast(2))
    }
    if lower.hasSuffix("s") && !lower.hasSuffix("ss") && !lower.hasSuffix("us") && word.count > 3 {
      return String(word.dropLast())
    }
    return word
  }

  /// A Swift string literal's content. Not `JSONString.escaped`, though the two look alike
  /// (issue 56 kept both): Swift spells a control character `\u{1b}` where JSON spells it
  /// `\u001b`, and this one escapes DEL too, which JSON leaves as it is.
  static func literal(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += "\\u{\(String(scalar.value, radix: 16))}"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Text safe inside a `//` comment: one line.
  static func comment(_ text: String) -> String {
    String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
  }

  private static func capitalized(_ word: String) -> String {
    guard let first = word.first else { return word }
    return first.uppercased() + word.dropFirst().lowercased()
  }

  private static func isLetter(_ scalar: Unicode.Scalar) -> Bool { isUpper(scalar) || isLower(scalar) }
  private static func isUpper(_ scalar: Unicode.Scalar) -> Bool { scalar >= "A" && scalar <= "Z" }
  private static func isLower(_ scalar: Unicode.Scalar) -> Bool { scalar >= "a" && scalar <= "z" }
  private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }
}
