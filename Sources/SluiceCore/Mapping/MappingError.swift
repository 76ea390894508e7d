/// A DTO that cannot become a domain value: an unknown enum value, a unit that does not convert.
public struct MappingError: Error, Sendable, Hashable {
  public var code: IssueCode
  public var path: String
  public var message: String

  public init(code: IssueCode, path: String, message: String) {
    self.code = code
    self.path = path
    self.message = message
  }
}
