/// Collects the rule violations of one record: the validate stage's output.
///
/// A dataset's validator calls `check` (or a helper) once per rule and field; each failed check
/// becomes one issue with the field's path. Paths are autoclosures, built only on failure.
public struct Validation: Sendable {
  public struct Failure: Sendable, Hashable {
    public var rule: ValidationRule
    public var path: String
  }

  public private(set) var failures: [Failure] = []

  public init() {}

  public var isValid: Bool { failures.isEmpty }

  /// Records a failure of `rule` at `path` when `passes` is false.
  public mutating func check(_ rule: ValidationRule, _ passes: Bool, at path: @autoclosure () -> String) {
    if !passes { failures.append(Failure(rule: rule, path: path())) }
  }

  /// Requires a string with at least one non-whitespace character.
  public mutating func checkNotBlank(_ rule: ValidationRule, _ value: String, at path: @autoclosure () -> String) {
    check(rule, !Self.isBlank(value), at: path())
  }

  /// True for a string of whitespace only. ASCII is decided byte by byte; Unicode's other
  /// spaces (no-break, ideographic…) are looked up only when a non-ASCII byte appears.
  static func isBlank(_ value: String) -> Bool {
    for byte in value.utf8 {
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D: continue
      case 0x80...: return value.unicodeScalars.allSatisfy(\.properties.isWhitespace)
      default: return false
      }
    }
    return true
  }

  /// Requires a value within a closed range.
  public mutating func checkRange<T: Comparable>(
    _ rule: ValidationRule, _ value: T, _ range: ClosedRange<T>, at path: @autoclosure () -> String
  ) {
    check(rule, range.contains(value), at: path())
  }

  /// Requires every character of a string to satisfy a predicate and the length to be in range:
  /// enough for codes and identifiers (`"EUR"`: three uppercase ASCII letters).
  public mutating func checkCharacters(
    _ rule: ValidationRule, _ value: String, length: ClosedRange<Int>,
    where predicate: (Unicode.Scalar) -> Bool, at path: @autoclosure () -> String
  ) {
    let scalars = value.unicodeScalars
    check(rule, length.contains(scalars.count) && scalars.allSatisfy(predicate), at: path())
  }
}
