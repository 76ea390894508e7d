/// One problem found in one record (or in the input as a whole), with its place and no values.
///
/// Issues are what a run report, the JUnit file and the audit tables are made of. They carry the
/// stage that found them, a machine-readable code, the record's location and a field path, and a
/// one-line message that never quotes the record's values (seed rule 9).
public struct Issue: Sendable, Hashable, Codable {
  public var stage: Stage
  public var severity: Severity
  public var code: IssueCode
  /// Where the issue is: the record's ordinal, and the byte offset and line of the offending
  /// byte (syntax errors) or of the record's start (everything else).
  public var location: RecordLocation?
  /// A JSON-style field path inside the record (`recipes[2].title`); empty for the whole record.
  public var path: String
  public var message: String
  /// The validation rule that failed, for validate-stage issues.
  public var rule: String?
  /// The input the record came from, in a run that reads several (absent otherwise, where the
  /// report's one input says it).
  public var input: String?
  /// For `unsupportedEnumValue`: the value the enum does not know (a kind's name, never record
  /// content), which the drift summary counts by name.
  public var value: String?

  public init(
    stage: Stage, severity: Severity = .error, code: IssueCode,
    location: RecordLocation?, path: String = "", message: String, rule: String? = nil
  ) {
    self.stage = stage
    self.severity = severity
    self.code = code
    self.location = location
    self.path = path
    self.message = message
    self.rule = rule
  }
}

extension Issue: CustomStringConvertible {
  /// `decode record 1042 (line 1043, byte 88213) items[2].qty: typeMismatch: expected …`, with the
  /// input's path after the stage in a run that reads several.
  public var description: String {
    var text = "\(stage.rawValue)"
    if let input { text += " \(input)" }
    if let location {
      let column = location.column.map { ", column \($0)" } ?? ""
      // Ordinal 0: an issue about the objects around the records (a key repeated there).
      text +=
        location.ordinal == 0
        ? " line \(location.line), byte \(location.byteOffset), outside the records,"
        : " record \(location.ordinal) (line \(location.line)\(column), byte \(location.byteOffset))"
    }
    if !path.isEmpty { text += " \(path)" }
    return text + ": \(code.rawValue): \(message)"
  }
}
