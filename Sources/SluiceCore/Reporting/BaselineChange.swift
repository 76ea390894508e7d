/// One difference between a baseline and tonight's dump, with what it means for the dataset
/// that reads it: in a validate run's report, JUnit and HTML (`--baseline`). The engine reports
/// and judges the changes; SluiceInspect finds them (`BaselineComparison`).
public struct BaselineChange: Sendable, Hashable, Codable, CustomStringConvertible {
  public enum Impact: String, Sendable, Codable, Hashable {
    /// The dataset may reject records it used to take: a required field gone, a type changed or
    /// narrowed, NULL where there was none, the records moved.
    case breaking
    /// Nothing the dataset relied on changed: a new field, an integer field with fractions.
    case nonBreaking = "non-breaking"
  }

  public var impact: Impact
  /// `requiredFieldGone`, `requiredFieldMissing`, `optionalFieldGone`, `typeChanged`,
  /// `typeNarrowed`, `nullAppeared`, `recordPathMoved`, `newField`, `numberWidened`.
  public var kind: String
  /// The field path (`recipes[].title`), or empty for the records themselves.
  public var path: String
  public var message: String

  package init(impact: Impact, kind: String, path: String, message: String) {
    self.impact = impact
    self.kind = kind
    self.path = path
    self.message = message
  }

  public var description: String {
    "\(impact.rawValue) \(kind)\(path.isEmpty ? "" : " \(path)"): \(message)"
  }
}
