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
  /// `decode record 1042 (line 1043, byte 88213) items[2].qty: typeMismatch: expected …`
  public var description: String {
    var text = "\(stage.rawValue)"
    if let location {
      text += " record \(location.ordinal) (line \(location.line), byte \(location.byteOffset))"
    }
    if !path.isEmpty { text += " \(path)" }
    return text + ": \(code.rawValue): \(message)"
  }
}

/// The stages of a pipeline, in the order records flow through them.
public enum Stage: String, Sendable, Hashable, Codable, CaseIterable {
  case read, decode, validate, map, load

  /// The stage's place in `allCases`.
  var ordinal: Int {
    switch self {
    case .read: 0
    case .decode: 1
    case .validate: 2
    case .map: 3
    case .load: 4
    }
  }
}

public enum Severity: String, Sendable, Hashable, Codable {
  case error, warning
}

/// A machine-readable issue code. A struct rather than an enum so datasets and later stages can
/// add codes without touching the engine; the engine's own codes are the static members.
public struct IssueCode: RawRepresentable, Sendable, Hashable, Codable, Comparable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.rawValue = value }
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
  public var description: String { rawValue }
  public static func < (lhs: IssueCode, rhs: IssueCode) -> Bool { lhs.rawValue < rhs.rawValue }

  public static let syntax: IssueCode = "syntax"
  public static let recordTooLarge: IssueCode = "recordTooLarge"
  public static let valueTooLarge: IssueCode = "valueTooLarge"
  public static let nestingTooDeep: IssueCode = "nestingTooDeep"
  public static let typeMismatch: IssueCode = "typeMismatch"
  public static let missingField: IssueCode = "missingField"
  public static let nullValue: IssueCode = "nullValue"
  public static let outOfRange: IssueCode = "outOfRange"
  public static let invalidDate: IssueCode = "invalidDate"
  public static let invalidValue: IssueCode = "invalidValue"
  public static let unknownField: IssueCode = "unknownField"
  public static let duplicateKey: IssueCode = "duplicateKey"
  public static let unsupportedEnumValue: IssueCode = "unsupportedEnumValue"
  public static let orphanReference: IssueCode = "orphanReference"
  public static let constraint: IssueCode = "constraint"
}
