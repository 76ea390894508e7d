/// Counts and time of one stage in one run.
public struct StageStatistics: Sendable, Hashable, Codable {
  public var stage: Stage
  /// Records that reached the stage.
  public var recordsIn = 0
  /// Records the stage passed on.
  public var recordsOut = 0
  /// Records the stage rejected (each has at least one error-level issue).
  public var rejected = 0
  /// Warning-level issues the stage raised.
  public var warnings = 0
  /// Load stage only: records whose key existed and that the conflict policy (`ignore`) kept as
  /// they were; they count as out.
  public var kept = 0
  /// Map stage only: records the dataset skipped by design (`MappingError.skipped`): neither
  /// out nor rejected.
  public var skipped = 0
  /// Time spent in the stage, in seconds.
  public var seconds = 0.0

  public init(stage: Stage) { self.stage = stage }

  enum CodingKeys: String, CodingKey {
    case stage, recordsIn, recordsOut, rejected, warnings, kept, skipped, seconds
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    stage = try container.decode(Stage.self, forKey: .stage)
    recordsIn = try container.decode(Int.self, forKey: .recordsIn)
    recordsOut = try container.decode(Int.self, forKey: .recordsOut)
    rejected = try container.decode(Int.self, forKey: .rejected)
    warnings = try container.decode(Int.self, forKey: .warnings)
    kept = try container.decodeIfPresent(Int.self, forKey: .kept) ?? 0
    skipped = try container.decodeIfPresent(Int.self, forKey: .skipped) ?? 0
    seconds = try container.decode(Double.self, forKey: .seconds)
  }
}
