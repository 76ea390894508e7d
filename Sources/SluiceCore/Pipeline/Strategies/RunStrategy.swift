/// How a run does its work between opening its outputs and finishing its report: one type per
/// mode, each holding what only it needs, chosen once from the configuration
/// (`PipelineRunner.strategy()`):
///
/// | Strategy | Mode | Outcome |
/// |---|---|---|
/// | `ValidateRun` | `validate`: every stage but the writes, no database but a read-only one (`--db`) | checked |
/// | `PlanRun` | `plan`: the whole load in a transaction rolled back, compared table by table | planned |
/// | `StagedRun` | `--stage`: a checkpointed run into a side database, published in one transaction | committed |
/// | `CheckpointedRun` | `--checkpoint-every`: committed chunk by chunk, resumable | committed |
/// | `ParallelRun` | `--jobs N` on a driver that loads lanes: lanes over several connections | committed |
/// | `SerialRun` | anything else: every input in one transaction | committed |
///
/// Everything around the strategy is the runner's, the same for each: the run's files checked,
/// the outputs opened, the inputs checked to exist; afterwards the failure classified, a failed
/// run recorded in the audit tables, the report made and the outputs published.
protocol RunStrategy {
  /// Reads the inputs and loads, checks or plans them; throws the failure the run reports.
  mutating func execute(
    outputs: RunOutputs, state: inout RunState, opened: inout PipelineRunner.Opened
  ) throws -> RunOutcome

  /// Removes what the strategy made for itself, once the report is finished and what it opened
  /// is closed.
  func cleanUp()
}

extension RunStrategy {
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
    if configuration.isDryRun { return ValidateRun(runner: self) }
    if configuration.mode == .plan { return PlanRun(runner: self) }
    if configuration.isStaged { return StagedRun(runner: self) }
    if configuration.isChunked { return CheckpointedRun(runner: self) }
    if let plan = lanePlan, let driver = configuration.database.driver as? any ParallelLoadingDriver {
      return ParallelRun(runner: self, plan: plan, driver: driver)
    }
    return SerialRun(runner: self)
  }
}
