/// A named business rule a dataset checks on its DTOs.
///
/// Rules are values, declared once by the dataset and listed in `Dataset.rules`, so the JUnit
/// report can show every rule as a test case — the ones that passed too — and each failure
/// names the rule it broke. The message describes the rule, never the value.
public struct ValidationRule: Sendable, Hashable {
  /// A short sentence that reads as a passing check: "recipe titles are unique within a fruit".
  public var name: String
  public var code: IssueCode
  /// What a failing value is told: "must not be empty".
  public var message: String
  /// What the rule requires, as data (`sluice contract` states it in a JSON Schema). Empty for a
  /// rule that declares none: the contract then lists the rule as not expressed.
  public var constraints: [FieldConstraint]

  public init(_ name: String, code: IssueCode = .invalidValue, message: String, constraints: [FieldConstraint] = []) {
    self.name = name
    self.code = code
    self.message = message
    self.constraints = constraints
  }
}
