import Foundation

/// Runs a pipeline: each input in turn through reader → decoder → validator → mapper → rows →
/// store, every input into one transaction, with one report and one audit row.
///
/// The whole run is one transaction. Under the strict policy the first invalid record — in any
/// input — rolls it back, earlier inputs included; under the lenient policy each record is
/// written inside a savepoint, so a record that fails half-way leaves none of its rows behind,
/// and the run fails and rolls back when the error budget, which spans every input, is exceeded.
/// Any failure that is not a record's own — a corrupt stream, a broken document, a locked
/// database — rolls back the whole run. Either way the run then records itself in the audit
/// tables. Every input is checked to exist before the database is opened, so a missing one fails
/// the run before anything is written. A validate run reads every input through every stage but
/// the writes, and never opens the database.
///
/// Each input may be another dataset's records: the run migrates the union of the datasets'
/// tables (a later dataset may reference an earlier one's), and each input is written by a row
/// writer over its own dataset's tables.
///
/// With `jobs` above 1 and a PostgreSQL database, inputs whose tables do not depend on each other
/// load over several connections at once, still as one all-or-nothing run with one report
/// (`ParallelRun`).
package struct PipelineRunner: Sendable {
  package let configuration: PipelineConfiguration
  /// Each input with the dataset its records are read as, in load order.
  package let inputs: [Source]
  /// Every input's dataset's tables, each once.
  package let schema: Schema
  /// The optional inputs that are not there, by their place among `inputs`: a run skips them
  /// (each is a warning) and migrates their tables all the same (`checkInputsExist`).
  package private(set) var missingInputs: Set<Int> = []

  package struct Source: Sendable {
    package var input: PipelineInput
    package var dataset: AnyDataset
  }

  /// A run of `configuration`, reading its `n`-th input as the records of `datasets[n]`.
  ///
  /// Datasets that share a table must share its declaration (`Schema.union`); a pipeline spec
  /// checks that before a run (`PipelineSpec.datasets(in:)`).
  package init(configuration: PipelineConfiguration, datasets: [AnyDataset]) throws(PipelineError) {
    guard datasets.count == configuration.inputs.count else {
      throw PipelineError(
        message: "\(configuration.inputs.count) input(s) and \(datasets.count) dataset(s): give one dataset per input")
    }
    if let problem = Self.snapshotProblem(inputs: configuration.inputs, datasets: datasets) {
      throw PipelineError(message: problem)
    }
    self.configuration = configuration
    inputs = zip(configuration.inputs, datasets).map(Source.init)
    do {
      schema = try Schema.union(datasets.map(\.schema))
    } catch {
      throw PipelineError(message: "the datasets cannot load together: \(error)")
    }
  }

  /// Runs the pipeline and returns its report; it never throws; failures are in the report.
  ///
  /// The outputs (rejects, report, JUnit) are written in step with the database: staged and
  /// synced before the commit, published after it (`RunOutputs`).
  package func run() -> RunReport {
    var runner = self
    return runner.runOnce()
  }

  private mutating func runOnce() -> RunReport {
    var run = RunState(configuration: configuration, rules: rules)
    var opened = Opened()
    var committed: RunReport?
    var planned: RunReport?
    var planFolder: String?
    defer {
      if let planFolder {
        opened.store = nil
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(planFolder + "/plan.sqlite" + suffix) }
        rmdir(planFolder)
      }
    }
    do {
      if let problem = RunFiles(configuration).problem() {
        throw RunAbort(failure: .init(kind: .configuration, message: problem))
      }
      let outputs = try RunOutputs(configuration: configuration)
      opened.outputs = outputs
      run.quarantine = outputs.rejects.map {
        QuarantineWriter(file: $0, input: configuration.inputs[0].path, format: configuration.inputs[0].format)
      }
      missingInputs = try checkInputsExist(state: &run)
      if configuration.isDryRun {
        // `validate --db`: one read-only connection for the run's checks, never `opened.store`
        // (a failed run records itself there, and this one may not write).
        let check = try configuration.checksDatabase ? openForChecks() : nil
        for (index, source) in inputs.enumerated() where !missingInputs.contains(index) {
          try read(source, index: index, state: &run) { reader, loop, state in
            try loop.validate(reader, check: check, state: &state)
            return [:]
          }
        }
        if let check {
          var totals = LoadTotals()
          totals.add(check.lookups)
          run.loadTotals = totals
        }
        if let baseline = configuration.baselinePath {
          run.baselineChanges = try compare(with: baseline) + Self.newEnumValues(run.ledger.drift.summary)
        }
        let breaking = run.baselineChanges?.filter { $0.impact == .breaking } ?? []
        let drift =
          breaking.isEmpty
          ? nil
          : "the input drifted from the baseline in \(breaking.count) breaking way(s): \(breaking.prefix(3).map(\.description).joined(separator: "; "))\(breaking.count > 3 ? "; …" : "")"
        do {
          try run.finishDryRun()
        } catch var abort as RunAbort {
          if let drift { abort.failure.message += "; \(drift)" }
          throw abort
        }
        if let drift { throw RunAbort(failure: .init(kind: .data, message: drift)) }
      } else if configuration.mode == .plan {
        // A plan leaves no database file it did not find, and never makes one at the target's
        // path: a run that opened it meanwhile, waiting for the plan's lock, would then write
        // into a file the plan removes. The plan of a first load runs against an empty
        // database of its own, in a folder only this process can name.
        var target = configuration.database
        if !target.driver.connectsToServer && !FileManager.default.fileExists(atPath: target.location) {
          let folder = try Self.privateFolder()
          planFolder = folder
          target.location = folder + "/plan.sqlite"
        }
        let store = try openDatabase(target)
        opened.store = store
        // Nothing is committed; the outputs are the plan's, published as a dry run's are.
        planned = try plan(into: store, outputs: outputs, state: &run)
      } else if configuration.stages {
        committed = try loadStaged(outputs: outputs, state: &run, opened: &opened)
      } else if configuration.isChunked {
        let store = try openDatabase()
        opened.store = store
        committed = try loadInChunks(into: store, outputs: outputs, state: &run)
      } else if let plan = lanePlan, let driver = configuration.database.driver as? any ParallelLoadingDriver {
        committed = try ParallelRun(runner: self, plan: plan, driver: driver).load(
          outputs: outputs, state: &run, opened: &opened)
      } else {
        let store = try openDatabase()
        opened.store = store
        committed = try load(into: store, outputs: outputs, state: &run)
      }
    } catch {
      run.failure = classify(error, state: &run)
      if let abort = error as? RunAbort, abort.leavesOutputFiles {
        run.leavesOutputFiles = true
        if opened.outputs?.writesFiles == true {
          run.failure?.message += "; the report and rejects files at the run's paths were left as they were"
        }
      }
      if run.waitedForLock, !run.auditSettled, let store = opened.store {
        run.failure?.message += store.lockHoldersNote(describing: configuration.database)
      }
    }
    return finish(run, opened, committed: committed, planned: planned)
  }

  /// The lanes of a run that loads in parallel; nil for a run that loads serially — one job, one
  /// input or one lane, a store whose driver loads no lanes (SQLite: one writer per file), or a
  /// validate run.
  package var lanePlan: LanePlan? {
    guard configuration.jobs > 1, inputs.count > 1, !configuration.isDryRun, !configuration.isChunked,
      configuration.database.driver is any ParallelLoadingDriver,
      !inputs.contains(where: { $0.input.isIncremental || $0.input.isSnapshot })
    else { return nil }
    let plan = LanePlan(schemas: inputs.map(\.dataset.schema))
    return plan.lanes.count > 1 ? plan : nil
  }

  /// What a run opened, for the report whatever happened.
  package struct Opened {
    var outputs: RunOutputs?
    package var store: (any Store)?
  }

  // MARK: - Inputs

  /// Opens one input, reads it to its end with `body` and closes it, counting what its records
  /// did as its own; `body` returns the rows they wrote.
  ///
  /// `resuming` is the input a checkpointed run stopped in (`PipelineRunner+Checkpoint`): it is
  /// read again from its start, its first results taken from the reader without being decoded.
  package func read(
    _ source: Source, index: Int? = nil, state: inout RunState, resuming: InputProgress.Saved? = nil,
    _ body: (any RecordReader, any RecordLoading, inout RunState) throws -> [String: Int]
  ) throws {
    // A run that writes hashes each input as it reads it, for the input ledger. A FIFO's writer
    // is waited for as long as an output FIFO's reader: `busyTimeout`.
    let stream = try opening(source.input.path) {
      try Input(path: $0, digesting: !configuration.isDryRun, writerWait: configuration.busyTimeoutSeconds)
    }
    let reader = makeReader(for: source.input, source: stream)
    var rowsWritten: [String: Int] = [:]
    if let resuming {
      state.resume(resuming, input: source.input, stream: stream)
      try skip(resuming.consumed, of: reader, path: source.input.path)
      rowsWritten = resuming.rowsWritten
    } else {
      state.begin(source.input, dataset: source.dataset.name, stream: stream, index: index)
    }
    state.quarantine?.csv = (reader as? CSVRecordReader).map { ($0.dialect, $0.columns) }
    rowsWritten.merge(try body(reader, source.dataset.makeRecordLoop(configuration), &state), uniquingKeysWith: +)
    state.endInput(rowsWritten: rowsWritten, digest: try stream.finishDigest())
  }

  /// The record reader for an input: the one place a format becomes a reader.
  private func makeReader(for input: PipelineInput, source: Input) -> any RecordReader {
    if configuration.mode == .replay { return QuarantineReader(source: source) }
    return RecordReaders.make(
      format: input.format, recordPath: input.recordPath, source: source, dialect: input.dialect)
  }

  /// Every required input is there and readable: a missing one fails the run before the
  /// database is opened, let alone written. An optional input that is missing (a dump folder
  /// without `PostHistory.xml`) is a warning of the read stage naming it, and its place is
  /// returned: the run skips it. So is each file a glob matched and its `exclude` left out.
  ///
  /// The check looks and never opens: each input is opened exactly once, when it is read. A
  /// FIFO opened here and closed again would block until its writer came, then cut the writer
  /// off (SIGPIPE) or lose what it wrote before the second open.
  private func checkInputsExist(state: inout RunState) throws -> Set<Int> {
    var missing: Set<Int> = []
    for (index, source) in inputs.enumerated() where source.input.path != "-" {
      guard let problem = Self.problem(reading: source.input) else { continue }
      guard source.input.isOptional else {
        throw RunAbort(failure: .init(kind: .inputMissing, message: "\(source.input.path): \(problem)"))
      }
      missing.insert(index)
      var warning = Issue(
        stage: .read, severity: .warning, code: .missingInput, location: nil,
        message: "the optional input is not there (\(problem)); the run goes on without it")
      warning.input = source.input.path
      state.ledger.warn(warning)
    }
    for excluded in configuration.excludedInputs {
      var warning = Issue(
        stage: .read, severity: .warning, code: .excludedInput, location: nil,
        message:
          "not read: the file matches the input \(excluded.pattern) (\(excluded.dataset)), and its name the input's exclude '\(excluded.exclusion)'"
      )
      warning.input = excluded.path
      state.ledger.warn(warning)
    }
    return missing
  }

  /// Why `input` cannot be read, or nil when it can: it is missing, a pattern that matched no
  /// file, a directory, or not readable by this process.
  static func problem(reading input: PipelineInput) -> String? {
    let path = input.path
    if input.isUnmatchedPattern {
      var problem = "no file matches this pattern"
      let literal = PipelineSpec.unescaped(path)
      if FileManager.default.fileExists(atPath: literal) {
        problem +=
          "; a file of that very name exists — a path with *, ? or [ in a file's name is written with a backslash before each (\\[), as the shell takes it"
      }
      return problem
    }
    var status = stat()
    guard stat(path, &status) == 0 else {
      let code = errno
      return code == ENOENT ? "no such file" : "cannot open: \(OutputFile.reason(code))"
    }
    if status.st_mode & S_IFMT == S_IFDIR { return "is a directory" }
    if access(path, R_OK) != 0 { return "cannot open: \(OutputFile.reason(errno))" }
    return nil
  }

  /// An input that cannot be opened is missing or unreadable (exit 66), unlike one whose stream
  /// breaks while it is read (exit 74).
  private func opening<T>(_ path: String, _ body: (String) throws -> T) throws -> T {
    do {
      return try body(path)
    } catch let error as InputError {
      throw RunAbort(failure: .init(kind: .inputMissing, message: error.description))
    }
  }

  // MARK: - The load

  /// Loads every input in one transaction and returns the report the commit makes true.
  ///
  /// The store checks each row's foreign keys as it is written. (A first load could instead
  /// switch that off and prove every key with one `foreign_key_check` before the commit; on 1M
  /// orders the check cost as much as the per-row checks it saved, so it is not done.)
  /// Loads one input through a loader of its own, over its dataset's tables (what the loader
  /// caches it found in this transaction, which holds the earlier inputs' rows), and adds what
  /// the loading took to `totals`. Serial runs and each lane of a parallel one load alike.
  package func load(
    _ source: Source, index: Int, into store: any Store, savepoints: (any RecordSavepoints)?,
    mirror: SnapshotMirror? = nil, totals: inout LoadTotals, state: inout RunState,
    resuming: InputProgress.Saved? = nil
  ) throws {
    try read(source, index: index, state: &state, resuming: resuming) { reader, loop, state in
      let loader = try BatchLoader(
        store: store, schema: source.dataset.schema, conflict: configuration.conflict, savepoints: savepoints,
        mirror: mirror)
      defer { totals.add(loader.totals) }
      try loop.load(reader, loader: loader, state: &state)
      return loader.rowsWritten
    }
  }

  private func load(into store: some Store, outputs: RunOutputs, state: inout RunState) throws -> RunReport {
    try store.withTransaction {
      let (deferred, lookupRows) = try migrateSchema(store)
      if inputs.contains(where: { $0.input.isIncremental || $0.input.isSnapshot }) {
        _ = try store.lockAgainstConcurrentRuns()
      }
      let savepoints = configuration.policy.invalidRecord == .skip ? try store.makeSavepoints() : nil
      let mirror = try makeMirror(store)
      var totals = LoadTotals()
      for (index, source) in inputs.enumerated() where !missingInputs.contains(index) {
        if source.input.isIncremental, try skipIfHeld(source, index: index, store: store, state: &state) { continue }
        try load(
          source, index: index, into: store, savepoints: savepoints, mirror: mirror, totals: &totals, state: &state)
      }
      state.keys.finish()
      try state.checkRejectRate()
      try state.checkSomethingLoaded()
      if let mirror { state.rowsDeleted = try deleteUnseen(mirror, state: &state) }
      try buildDeferredIndexes(deferred, in: store)
      let rowsWritten = state.rowsWrittenByInputs.merging(lookupRows, uniquingKeysWith: +)
      // The report as the commit will make it true: the tables counted inside the
      // transaction hold what the commit leaves.
      var report = makeReport(
        state, failure: nil, rowsWritten: rowsWritten,
        tableRows: configuration.countsTableRows ? countRows(store) : [:], committed: true)
      totals.fill(&report)
      var entry = report.auditEntry
      entry.inputLedger = state.inputLedger
      try store.recordAudit(entry)
      try outputs.stage(report)
      return report
    }
  }

  /// Applies the schema's missing migrations, all but the deferrable indexes of a fresh schema
  /// (returned, to build after the load), and brings the lookup tables in line with their enums
  /// (the rows that changed, per table).
  /// `stillDeferred`: indexes an interrupted run deferred, which its resume defers too.
  package func migrateSchema(
    _ store: some Store, stillDeferred: Set<String> = []
  ) throws -> (deferred: [Migration], lookupRows: [String: Int]) {
    let deferred = try Migrator.migrate(
      store, schema.migrations(dialect: store.dialect), deferringIndexesOfNewTables: true,
      stillDeferred: stillDeferred
    ).deferred
    var lookupRows: [String: Int] = [:]
    for lookup in schema.lookups {
      let synchronized = try LookupTable.synchronize(lookup, in: store)
      let rows = synchronized.inserted + synchronized.updated + synchronized.retired
      if rows > 0 { lookupRows[lookup.table, default: 0] += rows }
    }
    return (deferred, lookupRows)
  }

  /// Builds the indexes a fresh schema's load deferred (`locking: false` for a parallel run's
  /// lane). An entry too large for one (PostgreSQL's B-tree limit) is the data's fault, but built
  /// over the loaded table it belongs to no record the run can name: the run fails on its data.
  package func buildDeferredIndexes(_ deferred: [Migration], in store: some Store, locking: Bool = true) throws {
    guard !deferred.isEmpty else { return }
    try store.prepareForIndexBuild()
    do {
      try Migrator.migrate(store, deferred, locking: locking)
    } catch let error as any StoreError {
      guard case .constraint(let violation) = error.failure, violation.kind == .tooLarge else { throw error }
      let declared = schema.tables.flatMap(\.indexes).first { $0.name == violation.name }
      let index = violation.name.map { "index \($0)" } ?? "an index built after the load"
      let names = violation.columns.isEmpty ? declared?.columns ?? [] : violation.columns
      let columns = names.isEmpty ? "" : " on \(names.joined(separator: ", "))"
      throw RunAbort(
        failure: .init(
          kind: .data,
          message:
            "a value is too large for \(index)\(violation.table.map { " of \($0)" } ?? "")\(columns): \(error.message); the index is built after a first load, so the record cannot be named; nothing was written"
        ))
    }
  }

  // MARK: - Outcome

  /// Records a failure in the audit tables, publishes the outputs, and returns the final report.
  /// A plan (`planned`, or a failed plan) records nothing.
  private func finish(_ run: RunState, _ opened: Opened, committed: RunReport?, planned: RunReport? = nil) -> RunReport
  {
    if let store = opened.store, committed == nil, !run.auditSettled, configuration.mode != .plan {
      recordFailure(run, store: store)
    }
    var report =
      committed ?? planned
      ?? makeReport(run, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
    if let outputs = opened.outputs {
      let chunked = committed != nil && (configuration.isChunked || configuration.stages)
      if chunked { configuration.chunkCommitHook?(.finished) }
      report.outputErrors = outputs.finish(report, committed: committed != nil, files: !run.leavesOutputFiles)
      if chunked, report.outputErrors.isEmpty { settlePublication(run, store: opened.store) }
      if !report.outputErrors.isEmpty, report.failure == nil, !report.committed {
        // A dry run has nothing committed to protect: an output it could not write fails it.
        report.status = .failed
        report.failure = .init(kind: .io, message: report.outputErrors.joined(separator: "; "))
      }
    }
    return report
  }

  package func classify(_ error: any Error, state: inout RunState) -> RunReport.Failure {
    switch error {
    case let abort as RunAbort:
      return abort.failure
    case let error as RecordReadError:
      state.ledger.countRejected(at: .read)
      state.ledger.collect(
        Issue(stage: .read, code: error.code, location: error.location, path: error.path, message: error.message))
      let input = state.ledger.input.map { "input \($0)" } ?? "input"
      // Deflate data damaged mid-stream inflates to garbage before zlib's checksum notices, so
      // a syntax error in gzip input may be a symptom: read to the end to find the real cause.
      if let stream = state.currentStream, stream.isGzip, let streamError = stream.drain() {
        return .init(
          kind: .io,
          message: "\(streamError.description); the JSON error at line \(error.location.line) is a consequence")
      }
      return .init(
        kind: .data,
        message:
          "\(input) is malformed at line \(error.location.line), byte \(error.location.byteOffset): \(error.message)")
    case let error as InputError:
      // Inputs that cannot be opened were reported as missing when opened (`opening`): this
      // stream broke while being read.
      return .init(kind: .io, message: error.description)
    case let error as any StoreError:
      switch error.failure {
      case .busy:
        state.waitedForLock = true
        return .init(
          kind: .io,
          message:
            "database \(configuration.databaseDescription) is locked by another process (waited \(configuration.busyTimeoutDescription))"
        )
      case .full:
        return .init(
          kind: .io,
          message: "database \(configuration.databaseDescription) is full: \(error.message); nothing was written")
      case .constraint, .other:
        return .init(kind: .io, message: "database error: \(error)")
      }
    case let error as MigrationError:
      return .init(
        kind: .cannotCreateOutput, message: "database \(configuration.databaseDescription): \(error.message)")
    case let error as OutputError:
      return .init(kind: error.kind == .cannotCreate ? .cannotCreateOutput : .io, message: error.message)
    default:
      return .init(kind: .io, message: "\(error)")
    }
  }

  /// Records a failed run in the audit tables, in a transaction of its own after the rollback.
  /// Best effort: a database that cannot take even that (locked, full) keeps the failure as is.
  /// After a lock timeout it tries once without waiting, so a locked run waits one timeout, not two.
  private func recordFailure(_ run: RunState, store: some Store) {
    if run.waitedForLock { store.busyTimeoutMilliseconds = 0 }
    let report = makeReport(run, failure: run.failure, rowsWritten: [:], tableRows: [:], committed: false)
    _ = try? store.withTransaction { try store.recordAudit(report.auditEntry) }
  }

  // MARK: - The report

  package func makeReport(
    _ run: RunState, failure: RunReport.Failure?, rowsWritten: [String: Int], tableRows: [String: Int],
    committed: Bool
  ) -> RunReport {
    let (sections, omitted) = inputSections(run)
    let paths = sections.prefix(RunReport.inputPathLimit).map(\.path)
    let unnamed = sections.count + omitted.count - paths.count
    var report = RunReport(
      mode: configuration.mode.rawValue, pipeline: configuration.name, dataset: datasetName,
      policy: configuration.policy.summary, conflict: configuration.conflict.rawValue,
      database: configuration.isDryRun ? "" : configuration.databaseDescription,
      status: failure == nil ? .succeeded : .failed, failure: failure,
      startedAt: run.startedAt, finishedAt: Date(),
      durationSeconds: Double(Stopwatch.now() - run.clockStart) / 1e9,
      peakMemoryBytes: ProcessMemory.peakResidentBytes(),
      input: .init(
        path: paths.joined(separator: ", ") + (unnamed > 0 ? ", … and \(unnamed) more" : ""),
        format: Self.joined(sections.map(\.format)),
        gzip: sections.contains { $0.gzip },
        compressedBytes: sections.map(\.compressedBytes).reduce(omitted.compressedBytes, +),
        decompressedBytes: sections.map(\.decompressedBytes).reduce(omitted.decompressedBytes, +)),
      inputs: sections,
      stages: run.ledger.statistics,
      issueCounts: Dictionary(uniqueKeysWithValues: run.ledger.issues.counts.map { ($0.key.rawValue, $0.value) }),
      issueSampleLimit: configuration.issueSampleLimit,
      issues: run.ledger.issues.samples, checks: run.ledger.checks(dryRun: configuration.isDryRun),
      drift: run.ledger.drift.summary, coercions: run.ledger.coercions,
      skippedByDesign: run.ledger.skippedByDesign.isEmpty ? nil : run.ledger.skippedByDesign,
      quarantined: run.quarantine?.count ?? 0,
      rowsWritten: rowsWritten, tableRows: tableRows, committed: committed, outputErrors: [])
    report.inputsOmitted = omitted.count > 0 ? omitted : nil
    report.duplicateKeys = run.ledger.duplicateKeys.isEmpty ? nil : run.ledger.duplicateKeys
    report.inputsSkipped = run.skippedInputs > 0 ? run.skippedInputs : nil
    report.rowsDeleted = run.rowsDeleted
    run.loadTotals?.fill(&report)
    report.baselineChanges = run.baselineChanges
    report.notes = run.notes.isEmpty ? nil : run.notes
    return report
  }

  /// A section per input — its share of the run's counts, or nothing for an input never opened
  /// — for the first `RunReport.inputSectionLimit` inputs, and the rest summed.
  private func inputSections(_ run: RunState) -> ([RunReport.InputSection], OmittedInputs) {
    let now = run.ledger.snapshot()
    var sections: [RunReport.InputSection] = []
    var omitted = run.omitted
    // A serial run folds the inputs it opened past the limit, in order, as they end; the ones
    // after them were never opened (or are missing optional ones, never opened either).
    var foldedLeft = run.omitted.count
    for (index, source) in inputs.enumerated() {
      var section: RunReport.InputSection
      if let progress = run.progress(ofInput: index) {
        section = progress.section(format: run.formatName(of: source.input), now: now)
      } else if index < RunReport.inputSectionLimit || foldedLeft == 0 || missingInputs.contains(index)
        || run.incremental[index]?.skipped != nil
      {
        section = RunReport.InputSection(
          path: source.input.path, format: run.formatName(of: source.input), dataset: source.dataset.name,
          opened: false, gzip: false, compressedBytes: 0, decompressedBytes: 0,
          stages: Stage.allCases.map(StageStatistics.init), issueCounts: [:], coercions: 0, rowsWritten: [:])
      } else {
        foldedLeft -= 1
        continue  // Folded into `run.omitted` when it ended.
      }
      if let note = run.incremental[index] {
        section.skipped = note.skipped
        section.changedSinceRunId = note.changedSinceRun
      }
      if index < RunReport.inputSectionLimit {
        sections.append(section)
      } else {
        omitted.add(section)
      }
    }
    return (sections, omitted)
  }

  /// The datasets' names, each once, joined by `+`: `fruits`, or `devices+alerts`.
  private var datasetName: String { Self.joined(inputs.map(\.dataset.name)) }

  /// Every input's dataset's validation rules, each once: the contract's checks.
  package var rules: [ValidationRule] {
    var rules: [ValidationRule] = []
    for source in inputs {
      for rule in source.dataset.rules where !rules.contains(where: { $0.name == rule.name }) {
        rules.append(rule)
      }
    }
    return rules
  }

  /// Distinct names in first-seen order, joined by `+`.
  private static func joined(_ names: [String]) -> String {
    var distinct: [String] = []
    for name in names where !distinct.contains(name) { distinct.append(name) }
    return distinct.joined(separator: "+")
  }

  // MARK: - Resources

  /// Opens the run's database through its driver. One that cannot be created is exit 73; a
  /// server that cannot be reached or refuses the login is an I/O failure (exit 74) naming the
  /// server without its password; a lock held past the busy timeout is the store's busy error.
  package func openDatabase(_ target: DatabaseTarget? = nil) throws -> any Store {
    do {
      return try configuration.database.driver.openForRun(
        target ?? configuration.database, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
    } catch let error as StoreOpenError {
      switch error.kind {
      case .cannotCreate: throw OutputError(kind: .cannotCreate, message: error.message)
      case .unreachable: throw RunAbort(failure: .init(kind: .io, message: error.message))
      case .missing: throw RunAbort(failure: .init(kind: .inputMissing, message: error.message))
      }
    }
  }

  /// A new folder under the temporary directory that only this process can name (`mkdtemp`,
  /// mode 0700).
  private static func privateFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/sluice-plan-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
    guard made != nil else {
      throw OutputError(
        kind: .cannotCreate,
        message: "cannot create a folder for the plan's empty database: \(String(cString: strerror(errno)))")
    }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  package func countRows(_ store: some Store) -> [String: Int] {
    countRows { _ in store }
  }

  /// Every table's rows, each counted by the connection `store(table)` names (in a parallel run
  /// only the connection that wrote a table sees its rows before the commit); a table that
  /// cannot be counted is left out.
  package func countRows(through store: (String) -> any Store) -> [String: Int] {
    var rows: [String: Int] = [:]
    for table in schema.tableNames {
      let connection = store(table)
      if let count = try? connection.scalarInt("SELECT count(*) FROM \(connection.dialect.quote(table))") {
        rows[table] = Int(count)
      }
    }
    return rows
  }
}
