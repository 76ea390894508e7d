/// A field path of a dataset file resolved against its fields: steps into an object's field by
/// its index, or over each element of an array (`items[].qty`).
struct DeclaredPath: Sendable {
  enum Step: Sendable {
    case field(Int, name: String)
    case elements
  }

  let steps: [Step]
  /// As written, with `[]` for any element (`items[].qty`): how a contract names it.
  let text: String

  /// Calls `body` with each value the path reaches in a record — one per element where it
  /// crosses arrays; a missing object or array along the way reaches nothing — and the element
  /// indices of its place (`render(indices:)` makes its concrete path, for failures only).
  func forEach(in record: [DeclaredValue], _ body: (DeclaredValue, [Int]) -> Void) {
    var indices: [Int] = []
    func walk(_ value: DeclaredValue, step: Int) {
      guard step < steps.count else {
        body(value, indices)
        return
      }
      switch (steps[step], value) {
      case (.field(let index, _), .object(let values)):
        walk(values[index], step: step + 1)
      case (.elements, .array(let elements)):
        for (index, element) in elements.enumerated() {
          indices.append(index)
          walk(element, step: step + 1)
          indices.removeLast()
        }
      default:
        return  // a missing or null object or array: nothing below it
      }
    }
    walk(.object(record), step: 0)
  }

  /// The path with each `[]` replaced by its element's index, in order.
  func render(indices: [Int]) -> String {
    var text = ""
    var next = 0
    for step in steps {
      switch step {
      case .field(_, let name):
        if !text.isEmpty { text += "." }
        text += name
      case .elements:
        text += next < indices.count ? "[\(indices[next])]" : "[]"
        next += 1
      }
    }
    return text
  }

  /// The value along steps that cross no array (a column's field): `.absent` where an object on
  /// the way is missing or null.
  static func value(at steps: [Int], in base: DeclaredValue) -> DeclaredValue {
    var value = base
    for index in steps {
      guard case .object(let values) = value else { return .absent }
      value = values[index]
    }
    return value
  }
}
