/// What a run does and how it commits, as one value whose payloads carry only what applies to
/// that mode: a validate run has no chunks, a plan no lanes, a serial run no baseline.
/// `PipelineRunner` resolves it once from the configuration — after refusing a configuration
/// that sets what its mode would ignore (`PipelineConfiguration.ignoredSetting`) — and
/// `PipelineRunner.strategy()` switches over it.
package enum Execution: Sendable {
  /// Reads the inputs and loads them, committing as `Commit` says.
  case run(Commit)
  /// Reads a rejects file of an earlier run and loads its records, committing as a run does.
  case replay(Commit)
  /// Every stage but the writes.
  case validate(ValidateOptions)
  /// The whole load in a transaction rolled back, compared table by table.
  case plan(PlanOptions)

  /// How a run or replay commits.
  package enum Commit: Sendable {
    /// Every input in one transaction (`SerialRun`).
    case once
    /// Chunk by chunk with checkpoints, resumable (`CheckpointedRun`).
    case chunked(PipelineConfiguration.Checkpointing)
    /// Checkpointed into a side database published in one transaction (`StagedRun`).
    case staged(PipelineConfiguration.Checkpointing)
    /// Lanes over several connections, committed together (`ParallelRun`).
    case lanes(Lanes)
  }

  /// A parallel run's lanes, the driver whose connections load them, and how they commit.
  package struct Lanes: Sendable {
    package let plan: LanePlan
    package let driver: any ParallelLoadingDriver
    package let jobs: Int
    package let commit: PipelineConfiguration.LaneCommit
  }

  /// What a validate run checks besides the contract.
  package struct ValidateOptions: Sendable {
    /// The database to check references and keys against, read only (`validate --db`).
    package var checksDatabase: Bool
    /// The saved inspection the input is compared with, and what compares it (`--baseline`).
    package var baselinePath: String?
    package var baselineComparison: BaselineComparison?
    /// Warnings fail the run too (`--fail-on-warnings`).
    package var failsOnWarnings: Bool
  }

  /// What a plan judges besides what it reports.
  package struct PlanOptions: Sendable {
    /// The plan fails when the run would change more (`--max-changes`).
    package var maxChanges: ChangeLimit?
  }
}

extension Execution {
  /// The mode value of `configuration`, whose inputs load in `lanePlan`'s lanes when it has
  /// them; the configuration is one `ignoredSetting` found nothing in.
  init(_ configuration: PipelineConfiguration, lanePlan: LanePlan?) {
    switch configuration.mode {
    case .validate:
      self = .validate(
        ValidateOptions(
          checksDatabase: configuration.checksDatabase, baselinePath: configuration.baselinePath,
          baselineComparison: configuration.baselineComparison, failsOnWarnings: configuration.failsOnWarnings))
    case .plan:
      self = .plan(PlanOptions(maxChanges: configuration.maxChanges))
    case .run:
      self = .run(Self.commit(of: configuration, lanePlan: lanePlan))
    case .replay:
      self = .replay(Self.commit(of: configuration, lanePlan: lanePlan))
    }
  }

  private static func commit(of configuration: PipelineConfiguration, lanePlan: LanePlan?) -> Commit {
    if let checkpointing = configuration.checkpointing {
      return checkpointing.staged ? .staged(checkpointing) : .chunked(checkpointing)
    }
    if let lanePlan, let driver = configuration.database.driver as? any ParallelLoadingDriver {
      return .lanes(
        Lanes(
          plan: lanePlan, driver: driver, jobs: configuration.parallelism.jobs,
          commit: configuration.parallelism.commit))
    }
    return .once
  }
}
