@_spi(Internals) import SluiceCore

/// Writes a `Decodable` Swift DTO for the records an inspection described, one that Sluice's
/// decoder reads under the strict policy: no coercions, ISO 8601 dates.
///
/// Each object becomes a struct (nested inside the one that holds it), each array `[Element]`;
/// a field is optional when some holder lacked it or had it null (for XML, also when it was an
/// empty element and is not text). Types follow what decodes: integers `Int64`, integers mixed
/// with fractions `Double`, strings `String` — `Date` when every one was an ISO 8601 date-time
/// the `iso8601` strategy accepts — and XML text the type every value converts to. A field whose
/// kinds no one type decodes (a string here, a number there) is left out with a comment saying
/// so: the strict decoder reports it as an unknown field, a warning, and decodes the rest.
/// Swift names are lowerCamelCase; `CodingKeys` map them back when any differs from its key.
package struct SwiftDTOGenerator {
  public let inspection: Inspection
  public let typeName: String
  /// The most levels of structs below the record's (a nested object or an array's object
  /// element is one level) the DTO decodes; a field that would need more is left out, with a
  /// comment, and listed in its holder's `deeper`. Nil: no limit (`inspect --swift`). `sluice
  /// init` sets one, as a DTO nested 50 deep (and its dataset's 50 tables) took minutes to build.
  package var maximumNesting: Int?
  /// Whether a JSON field no one type decodes (a string here, an array there), or an array
  /// empty in every record read, is kept as `JSONText` rather than left out: `sluice init` keeps
  /// it, so that no field is lost and the next dump's elements load whatever they are.
  package var keepsMixedAsJSONText = false

  public init(inspection: Inspection, typeName: String) {
    self.inspection = inspection
    self.typeName = typeName
  }

  package init(inspection: Inspection, typeName: String, maximumNesting: Int?) {
    self.inspection = inspection
    self.typeName = typeName
    self.maximumNesting = maximumNesting
  }

  /// Whether `name` can name the DTO: an ASCII identifier that is no keyword and shadows no
  /// type the DTO uses.
  public static func isValidTypeName(_ name: String) -> Bool { SwiftNames.isTypeName(name) }

  /// A field path and the paths below it, rebuilt from the inspection's depth-first list.
  final class Node {
    let shape: FieldShape
    var children: [Node] = []
    init(_ shape: FieldShape) { self.shape = shape }
    var element: Node? { children.first { $0.shape.isElement } }
  }

  private enum Decision {
    case type(String, isOptional: Bool, note: String?, model: DTOType)
    case omitted(String)
    /// Its struct would nest deeper than `maximumNesting`.
    case tooDeep
  }

  /// A struct of the DTO as `source()` writes it, for code written beside it (`sluice init`'s
  /// dataset): its properties with their keys, Swift types and optionality.
  package struct DTOStruct: Sendable, Hashable {
    package var name: String
    package var properties: [DTOProperty]
    /// The keys of fields left out because they nest deeper than `maximumNesting`.
    package var deeper: [String] = []
    /// The keys of fields left out because no one type decodes their values (a string here, a
    /// number there): each run reports them as unknown fields.
    package var omitted: [String] = []
    /// For the record's struct: pairs of its id-like fields unique together in the sample
    /// (`FieldShape.uniqueKeyPairs`).
    package var uniqueKeyPairs: [[String]] = []
  }

  package struct DTOProperty: Sendable, Hashable {
    package var name: String
    package var key: String
    package var type: DTOType
    package var isOptional: Bool
    /// For a field of the record named like an id: whether its values were unique in the
    /// records checked (`FieldShape.isUniqueInSample`).
    package var isUniqueInSample: Bool? = nil
    /// Why it is optional, for a dataset file, which tells a missing field from a null one:
    /// some holders lacked it, some had it null.
    package var isSometimesMissing = false
    package var isSometimesNull = false
    /// For a CSV or TSV column: the type every value reads as, which a dataset file declares
    /// exactly (a decimal's scale, a timestamp's format, an enum's values).
    package var columnType: TextColumnType? = nil
  }

  package indirect enum DTOType: Sendable, Hashable {
    /// `String`, `Int64`, `Double`, `Bool`, `Date`.
    case scalar(String)
    case object(DTOStruct)
    case array(DTOType, elementIsOptional: Bool)
  }

  private var isXML: Bool { inspection.format == .xml }

  /// The DTO's source: a header comment, `import Foundation`, the structs.
  public func source() -> String {
    var lines: [String] = []
    let sampled = inspection.hasMoreRecords ? ", a sample" : ""
    let place =
      inspection.format == .ndjson
      ? "NDJSON lines" : inspection.csv != nil ? "rows" : "records at \(inspection.recordPathText)"
    let file = inspection.path.split(separator: "/").last.map(String.init) ?? inspection.path
    lines.append(
      "// Generated by `sluice inspect --swift \(typeName)` from \(SwiftNames.comment(file)): \(inspection.records) \(place)\(sampled)."
    )
    lines.append("// Types and optionals come from those records only; review them against the data's contract.")
    if inspection.notes.contains(where: { $0.hasPrefix("field paths capped") }) {
      lines.append("// The inspection hit its field path cap: fields at further paths are missing here.")
    }
    lines.append("import Foundation")
    lines.append("")
    let root = Node(inspection.record)
    var stack: [Node] = [root]
    for field in inspection.fields {
      let node = Node(field)
      stack.removeLast(max(0, stack.count - field.depth))
      stack.last?.children.append(node)
      stack.append(node)
    }
    if inspection.records == 0 {
      var reason = ""
      if inspection.skippedRecords > 0, let first = inspection.firstSkippedRecord {
        reason = " (\(inspection.skippedRecords) could not be read, the first at \(first))"
      }
      lines.append("// No record was read\(SwiftNames.comment(reason)): there are no fields to decode.")
    } else if inspection.record.kinds.object == 0 {
      lines.append("// The records are not objects: there are no fields to decode.")
    }
    lines += structure(named: typeName, for: root, enclosing: [typeName], indent: "", level: 0).lines
    return lines.joined(separator: "\n") + "\n"
  }

  /// The root struct `source()` writes, as a model.
  package func layout() -> DTOStruct {
    let root = Node(inspection.record)
    var stack: [Node] = [root]
    for field in inspection.fields {
      let node = Node(field)
      stack.removeLast(max(0, stack.count - field.depth))
      stack.last?.children.append(node)
      stack.append(node)
    }
    var model = structure(named: typeName, for: root, enclosing: [typeName], indent: "", level: 0).model
    model.uniqueKeyPairs = inspection.record.uniqueKeyPairs
    return model
  }

  /// A struct for the object fields `node` describes, with its nested structs; `level` is how
  /// many structs it is below the record's.
  private func structure(named name: String, for node: Node, enclosing: Set<String>, indent: String, level: Int)
    -> (lines: [String], model: DTOStruct)
  {
    var lines = ["\(indent)struct \(name): Decodable {"]
    var model = DTOStruct(name: name, properties: [])
    let inner = indent + "  "
    var properties: [(name: String, key: String)] = []
    // A key that is already its Swift name keeps it; the others make way (`userName` stays,
    // `user_name` beside it becomes `userName2`).
    let fields = node.children.filter { !$0.shape.isElement }
    var usedProperties = Set(fields.map(\.shape.name).filter { SwiftNames.propertyName($0) == $0 })
    var usedTypes = enclosing
    var nested: [[String]] = []
    for child in fields {
      let key = child.shape.name
      var property = SwiftNames.propertyName(key)
      if property != key { property = unique(property, in: usedProperties) }
      switch decide(child, usedTypes: &usedTypes, nested: &nested, indent: inner, level: level) {
      case .omitted(let reason):
        model.omitted.append(key)
        lines.append("\(inner)// \"\(SwiftNames.comment(key))\" is left out: its \(reason).")
      case .tooDeep:
        model.deeper.append(key)
        lines.append(
          "\(inner)// \"\(SwiftNames.comment(key))\" is left out: it nests deeper than the \(maximumNesting ?? 0) levels this DTO decodes."
        )
      case .type(let type, let isOptional, let note, let typeModel):
        usedProperties.insert(property)
        properties.append((property, key))
        model.properties.append(
          DTOProperty(
            name: property, key: key, type: typeModel, isOptional: isOptional,
            isUniqueInSample: child.shape.isUniqueInSample,
            isSometimesMissing: child.shape.present < child.shape.holders,
            isSometimesNull: child.shape.kinds.null > 0, columnType: child.shape.columnType))
        let comment = note.map { "  // \($0)" } ?? ""
        lines.append("\(inner)let \(property): \(type)\(isOptional ? "?" : "")\(comment)")
      }
    }
    if properties.contains(where: { $0.name != $0.key }) {
      lines.append("")
      lines.append("\(inner)enum CodingKeys: String, CodingKey {")
      for (property, key) in properties {
        lines.append(
          property == key ? "\(inner)  case \(property)" : "\(inner)  case \(property) = \"\(SwiftNames.literal(key))\""
        )
      }
      lines.append("\(inner)}")
    }
    for structure in nested {
      lines.append("")
      lines += structure
    }
    lines.append("\(indent)}")
    return (lines, model)
  }

  /// The Swift type of a field (or of an array's elements), making the structs it needs.
  private func decide(
    _ node: Node, usedTypes: inout Set<String>, nested: inout [[String]], indent: String, level: Int
  ) -> Decision {
    let shape = node.shape
    let kinds = shape.kinds
    let absent = shape.isElement ? kinds.null > 0 : shape.isSometimesAbsent
    var names = Set(kinds.nonNull.map(\.name))
    // XML: an empty element is absent to the decoder, so `<x/>` beside `<x a="1"/>` is an optional object.
    let allTextEmpty = shape.text.count > 0 && shape.text.empty == shape.text.count
    if isXML && names.count > 1 && names.contains("string") && allTextEmpty { names.remove("string") }
    let xmlEmpty = isXML && shape.text.empty > 0

    if names.isEmpty {
      if kinds.array == 0 && kinds.null > 0 {
        return .type(
          "String", isOptional: true, note: "always null in the records read: the type is a guess",
          model: .scalar("String"))
      }
      return .omitted("values were never seen")
    }
    guard names.count == 1 || names == ["integer", "number"], let kind = names.first else {
      let seen = kinds.nonNull.map { "\($0.name) \($0.count)×" }.joined(separator: ", ")
      if let kept = jsonText(note: "values are \(seen): kept as JSON text", isOptional: absent) { return kept }
      return .omitted("values are \(seen); no one type decodes them all under the strict policy")
    }
    switch names.count == 2 ? "number" : kind {
    case "string":
      if let column = shape.columnType {
        let (type, note) = swiftType(column)
        return .type(type, isOptional: absent, note: note, model: .scalar(type))
      }
      if isXML {
        let type: String
        switch shape.text.looksLike {
        case "integer": type = "Int64"
        case "boolean": type = "Bool"
        case "number": type = "Double"
        case "date": type = "Date"
        default: type = "String"
        }
        return .type(type, isOptional: absent || (xmlEmpty && type != "String"), note: nil, model: .scalar(type))
      }
      let isDate = shape.text.count > 0 && shape.text.dateLike == shape.text.count
      let type = isDate ? "Date" : "String"
      return .type(type, isOptional: absent, note: nil, model: .scalar(type))
    case "integer":
      return .type("Int64", isOptional: absent, note: nil, model: .scalar("Int64"))
    case "number":
      // Whole numbers past 64 bits (a 20-digit id) would lose digits in a `Double` column.
      if shape.wideIntegers > 0 && shape.wideIntegers == kinds.number,
        let kept = jsonText(note: "integers past 64 bits: kept exact as JSON text", isOptional: absent)
      {
        return kept
      }
      let note = shape.wideIntegers > 0 ? "some integers exceed Int64: Decimal keeps them exact" : nil
      return .type("Double", isOptional: absent, note: note, model: .scalar("Double"))
    case "boolean":
      return .type("Bool", isOptional: absent, note: nil, model: .scalar("Bool"))
    case "object":
      if let maximumNesting, level >= maximumNesting { return .tooDeep }
      let base = SwiftNames.typeName(shape.isElement ? parentName(node) : shape.name, singular: shape.isElement)
      let name = unique(base, in: usedTypes)
      usedTypes.insert(name)
      let built = structure(named: name, for: node, enclosing: usedTypes, indent: indent, level: level + 1)
      // A struct left with no property never opens its object (a synthesized `init(from:)` asks
      // for nothing), so the decoder would see no unknown field in it, and a dataset file cannot
      // declare it: the object is left out of its holder instead, where each run reports it.
      if built.model.properties.isEmpty && node.children.contains(where: { !$0.shape.isElement }) {
        if !built.model.deeper.isEmpty { return .tooDeep }
        return .omitted("fields are each left out, as no one type decodes their values")
      }
      nested.append(built.lines)
      return .type(name, isOptional: absent || (xmlEmpty && allTextEmpty), note: nil, model: .object(built.model))
    case "array":
      guard let element = node.element else {
        if shape.maxElements > 0 { return .omitted("elements are past the inspection's field path cap") }
        if let kept = jsonText(note: "always empty in the records read: kept as JSON text", isOptional: absent) {
          return kept
        }
        return .type(
          "[String]", isOptional: absent, note: "always empty in the records read: the element type is a guess",
          model: .array(.scalar("String"), elementIsOptional: false))
      }
      switch decide(element, usedTypes: &usedTypes, nested: &nested, indent: indent, level: level) {
      case .omitted(let reason):
        return .omitted("elements' \(reason)")
      case .tooDeep:
        return .tooDeep
      case .type(let type, let elementIsOptional, let note, let model):
        return .type(
          "[\(type)\(elementIsOptional ? "?" : "")]", isOptional: absent, note: note,
          model: .array(model, elementIsOptional: elementIsOptional))
      }
    default:
      return .omitted("values were never seen")
    }
  }

  /// A JSON field kept whole as `JSONText`, when the generator keeps such fields (`sluice init`)
  /// and the records are JSON (an XML element is not JSON text).
  private func jsonText(note: String, isOptional: Bool) -> Decision? {
    guard keepsMixedAsJSONText && !isXML else { return nil }
    return .type("JSONText", isOptional: isOptional, note: note, model: .scalar("JSONText"))
  }

  /// The key an element's array is at (`items` for `items[]`), for naming its struct.
  private func parentName(_ node: Node) -> String {
    let path = node.shape.path
    var trimmed = path.hasSuffix("[]") ? String(path.dropLast(2)) : path
    while trimmed.hasSuffix("[]") { trimmed = String(trimmed.dropLast(2)) }
    return String(trimmed.split(separator: ".").last ?? "Element")
  }

  private func unique(_ name: String, in used: Set<String>) -> String {
    guard used.contains(name) else { return name }
    var number = 2
    while used.contains("\(name)\(number)") { number += 1 }
    return "\(name)\(number)"
  }
}
