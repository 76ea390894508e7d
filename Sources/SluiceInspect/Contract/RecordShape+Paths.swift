@_spi(Internals) import SluiceCore

/// Field paths as `sluice inspect` writes them — keys joined by dots, `[]` for any element
/// (`attachments[].type`) — taken apart.
enum FieldPathSegments {
  enum Segment: Hashable {
    case key(String)
    case element
  }

  static func segments(_ path: String) -> [Segment] {
    guard !path.isEmpty else { return [] }
    var segments: [Segment] = []
    for part in path.split(separator: ".", omittingEmptySubsequences: false) {
      var key = Substring(part)
      var elements = 0
      while key.hasSuffix("[]") {
        key = key.dropLast(2)
        elements += 1
      }
      if !key.isEmpty { segments.append(.key(String(key))) }
      segments += Array(repeating: .element, count: elements)
    }
    return segments
  }

  /// The path of the object that holds the field, and the field's key: `attachments[].type` →
  /// (`attachments[]`, `type`).
  static func split(_ path: String) -> (parent: String, key: String) {
    guard let dot = path.lastIndex(of: ".") else { return ("", path) }
    return (String(path[..<dot]), String(path[path.index(after: dot)...]))
  }

  /// A path with every array index made `[]`: `items[2].qty` → `items[].qty`.
  static func pattern(of path: String) -> String {
    var result = ""
    var inIndex = false
    for character in path {
      if character == "[" {
        inIndex = true
        result += "[]"
      } else if character == "]" {
        inIndex = false
      } else if !inIndex {
        result.append(character)
      }
    }
    return result
  }
}

extension RecordShape {
  /// The object at `path` (`""` is this shape itself), or nil when the path leads elsewhere.
  func object(at path: String) -> ObjectShape? {
    if case .object(let object) = shape(at: FieldPathSegments.segments(path)[...]) { return object }
    return nil
  }

  private func shape(at segments: ArraySlice<FieldPathSegments.Segment>) -> RecordShape? {
    guard let first = segments.first else { return self }
    switch (first, self) {
    case (.element, .array(let element)): return element.shape(at: segments.dropFirst())
    case (.key(let key), .object(let object)): return object[key]?.shape.shape(at: segments.dropFirst())
    case (.key(let key), .variants(let variants)):
      if let field = variants.common[key] { return field.shape.shape(at: segments.dropFirst()) }
      return nil
    default: return nil
    }
  }

  /// This shape with the value at `path` replaced.
  func replacingObject(at path: String, with replacement: RecordShape) -> RecordShape {
    replacing(FieldPathSegments.segments(path)[...], with: replacement)
  }

  private func replacing(_ segments: ArraySlice<FieldPathSegments.Segment>, with replacement: RecordShape)
    -> RecordShape
  {
    guard let first = segments.first else { return replacement }
    switch (first, self) {
    case (.element, .array(let element)):
      return .array(element.replacing(segments.dropFirst(), with: replacement))
    case (.key(let key), .object(var object)):
      guard let index = object.fields.firstIndex(where: { $0.key == key }) else { return self }
      object.fields[index].shape = object.fields[index].shape.replacing(segments.dropFirst(), with: replacement)
      return .object(object)
    case (.key(let key), .variants(var variants)):
      guard let index = variants.common.fields.firstIndex(where: { $0.key == key }) else { return self }
      variants.common.fields[index].shape = variants.common.fields[index].shape.replacing(
        segments.dropFirst(), with: replacement)
      return .variants(variants)
    default:
      return self
    }
  }

  /// Whether a field path (`[]` for elements) names a value of this shape.
  func contains(path: String) -> Bool {
    contains(FieldPathSegments.segments(path)[...])
  }

  private func contains(_ segments: ArraySlice<FieldPathSegments.Segment>) -> Bool {
    guard let first = segments.first else { return true }
    switch (first, self) {
    case (_, .any): return true
    case (.element, .array(let element)): return element.contains(segments.dropFirst())
    case (.key(let key), .object(let object)):
      if let field = object[key] { return field.shape.contains(segments.dropFirst()) }
      return object.anyKey != nil
    case (.key(let key), .variants(let variants)):
      if key == variants.discriminator { return segments.count == 1 }
      for object in [variants.common] + variants.cases.map(\.fields) {
        if let field = object[key], field.shape.contains(segments.dropFirst()) { return true }
      }
      return false
    case (_, .alternatives(let shapes)): return shapes.contains { $0.contains(segments) }
    case (_, .refined(let shape)): return shape.contains(segments)
    default: return false
    }
  }
}

extension VariantShape {
  /// The variants of one object, from the object each discriminator value made the DTO ask for:
  /// the fields that are the same for every value are common, the others each value's own.
  init(discriminator: String, objects: [(value: String, object: ObjectShape)]) {
    self.discriminator = discriminator
    let first = objects.first?.object ?? ObjectShape()
    var common = ObjectShape()
    for field in first.fields where objects.allSatisfy({ $0.object[field.key] == field }) {
      common.fields.append(field)
    }
    if common[discriminator] == nil, let field = first[discriminator] { common.fields.insert(field, at: 0) }
    self.common = common
    cases = objects.map { item in
      var own = ObjectShape()
      own.fields = item.object.fields.filter { common[$0.key] == nil }
      own.anyKey = item.object.anyKey
      return (item.value, own)
    }
  }
}
