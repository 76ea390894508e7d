/// How a run does its work between opening its outputs and finishing its report: one type per
/// mode, in a folder of its own under `Modes/`, each holding its own state and given the run's
/// services (`RunServices`), never the runner. `PipelineRunner.strategy()` picks it by an
/// exhaustive `switch` over the run's mode value (`Execution`):
///
/// | Execution | Strategy | What it does | Outcome |
/// |---|---|---|---|
/// | `.validate(_)` | `ValidateRun` | every stage but the writes, no database but a read-only one (`--db`) | checked |
/// | `.plan(_)` | `PlanRun` | the whole load in a transaction rolled back, compared table by table | planned |
/// | `.run(.staged(_))` | `StagedRun` | a checkpointed run into a side database, published in one transaction | committed |
/// | `.run(.chunked(_))` | `CheckpointedRun` | committed chunk by chunk, resumable | committed |
/// | `.run(.lanes(_))` | `ParallelRun` | lanes over several connections of a driver that loads lanes | committed |
/// | `.run(.once)` | `SerialRun` | every input in one transaction | committed |
///
/// (`.replay` commits as `.run` does, from a rejects file.) Everything around the strategy is the
/// runner's, the same for each: the run's files checked, the outputs opened, the inputs checked
/// to exist; afterwards the failure classified, a failed run recorded in the audit tables, the
/// report made and the outputs published.
protocol RunStrategy {
  /// Reads the inputs and loads, checks or plans them; throws the failure the run reports.
  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome

  /// Adds what only this mode reports to a report the runner made from the state: a failed
  /// run's, or a validate run's.
  func complete(_ report: inout RunReport)

  /// Whether the strategy recorded the run's outcome in the audit tables itself (a parallel
  /// run's commit log), so the runner adds no row for its failure.
  var settledItsAudit: Bool { get }

  /// Whether a failed run of this mode is recorded in the audit tables (a plan writes nothing,
  /// not even that).
  var recordsFailure: Bool { get }

  /// A committed run's outputs are about to be put in place.
  func willPublish()

  /// A committed run's outputs are in place; `store` is the run's connection, if still open.
  func didPublish(store: (any Store)?)

  /// Removes what the strategy made for itself, once the report is finished and what it opened
  /// is closed.
  func cleanUp()
}

extension RunStrategy {
  func complete(_ report: inout RunReport) {}
  var settledItsAudit: Bool { false }
  var recordsFailure: Bool { true }
  func willPublish() {}
  func didPublish(store: (any Store)?) {}
  func cleanUp() {}
}

/// What a strategy's run came to, when it did not fail.
enum RunOutcome {
  /// Committed; the report is the one the commit made true.
  case committed(RunReport)
  /// A plan's report; nothing was written.
  case planned(RunReport)
  /// A validate run's checks passed; its report is made from its state.
  case checked
}

extension PipelineRunner {
  /// The strategy of this run's mode.
  func strategy() -> any RunStrategy {
    switch execution {
    case .validate(let options): ValidateRun(services: services, options: options)
    case .plan(let options): PlanRun(services: services, options: options)
    case .run(let commit), .replay(let commit): strategy(committing: commit)
    }
  }

  private func strategy(committing commit: Execution.Commit) -> any RunStrategy {
    switch commit {
    case .once: SerialRun(services: services)
    case .chunked(let checkpointing): CheckpointedRun(services: services, checkpointing: checkpointing)
    case .staged(let checkpointing): StagedRun(services: services, checkpointing: checkpointing)
    case .lanes(let lanes): ParallelRun(services: services, lanes: lanes)
    }
  }
}
