import Foundation

/// One run's state and the policy's verdicts: each rejected record is quarantined and judged —
/// a strict run stops at the first, a lenient one when its budget is spent — and so is the run
/// as a whole once the input is read. The counting is the ledger's.
struct RunState {
  let policy: Policy
  let isDryRun: Bool
  let failsOnWarnings: Bool
  let startedAt = Date()
  let clockStart = Stopwatch.now()
  var ledger: RunLedger
  var quarantine: QuarantineWriter?
  var failure: RunReport.Failure?
  /// The run failed because another connection held the database past the busy timeout.
  var waitedForLock = false

  init(configuration: PipelineConfiguration, rules: [ValidationRule]) {
    policy = configuration.policy
    isDryRun = configuration.isDryRun
    failsOnWarnings = configuration.failsOnWarnings
    ledger = RunLedger(issueSampleLimit: configuration.issueSampleLimit, rules: rules)
  }

  /// A rejected record: collects its issues, quarantines it, and applies the policy — a strict
  /// run stops at the first, a lenient one when its budget is spent. A dry run always goes on.
  /// `record` is the record's own place (issues may point at a byte inside it).
  mutating func reject(_ recordIssues: [Issue], raw: [UInt8]?, record: RecordLocation? = nil) throws {
    ledger.rejected(recordIssues)
    if let quarantine, let raw, let location = record ?? recordIssues.first?.location {
      try quarantine.write(location: location, bytes: raw, issues: recordIssues)
    }
    guard !isDryRun, let first = recordIssues.first else { return }
    if policy.invalidRecord == .fail {
      let place = first.location.map { "record \($0.ordinal) (line \($0.line))" } ?? "the input"
      let path = first.path.isEmpty ? "" : "\(first.path): "
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: "\(policy.preset.rawValue) policy: \(first.stage.rawValue) rejected \(place): \(path)\(first.code): \(first.message); nothing was written"))
    }
    if let maxRejects = policy.maxRejects, ledger.rejectedRecords > maxRejects {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: "error budget exceeded: more than \(maxRejects) rejected record(s); the run was rolled back"))
    }
  }

  /// The rate half of the error budget, checked once the whole input has been read.
  func checkRejectRate() throws {
    guard let maxRejectRate = policy.maxRejectRate else { return }
    let read = ledger.recordsRead
    guard read > 0 else { return }
    let rate = Double(ledger.rejectedRecords) / Double(read)
    if rate > maxRejectRate {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: String(
            format: "error budget exceeded: %d of %d records rejected (%.2f%% > %.2f%%); the run was rolled back",
            ledger.rejectedRecords, read, rate * 100, maxRejectRate * 100)))
    }
  }

  /// A run that rejected every record of a non-empty input fails whatever its budget — a wrong
  /// `--format` or record path looks exactly like that — unless the policy allows it.
  func checkSomethingLoaded() throws {
    let read = ledger.recordsRead
    guard read > 0, ledger.rejectedRecords >= read, !policy.allowsNothingLoaded else { return }
    throw RunAbort(
      failure: .init(
        kind: .data,
        message: "all \(read) record(s) read were rejected and none was loaded; check the format and the record path, or set policy.allowNothingLoaded; the run was rolled back"))
  }

  /// A dry run fails when it found any error (or, when asked, any warning).
  func finishDryRun() throws {
    if ledger.issues.errorCount > 0 {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: "validation found \(ledger.issues.errorCount) error(s) in \(ledger.rejectedRecords) record(s)"))
    }
    if failsOnWarnings && ledger.issues.warningCount > 0 {
      throw RunAbort(
        failure: .init(kind: .data, message: "validation found \(ledger.issues.warningCount) warning(s) (--fail-on-warnings)"))
    }
  }

}
