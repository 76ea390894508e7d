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
  /// A CSV row with more or fewer fields than its header names columns.
  public static let fieldCount: IssueCode = "fieldCount"
  /// A CSV header row leaves a name blank or repeats one: the column is read under a name of its
  /// own (`column_7`, `name_2`), said once per input (a warning).
  public static let headerRenamed: IssueCode = "headerRenamed"
  /// An XML element with more attributes than the reader's limit.
  public static let tooManyAttributes: IssueCode = "tooManyAttributes"
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
  /// An XML document declares an entity: Sluice expands and loads none (billion laughs, XXE).
  public static let unsafeXML: IssueCode = "unsafeXML"
  /// A dataset skipped the record by design (`MappingError.skipped`); not an error.
  public static let skippedByDesign: IssueCode = "skippedByDesign"
  /// An input the spec marks `optional` is not there: the run goes on without it (a warning).
  public static let missingInput: IssueCode = "missingInput"
  /// A file a glob input matched but the spec's `exclude` leaves out (a Slack channel's
  /// `canvas_in_the_conversation.json` among its day files): not read, named (a warning).
  public static let excludedInput: IssueCode = "excludedInput"
  /// A snapshot deleted nothing from a table: records of its input were rejected before their
  /// keys were known, so the rows they would have kept cannot be told from rows gone (a warning).
  public static let snapshotHeld: IssueCode = "snapshotHeld"
}
