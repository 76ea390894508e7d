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
  /// The field indices, for a path that crosses no array (most): walked without recursion.
  private let fieldIndices: [Int]?

  init(steps: [Step], text: String) {
    self.steps = steps
    self.text = text
    var indices: [Int] = []
    for step in steps {
      guard case .field(let index, _) = step else {
        fieldIndices = nil
        return
      }
      indices.append(index)
    }
    fieldIndices = indices
  }

  /// Calls `body` with each value the path reaches in a record — one per element where it
  /// crosses arrays; a missing object or array along the way reaches nothing — and the element
  /// indices of its place (`render(indices:)` makes its concrete path, for failures only).
  ///
  /// It runs for every rule and enum field of every record: a path without arrays is a loop of
  /// index look-ups, and one with arrays recurses with its indices on the stack, allocating
  /// nothing.
  func forEach(in record: [DeclaredValue], _ body: (DeclaredValue, UnsafeBufferPointer<Int>) -> Void) {
    if let fieldIndices {
      guard let last = fieldIndices.last else { return }
      var values = record
      for index in fieldIndices.dropLast() {
        guard case .object(let inner) = values[index] else { return }
        values = inner
      }
      body(values[last], UnsafeBufferPointer(start: nil, count: 0))
      return
    }
    let depth = steps.count { if case .elements = $0 { true } else { false } }
    withUnsafeTemporaryAllocation(of: Int.self, capacity: depth) { indices in
      walk(.object(record), step: 0, indices: indices, depth: 0, body)
    }
  }

  private func walk(
    _ value: DeclaredValue, step: Int, indices: UnsafeMutableBufferPointer<Int>, depth: Int,
    _ body: (DeclaredValue, UnsafeBufferPointer<Int>) -> Void
  ) {
    guard step < steps.count else {
      body(value, UnsafeBufferPointer(rebasing: indices[..<depth]))
      return
    }
    switch steps[step] {
    case .field(let index, _):
      guard case .object(let values) = value else { return }  // missing or null: nothing below
      walk(values[index], step: step + 1, indices: indices, depth: depth, body)
    case .elements:
      guard case .array(let elements) = value else { return }
      for (position, element) in elements.enumerated() {
        indices[depth] = position
        walk(element, step: step + 1, indices: indices, depth: depth + 1, body)
      }
    }
  }

  /// The path with each `[]` replaced by its element's index, in order.
  func render(indices: some Collection<Int>) -> String {
    let indices = Array(indices)
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

  /// One step of a path as written: a key, and how many `[]` follow it.
  struct Segment: Equatable {
    var name: String
    var arrays: Int
  }

  /// A path as written (`items[].qty`, `customer.id`) in its segments: `.` separates keys, `[]`
  /// after a key steps over its elements, and `\` makes the next character part of the key, so
  /// that a key holding a dot or brackets can be named (`a\.b` is the key `a.b`, `x\[]` the key
  /// `x[]`, `\\` a backslash). Nil when the text ends in a lone `\`.
  static func segments(_ text: String) -> [Segment]? {
    var segments: [Segment] = []
    var name = ""
    var arrays = 0
    var characters = text.makeIterator()
    var pending = characters.next()
    while let character = pending {
      pending = characters.next()
      switch character {
      case "\\":
        guard let escaped = pending, arrays == 0 else { return nil }
        name.append(escaped)
        pending = characters.next()
      case ".":
        segments.append(Segment(name: name, arrays: arrays))
        (name, arrays) = ("", 0)
      case "[" where pending == "]":
        arrays += 1
        pending = characters.next()
      default:
        // A key goes on after `[]` only through an escape or a dot: `a[]b` names no key.
        guard arrays == 0 else { return nil }
        name.append(character)
      }
    }
    segments.append(Segment(name: name, arrays: arrays))
    return segments
  }

  /// The value along steps that cross no array (a column's field): `.absent` where an object on
  /// the way is missing or null.
  static func value(at steps: some Collection<Int>, in base: DeclaredValue) -> DeclaredValue {
    var value = base
    for index in steps {
      guard case .object(let values) = value else { return .absent }
      value = values[index]
    }
    return value
  }
}
