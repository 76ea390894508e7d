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
  /// The configuration, inputs and schema, with what every mode does alike: what a strategy is
  /// given (`RunStrategy`).
  package private(set) var services: RunServices
  /// The run's mode, with only what applies to it (`Execution`).
  package let execution: Execution

  package var configuration: PipelineConfiguration { services.configuration }
  /// Each input with the dataset its records are read as, in load order.
  package var inputs: [Source] { services.inputs }
  /// Every input's dataset's tables, each once.
  package var schema: Schema { services.schema }

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
    if let problem = Self.historyProblem(configuration: configuration, datasets: datasets) {
      throw PipelineError(message: problem)
    }
    var configuration = configuration
    for file in datasets.flatMap(\.files) where !configuration.datasetFiles.contains(file) {
      configuration.datasetFiles.append(file)
    }
    if let ignored = configuration.ignoredSetting {
      throw PipelineError(message: ignored)
    }
    let schema: Schema
    do {
      schema = try Schema.union(datasets.map(\.schema))
    } catch {
      throw PipelineError(message: "the datasets cannot load together: \(error)")
    }
    services = RunServices(
      configuration: configuration, inputs: zip(configuration.inputs, datasets).map(Source.init), schema: schema)
    execution = Execution(configuration, lanePlan: Self.lanePlan(configuration, services.inputs))
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
    var run = RunState(configuration: configuration, rules: services.rules)
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
      services.missingInputs = try services.checkInputsExist(state: &run)
      strategy = self.strategy()
      outcome = try strategy?.execute(outputs: outputs, state: &run, opened: &opened)
    } catch {
      run.failure = services.classify(error, state: &run)
      if let abort = error as? RunAbort, abort.leavesOutputFiles {
        run.leavesOutputFiles = true
        if opened.outputs?.writesFiles == true {
          run.failure?.message += "; " + RunAbort.outputFilesLeftNote
        }
      }
      if run.waitedForLock, strategy?.settledItsAudit != true, let store = opened.store {
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
    let report = finish(run, opened, strategy: strategy, committed: committed, planned: planned)
    opened.store = nil
    strategy?.cleanUp()
    return report
  }

  /// The lanes of a run that loads in parallel; nil for a run that loads serially — one job, one
  /// input or one lane, a store whose driver loads no lanes (SQLite: one writer per file), or a
  /// validate, plan or checkpointed run.
  package var lanePlan: LanePlan? { Self.lanePlan(configuration, inputs) }

  private static func lanePlan(_ configuration: PipelineConfiguration, _ inputs: [Source]) -> LanePlan? {
    guard configuration.parallelism.jobs > 1, inputs.count > 1,
      configuration.mode == .run || configuration.mode == .replay,
      configuration.checkpointing == nil, configuration.database.driver is any ParallelLoadingDriver,
      !inputs.contains(where: { $0.input.isIncremental || $0.input.isSnapshot })
    else { return nil }
    let plan = LanePlan(schemas: inputs.map(\.dataset.schema))
    return plan.lanes.count > 1 ? plan : nil
  }

  /// Opens the run's database through its driver (`RunServices.openDatabase`).
  package func openDatabase() throws -> any Store { try services.openDatabase() }

  /// What a run opened, for the report whatever happened.
  package struct Opened {
    var outputs: RunOutputs?
    package var store: (any Store)?
  }
}
