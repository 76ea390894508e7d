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
    var configuration = configuration
    for file in datasets.flatMap(\.files) where !configuration.datasetFiles.contains(file) {
      configuration.datasetFiles.append(file)
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

  /// Checks the run's files, opens its outputs and checks its inputs exist, then hands the run to
  /// its mode's strategy (`RunStrategy`); whatever happened, finishes the report.
  private mutating func runOnce() -> RunReport {
    var run = RunState(configuration: configuration, rules: rules)
    var opened = Opened()
    var strategy: (any RunStrategy)?
    var outcome: RunOutcome?
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
      strategy = self.strategy()
      outcome = try strategy?.execute(outputs: outputs, state: &run, opened: &opened)
    } catch {
      run.failure = classify(error, state: &run)
      if let abort = error as? RunAbort, abort.leavesOutputFiles {
        run.leavesOutputFiles = true
        if opened.outputs?.writesFiles == true {
          run.failure?.message += "; " + RunAbort.outputFilesLeftNote
        }
      }
      if run.waitedForLock, !run.auditSettled, let store = opened.store {
        run.failure?.message += store.lockHoldersNote(describing: configuration.database)
      }
    }
    var committed: RunReport?
    var planned: RunReport?
    switch outcome {
    case .committed(let report)?: committed = report
    case .planned(let report)?: planned = report
    case .checked?, nil: break
    }
    let report = finish(run, opened, committed: committed, planned: planned)
    opened.store = nil
    strategy?.cleanUp()
    return report
  }

  /// The lanes of a run that loads in parallel; nil for a run that loads serially — one job, one
  /// input or one lane, a store whose driver loads no lanes (SQLite: one writer per file), or a
  /// validate run.
  package var lanePlan: LanePlan? {
    guard configuration.parallelism.jobs > 1, inputs.count > 1, !configuration.isDryRun, !configuration.isChunked,
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

  // MARK: - The load

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
        mirror: mirror, budget: configuration.memoryBudget)
      defer { totals.add(loader.totals) }
      try loop.load(reader, loader: loader, state: &state)
      return loader.rowsWritten
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

  // MARK: - Resources

  /// Opens the run's database through its driver. One that cannot be created is exit 73; a
  /// server that cannot be reached or refuses the login is an I/O failure (exit 74) naming the
  /// server without its password; a lock held past the busy timeout is the store's busy error.
  /// Its page cache is the budget's share (`MemoryBudget`).
  package func openDatabase(_ target: DatabaseTarget? = nil) throws -> any Store {
    do {
      let store = try configuration.database.driver.openForRun(
        target ?? configuration.database, busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
      try store.usePageCache(bytes: configuration.memoryBudget.pageCacheBytes)
      return store
    } catch let error as StoreOpenError {
      switch error.kind {
      case .cannotCreate: throw OutputError(kind: .cannotCreate, message: error.message)
      case .unreachable: throw RunAbort(failure: .init(kind: .io, message: error.message))
      case .missing: throw RunAbort(failure: .init(kind: .inputMissing, message: error.message))
      }
    }
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
