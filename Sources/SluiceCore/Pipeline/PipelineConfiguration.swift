/// Everything a run needs, resolved: absolute paths, the record layout, the policy.
///
/// Built from a `PipelineSpec` file plus command-line overrides; tests build it directly.
public struct PipelineConfiguration: Sendable {
  public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
    /// A JSON document whose records are the elements of an array (at `recordPath`).
    case json
    /// Newline-delimited JSON: one record per line.
    case ndjson
  }

  /// A name for reports (the spec's file name without extension).
  public var name: String
  public var input: String
  public var format: Format
  /// Keys leading to the record array; empty for a top-level array.
  public var recordPath: [String]
  public var policy: Policy
  public var database: String
  public var conflict: ConflictPolicy
  public var reportPath: String?
  /// How many issues of each code a report keeps in full (all are counted).
  public var issueSampleLimit: Int

  public init(
    name: String, input: String, format: Format = .json, recordPath: [String] = [],
    policy: Policy = .strict, database: String, conflict: ConflictPolicy = .upsert,
    reportPath: String? = nil, issueSampleLimit: Int = 100
  ) {
    self.name = name
    self.input = input
    self.format = format
    self.recordPath = recordPath
    self.policy = policy
    self.database = database
    self.conflict = conflict
    self.reportPath = reportPath
    self.issueSampleLimit = issueSampleLimit
  }

  var layout: JSONRecordReader.Layout {
    switch format {
    case .json: return .array(path: recordPath)
    case .ndjson: return .lines
    }
  }
}
