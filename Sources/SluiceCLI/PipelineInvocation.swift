import Foundation
@_spi(Internals) import SluiceCore
import SluiceInspect

/// One `run`, `validate` or `replay` command line: parsed, validated into the configuration
/// the engine runs, then run, its outcome printed and turned into the exit code.
///
/// The subcommand's type says how it differs (`PipelineSubcommand`); everything here is shared.
struct PipelineInvocation {
  let command: any PipelineSubcommand.Type
  let parsed: ArgumentParser.Parsed
  let specPath: String
  /// The datasets and store drivers the tool was given; the spec names its own among them.
  let context: CommandContext
  private var resolved: Resolved?
  /// The transports' retries before `validate()` listed the inputs: the run's are counted from here.
  private var retriesAtStart: Int?

  /// What `validate()` makes of the spec and the options.
  private struct Resolved {
    var configuration: PipelineConfiguration
    /// One dataset per input the run reads: a glob input is one per file it matches.
    var datasets: [AnyDataset]
    /// The tables of the spec's datasets, each once, for the listing after a commit.
    var tables: [String]
    /// Where the run's metrics go (`--metrics`, `--metrics-push`).
    var metrics: MetricsOutput
    /// The dataset files this run evolves (`SchemaEvolutionStep`), empty when none does.
    var evolution: SchemaEvolutionStep?
  }

  init(_ command: any PipelineSubcommand.Type, arguments: [String], context: CommandContext) throws {
    self.command = command
    self.context = context
    let extra = command.runMode == .run ? context.extra?.names ?? [] : []
    var parser = command.help.parser
    parser.valueOptions.formUnion(extra)
    parsed = try parser.parse(arguments)
    guard parsed.positionals.count == 1, let specPath = parsed.positionals.first else {
      throw UsageError(
        parsed.positionals.isEmpty
          ? "missing the pipeline spec (sluice \(command.name) PIPELINE.json)"
          : "expected one pipeline spec, got \(parsed.positionals.count) arguments")
    }
    self.specPath = specPath
  }

  /// Reads the spec, finds its datasets and applies the options: every problem with the command
  /// line or the spec is found here, before anything is opened.
  mutating func validate() throws {
    retriesAtStart = MetricsOutput.remoteRetries(context)
    if parsed.flags.contains("progress") && parsed.flags.contains("no-progress") {
      throw UsageError("--progress and --no-progress contradict each other: give one")
    }
    let spec = try PipelineSpec(contentsOf: PipelineConfiguration.absolute(specPath))
    var declared = try spec.datasets(in: context.datasets, drivers: context.drivers)
    if command.rejects == .read && spec.inputs.count > 1 {
      throw UsageError(
        "\(command.name) loads one rejects file as one dataset's records; \(specPath) lists \(spec.inputs.count) inputs"
      )
    }
    let inputDirectory = parsed.values["input-dir"].map(PipelineConfiguration.absolute)
    let database = try parsed.values["db"].map { text throws(UsageError) in
      try PipelineConfiguration.target(text, option: "--db", drivers: context.drivers)
    }
    // Only `validate` without --db opens no database; every other command needs one, from the
    // spec or from --db.
    var configuration = try spec.configuration(
      inputDirectory: inputDirectory, drivers: context.drivers, database: database,
      needsDatabase: command.runMode != .validate
    ).applying(parsed.values).applyingDialect(parsed.values, flags: parsed.flags)
    configuration.mode = command.runMode
    if command.runMode == .validate || command.runMode == .plan {
      // A spec's `jobs`, `checkpointEvery` and `stage` say how `run` commits; validate and plan
      // commit nothing, and their command lines take none of these options.
      configuration.parallelism = .init()
      configuration.checkpointing = nil
    }
    // URL patterns become their objects (an S3 listing) before anything deals inputs out.
    configuration.remote.transports = context.remote
    configuration = try configuration.listingRemoteInputs()
    configuration.specPath = PipelineConfiguration.absolute(specPath)
    for file in declared.flatMap(\.files) where !configuration.datasetFiles.contains(file) {
      configuration.datasetFiles.append(file)
    }
    if command.runMode == .run, let extra = context.extra { extra.apply(parsed.values, &configuration) }
    if command.runMode == .plan {
      // A plan writes only the outputs its command line names: the spec's are the run's.
      configuration.reportPath = parsed.values["report"].map(PipelineConfiguration.absolute)
      configuration.junitPath = parsed.values["junit"].map(PipelineConfiguration.absolute)
      configuration.htmlPath = parsed.values["html"].map(PipelineConfiguration.absolute)
      if let text = parsed.values["max-changes"] {
        guard let limit = ChangeLimit(text) else {
          throw UsageError(
            "--max-changes takes a number of rows (500) or a share of the tables' rows (5%), not '\(text)'")
        }
        configuration.maxChanges = limit
      }
    }
    if command.runMode == .validate {
      configuration.checksDatabase = parsed.values["db"] != nil
      if let baseline = parsed.values["baseline"] {
        guard !configuration.hasSeveralInputs else {
          throw UsageError(
            "--baseline describes one dump; \(specPath) reads \(configuration.inputs.count) inputs: validate each against its own"
          )
        }
        configuration.baselinePath = PipelineConfiguration.absolute(baseline)
        configuration.baselineComparison = .inspection
      } else if parsed.flags.contains("fail-on-drift") {
        throw UsageError("--fail-on-drift applies to validate with --baseline FILE")
      }
      for option in ["db-schema", "connect-timeout", "on-conflict", "busy-timeout"]
      where parsed.values[option] != nil && !configuration.checksDatabase {
        throw UsageError("--\(option) applies to validate with --db (the database to check references against)")
      }
    }
    if let share = parsed.values["share"] { configuration.inputs = try Self.share(share, of: configuration.inputs) }
    configuration.failsOnWarnings = parsed.flags.contains("fail-on-warnings")
    if parsed.flags.contains("count-rows") { configuration.countsTableRows = true }
    if parsed.flags.contains("incremental") {
      for index in configuration.inputs.indices { configuration.inputs[index].isIncremental = true }
    }
    if parsed.flags.contains("snapshot") {
      for index in configuration.inputs.indices { configuration.inputs[index].isSnapshot = true }
    }
    if let text = parsed.values["max-delete-rate"] {
      guard let rate = Double(text), (0...1).contains(rate) else {
        throw UsageError("--max-delete-rate must be a share from 0 to 1 (0.05: 5 % of a table's rows), not '\(text)'")
      }
      guard configuration.inputs.contains(where: \.isSnapshot) else {
        throw UsageError(
          "--max-delete-rate applies to a snapshot run: give --snapshot too, or set 'snapshot' in the spec")
      }
      configuration.snapshot.maxDeleteRate = rate
    }
    if configuration.inputs.contains(where: { $0.isIncremental && $0.path == "-" }) {
      throw UsageError(
        "an incremental run skips inputs by their content before reading them; standard input ('-') cannot be: read files"
      )
    }
    try Self.applyCheckpointing(parsed, to: &configuration)
    if let checkpointing = configuration.checkpointing {
      let what = checkpointing.resumes ? "--resume" : "a checkpointed run (--checkpoint-every)"
      if configuration.inputs.contains(where: \.isSnapshot) {
        throw UsageError(
          "\(what) commits in chunks, and a snapshot deletes what the whole run did not see: a snapshot loads in one transaction; drop --snapshot or --checkpoint-every"
        )
      }
      if configuration.inputs.contains(where: { $0.path == "-" }) {
        throw UsageError("\(what) reads its inputs again to resume; standard input ('-') cannot be: read files")
      }
    }
    if parsed.flags.contains("reload-changed") {
      guard configuration.inputs.contains(where: \.isIncremental) else {
        throw UsageError(
          "--reload-changed applies to an incremental run: give --incremental too, or set 'incremental' in the spec")
      }
      configuration.incremental.reloadsChanged = true
    }
    if parsed.flags.contains("verify-content") {
      guard configuration.inputs.contains(where: \.isIncremental) else {
        throw UsageError(
          "--verify-content applies to an incremental run: give --incremental too, or set 'incremental' in the spec")
      }
      configuration.incremental.verifiesContent = true
    }
    let rejects = parsed.values["rejects"].map(PipelineConfiguration.absolute)
    switch command.rejects {
    case .written:
      if let rejects { configuration.rejectsPath = rejects }
    case .writtenWhenGiven:
      configuration.rejectsPath = rejects
    case .read:
      guard let rejects else { throw UsageError("\(command.name) needs --rejects PATH") }
      guard !configuration.hasSeveralInputs else {
        throw UsageError(
          "\(command.name) loads one rejects file as one dataset's records; the input of \(specPath) matches \(configuration.inputs.count) files"
        )
      }
      configuration.input = rejects
      configuration.rejectsPath = nil
    }
    let metrics = try MetricsOutput(
      parsed, specPath: configuration.metricsPath, mode: command.runMode, context: context)
    configuration.metricsPath = metrics.path
    // Anything else the run would take and then ignore (`PipelineConfiguration.ignoredSetting`).
    if let ignored = configuration.ignoredSetting { throw UsageError(ignored) }
    if let problem = RunFiles(configuration).problem() { throw UsageError(problem) }
    var listed = Set<String>()
    var datasets = try spec.datasets(for: configuration, in: context.datasets)
    var evolution: SchemaEvolutionStep?
    if command.runMode == .run || command.runMode == .plan {
      let forced = parsed.flags.contains("evolve")
      if forced && configuration.datasetFiles.isEmpty {
        throw UsageError("--evolve applies to datasets declared in files; \(specPath) names none")
      }
      if command.runMode == .run {
        let recovered = try SchemaEvolutionStep.recover(
          files: configuration.datasetFiles, database: configuration.database,
          busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        for line in recovered { printError(line) }
        if !recovered.isEmpty {
          declared = try spec.datasets(in: context.datasets, drivers: context.drivers)
          datasets = try spec.datasets(for: configuration, in: context.datasets)
        }
      }
      let step = try SchemaEvolutionStep(
        inputs: configuration.inputs, datasets: datasets, forced: forced, remote: configuration.remote)
      if !step.evolved.isEmpty {
        if configuration.inputs.contains(where: { $0.path == "-" }) {
          throw UsageError(
            "schema evolution reads the inputs before the run, to find their new fields; standard input ('-') can be read once: read files"
          )
        }
        // The changes are part of one transaction with the rows: not of chunks, stages or lanes.
        if configuration.checkpointing != nil || configuration.parallelism.jobs > 1 {
          throw UsageError(
            "schema evolution changes the tables in the run's one transaction, and \(configuration.checkpointing != nil ? "a checkpointed or staged run commits in chunks" : "--jobs \(configuration.parallelism.jobs) loads over several connections"); load the night that evolves without it"
          )
        }
        declared = try spec.datasets(in: context.datasets, drivers: context.drivers, evolved: step.evolved)
        datasets = try spec.datasets(for: configuration, in: context.datasets, evolved: step.evolved)
        if let problem = Self.historyEvolutionProblem(step.evolved.flatMap(\.changes), datasets: datasets) {
          throw UsageError(problem)
        }
        configuration.schemaChanges = step.evolved.flatMap { $0.changes.map(\.description) }
        evolution = step
      }
    }
    if let problem = PipelineRunner.snapshotProblem(inputs: configuration.inputs, datasets: datasets) {
      throw UsageError(problem)
    }
    if let problem = PipelineRunner.historyProblem(configuration: configuration, datasets: datasets) {
      throw UsageError(problem)
    }
    resolved = Resolved(
      configuration: configuration, datasets: datasets,
      tables: declared.flatMap(\.tables).filter { listed.insert($0).inserted }, metrics: metrics,
      evolution: evolution)
  }

  /// A change schema evolution would make to a table that keeps its history (`"history":
  /// "scd2"`): its `sluice_history_` table would have to change alike (a column added, its kept
  /// versions rescaled), which evolution does not do, so the run is refused before it reads.
  static func historyEvolutionProblem(_ changes: [SchemaChange], datasets: [AnyDataset]) -> String? {
    let kept = Set(datasets.flatMap { HistoryTable.tables(of: $0.schema) }.map(\.table.name))
    for change in changes {
      let table: String
      switch change.kind {
      case .addColumn(let name, _, _, _), .rescale(let name, _, _, _): table = name
      case .createTable(let name): table = name
      }
      guard kept.contains(table) else { continue }
      return
        "schema evolution would \(change.description), and \(table) keeps its history in \(HistoryTable.name(of: table)), which evolution does not change alike; declare the field in the dataset file by hand and add it to both tables, or load this night with \"evolution\": \"freeze\""
    }
    return nil
  }

  /// `--checkpoint-every`, `--stage`, `--resume` and `--restart` over the spec's
  /// `checkpointEvery` and `stage`: any of them makes the run checkpointed.
  private static func applyCheckpointing(
    _ parsed: ArgumentParser.Parsed, to configuration: inout PipelineConfiguration
  ) throws(UsageError) {
    var checkpointing = configuration.checkpointing
    if let text = parsed.values["checkpoint-every"] {
      guard let records = Int(text), records >= 1 else {
        throw UsageError("--checkpoint-every takes a whole number of records, 1 or more, not '\(text)'")
      }
      checkpointing = checkpointing ?? .init()
      checkpointing?.recordsPerChunk = records
    }
    if parsed.flags.contains("stage") {
      checkpointing = checkpointing ?? .init()
      checkpointing?.staged = true
    }
    let resumes = parsed.flags.contains("resume")
    let restarts = parsed.flags.contains("restart")
    if resumes && restarts {
      throw UsageError("--resume continues the interrupted run and --restart drops it: give one")
    }
    if restarts && checkpointing == nil {
      throw UsageError(
        "--restart starts a checkpointed run over: give --checkpoint-every too, or set 'checkpointEvery' in the spec")
    }
    if resumes || restarts {
      checkpointing = checkpointing ?? .init()
      checkpointing?.start = resumes ? .resume : .restart
    }
    configuration.checkpointing = checkpointing
  }

  /// Share `text` (`K/N`) of the files each glob pattern of the inputs matches: of a pattern's
  /// matches, sorted by path, those at positions K-1, K-1+N, K-1+2N, … — so N processes given
  /// shares 1/N … N/N read every file once between them. Inputs without a pattern stay: each
  /// share reads them (the parents the shares' records name).
  static func share(_ text: String, of inputs: [PipelineInput]) throws(UsageError) -> [PipelineInput] {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let share = Int(parts[0]), let count = Int(parts[1]), (1...1_000).contains(count),
      (1...count).contains(share)
    else {
      throw UsageError("--share must be K/N, share K of N (1 ≤ K ≤ N ≤ 1000), not '\(text)'")
    }
    guard inputs.contains(where: { $0.pattern != nil }) else {
      throw UsageError(
        "--share deals out the files a glob pattern of the spec matches, and its inputs have none (\"input\": \"exports/*.json.gz\")"
      )
    }
    var position: [String: Int] = [:]
    var kept: [String: Int] = [:]
    let shared = inputs.filter { input in
      guard let pattern = input.pattern else { return true }
      let index = position[pattern, default: 0]
      position[pattern] = index + 1
      guard index % count == share - 1 else { return false }
      kept[pattern, default: 0] += 1
      return true
    }
    for (pattern, files) in position where kept[pattern] == nil {
      throw UsageError(
        "--share \(text): the pattern \(pattern) matches \(files) file(s), none of them share \(share)'s")
    }
    return shared
  }

  /// Why the run wrote none of its output files, when it failed before it had any: an output
  /// that could not be created (`OutputFile`'s message, exit 73: the outputs are opened
  /// together, and none is kept when one fails), or a resume that left the files as they were.
  /// Nil when the outputs were written.
  static func unwrittenOutputs(_ report: RunReport) -> String? {
    guard let failure = report.failure else { return nil }
    let outputs = ["rejects file", "report", "JUnit file", "HTML report"]
    if failure.kind == .cannotCreateOutput,
      outputs.contains(where: { failure.message.hasPrefix("cannot create the \($0) ") })
    {
      return failure.message
    }
    if failure.message.hasSuffix(RunAbort.outputFilesLeftNote) {
      return "the files at the run's paths were left as they were"
    }
    return nil
  }

  /// Runs the pipeline, prints its summary on stderr and its result on stdout; returns the
  /// exit code the report, standard output and `--fail-on-rejects` make together.
  func run() throws -> Int32 {
    guard let resolved else { preconditionFailure("validate() comes before run()") }
    var configuration = resolved.configuration
    let display = ProgressDisplay.isWanted(flags: parsed.flags) ? ProgressDisplay() : nil
    if let display { configuration.progress = { display.draw($0) } }
    let metricsFile: OutputFile?
    do {
      metricsFile = try resolved.metrics.open(readerWait: configuration.busyTimeoutSeconds)
    } catch {
      printError("sluice: \(error.message)")
      return ExitCode.cannotCreate
    }
    if let evolution = resolved.evolution {
      if command.runMode == .plan {
        for line in evolution.planLines { printError(line) }
      } else {
        try evolution.prepare()
      }
    }
    let report: RunReport
    do {
      report = try Pipeline(datasets: resolved.datasets, configuration: configuration).run()
    } catch {
      if command.runMode == .run { _ = try resolved.evolution?.finish(committed: false) }
      throw error
    }
    display?.finish()
    if command.runMode == .run, let evolution = resolved.evolution {
      for line in try evolution.finish(committed: report.committed) { printError(line) }
    }
    printError(report.summary())
    for problem in report.outputErrors { printError("sluice: \(problem)") }
    if let rejects = configuration.rejectsPath, !report.outputErrors.contains(where: { $0.contains(rejects) }) {
      if let reason = Self.unwrittenOutputs(report) {
        printError("sluice: no rejects file was written to \(rejects): \(reason)")
      } else {
        printError("sluice: \(report.quarantined) rejected record(s) written to \(rejects)")
      }
    }
    if let plan = report.plan {
      if parsed.flags.contains("json") {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        printOutput(String(decoding: try encoder.encode(plan), as: UTF8.self))
      } else {
        // The plan's table is in the summary above (stderr); the result line says what it adds up to.
        printOutput(
          "plan: \(plan.changes) row(s) would change in \(configuration.databaseDescription) (\(plan.tables.map(\.inserts).reduce(0, +)) inserted, \(plan.tables.map(\.updates).reduce(0, +)) updated, \(plan.tables.map(\.deletes).reduce(0, +)) deleted); nothing was written"
        )
      }
    } else if report.mode == RunMode.plan.rawValue {
      printError("sluice: the plan failed; nothing was written to \(configuration.databaseDescription)")
    } else if !command.writesDatabase {
      let read = report.statistics(for: .read).recordsIn
      let errors = report.issues.isEmpty ? 0 : report.issueCounts.values.reduce(0, +)
      printOutput(
        report.status == .succeeded
          ? "valid: \(read) record(s) meet the \(report.dataset) contract"
          : "invalid: \(read) record(s) checked, \(errors) issue(s); see above")
    } else if report.committed {
      printOutput("database: \(configuration.databaseDescription)")
      for table in resolved.tables {
        if let rows = report.tableRows[table] {
          printOutput("  \(table): \(rows) rows (\(report.rowsWritten[table] ?? 0) written)")
        } else {
          printOutput("  \(table): \(report.rowsWritten[table] ?? 0) rows written")
        }
      }
    } else {
      printError("sluice: the run was rolled back; no data was written to \(configuration.databaseDescription)")
    }
    var status = ExitCode.of(report)
    if let failure = CommandIO.current.failure, status == ExitCode.success {
      printError("sluice: cannot write to standard output: \(failure)")
      status = report.committed ? ExitCode.committedButOutputFailed : ExitCode.ioError
    }
    if status == ExitCode.committedButOutputFailed {
      printError(
        "sluice: the data was committed to \(configuration.databaseDescription); only the output(s) above were lost")
    }
    let drifted = report.baselineChanges?.filter { $0.impact == .nonBreaking }.count ?? 0
    if status == ExitCode.success && drifted > 0 && parsed.flags.contains("fail-on-drift") {
      printError("sluice: \(drifted) non-breaking change(s) from the baseline (exit 1: --fail-on-drift)")
      status = ExitCode.rejectsFound
    }
    if status == ExitCode.success, let plan = report.plan, plan.exceedsMaxChanges {
      printError(
        "sluice: the run would change \(plan.changes) row(s), more than --max-changes \(plan.maxChanges ?? "") allows (exit \(ExitCode.rejectsFound))"
      )
      status = ExitCode.rejectsFound
    }
    let rejected = report.stages.map(\.rejected).reduce(0, +)
    if status == ExitCode.success && report.committed && rejected > 0 && parsed.flags.contains("fail-on-rejects") {
      printError(
        "sluice: \(rejected) record(s) rejected; the rest were committed to \(configuration.databaseDescription) (exit \(ExitCode.rejectsFound): --fail-on-rejects)"
      )
      status = ExitCode.rejectsFound
    }
    let retries = MetricsOutput.remoteRetries(context).map { $0 - (retriesAtStart ?? 0) }
    return resolved.metrics.finish(report, status: status, file: metricsFile, remoteRetries: retries)
  }
}
