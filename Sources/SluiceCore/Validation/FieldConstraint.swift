/// What a rule or a mapping requires of one field, in terms a contract outside Sluice can state.
///
/// A rule's check is code (`validate(_:into:)`), which no other tool can read; its constraints
/// say the same thing as data, so `sluice contract` can put it in a JSON Schema — or, where JSON
/// Schema cannot say it (a cross-field rule, a calendar), list it as not expressed. Paths are
/// field paths with `[]` for any element of an array (`items[].qty`), as `sluice inspect` writes
/// them; `when(_:is:)` limits a constraint to the records whose field has one value (the image
/// messages' `url`).
public struct FieldConstraint: Sendable, Hashable {
  public enum Requirement: Sendable, Hashable {
    /// A string with at least one non-whitespace character.
    case notBlank
    /// A number within the bounds (either may be open).
    case range(minimum: Double?, maximum: Double?)
    /// A string's length in characters, or an array's in elements.
    case length(minimum: Int?, maximum: Int?)
    /// A string matching a regular expression (ECMA-262, as JSON Schema's `pattern`).
    case pattern(String)
    /// One of these strings: an enum's raw values, a discriminator's kinds.
    case oneOf([String])
    /// The field is there and not null.
    case present
    /// A requirement JSON Schema cannot state, in words: listed in the contract as not expressed.
    case unexpressed(String)
  }

  /// A field of the same record and the value it must have for the constraint to apply.
  public struct Condition: Sendable, Hashable {
    public var path: String
    public var value: String
  }

  public var path: String
  public var requirement: Requirement
  public var condition: Condition?

  public init(_ requirement: Requirement, at path: String, condition: Condition? = nil) {
    self.path = path
    self.requirement = requirement
    self.condition = condition
  }

  /// The constraint, only for records whose field at `path` is `value`.
  public func when(_ path: String, is value: String) -> FieldConstraint {
    FieldConstraint(requirement, at: self.path, condition: Condition(path: path, value: value))
  }

  public static func notBlank(at path: String) -> FieldConstraint { FieldConstraint(.notBlank, at: path) }

  public static func range(_ range: ClosedRange<Double>, at path: String) -> FieldConstraint {
    FieldConstraint(.range(minimum: range.lowerBound, maximum: range.upperBound), at: path)
  }

  public static func atLeast(_ minimum: Double, at path: String) -> FieldConstraint {
    FieldConstraint(.range(minimum: minimum, maximum: nil), at: path)
  }

  public static func atMost(_ maximum: Double, at path: String) -> FieldConstraint {
    FieldConstraint(.range(minimum: nil, maximum: maximum), at: path)
  }

  public static func length(_ range: ClosedRange<Int>, at path: String) -> FieldConstraint {
    FieldConstraint(.length(minimum: range.lowerBound, maximum: range.upperBound), at: path)
  }

  /// At least one character, or one element.
  public static func nonEmpty(at path: String) -> FieldConstraint {
    FieldConstraint(.length(minimum: 1, maximum: nil), at: path)
  }

  public static func pattern(_ expression: String, at path: String) -> FieldConstraint {
    FieldConstraint(.pattern(expression), at: path)
  }

  public static func oneOf(_ values: [String], at path: String) -> FieldConstraint {
    FieldConstraint(.oneOf(values), at: path)
  }

  /// The raw values of a string enum (a `LookupEnum` too), in declaration order.
  public static func oneOf<E: CaseIterable & RawRepresentable>(_ type: E.Type, at path: String) -> FieldConstraint
  where E.RawValue == String {
    FieldConstraint(.oneOf(type.allCases.map(\.rawValue)), at: path)
  }

  public static func present(at path: String) -> FieldConstraint { FieldConstraint(.present, at: path) }

  /// A requirement JSON Schema cannot state (`expire` later than `createdAt`), in words.
  public static func unexpressed(_ rule: String, at path: String) -> FieldConstraint {
    FieldConstraint(.unexpressed(rule), at: path)
  }
}
