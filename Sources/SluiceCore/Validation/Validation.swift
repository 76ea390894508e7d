/// Collects the business-rule violations of one record: the validate stage's output.
///
/// A dataset's validator calls the rule helpers with the field path of what it checks; each
/// failed rule becomes one issue. Messages describe the rule, never the value.
public struct Validation: Sendable {
  public struct Failure: Sendable, Hashable {
    public var path: String
    public var code: IssueCode
    public var message: String
  }

  public private(set) var failures: [Failure] = []

  public init() {}

  public var isValid: Bool { failures.isEmpty }

  /// Records a failure when `condition` is false.
  public mutating func check(
    _ condition: Bool, _ path: String, code: IssueCode = .invalidValue,
    _ message: @autoclosure () -> String
  ) {
    if !condition { failures.append(Failure(path: path, code: code, message: message())) }
  }

  /// Requires a string with at least one non-whitespace character.
  public mutating func requireNonEmpty(_ value: String, _ path: String) {
    check(value.contains { !$0.isWhitespace }, path, "must not be empty")
  }

  /// Requires an integer within a closed range.
  public mutating func require<T: BinaryInteger>(_ value: T, in range: ClosedRange<T>, _ path: String) {
    check(range.contains(value), path, code: .outOfRange, "must be between \(range.lowerBound) and \(range.upperBound)")
  }
}
