/// What a run does with its input.
public enum RunMode: String, Sendable, Hashable, Codable, CaseIterable {
  /// Reads the input and loads it into the database.
  case run
  /// Every stage but the writes, the whole input, every issue; no database is opened.
  case validate
  /// Reads a rejects file written by an earlier run and loads its records.
  case replay
  /// Runs the whole pipeline into the database, reports what it changed per table, and rolls
  /// back: nothing is written, not even an audit row.
  case plan
}

/// Everything a run needs, resolved: absolute paths, the record layout, the policy.
///
/// Built from a `PipelineSpec` file plus command-line overrides; tests build it directly.
public struct PipelineConfiguration: Sendable {
  /// How an input holds its records (`RecordFormat`, the record readers' own).
  public typealias Format = RecordFormat

  /// A name for reports (the spec's file name without extension).
  public var name: String
  /// What the run reads, in load order: one input, or several loaded into one transaction.
  public var inputs: [PipelineInput]
  /// The files a glob input matched but its spec's `exclude` leaves out: never read, each named
  /// by a warning of the read stage (`excludedInput`), so the report says what was not loaded.
  public var excludedInputs: [ExcludedInput] = []
  public var policy: Policy
  /// The database the run loads into, with the driver that opens it; print
  /// `databaseDescription`, which never shows a password.
  public var database: DatabaseTarget
  public var conflict: ConflictPolicy
  public var reportPath: String?
  /// Where to write the JUnit XML of the run's checks.
  public var junitPath: String?
  /// Where to write the run report as a self-contained HTML page (`HTMLReport`).
  public var htmlPath: String? = nil
  /// Where to write the run's metrics in Prometheus's text format (`--metrics`, `"metrics"`):
  /// the command line writes them once the exit code is known (`PrometheusMetrics`).
  public var metricsPath: String? = nil
  /// Where to write rejected records (raw text plus issues) as NDJSON.
  public var rejectsPath: String?
  public var mode: RunMode = .run
  /// With `.validate`: warnings (unknown fields) fail the run too.
  public var failsOnWarnings = false
  /// Whether a committed run counts the rows of each of its tables for the report
  /// (`tableRows`): a full scan of every table, which a growing nightly target pays on every
  /// run, so only when asked (`--count-rows`, `"countRows": true`).
  public var countsTableRows = false
  /// How many issues of each code a report keeps in full (all are counted).
  public var issueSampleLimit: Int
  /// How long to wait for another process's lock on the database before failing (exit 74).
  public var busyTimeoutSeconds: Double = 5
  /// The memory the run may take, and how its page cache, key caches and hand-off share it
  /// (`--memory-budget`, `"memoryBudget"`; default 64 MiB).
  public var memoryBudget = MemoryBudget.default
  /// Called from the loading thread with the run's progress, at most once per
  /// `progressInterval` seconds (the first time after the first batch): the command line draws
  /// its progress line with it. It must return quickly.
  public var progress: (@Sendable (RunProgress) -> Void)?
  public var progressInterval: Double = 0.1
  /// How many connections load the run's independent inputs at once, and how they commit
  /// (`--jobs`, `--lane-commit`).
  public var parallelism = Parallelism()
  /// The most `jobs` a run takes: each is a server connection and a decoding thread.
  public static let maxJobs = 64
  /// For fault-injection tests: hooks at the points of a run's commit where a kill or a lost
  /// connection must leave it recoverable (`Tests/SluiceFaults` sets them; the shipped binary
  /// cannot).
  package var faults = FaultHooks()
  /// A validate run that also checks what needs the database (`validate --db`): orphans, and
  /// keys already there under `--on-conflict fail`, on a connection that only reads.
  public var checksDatabase = false
  /// The pipeline spec the configuration was read from, nil when it was built in code: a file
  /// the run reads, so no output may replace it (`RunFiles`).
  public var specPath: String?
  /// The dataset files the run's datasets were read from — each a spec names and each file
  /// those reference — by absolute path: files the run reads, so no output may replace them
  /// (`RunFiles`). `PipelineRunner` adds those of the datasets it is given.
  public var datasetFiles: [String] = []
  /// The schema changes evolution makes in this run (`SchemaChange.description`), for the
  /// report's notes.
  package var schemaChanges: [String] = []
  /// A validate run's baseline (`--baseline`): a saved `inspect --json` of the dump its input is
  /// compared with, field by field.
  public var baselinePath: String?
  /// What compares the input with `baselinePath`: SluiceInspect's `.inspection`, which the
  /// command line sets; a baseline without it fails the run (`BaselineComparison`).
  public var baselineComparison: BaselineComparison?
  /// What the run does with its incremental inputs (`--reload-changed`, `--verify-content`).
  public var incremental = Incremental()
  /// What a snapshot run may delete (`maxDeleteRate`, `--max-delete-rate`).
  public var snapshot = Snapshot()
  /// Commits the run in chunks with checkpoints, resumable, perhaps staged (`--checkpoint-every`,
  /// `--resume`, `--restart`, `--stage`); nil: the run is one transaction.
  public var checkpointing: Checkpointing?

  /// A plan's gate (`--max-changes`): the plan fails (exit 1) when the run would change more.
  public var maxChanges: ChangeLimit?
  /// The transports and options remote inputs (`https://…`, `s3://…`) are read with; none by
  /// default, when every URL is refused.
  public var remote = RemoteAccess.none

  /// Records per chunk of a checkpointed or staged run when nothing says.
  public static let defaultChunkRecords = 100_000

  /// Whether the run commits in chunks with checkpoints (or resumes one that did).
  package var isChunked: Bool { !isDryRun && mode != .plan && checkpointing != nil }
  /// Whether the run is checkpointed into a side database published at its end (`--stage`).
  package var isStaged: Bool { isChunked && checkpointing?.staged == true }
  /// How much memory the run's registry of natural keys holds before it spills (tests make it
  /// small, to spill a few hundred keys).
  package var keyRegistryLimits = KeyRegistry.Limits()

  /// How the transactions of a parallel run's connections are committed.
  public enum LaneCommit: String, Sendable, Hashable, Codable {
    /// Two-phase when the server allows enough prepared transactions, else ordered.
    case automatic
    /// `PREPARE TRANSACTION` on each connection, then `COMMIT PREPARED` each: atomic.
    case twoPhase = "two-phase"
    /// `COMMIT` on each connection in turn, once every one has loaded.
    case ordered
  }

  /// A parallel run's options: how many connections, and how their transactions commit.
  public struct Parallelism: Sendable, Hashable {
    /// How many connections load the run's independent inputs at once, where the store's driver
    /// loads lanes (`ParallelLoadingDriver`). 1, or a run whose inputs all share tables, or a
    /// store with one writer: the inputs load one after another. A validate, plan, checkpointed,
    /// incremental or snapshot run with more is refused (`ignoredSetting`).
    public var jobs: Int
    /// How the connections' transactions commit (tests force the ordered one); anything but
    /// `automatic` needs `jobs` above 1.
    public var commit: LaneCommit

    public init(jobs: Int = 1, commit: LaneCommit = .automatic) {
      self.jobs = jobs
      self.commit = commit
    }
  }

  /// The options of a run's incremental inputs (those whose spec says `"incremental": true`).
  public struct Incremental: Sendable, Hashable {
    /// Whether an input whose path the ledger knows with other content is loaded again
    /// (`--reload-changed`) rather than refusing the run (exit 65).
    public var reloadsChanged: Bool
    /// Whether an input whose fingerprint is the one the ledger recorded is hashed instead of
    /// skipped unread (`--verify-content`): a file rewritten in place through a shared writable
    /// mapping, or on a file system whose times do not move, keeps its fingerprint but not its
    /// content.
    public var verifiesContent: Bool

    public init(reloadsChanged: Bool = false, verifiesContent: Bool = false) {
      self.reloadsChanged = reloadsChanged
      self.verifiesContent = verifiesContent
    }
  }

  /// The options of a run's snapshot inputs (those whose spec says `"snapshot": true`).
  public struct Snapshot: Sendable, Hashable {
    /// The largest share of a table's rows the run may delete (default 0.05): one that would
    /// delete more fails, exit 65, nothing written.
    public var maxDeleteRate: Double

    public init(maxDeleteRate: Double = 0.05) {
      self.maxDeleteRate = maxDeleteRate
    }
  }

  /// A checkpointed run's options. One value says how it starts, so a run cannot both resume the
  /// interrupted run and drop it; staging is a kind of checkpointed run, so it cannot be asked
  /// for without one.
  public struct Checkpointing: Sendable, Hashable {
    /// What the run does with an unfinished run of the same pipeline in the database.
    public enum Start: Sendable, Hashable {
      /// Refuses to start over it (nothing written).
      case fresh
      /// Continues it (`--resume`); with none there, starts.
      case resume
      /// Drops its checkpoint and starts over; the rows its chunks committed stay (`--restart`).
      case restart
    }

    /// Records per committed chunk; nil: the interrupted run's when resuming, else
    /// `PipelineConfiguration.defaultChunkRecords`.
    public var recordsPerChunk: Int?
    public var start: Start
    /// Loads into a side database and publishes it in one transaction at its end (`--stage`):
    /// resumable and all-or-nothing.
    public var staged: Bool

    public init(recordsPerChunk: Int? = nil, start: Start = .fresh, staged: Bool = false) {
      self.recordsPerChunk = recordsPerChunk
      self.start = start
      self.staged = staged
    }

    package var resumes: Bool { start == .resume }
    package var restarts: Bool { start == .restart }
  }

  /// Hooks that fault-injection tests set at the points of a run's commit.
  package struct FaultHooks: Sendable {
    /// Called at each point of a parallel run's commit with the server sessions of its
    /// connections (the coordinating one first, then each lane's).
    package var laneCommit: (@Sendable (LaneCommitPoint, [Int32]) -> Void)?
    /// Called at each point of a checkpointed or staged run where a kill must leave it
    /// resumable (`ChunkPoint`).
    package var chunkCommit: (@Sendable (ChunkPoint) -> Void)?

    package init() {}
  }

  package var busyTimeoutMilliseconds: Int32 {
    Int32(min(max(busyTimeoutSeconds, 0) * 1000, Double(Int32.max)).rounded())
  }
  package var busyTimeoutDescription: String {
    busyTimeoutSeconds == busyTimeoutSeconds.rounded()
      ? "\(Int(busyTimeoutSeconds)) s" : "\(busyTimeoutSeconds) s"
  }

  public init(
    name: String, input: String, format: Format = .json, recordPath: [String] = [],
    policy: Policy = .strict, database: DatabaseTarget, conflict: ConflictPolicy = .upsert,
    reportPath: String? = nil, junitPath: String? = nil, rejectsPath: String? = nil,
    issueSampleLimit: Int = 100
  ) {
    self.init(
      name: name, inputs: [PipelineInput(path: input, format: format, recordPath: recordPath)], policy: policy,
      database: database, conflict: conflict, reportPath: reportPath, junitPath: junitPath, rejectsPath: rejectsPath,
      issueSampleLimit: issueSampleLimit)
  }

  /// A pipeline that reads several inputs, in order, into one transaction.
  public init(
    name: String, inputs: [PipelineInput], policy: Policy = .strict, database: DatabaseTarget,
    conflict: ConflictPolicy = .upsert, reportPath: String? = nil, junitPath: String? = nil,
    rejectsPath: String? = nil, issueSampleLimit: Int = 100
  ) {
    precondition(!inputs.isEmpty, "a pipeline reads at least one input")
    self.name = name
    self.inputs = inputs
    self.policy = policy
    self.database = database
    self.conflict = conflict
    self.reportPath = reportPath
    self.junitPath = junitPath
    self.rejectsPath = rejectsPath
    self.issueSampleLimit = issueSampleLimit
  }

  /// A file a glob input matched and its `exclude` left out (`PipelineSpec.Input.exclusions`).
  public struct ExcludedInput: Sendable, Hashable {
    public var path: String
    /// The dataset the glob's other files are read as.
    public var dataset: String
    /// The glob the file matched, and the `exclude` pattern that left it out.
    public var pattern: String
    public var exclusion: String
  }

  /// The database as messages and reports name it: a connection string without its password.
  public var databaseDescription: String { database.description }

  /// A validate run: nothing is written.
  package var isDryRun: Bool { mode == .validate }

  /// Whether the run reads more than one input: its issues then say which input they are from.
  public var hasSeveralInputs: Bool { inputs.count > 1 }

  // A single-input pipeline's input, as flags and tests speak of it. Setting one of these on a
  // pipeline with several inputs is a programmer error: which input would it mean?

  /// The input's path (the first input's, when there are several); a URL is shown without its
  /// query and userinfo, and opened with them (`PipelineInput.requestURL`).
  public var input: String {
    get { inputs[0].path }
    set {
      let index = Self.onlyInput(inputs)
      inputs[index].path = RemoteURL.redacted(newValue)
      inputs[index].requestURL = RemoteURL.isURL(newValue) ? newValue : nil
      inputs[index].relativeName = nil
    }
  }
  public var format: Format {
    get { inputs[0].format }
    set { inputs[Self.onlyInput(inputs)].format = newValue }
  }
  /// JSON: keys leading to the record array, empty for a top-level array. XML: element names
  /// from the root to the records.
  public var recordPath: [String] {
    get { inputs[0].recordPath }
    set { inputs[Self.onlyInput(inputs)].recordPath = newValue }
  }

  private static func onlyInput(_ inputs: [PipelineInput]) -> Int {
    precondition(inputs.count == 1, "a pipeline with several inputs has no single input to change")
    return 0
  }
}

/// A point of a checkpointed or staged run where fault-injection tests kill it
/// (`run --test-kill-at POINT` of the tests' `sluice-faults` binary, named by `description`).
package enum ChunkPoint: Sendable, Hashable, CustomStringConvertible {
  /// A staged run made its side database, before its first chunk (`chunk-0`).
  case staged
  /// Chunk `n` (from 1, counted over the whole run) committed (`chunk-N`).
  case committed(Int)
  /// Chunk `n`'s checkpoint and keys are written in its transaction, which commits next
  /// (`committing-N`).
  case committing(Int)
  /// A resumed run took over the interrupted run's rejects and state, before its first commit
  /// (`resumed`).
  case resumed
  /// A staged run is about to commit its publication (`publish`).
  case publishing
  /// A checkpointed or staged run committed (and published), before its outputs are renamed
  /// into place (`finished`).
  case finished

  package var description: String {
    switch self {
    case .staged: "chunk-0"
    case .committed(let chunk): "chunk-\(chunk)"
    case .committing(let chunk): "committing-\(chunk)"
    case .resumed: "resumed"
    case .publishing: "publish"
    case .finished: "finished"
    }
  }
}

/// A point of a parallel run's commit, where fault-injection tests break it: a connection
/// terminated there (`PipelineConfiguration.faults`), or the process killed there
/// (`run --test-kill-at POINT` of the tests' `sluice-faults` binary raises SIGKILL, as `kill -9`
/// would).
package enum LaneCommitPoint: Sendable, Hashable, CustomStringConvertible {
  /// Lane transaction `k` (from 1) was prepared.
  case prepared(Int)
  /// The commit was decided and recorded, before the first lane commits.
  case decided
  /// Lane transaction `k` (from 1) was committed.
  case committed(Int)

  package var description: String {
    switch self {
    case .prepared(let lane): "prepared-\(lane)"
    case .decided: "decided"
    case .committed(let lane): "committed-\(lane)"
    }
  }
}
