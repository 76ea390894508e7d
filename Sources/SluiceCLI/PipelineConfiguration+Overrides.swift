import Foundation
@_spi(Internals) import SluiceCore

extension PipelineConfiguration {
  /// The spec's configuration with the command line's options applied (`--db` and `--rejects`
  /// aside: the database is named before the spec's configuration is made, and what `--rejects`
  /// names depends on the subcommand). The parser has already refused options the subcommand
  /// does not take, so every value here is one it does.
  /// `--retries` and `--ca-bundle` over the spec's, and the environment credentials and S3
  /// settings come from (the command line is the one place that reads it).
  static func remoteOptions(_ values: [String: String], spec: RemoteOptions) throws(UsageError) -> RemoteOptions {
    var options = spec
    if let text = values["retries"] {
      guard let retries = Int(text), (0...100).contains(retries) else {
        throw UsageError("--retries must be a whole number from 0 to 100, not '\(text)'")
      }
      options.retries = retries
    }
    if let bundle = values["ca-bundle"] { options.caBundle = absolute(bundle) }
    options.environment = ProcessInfo.processInfo.environment
    return options
  }

  func applying(_ values: [String: String]) throws(UsageError) -> PipelineConfiguration {
    var configuration = self
    if values["input"] != nil && values["input-dir"] != nil {
      throw UsageError("--input names the input; --input-dir re-bases the spec's: give one")
    }
    if configuration.hasSeveralInputs {
      for option in ["input", "format", "record-path"] where values[option] != nil {
        throw UsageError(
          "--\(option) is ambiguous: the pipeline lists \(configuration.inputs.count) inputs, each with its own; use --input-dir DIR to read them from another folder"
        )
      }
    }
    if let input = values["input"] { configuration.input = Self.absolute(input) }
    configuration.remote.options = try Self.remoteOptions(values, spec: configuration.remote.options)
    if let schema = values["db-schema"] {
      try Self.check(schema: schema, for: configuration.database)
      configuration.database.schema = schema
    }
    if let timeout = values["connect-timeout"] {
      guard let seconds = Int(timeout), (2...86_400).contains(seconds) else {
        throw UsageError("--connect-timeout must be a whole number of seconds from 2 to 86400, not '\(timeout)'")
      }
      guard configuration.database.driver.connectsToServer else {
        throw UsageError(
          "--connect-timeout applies to a database server, not the \(configuration.database.driver.name) file \(configuration.databaseDescription)"
        )
      }
      configuration.database.connectTimeoutSeconds = seconds
    }
    if let commit = values["lane-commit"] {
      guard let value = LaneCommit(rawValue: commit) else {
        throw UsageError("--lane-commit must be automatic, two-phase or ordered, not '\(commit)'")
      }
      configuration.parallelism.commit = value
    }
    if let jobs = values["jobs"] {
      guard let count = Int(jobs), (1...Self.maxJobs).contains(count) else {
        throw UsageError("--jobs must be a whole number from 1 to \(Self.maxJobs), not '\(jobs)'")
      }
      configuration.parallelism.jobs = count
    }
    if let report = values["report"] { configuration.reportPath = Self.absolute(report) }
    if let junit = values["junit"] { configuration.junitPath = Self.absolute(junit) }
    if let html = values["html"] { configuration.htmlPath = Self.absolute(html) }
    if let format = values["format"] {
      guard let value = Format(rawValue: format) else {
        throw UsageError("--format must be json, ndjson, xml, csv or tsv, not '\(format)'")
      }
      // A path or a dialect written for another format means nothing in this one.
      if value != configuration.format && values["record-path"] == nil { configuration.recordPath = [] }
      if value != configuration.format { configuration.inputs[0].dialect = nil }
      configuration.format = value
    }
    if let path = values["record-path"] {
      configuration.recordPath = PipelineSpec.parseRecordPath(path)
    }
    if let policy = values["policy"] {
      guard let preset = Policy.Preset(rawValue: policy) else {
        throw UsageError("--policy must be strict or lenient, not '\(policy)'")
      }
      if configuration.policy.preset != preset { configuration.policy = Policy(preset: preset) }
    }
    if let timeout = values["busy-timeout"] {
      guard let seconds = Double(timeout), seconds >= 0, seconds <= 86_400 else {
        throw UsageError("--busy-timeout must be a number of seconds from 0 to 86400, not '\(timeout)'")
      }
      configuration.busyTimeoutSeconds = seconds
    }
    if let text = values["memory-budget"] {
      guard let budget = MemoryBudget(text: text) else {
        throw UsageError(MemoryBudget.rule("--memory-budget") + ", not '\(text)'")
      }
      configuration.memoryBudget = budget
    }
    if let conflict = values["on-conflict"] {
      guard let value = ConflictPolicy(rawValue: conflict) else {
        throw UsageError(
          "--on-conflict must be one of \(ConflictPolicy.allCases.map(\.rawValue).joined(separator: ", ")), not '\(conflict)'"
        )
      }
      configuration.conflict = value
    }
    if !configuration.hasSeveralInputs && ![.json, .xml].contains(configuration.format)
      && !configuration.recordPath.isEmpty
    {
      throw UsageError("--record-path applies to --format json or xml, not \(configuration.format)")
    }
    if !configuration.hasSeveralInputs, values["record-path"] != nil,
      let problem = KeyedCollection.problem(in: configuration.recordPath, jsonFormat: configuration.format == .json)
    {
      throw UsageError("--record-path \(problem)")
    }
    if configuration.parallelism.jobs > 1 && !configuration.database.location.isEmpty
      && !(configuration.database.driver is any ParallelLoadingDriver)
    {
      printError(
        "sluice: note: --jobs applies to a database server that loads in lanes (PostgreSQL); a \(configuration.database.driver.name) database takes one writer, so the inputs load one after another"
      )
    }
    return configuration
  }

  /// The database `text` names, among the registered drivers: a file's path made absolute, a
  /// server's connection string as written; warns when it carries a password.
  static func target(_ text: String, option: String, drivers: StoreDrivers) throws(UsageError) -> DatabaseTarget {
    let driver: any StoreDriver
    do {
      driver = try drivers.driver(for: text)
    } catch {
      throw UsageError("\(option): \(error.message)")
    }
    if let problem = driver.misnaming(text) {
      throw UsageError("\(option) \(problem)")
    }
    if driver.hasPassword(text) {
      printError(
        "sluice: warning: the \(option) connection string carries a password, which other users can see in the process list; put it in ~/.pgpass or PGPASSWORD instead"
      )
    }
    return DatabaseTarget(location: driver.connectsToServer ? text : absolute(text), driver: driver)
  }

  /// A schema name the target's database takes.
  static func check(schema: String, for target: DatabaseTarget) throws(UsageError) {
    guard let limit = target.driver.schemaNameLimit else {
      throw UsageError(
        "--db-schema applies to a database with schemas (PostgreSQL), not the \(target.driver.name) file \(target)")
    }
    guard !schema.isEmpty, schema.utf8.count <= limit else {
      throw UsageError("--db-schema must be a name of 1 to \(limit) bytes")
    }
  }

  /// A command-line path made absolute against the working directory; `-` (standard input)
  /// stays as it is.
  static func absolute(_ path: String) -> String { FilePaths.absolute(path, in: CommandIO.current.workingDirectory) }
}
