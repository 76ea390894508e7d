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
    let document: SpecDocument
    do {
      let reader = JSONRecordReader(source: MemoryByteSource(Array(data)), layout: .document)
      guard let record = try reader.next() else { throw SpecError(path: path, message: "empty file") }
      var diagnostics = DecodeDiagnostics()
      document = try SluiceDecoder().decode(SpecDocument.self, from: record, diagnostics: &diagnostics)
      if let unknown = diagnostics.unknownFields.first {
        let known =
          unknown.path.contains("dialect.")
          ? SpecDocument.knownDialectKeys
          : unknown.path.hasPrefix("storage.")
            ? SpecDocument.knownStorageKeys
            : unknown.path.hasPrefix("inputs[") ? SpecDocument.knownInputKeys : SpecDocument.knownKeys
        throw SpecError(path: path, message: "unknown key '\(unknown.path)'; known keys: \(known)")
      }
    } catch let error as SpecError {
      throw error
    } catch let error as RecordReadError {
      throw SpecError(path: path, message: "not valid JSON: \(error)")
    } catch let error as RecordDecodingError {
      let place = error.path.isEmpty ? "" : "'\(error.path)': "
      throw SpecError(path: path, message: place + Self.explain(error))
    } catch {
      throw SpecError(path: path, message: "\(error)")
    }

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
            dialect: document.dialect, optional: nil, incremental: nil, snapshot: nil, exclude: nil)
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
          isOptional: input.optional ?? false, isIncremental: input.incremental ?? document.incremental ?? false,
          isSnapshot: input.snapshot ?? document.snapshot ?? false, exclusions: exclusions))
    }
    self.inputs = inputs
    if database?.isEmpty == true {
      throw SpecError(path: path, message: "'database' must not be empty")
    }
  }

  // A single-input spec's input, as most code speaks of it (with several: the first).

  public var dataset: String { inputs[0].dataset }
  public var input: String { inputs[0].input }
  public var format: PipelineConfiguration.Format { inputs[0].format }
  public var recordPath: [String] { inputs[0].recordPath }

  /// The dataset of each input, from `catalog`: an unknown name is an error naming its key, and
  /// so are datasets that cannot load together (different tables of the same name).
  public func datasets(in catalog: [AnyDataset]) throws(SpecError) -> [AnyDataset] {
    var datasets: [AnyDataset] = []
    let files = DatasetFile.Loaded()
    for (index, input) in inputs.enumerated() {
      if DatasetFile.isFileName(input.dataset) {
        // A dataset file, relative to the spec; one file named twice is one dataset.
        datasets.append(try DatasetFile.load(resolve(input.dataset), catalog: catalog, loaded: files, loading: []))
        continue
      }
      guard let dataset = catalog.first(where: { $0.name == input.dataset }) else {
        let key = listsInputs ? "inputs[\(index)].dataset" : "dataset"
        throw SpecError(
          path: path,
          message: "'\(key)': unknown dataset '\(input.dataset)'; known: \(catalog.map(\.name).joined(separator: ", "))"
        )
      }
      datasets.append(dataset)
    }
    let schema: Schema
    do {
      schema = try Schema.union(datasets.map(\.schema))
    } catch {
      throw SpecError(path: path, message: "'inputs': \(error)")
    }
    if let clash = Self.nameClash(in: schema) { throw SpecError(path: path, message: "'inputs': \(clash)") }
    return datasets
  }

  /// Two names of the datasets a spec loads together that one database cannot hold both of:
  /// names that differ only in case (SQLite's ignore it), or an index named like a table or
  /// another index. Each dataset file checks its own names (`DatasetFileNames`); this is for
  /// names from different datasets.
  static func nameClash(in schema: Schema) -> String? {
    var taken: [String: (name: String, what: String)] = [:]
    let names =
      schema.lookups.map { ($0.table, "lookup table") } + schema.tables.map { ($0.name, "table") }
      + schema.tables.flatMap { table in table.indexes.map { ($0.name, "index on \(table.name)") } }
    for (name, what) in names {
      let folded = DatasetFileNames.folded(name)
      if let earlier = taken[folded] {
        guard earlier.name != name || earlier.what != what else { continue }
        let relation = earlier.name == name ? "has the name of" : "differs only in case from"
        return
          "the \(what) \(name) of one dataset \(relation) the \(earlier.what) \(earlier.name) of another: one database cannot hold both (SQLite's names ignore case; tables, lookup tables and indexes share one namespace); rename one"
      }
      taken[folded] = (name, what)
    }
    return nil
  }

  /// The dataset of each input of `configuration`, in its order: what `PipelineRunner` takes.
  /// A glob input is one input per file it matches (`configuration()`), each read as its
  /// pattern's dataset, so this has one entry per file, where `datasets(in:)` has one per input
  /// the spec lists.
  public func datasets(for configuration: PipelineConfiguration, in catalog: [AnyDataset]) throws(SpecError)
    -> [AnyDataset]
  {
    let declared = try datasets(in: catalog)
    var datasets: [AnyDataset] = []
    for input in configuration.inputs {
      // An input names its dataset as the spec does: a catalog name, or a dataset file's.
      guard
        let dataset = zip(inputs, declared).first(where: { $0.0.dataset == input.dataset })?.1
          ?? (declared.count == 1 ? declared.first : nil)
      else {
        throw SpecError(
          path: path, message: "an input names dataset '\(input.dataset ?? "")', which the spec does not list")
      }
      datasets.append(dataset)
    }
    return datasets
  }

  private static func policy(_ value: SpecDocument.PolicyValue?, path: String) throws(SpecError) -> Policy {
    guard let value else { return .strict }
    let name: String
    let overrides: SpecDocument.PolicyOverrides?
    switch value {
    case .preset(let text):
      name = text
      overrides = nil
    case .detailed(let detailed):
      name = detailed.preset
      overrides = detailed
    }
    guard let preset = Policy.Preset(rawValue: name) else {
      throw SpecError(path: path, message: "'policy' is '\(name)', expected one of: strict, lenient")
    }
    var policy = Policy(preset: preset)
    if let overrides {
      policy.maxRejects = overrides.maxRejects
      policy.maxRejectRate = overrides.maxRejectRate
      policy.legacyScalars = overrides.legacyScalars ?? false
      if let unknown = overrides.unknownFields {
        guard let action = Policy.UnknownFieldAction(rawValue: unknown) else {
          throw SpecError(
            path: path, message: "'policy.unknownFields' is '\(unknown)', expected one of: ignore, warn, reject")
        }
        policy.unknownFields = action
      }
      if let dates = overrides.dates {
        policy.dateFormats = []
        for (index, name) in dates.enumerated() {
          do {
            policy.dateFormats.append(try DateFormat(specName: name))
          } catch {
            throw SpecError(path: path, message: "'policy.dates[\(index)]': \(error)")
          }
        }
      }
      policy.allowsNothingLoaded = overrides.allowNothingLoaded ?? false
      policy.lenientArrays = overrides.lenientArrays ?? false
      if let duplicates = overrides.duplicateKeys {
        guard let action = Policy.DuplicateKeyAction(rawValue: duplicates) else {
          throw SpecError(
            path: path, message: "'policy.duplicateKeys' is '\(duplicates)', expected one of: warn, reject, ignore")
        }
        policy.duplicateKeys = action
      }
    }
    if let problem = policy.inconsistency {
      throw SpecError(path: path, message: "'policy': \(problem)")
    }
    return policy
  }

  private static func explain(_ error: RecordDecodingError) -> String {
    error.code == .missingField ? "missing required key" : error.message
  }

  /// `"data.fruits"` → `["data", "fruits"]`; `""` → `[]` (a top-level array).
  public static func parseRecordPath(_ text: String) -> [String] {
    text.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
  }

  /// The spec's name for reports: its file name without the extension.
  public var name: String {
    FilePaths.deletingExtension(FilePaths.lastComponent(of: path))
  }

  /// Resolves a path written in the spec against the spec's directory.
  public func resolve(_ relative: String) -> String {
    resolve(relative, against: FilePaths.folder(of: path))
  }

  /// Resolves `relative` against `directory` (itself against the working directory when it is
  /// relative); absolute paths and `-` stay as they are.
  private func resolve(_ relative: String, against directory: String) -> String {
    FilePaths.absolute(relative, in: directory)
  }

  /// The run configuration this spec describes, before command-line overrides.
  ///
  /// With `inputDirectory` (`--input-dir`: tonight's dump folder), the folder the spec's
  /// relative inputs live in — their deepest common folder — is replaced by it, so a spec
  /// written against `../SampleData/stackexchange/Users.xml`, `…/Posts.xml` reads
  /// `DIR/Users.xml`, `DIR/Posts.xml`, and subfolders below the common one are kept. Absolute
  /// inputs stay.
  ///
  /// The spec's `database` is named among `drivers` (a file's path resolved against the spec's
  /// folder, a server's connection string as written) unless `database` replaces it (`--db`);
  /// either way the spec's `databaseSchema` and `connectTimeout` must suit the database's kind.
  /// With neither, the spec is refused unless `needsDatabase` is false (`validate` without
  /// `--db`, which opens none): its configuration then names no database (an empty location).
  public func configuration(
    inputDirectory: String? = nil, drivers: StoreDrivers, database override: DatabaseTarget? = nil,
    needsDatabase: Bool = true
  ) throws(SpecError) -> PipelineConfiguration {
    var target: DatabaseTarget
    if let override {
      target = override
    } else {
      guard let database else {
        guard !needsDatabase,
          let driver = drivers.drivers.first(where: { !$0.connectsToServer }) ?? drivers.drivers.first
        else {
          throw SpecError(
            path: path,
            message:
              "no database to load into: name it with 'database' in the spec or with --db on the command line (a SQLite file, or a PostgreSQL URL)"
          )
        }
        return configuration(inputDirectory: inputDirectory, database: DatabaseTarget(location: "", driver: driver))
      }
      let driver: any StoreDriver
      do {
        driver = try drivers.driver(for: database)
      } catch {
        throw SpecError(path: path, message: "'database': \(error.message)")
      }
      if let problem = driver.misnaming(database) {
        throw SpecError(path: path, message: "'database' \(problem)")
      }
      target = DatabaseTarget(location: driver.connectsToServer ? database : resolve(database), driver: driver)
    }
    if let databaseSchema {
      guard let limit = target.driver.schemaNameLimit else {
        throw SpecError(
          path: path,
          message:
            "'databaseSchema' applies to a database with schemas (PostgreSQL), not the \(target.driver.name) file \(target)"
        )
      }
      guard databaseSchema.utf8.count <= limit else {
        throw SpecError(path: path, message: "'databaseSchema' must be a name of 1 to \(limit) bytes")
      }
      target.schema = target.schema ?? databaseSchema
    }
    if let connectTimeout, target.driver.connectsToServer {
      target.connectTimeoutSeconds = target.connectTimeoutSeconds ?? connectTimeout
    }
    return configuration(inputDirectory: inputDirectory, database: target)
  }

  /// The configuration with its database already named.
  private func configuration(inputDirectory: String?, database target: DatabaseTarget) -> PipelineConfiguration {
    let specDirectory = FilePaths.folder(of: path)
    var paths = inputs.map { resolve($0.input, against: specDirectory) }
    if let inputDirectory {
      let relative = inputs.indices.filter {
        !inputs[$0].input.hasPrefix("/") && inputs[$0].input != "-" && !RemoteURL.isURL(inputs[$0].input)
      }
      let common = Self.commonFolder(of: relative.map { paths[$0] })
      for index in relative {
        let below = String(paths[index].dropFirst(common.count)).drop { $0 == "/" }
        // A folder in a bucket or on a server (`--input-dir s3://exports/2026-12-07/`) holds the
        // same relative names.
        paths[index] =
          RemoteURL.isURL(inputDirectory)
          ? FilePaths.joined(inputDirectory, String(below)) : FilePaths.absolute(String(below), in: inputDirectory)
      }
    }
    var excluded: [PipelineConfiguration.ExcludedInput] = []
    var configuration = PipelineConfiguration(
      name: name,
      inputs: zip(inputs, paths).flatMap { input, path in
        let matches = Self.expand(path)
        let kept = matches.filter { match in
          guard !match.isUnmatchedPattern,
            let exclusion = input.exclusions.first(where: { Self.matches(FilePaths.lastComponent(of: match.path), $0) })
          else { return true }
          excluded.append(.init(path: match.path, dataset: input.dataset, pattern: path, exclusion: exclusion))
          return false
        }
        return (kept.isEmpty ? [(path, true)] : kept).map { match in
          var expanded = PipelineInput(
            dataset: input.dataset, path: match.path, format: input.format, recordPath: input.recordPath)
          expanded.dialect = input.dialect
          expanded.isUnmatchedPattern = match.isUnmatchedPattern
          expanded.isOptional = input.isOptional
          expanded.isIncremental = input.isIncremental
          expanded.isSnapshot = input.isSnapshot
          if Self.isPattern(path) && !match.isUnmatchedPattern { expanded.pattern = path }
          if RemoteURL.isURL(match.path) {
            // Shown and recorded without its query and userinfo; opened with them.
            expanded.path = RemoteURL.redacted(match.path)
            expanded.requestURL = match.path
            expanded.pattern = expanded.pattern.map(RemoteURL.redacted)
            expanded.exclusions = input.exclusions
          }
          return expanded
        }
      },
      policy: policy, database: target,
      conflict: onConflict,
      reportPath: report.map(resolve), junitPath: junit.map(resolve),
      rejectsPath: rejects.map(resolve))
    configuration.excludedInputs = excluded
    if let busyTimeout { configuration.busyTimeoutSeconds = busyTimeout }
    if let memoryBudget { configuration.memoryBudget = memoryBudget }
    if let jobs { configuration.parallelism.jobs = jobs }
    configuration.countsTableRows = countsRows
    if let maxDeleteRate { configuration.snapshot.maxDeleteRate = maxDeleteRate }
    if checkpointEvery != nil || stages {
      configuration.checkpointing = .init(recordsPerChunk: checkpointEvery, staged: stages)
    }
    configuration.htmlPath = html.map(resolve)
    configuration.remote.options = remote
    return configuration
  }

  /// An input path with glob characters (`*`, `?`, `[`) as the files it matches, sorted, each
  /// an input of its own (a Slack export's `*/*.json`: one day file of one channel folder each).
  ///
  /// A pattern is always a pattern: a file whose name is the pattern's text (a folder named
  /// `*`, a file named `*.json`) is one of its matches like any other, never the only one. A
  /// path with these characters in a file's name is written with each escaped by a backslash,
  /// as glob(3) and the shell take it (`general \[1100\].json`; in a JSON spec
  /// `"general \\[1100\\].json"`). A pattern that matches nothing stays one input, marked, so the run
  /// fails before it opens the database (exit 66), even when a file of that very name exists.
  static func expand(_ path: String) -> [(path: String, isUnmatchedPattern: Bool)] {
    // A URL's pattern is listed by its transport (`PipelineConfiguration.listingRemoteInputs`).
    if RemoteURL.isURL(path) { return [(path, false)] }
    guard isPattern(path) else { return [(unescaped(path), false)] }
    var matches = glob_t()
    defer { globfree(&matches) }
    guard glob(path, 0, nil, &matches) == 0 else { return [(path, true)] }
    let found = (0..<Int(matches.gl_pathc)).compactMap { index in
      matches.gl_pathv[index].map { String(cString: $0) }
    }
    return found.isEmpty ? [(path, true)] : found.sorted().map { ($0, false) }
  }

  /// Whether a file name matches an `exclude` pattern, as glob(3) would match it.
  static func matches(_ name: String, _ pattern: String) -> Bool {
    fnmatch(pattern, name, 0) == 0
  }

  /// Whether `path` holds a glob character that no backslash escapes.
  static func isPattern(_ path: Substring) -> Bool {
    var escaped = false
    for character in path {
      if escaped {
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "*" || character == "?" || character == "[" {
        return true
      }
    }
    return false
  }
  static func isPattern(_ path: String) -> Bool { isPattern(Substring(path)) }

  /// A path's text with the backslashes that escape `*`, `?`, `[`, `]` or a backslash removed:
  /// the file name an escaped path names. Other backslashes are part of the name.
  public static func unescaped(_ path: String) -> String {
    var result = ""
    var escaped = false
    for character in path {
      if escaped {
        if !"*?[]\\".contains(character) { result.append("\\") }
        result.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else {
        result.append(character)
      }
    }
    if escaped { result.append("\\") }
    return result
  }

  /// The deepest folder that holds every one of these absolute file paths (or patterns: a
  /// folder stops before its first component with glob characters).
  public static func commonFolder(of paths: [String]) -> String {
    let folders = paths.map {
      FilePaths.folder(of: $0).split(separator: "/", omittingEmptySubsequences: true)
        .prefix { !isPattern($0) }.map(String.init)
    }
    guard var common = folders.first else { return "/" }
    for folder in folders.dropFirst() {
      var shared = 0
      while shared < min(common.count, folder.count), common[shared] == folder[shared] { shared += 1 }
      common = Array(common.prefix(shared))
    }
    return "/" + common.joined(separator: "/")
  }
}

/// The spec file's wire format.
struct SpecDocument: Decodable {
  static let knownKeys =
    "description, dataset, input, format, recordPath, dialect, inputs, policy, database, databaseSchema, connectTimeout, jobs, onConflict, busyTimeout, memoryBudget, report, junit, html, rejects, countRows, incremental, snapshot, maxDeleteRate, checkpointEvery, stage, storage, retries, caBundle"
  static let knownStorageKeys = "endpoint, region, pathStyle"
  static let knownInputKeys = "dataset, input, format, recordPath, dialect, optional, incremental, snapshot, exclude"

  var description: String?
  var dataset: String?
  var input: String?
  var format: String?
  var recordPath: RecordPathValue?
  var dialect: DialectDocument?
  var inputs: [InputDocument]?
  var policy: PolicyValue?
  var database: String?
  var onConflict: String?
  var report: String?
  var junit: String?
  var html: String?
  var rejects: String?
  var busyTimeout: Double?
  var memoryBudget: MemoryBudgetValue?
  var databaseSchema: String?
  var connectTimeout: Int?
  var jobs: Int?
  var countRows: Bool?
  var incremental: Bool?
  var snapshot: Bool?
  var maxDeleteRate: Double?
  var checkpointEvery: Int?
  var stage: Bool?
  /// Where `s3://` inputs live: an S3-compatible server, its region, path-style addressing.
  var storage: StorageDocument?
  /// How many times a remote input's failed request is tried again.
  var retries: Int?
  /// A PEM file of certificate authorities for `https://` inputs (relative to the spec).
  var caBundle: String?

  struct StorageDocument: Decodable {
    var endpoint: String?
    var region: String?
    var pathStyle: Bool?
  }

  /// `"512MiB"`, or a number of MiB (`512`), as `MemoryBudget(text:)` reads it.
  struct MemoryBudgetValue: Decodable {
    var text: String

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      text = try (try? container.decode(Int.self)).map(String.init) ?? container.decode(String.self)
    }
  }

  /// One element of `inputs`.
  struct InputDocument: Decodable {
    var dataset: String
    var input: String
    var format: String?
    var recordPath: RecordPathValue?
    var dialect: DialectDocument?
    /// The run may go without this input.
    var optional: Bool?
    /// An incremental run skips this input when the database holds its content.
    var incremental: Bool?
    /// The input is a full snapshot of its dataset.
    var snapshot: Bool?
    /// File names a glob input leaves out, with a warning naming each.
    var exclude: [String]?
  }

  /// `"data.fruits"` or `["data", "fruits"]` (for keys that contain dots).
  struct RecordPathValue: Decodable {
    var keys: [String]
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let text = try? container.decode(String.self) {
        keys = PipelineSpec.parseRecordPath(text)
      } else {
        keys = try container.decode([String].self)
      }
    }
  }

  /// `"lenient"` or `{"preset": "lenient", "maxRejects": 100, …}`.
  enum PolicyValue: Decodable {
    case preset(String)
    case detailed(PolicyOverrides)
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let name = try? container.decode(String.self) {
        self = .preset(name)
      } else {
        self = .detailed(try container.decode(PolicyOverrides.self))
      }
    }
  }

  struct PolicyOverrides: Decodable {
    var preset: String
    var maxRejects: Int?
    var maxRejectRate: Double?
    var unknownFields: String?
    var legacyScalars: Bool?
    var dates: [String]?
    var allowNothingLoaded: Bool?
    var lenientArrays: Bool?
    var duplicateKeys: String?
  }
}

/// A spec that cannot be used; exit code 64.
public struct SpecError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var message: String
  /// What the file is, for messages: a `pipeline spec`, or a `dataset file` it names.
  public var subject: String
  public init(path: String, message: String, subject: String = "pipeline spec") {
    self.path = path
    self.message = message
    self.subject = subject
  }
  public var description: String { "\(path): \(message)" }
}
