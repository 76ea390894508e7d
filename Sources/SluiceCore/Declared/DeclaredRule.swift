import Foundation

/// A rule of a dataset file: one check of one field path, reported as its `ValidationRule`.
final class DeclaredRule: Sendable {
  enum Check: Sendable {
    case notBlank
    case present
    /// Bounds in the field's own units: a decimal's minor units are divided by 10^scale first.
    case range(minimum: Double?, maximum: Double?, scale: Int)
    /// A text's characters (Unicode scalars, as JSON Schema counts them) or an array's elements.
    case length(minimum: Int?, maximum: Int?)
    case pattern(DeclaredPattern)
    case oneOf(Set<String>)
    /// No earlier element of the same array has the value.
    case unique
  }

  let rule: ValidationRule
  let path: DeclaredPath
  let check: Check

  init(rule: ValidationRule, path: DeclaredPath, check: Check) {
    self.rule = rule
    self.path = path
    self.check = check
  }

  func check(_ record: [DeclaredValue], into validation: inout Validation) {
    if case .unique = check {
      checkUnique(record, into: &validation)
      return
    }
    path.forEach(in: record) { value, indices in
      validation.check(rule, passes(value), at: path.render(indices: indices))
    }
  }

  private func passes(_ value: DeclaredValue) -> Bool {
    switch (check, value) {
    case (.present, _): return !value.isMissing
    case (_, .absent), (_, .null): return true
    case (.notBlank, .text(let text)): return !Validation.isBlank(text)
    case (.range(let minimum, let maximum, let scale), _):
      let number: Double
      switch value {
      case .integer(let integer): number = scale == 0 ? Double(integer) : Double(integer) / pow(10, Double(scale))
      case .real(let real): number = real
      default: return true
      }
      return minimum.map { number >= $0 } ?? true && maximum.map { number <= $0 } ?? true
    case (.length(let minimum, let maximum), _):
      let length: Int
      switch value {
      case .text(let text): length = text.unicodeScalars.count
      case .array(let elements): length = elements.count
      default: return true
      }
      return minimum.map { length >= $0 } ?? true && maximum.map { length <= $0 } ?? true
    case (.pattern(let pattern), .text(let text)): return pattern.matches(text)
    case (.oneOf(let values), .text(let text)): return values.contains(text)
    default: return true
    }
  }

  /// Within each array the path's last `[]` crosses, an element whose value an earlier element
  /// had fails (the first one passes).
  private func checkUnique(_ record: [DeclaredValue], into validation: inout Validation) {
    var seen: [[Int]: Set<String>] = [:]
    path.forEach(in: record) { value, indices in
      let text: String
      switch value {
      case .text(let value): text = value
      case .integer(let value): text = String(value)
      case .real(let value): text = String(value)
      case .boolean(let value): text = String(value)
      case .timestamp(let value): text = value.text
      default: return
      }
      let inserted = seen[Array(indices.dropLast()), default: []].insert(text).inserted
      validation.check(rule, inserted, at: path.render(indices: indices))
    }
  }
}
