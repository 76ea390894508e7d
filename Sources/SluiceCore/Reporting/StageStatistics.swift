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
  /// Time spent in the stage, in seconds.
  public var seconds = 0.0

  public init(stage: Stage) { self.stage = stage }
}
