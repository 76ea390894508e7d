/// What a run does with its input.
public enum RunMode: String, Sendable, Hashable, Codable, CaseIterable {
  /// Reads the input and loads it into the database.
  case run
  /// Every stage but the writes, the whole input, every issue; no database is opened.
  case validate
  /// Reads a rejects file written by an earlier run and loads its records.
  case replay
}

/// Everything a run needs, resolved: absolute paths, the record layout, the policy.
///
/// Built from a `PipelineSpec` file plus command-line overrides; tests build it directly.
public struct PipelineConfiguration: Sendable {
  public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
    /// A JSON document whose records are the elements of an array (at `recordPath`).
    case json
    /// Newline-delimited JSON: one record per line.
    case ndjson
    /// An XML document whose records are the elements at `recordPath` (element names from the
    /// root: `orders.order`; empty: the root's children).
    case xml
  }

  /// A name for reports (the spec's file name without extension).
  public var name: String
  public var input: String
  public var format: Format
  /// JSON: keys leading to the record array, empty for a top-level array. XML: element names
  /// from the root to the records.
  public var recordPath: [String]
  public var policy: Policy
  public var database: String
  public var conflict: ConflictPolicy
  public var reportPath: String?
  /// Where to write the JUnit XML of the run's checks.
  public var junitPath: String?
  /// Where to write rejected records (raw text plus issues) as NDJSON.
  public var rejectsPath: String?
  public var mode: RunMode = .run
  /// With `.validate`: warnings (unknown fields) fail the run too.
  public var failsOnWarnings = false
  /// How many issues of each code a report keeps in full (all are counted).
  public var issueSampleLimit: Int
  /// How long to wait for another process's lock on the database before failing (exit 74).
  public var busyTimeoutSeconds: Double = 5

  var busyTimeoutMilliseconds: Int32 { Int32(min(max(busyTimeoutSeconds, 0) * 1000, Double(Int32.max)).rounded()) }
  var busyTimeoutDescription: String {
    busyTimeoutSeconds == busyTimeoutSeconds.rounded()
      ? "\(Int(busyTimeoutSeconds)) s" : "\(busyTimeoutSeconds) s"
  }

  public init(
    name: String, input: String, format: Format = .json, recordPath: [String] = [],
    policy: Policy = .strict, database: String, conflict: ConflictPolicy = .upsert,
    reportPath: String? = nil, junitPath: String? = nil, rejectsPath: String? = nil,
    issueSampleLimit: Int = 100
  ) {
    self.name = name
    self.input = input
    self.format = format
    self.recordPath = recordPath
    self.policy = policy
    self.database = database
    self.conflict = conflict
    self.reportPath = reportPath
    self.junitPath = junitPath
    self.rejectsPath = rejectsPath
    self.issueSampleLimit = issueSampleLimit
  }

  /// A validate run: nothing is written.
  var isDryRun: Bool { mode == .validate }
}
