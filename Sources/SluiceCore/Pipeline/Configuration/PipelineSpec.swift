import Foundation

/// A pipeline spec file (`Pipelines/fruits.json`), read strictly: unknown keys, wrong types and
/// bad names are errors that name the key, so a typo never silently falls back to a default.
///
/// The spec is decoded by Sluice's own decoder, so its errors carry the same field paths and
/// line numbers a data error would. Relative paths in a spec resolve against the directory that
/// holds the spec, so a spec works from any working directory — or, for inputs, against the
/// directory a run names (`--input-dir`); paths given on the command line resolve against the
/// working directory, as shells expect. `-` as the input means stdin.
///
/// A spec names one input with `dataset`, `input`, `format` and `recordPath`, or lists several
/// under `inputs`, each with those four keys, loaded in order into one transaction.
///
/// This file reads and checks a spec; its other jobs are extensions of their own: the datasets it
/// names (`PipelineSpec+Datasets`), its policy (`+Policy`), its paths and globs (`+Paths`), the
/// run configuration it describes (`+Configuration`), a CSV input's dialect (`+Dialect`), and
/// the wire format with its keys, declared once (`+Keys`).
///
/// ```swift
/// let spec = try PipelineSpec(contentsOf: "Pipelines/orders.json")
/// let configuration = try spec.configuration(inputDirectory: "/dumps/tonight", drivers: drivers)
/// let report = try Pipeline(datasets: try spec.datasets(for: configuration, in: catalog), configuration: configuration).run()
/// ```
public struct PipelineSpec: Sendable {
  /// One input as the spec writes it.
  @_spi(Internals) public struct Input: Sendable, Hashable {
    public var dataset: String
    /// The path as written: relative paths are resolved when the run's configuration is made.
    public var input: String
    public var format: PipelineConfiguration.Format
    public var recordPath: [String]
    /// A CSV or TSV input's dialect (`"dialect"`); nil: the format's default.
    public var dialect: CSVDialect?
    /// An XML input's keys by qualified name (`"xmlNames": "qualified"`), not by local name.
    public var hasQualifiedXMLNames = false
    /// The run may go without this input (`"optional": true`): when it is missing, the run
    /// warns and reads the others.
    public var isOptional = false
    /// An incremental run skips this input when the database holds its content
    /// (`"incremental": true` here, or for every input at the top of the spec).
    public var isIncremental = false
    /// The input is a full snapshot of its dataset (`"snapshot": true` here, or at the top).
    public var isSnapshot = false
    /// File names a glob input does not read (`"exclude": ["canvas_in_the_conversation.json"]`),
    /// each a pattern of glob(3)'s syntax matched against a match's last path component: files
    /// that sit among the input's files but are not its dataset's kind. Each one the pattern
    /// matches is left out and named in the report (`excludedInput`), never read in silence.
    public var exclusions: [String] = []
  }

  /// The inputs in load order: one, or those listed under `inputs`.
  @_spi(Internals) public var inputs: [Input]
  /// Whether the spec lists its inputs under `inputs` (its errors then name `inputs[N].…`).
  public var listsInputs: Bool
  public var policy: Policy
  /// The database as the spec names it; nil when it names none (`--db` gives it, or the
  /// command needs none: `validate` without `--db`).
  public var database: String?
  public var onConflict: ConflictPolicy
  public var report: String?
  public var junit: String?
  /// Where to write the HTML run report.
  public var html: String?
  /// Where to write the run's metrics in Prometheus's text format.
  public var metrics: String?
  public var rejects: String?
  /// Seconds to wait for another process's lock on the database.
  public var busyTimeout: Double?
  /// The memory the run may take (`memoryBudget`: `"512MiB"`, `"2GiB"` or a number of MiB).
  public var memoryBudget: MemoryBudget?
  /// PostgreSQL: the schema the tables live in (default: the server's `search_path`, `public`).
  public var databaseSchema: String?
  /// PostgreSQL: seconds to wait for a connection (2 or more; libpq's minimum).
  public var connectTimeout: Int?
  /// PostgreSQL: how many connections load independent inputs at once (`--jobs`; default 1).
  public var jobs: Int?
  /// Whether a committed run counts its tables' rows for the report (`countRows`).
  public var countsRows: Bool
  /// Whether every input is incremental (`"incremental": true` at the top; an input's own key
  /// overrides it).
  public var isIncremental: Bool
  /// The largest share of a table's rows a snapshot run may delete (`maxDeleteRate`).
  public var maxDeleteRate: Double?
  /// Records per committed chunk of a resumable run (`checkpointEvery`).
  public var checkpointEvery: Int?
  /// Whether a checkpointed run is staged and published at its end (`stage`).
  public var stages = false
  /// How remote inputs are reached (`retries`, `storage`, `caBundle`); the environment is the
  /// command line's to add.
  public var remote = RemoteOptions()
  /// The spec file's path, for messages; its directory anchors relative paths.
  public var path: String

  /// Reads and checks a spec file.
  public init(contentsOf path: String) throws(SpecError) {
    guard let data = FileManager.default.contents(atPath: path) else {
      let exists = FileManager.default.fileExists(atPath: path)
      throw SpecError(path: path, message: exists ? "cannot read the file" : "no such file")
    }
    try self.init(data: data, path: path)
  }

  public init(data: Data, path: String) throws(SpecError) {
    self.path = path
    let document = try StrictDocument.decode(
      SpecDocument.self, from: Array(data), failure: { SpecError(path: path, message: $0) },
      unknownKey: { unknown, _ in
        let known =
          unknown.path.contains("dialect.")
          ? SpecDocument.knownDialectKeys
          : unknown.path.hasPrefix("storage.")
            ? SpecDocument.knownStorageKeys
            : unknown.path.hasPrefix("inputs[") ? SpecDocument.knownInputKeys : SpecDocument.knownKeys
        return "unknown key '\(unknown.path)'; known keys: \(known)"
      })

    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ text: String?, default value: T) throws(SpecError)
      -> T
    where T.RawValue == String {
      guard let text else { return value }
      guard let parsed = T(rawValue: text) else {
        let names = T.allCases.map(\.rawValue).joined(separator: ", ")
        throw SpecError(path: path, message: "'\(key)' is '\(text)', expected one of: \(names)")
      }
      return parsed
    }
    database = document.database
    report = document.report
    junit = document.junit
    html = document.html
    metrics = document.metrics
    rejects = document.rejects
    busyTimeout = document.busyTimeout
    if let busyTimeout, !(busyTimeout >= 0 && busyTimeout <= 86_400) {
      throw SpecError(path: path, message: "'busyTimeout' must be between 0 and 86400 seconds")
    }
    memoryBudget = nil
    if let text = document.memoryBudget?.text {
      guard let budget = MemoryBudget(text: text) else {
        throw SpecError(path: path, message: MemoryBudget.rule("'memoryBudget'"))
      }
      memoryBudget = budget
    }
    databaseSchema = document.databaseSchema
    jobs = document.jobs
    countsRows = document.countRows ?? false
    isIncremental = document.incremental ?? false
    maxDeleteRate = document.maxDeleteRate
    checkpointEvery = document.checkpointEvery
    stages = document.stage ?? false
    if let retries = document.retries {
      guard (0...100).contains(retries) else {
        throw SpecError(path: path, message: "'retries' must be a whole number from 0 to 100")
      }
      remote.retries = retries
    }
    if let storage = document.storage {
      if let endpoint = storage.endpoint {
        guard let scheme = RemoteURL.scheme(of: endpoint), ["http", "https"].contains(scheme) else {
          throw SpecError(
            path: path, message: "'storage.endpoint' must be an http:// or https:// URL, not '\(endpoint)'")
        }
        remote.endpoint = endpoint
      }
      remote.region = storage.region
      remote.pathStyle = storage.pathStyle
    }
    remote.caBundle = document.caBundle.map { FilePaths.absolute($0, in: FilePaths.folder(of: path)) }
    if let checkpointEvery, checkpointEvery < 1 {
      throw SpecError(path: path, message: "'checkpointEvery' must be a whole number of records, 1 or more")
    }
    if let maxDeleteRate, !(0...1).contains(maxDeleteRate) {
      throw SpecError(path: path, message: "'maxDeleteRate' must be a share from 0 to 1 (0.05: 5 % of a table's rows)")
    }
    if let jobs, !(1...PipelineConfiguration.maxJobs).contains(jobs) {
      throw SpecError(path: path, message: "'jobs' must be a whole number from 1 to \(PipelineConfiguration.maxJobs)")
    }
    connectTimeout = document.connectTimeout
    if let connectTimeout, !(2...86_400).contains(connectTimeout) {
      throw SpecError(path: path, message: "'connectTimeout' must be a whole number of seconds from 2 to 86400")
    }
    if let databaseSchema, databaseSchema.isEmpty {
      throw SpecError(path: path, message: "'databaseSchema' must not be empty")
    }
    onConflict = try choice("onConflict", document.onConflict, default: .upsert)
    policy = try Self.policy(document.policy, path: path)
    listsInputs = document.inputs != nil
    let written: [(prefix: String, input: SpecDocument.InputDocument)]
    if let listed = document.inputs {
      let single: [(String, Bool)] = [
        ("dataset", document.dataset != nil), ("input", document.input != nil), ("format", document.format != nil),
        ("recordPath", document.recordPath != nil), ("dialect", document.dialect != nil),
        ("xmlNames", document.xmlNames != nil),
      ]
      if let (key, _) = single.first(where: \.1) {
        throw SpecError(
          path: path,
          message:
            "'inputs' and '\(key)' are both given: list every input under 'inputs', or name one with 'dataset', 'input', 'format' and 'recordPath', not both"
        )
      }
      guard !listed.isEmpty else {
        throw SpecError(path: path, message: "'inputs' is empty: list at least one input")
      }
      written = listed.enumerated().map { ("inputs[\($0.offset)].", $0.element) }
    } else {
      guard let dataset = document.dataset else {
        throw SpecError(path: path, message: "'dataset': missing required key (or list the inputs under 'inputs')")
      }
      guard let input = document.input else {
        throw SpecError(path: path, message: "'input': missing required key")
      }
      written = [
        (
          "",
          .init(
            dataset: dataset, input: input, format: document.format, recordPath: document.recordPath,
            dialect: document.dialect, xmlNames: document.xmlNames, optional: nil, incremental: nil, snapshot: nil,
            exclude: nil)
        )
      ]
    }
    var inputs: [Input] = []
    for (prefix, input) in written {
      let format = try choice(prefix + "format", input.format, default: PipelineConfiguration.Format.json)
      let recordPath = input.recordPath?.keys ?? []
      for (key, value) in [("dataset", input.dataset), ("input", input.input)] where value.isEmpty {
        throw SpecError(path: path, message: "'\(prefix)\(key)' must not be empty")
      }
      if format != .json && format != .xml && !recordPath.isEmpty {
        throw SpecError(path: path, message: "'\(prefix)recordPath' applies to format json or xml, not \(format)")
      }
      let dialect = try Self.dialect(input.dialect, format: format, key: prefix + "dialect", path: path)
      let xmlNames = try Self.xmlNames(input.xmlNames, format: format, key: prefix + "xmlNames", path: path)
      if let problem = KeyedCollection.problem(in: recordPath, jsonFormat: format == .json) {
        throw SpecError(path: path, message: "'\(prefix)recordPath': \(problem)")
      }
      if input.input == "-", inputs.contains(where: { $0.input == "-" }) {
        throw SpecError(path: path, message: "'\(prefix)input': only one input can be standard input ('-')")
      }
      if input.optional == true && input.input == "-" {
        throw SpecError(
          path: path, message: "'\(prefix)optional': standard input ('-') is always there; drop 'optional'")
      }
      if input.incremental == true && input.input == "-" || document.incremental == true && input.input == "-" {
        throw SpecError(
          path: path,
          message:
            "'\(input.incremental == true ? prefix : "")incremental': standard input ('-') cannot be skipped by its content before it is read; read files"
        )
      }
      let exclusions = input.exclude ?? []
      if !exclusions.isEmpty && !Self.isPattern(input.input) {
        throw SpecError(
          path: path,
          message: "'\(prefix)exclude' applies to a glob input (with *, ? or [): '\(input.input)' names one file")
      }
      if let bad = exclusions.firstIndex(where: { $0.isEmpty || $0.contains("/") }) {
        throw SpecError(
          path: path, message: "'\(prefix)exclude[\(bad)]' must be a file name or a pattern of one, without '/'")
      }
      inputs.append(
        Input(
          dataset: input.dataset, input: input.input, format: format, recordPath: recordPath, dialect: dialect,
          hasQualifiedXMLNames: xmlNames == .qualified, isOptional: input.optional ?? false,
          isIncremental: input.incremental ?? document.incremental ?? false,
          isSnapshot: input.snapshot ?? document.snapshot ?? false, exclusions: exclusions))
    }
    self.inputs = inputs
    if database?.isEmpty == true {
      throw SpecError(path: path, message: "'database' must not be empty")
    }
    if let ignored = ignoredKey { throw SpecError(path: path, message: ignored) }
  }

  /// `"xmlNames"`: `"local"` or `"qualified"`, for an XML input only.
  private static func xmlNames(_ value: String?, format: PipelineConfiguration.Format, key: String, path: String)
    throws(SpecError) -> XMLRecordReader.Naming
  {
    guard let value else { return .local }
    guard format == .xml else {
      throw SpecError(path: path, message: "'\(key)' applies to format xml, not \(format)")
    }
    guard let naming = XMLRecordReader.Naming(rawValue: value) else {
      throw SpecError(path: path, message: "'\(key)' must be \"local\" or \"qualified\", not '\(value)'")
    }
    return naming
  }

  // A single-input spec's input, as most code speaks of it (with several: the first).

  public var dataset: String { inputs[0].dataset }
  public var input: String { inputs[0].input }
  public var format: PipelineConfiguration.Format { inputs[0].format }
  public var recordPath: [String] { inputs[0].recordPath }
}
