/// Settings a run would take and then ignore — a validate run's chunks, a plan's lanes, a
/// baseline on a plain run — are refused before anything runs, with a sentence naming both
/// settings (by their command-line options, which the spec's keys and the configuration's
/// properties follow): by `PipelineRunner` (the Swift API), by the command line (exit 64), and,
/// for what a spec alone can say, by `PipelineSpec`. A run's mode value (`Execution`) then
/// carries only what applies to it.
extension PipelineConfiguration {
  /// The first setting of this configuration that its run would ignore, as a sentence naming it
  /// and what it does not go with; nil when every setting applies.
  package var ignoredSetting: String? {
    let command = mode.rawValue
    switch mode {
    case .validate, .plan:
      let writes = mode == .validate ? "writes nothing" : "commits nothing"
      if let checkpointing {
        return
          "\(command) and \(Self.option(of: checkpointing)) do not go together: \(command) \(writes), so it has no chunk to commit; drop \(Self.option(of: checkpointing))"
      }
      if parallelism.jobs > 1 {
        return
          "\(command) and --jobs \(parallelism.jobs) do not go together: \(command) reads its inputs one after another on one connection; drop --jobs"
      }
      if parallelism.commit != .automatic {
        return
          "\(command) and --lane-commit \(parallelism.commit.rawValue) do not go together: \(command) \(writes); drop --lane-commit"
      }
    case .run, .replay:
      if let checkpointing, parallelism.jobs > 1 {
        return
          "--jobs \(parallelism.jobs) and \(Self.option(of: checkpointing)) do not go together: a checkpointed run commits chunk by chunk on one connection, so the inputs would load one after another; drop one"
      }
      if let checkpointing, let snapshot = inputs.first(where: \.isSnapshot) {
        return
          "--snapshot (\(snapshot.path)) and \(Self.option(of: checkpointing)) do not go together: a checkpointed run commits in chunks, and a snapshot deletes what the whole run did not see, so it loads in one transaction; drop one"
      }
      if parallelism.jobs > 1, let input = inputs.first(where: { $0.isIncremental || $0.isSnapshot }) {
        let what = input.isIncremental ? "--incremental" : "--snapshot"
        return
          "--jobs \(parallelism.jobs) and \(what) (\(input.path)) do not go together: an incremental or snapshot run decides from the tables inside one transaction, so its inputs load one after another; drop one"
      }
      if parallelism.commit != .automatic && parallelism.jobs < 2 {
        return
          "--lane-commit \(parallelism.commit.rawValue) applies to a run with --jobs 2 or more, and this one has --jobs \(parallelism.jobs): give --jobs, or drop --lane-commit"
      }
    }
    if mode != .validate {
      if baselinePath != nil {
        return "\(command) and --baseline do not go together: only validate compares its input with a baseline"
      }
      if checksDatabase {
        return
          "\(command) and validate's --db checks do not go together: only validate checks references against a database it reads"
      }
      if failsOnWarnings {
        return "\(command) and --fail-on-warnings do not go together: only validate fails on warnings"
      }
    }
    if mode != .plan, let maxChanges {
      return "\(command) and --max-changes \(maxChanges.description) do not go together: only plan judges the changes"
    }
    if incremental.reloadsChanged || incremental.verifiesContent, !inputs.contains(where: \.isIncremental) {
      let option = incremental.reloadsChanged ? "--reload-changed" : "--verify-content"
      return
        "\(option) applies to an incremental run, and no input is incremental: give --incremental too, or drop \(option)"
    }
    if snapshot.maxDeleteRate != Snapshot().maxDeleteRate, !inputs.contains(where: \.isSnapshot) {
      return
        "--max-delete-rate applies to a snapshot run, and no input is a snapshot: give --snapshot too, or drop --max-delete-rate"
    }
    return nil
  }

  /// The option that made a run checkpointed, as the command line says it.
  private static func option(of checkpointing: Checkpointing) -> String {
    if checkpointing.staged { return "--stage" }
    switch checkpointing.start {
    case .resume: return "--resume"
    case .restart: return "--restart"
    case .fresh: return "--checkpoint-every"
    }
  }
}
