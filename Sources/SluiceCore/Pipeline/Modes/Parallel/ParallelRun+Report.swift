/// One report from a parallel run's lanes: their states merged as a serial run would have kept
/// them, and the failure a serial run would have reported.
extension ParallelRun {
  /// Puts the lanes' states together into `state` as a serial run would have kept it: counts
  /// summed, inputs, issue samples and rejects in input order.
  func merge(_ workers: [LaneWorker], into state: inout RunState, outputs: RunOutputs) throws {
    let lanes = workers.compactMap(\.state)
    var samples: [(input: Int, issues: ArraySlice<Issue>)] = []
    var progress: [InputProgress] = []
    for lane in lanes {
      let all = lane.ledger.issues.samples
      for (position, input) in lane.inputs.enumerated() {
        let end = position + 1 < lane.inputs.count ? lane.inputs[position + 1].firstSample : all.count
        samples.append((input.index, all[input.firstSample..<end]))
        progress.append(input)
      }
      if lane.waitedForLock { state.waitedForLock = true }
    }
    samples.sort { $0.input < $1.input }
    let ledger = RunLedger.merging(
      lanes.map(\.ledger), issueSamples: samples.flatMap(\.issues), issueSampleLimit: configuration.issueSampleLimit,
      rules: services.rules)
    state.adopt(ledger: ledger, inputs: progress)
    state.adopt(inputLedger: lanes.flatMap(\.inputLedger))
    // The rejects, in input order: each input's lines from its lane's spool.
    guard let rejects = state.quarantine else { return }
    var spoolOfInput: [Int: QuarantineWriter] = [:]
    for lane in lanes {
      for input in lane.inputs { spoolOfInput[input.index] = lane.quarantine }
    }
    for input in state.inputs {
      try spoolOfInput[input.index]?.file.copy(input.quarantineBytes, to: rejects.file)
    }
    for lane in lanes { rejects.countCopied(lane.quarantine?.count ?? 0) }
  }

  /// The failure a serial run would have reported, given the earliest input's failure, if any:
  /// every input before that one was read to its end, and that one up to its failure, so their
  /// rejects, counted in input order, show whether a serial run would have spent the absolute
  /// error budget first. (A lane counts what the inputs before its own have rejected so far, so
  /// a budget spent while an earlier input was still loading elsewhere is noticed only here.)
  func serialFailure(_ first: (input: Int, failure: RunReport.Failure)?, state: RunState)
    -> RunReport.Failure?
  {
    guard let maxRejects = configuration.policy.maxRejects, configuration.policy.invalidRecord == .skip else {
      return first?.failure
    }
    let budget = RunState.budgetExceeded(maxRejects)
    if let first, first.failure == budget { return budget }
    let now = state.ledger.snapshot()
    var rejected = 0
    for input in state.inputs where input.index <= first?.input ?? Int.max {
      rejected += input.counts(now: now).rejectedRecords
      if rejected > maxRejects { return budget }
    }
    return first?.failure
  }
}
