/// One run as `sluice_runs` keeps it, read back: what ran, how it ended, its counts.
///
/// Times are the stored canonical UTC text (`2025-01-31T02:00:00.123Z`), shown as they are.
/// Encodes with the same keys as the run report (`recordsRead`, `durationSeconds`), plus `runId`.
public struct RecordedRun: Sendable, Hashable, Codable {
  public var runID: Int64
  public var pipeline: String
  public var dataset: String
  /// `run` or `replay` (a `validate` run writes nothing, not even its audit row).
  public var mode: String
  public var input: String
  public var policy: String
  /// `succeeded` or `failed`; a PostgreSQL parallel run's row also says `running` or
  /// `committing` until it ends, and `partial` when only some of its lanes were committed.
  public var status: String
  /// Why a failed run failed; nil for a run that succeeded.
  public var failure: String?
  public var startedAt: String
  public var finishedAt: String
  public var durationSeconds: Double
  public var recordsRead: Int
  public var recordsLoaded: Int
  public var recordsRejected: Int
  public var warnings: Int
  /// Per-stage counts and times.
  public var stages: [StageStatistics]
  /// Every issue of the run counted by code (`sluice_rejects` keeps only a sample of each).
  public var issueCounts: [String: Int]
  /// Rows the run wrote, per table (empty for a run that was rolled back).
  public var rowsWritten: [String: Int]
  /// Rows a snapshot run deleted, per table; nil for a run that was no snapshot (or recorded
  /// before snapshots existed).
  public var rowsDeleted: [String: Int]? = nil

  enum CodingKeys: String, CodingKey {
    case runID = "runId"
    case pipeline, dataset, mode, input, policy, status, failure, startedAt, finishedAt, durationSeconds
    case recordsRead, recordsLoaded, recordsRejected, warnings, stages, issueCounts, rowsWritten, rowsDeleted
  }

  public init(
    runID: Int64, pipeline: String, dataset: String, mode: String, input: String, policy: String,
    status: String, failure: String?, startedAt: String, finishedAt: String, durationSeconds: Double,
    recordsRead: Int, recordsLoaded: Int, recordsRejected: Int, warnings: Int,
    stages: [StageStatistics], issueCounts: [String: Int], rowsWritten: [String: Int],
    rowsDeleted: [String: Int]? = nil
  ) {
    self.runID = runID
    self.pipeline = pipeline
    self.dataset = dataset
    self.mode = mode
    self.input = input
    self.policy = policy
    self.status = status
    self.failure = failure
    self.startedAt = startedAt
    self.finishedAt = finishedAt
    self.durationSeconds = durationSeconds
    self.recordsRead = recordsRead
    self.recordsLoaded = recordsLoaded
    self.recordsRejected = recordsRejected
    self.warnings = warnings
    self.stages = stages
    self.issueCounts = issueCounts
    self.rowsWritten = rowsWritten
    self.rowsDeleted = rowsDeleted
  }

  // `failure` is written as null for a run that succeeded, so every object has the same keys.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(runID, forKey: .runID)
    try container.encode(pipeline, forKey: .pipeline)
    try container.encode(dataset, forKey: .dataset)
    try container.encode(mode, forKey: .mode)
    try container.encode(input, forKey: .input)
    try container.encode(policy, forKey: .policy)
    try container.encode(status, forKey: .status)
    try container.encode(failure, forKey: .failure)
    try container.encode(startedAt, forKey: .startedAt)
    try container.encode(finishedAt, forKey: .finishedAt)
    try container.encode(durationSeconds, forKey: .durationSeconds)
    try container.encode(recordsRead, forKey: .recordsRead)
    try container.encode(recordsLoaded, forKey: .recordsLoaded)
    try container.encode(recordsRejected, forKey: .recordsRejected)
    try container.encode(warnings, forKey: .warnings)
    try container.encode(stages, forKey: .stages)
    try container.encode(issueCounts, forKey: .issueCounts)
    try container.encode(rowsWritten, forKey: .rowsWritten)
    try container.encodeIfPresent(rowsDeleted, forKey: .rowsDeleted)
  }
}

/// Issues of one run that share a stage, severity, code and field path, with their number.
public struct IssueGroup: Sendable, Hashable, Codable {
  public var stage: Stage
  public var severity: Severity
  public var code: String
  /// The field path (`recipes[1].title`); empty for an issue about the whole record.
  public var path: String
  public var count: Int

  public init(stage: Stage, severity: Severity, code: String, path: String, count: Int) {
    self.stage = stage
    self.severity = severity
    self.code = code
    self.path = path
    self.count = count
  }
}
