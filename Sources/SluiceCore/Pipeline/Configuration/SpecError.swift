/// A spec that cannot be used; exit code 64.
public struct SpecError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var message: String
  /// What the file is, for messages: a `pipeline spec`, or a `dataset file` it names.
  public var subject: String
  public init(path: String, message: String, subject: String = "pipeline spec") {
    self.path = path
    self.message = message
    self.subject = subject
  }
  public var description: String { "\(path): \(message)" }
}
