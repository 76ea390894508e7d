/// A DTO that cannot become a domain value: an unknown enum value, a unit that does not convert.
public struct MappingError: Error, Sendable, Hashable {
  public var code: IssueCode
  public var path: String
  public var message: String
  /// For `unsupportedEnumValue` only: the value the enum does not know (a message kind, a
  /// status), which the drift summary lists by name. Never record content.
  public var value: String?

  public init(code: IssueCode, path: String, message: String, value: String? = nil) {
    self.code = code
    self.path = path
    self.message = message
    self.value = value
  }
}
