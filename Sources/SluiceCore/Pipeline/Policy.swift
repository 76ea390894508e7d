/// How a run treats invalid records.
public struct Policy: Sendable, Hashable, Codable {
  public enum Preset: String, Sendable, Hashable, Codable, CaseIterable {
    /// The first invalid record fails the run; the transaction is rolled back.
    case strict
    /// Invalid records are skipped and reported; the good ones are committed.
    case lenient
  }

  public enum InvalidRecordAction: String, Sendable, Hashable, Codable {
    case fail, skip
  }

  public var preset: Preset
  public var invalidRecord: InvalidRecordAction

  public init(preset: Preset) {
    self.preset = preset
    invalidRecord = preset == .strict ? .fail : .skip
  }

  public static let strict = Policy(preset: .strict)
  public static let lenient = Policy(preset: .lenient)
}
