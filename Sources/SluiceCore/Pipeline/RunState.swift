import Foundation

/// The bookkeeping of one run: counts, times, issues, drift, the quarantine, and the policy's
/// verdicts on rejected records.
struct RunState {
  let policy: Policy
  let isDryRun: Bool
  let failsOnWarnings: Bool
  let rules: [ValidationRule]
  let startedAt = Date()
  let clockStart = Stopwatch.now()
  /// Per stage, in `Stage` order: a plain array, since every record updates several.
  private(set) var statistics: [StageStatistics] = Stage.allCases.map(StageStatistics.init)
  var issues: IssueCollector
  var drift = DriftCounter()
  var coercions = 0
  var rejectedRecords = 0
  /// Error and warning counts per check (stage, or stage and rule).
  var checkCounts: [CheckKey: (failures: Int, warnings: Int)] = [:]
  var quarantine: QuarantineWriter?
  var failure: RunReport.Failure?
  /// The run failed because another connection held the database past the busy timeout.
  var waitedForLock = false

  struct CheckKey: Hashable {
    var stage: Stage
    var rule: String?
  }

  init(configuration: PipelineConfiguration, rules: [ValidationRule]) {
    policy = configuration.policy
    isDryRun = configuration.isDryRun
    failsOnWarnings = configuration.failsOnWarnings
    self.rules = rules
    issues = IssueCollector(sampleLimit: configuration.issueSampleLimit)
  }

  @inline(__always)
  mutating func lap(_ stage: Stage, from mark: inout UInt64) {
    let now = Stopwatch.now()
    statistics[stage.ordinal].seconds += Double(now - mark) / 1e9
    mark = now
  }

  /// Counts one record at one stage: in, and either out (`kept` when the conflict policy kept
  /// the row that was there) or rejected.
  mutating func count(_ stage: Stage, passed: Bool, kept: Bool = false) {
    statistics[stage.ordinal].recordsIn += 1
    if passed {
      statistics[stage.ordinal].recordsOut += 1
      if kept { statistics[stage.ordinal].kept += 1 }
    } else {
      statistics[stage.ordinal].rejected += 1
    }
  }

  /// Adds the time the producing thread spent per stage.
  mutating func addSeconds(_ seconds: [Stage: Double]) {
    for (stage, seconds) in seconds {
      statistics[stage.ordinal].seconds += seconds
    }
  }

  /// A record's warnings and coercions, whatever became of it.
  mutating func note(warnings: [Issue], coercions: Int) {
    self.coercions += coercions
    for warning in warnings { warn(warning) }
  }

  /// Counts a record that went through every stage up to and including `last`.
  mutating func countPassed(through last: Stage) {
    for stage in Stage.allCases {
      count(stage, passed: true)
      if stage == last { return }
    }
  }

  /// Counts a record that passed the stages before `stage` and was rejected there.
  mutating func countRejected(at stage: Stage) {
    for earlier in Stage.allCases {
      count(earlier, passed: earlier != stage)
      if earlier == stage { return }
    }
  }

  mutating func collect(_ issue: Issue) {
    issues.add(issue)
    drift.add(issue)
    let key = CheckKey(stage: issue.stage, rule: issue.rule)
    var counts = checkCounts[key] ?? (0, 0)
    if issue.severity == .error { counts.failures += 1 } else { counts.warnings += 1 }
    checkCounts[key] = counts
  }

  /// A warning that does not reject its record (an unknown field under `warn`).
  mutating func warn(_ issue: Issue) {
    collect(issue)
    statistics[issue.stage.ordinal].warnings += 1
  }

  /// A rejected record: collects its issues, quarantines it, and applies the policy — a strict
  /// run stops at the first, a lenient one when its budget is spent. A dry run always goes on.
  /// `record` is the record's own place (issues may point at a byte inside it).
  mutating func reject(_ recordIssues: [Issue], raw: [UInt8]?, record: RecordLocation? = nil) throws {
    for issue in recordIssues { collect(issue) }
    rejectedRecords += 1
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
    if let maxRejects = policy.maxRejects, rejectedRecords > maxRejects {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: "error budget exceeded: more than \(maxRejects) rejected record(s); the run was rolled back"))
    }
  }

  /// The rate half of the error budget, checked once the whole input has been read.
  func checkRejectRate() throws {
    guard let maxRejectRate = policy.maxRejectRate else { return }
    let read = statistics[Stage.read.ordinal].recordsIn
    guard read > 0 else { return }
    let rate = Double(rejectedRecords) / Double(read)
    if rate > maxRejectRate {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: String(
            format: "error budget exceeded: %d of %d records rejected (%.2f%% > %.2f%%); the run was rolled back",
            rejectedRecords, read, rate * 100, maxRejectRate * 100)))
    }
  }

  /// A run that rejected every record of a non-empty input fails whatever its budget — a wrong
  /// `--format` or record path looks exactly like that — unless the policy allows it.
  func checkSomethingLoaded() throws {
    let read = statistics[Stage.read.ordinal].recordsIn
    guard read > 0, rejectedRecords >= read, !policy.allowsNothingLoaded else { return }
    throw RunAbort(
      failure: .init(
        kind: .data,
        message: "all \(read) record(s) read were rejected and none was loaded; check the format and the record path, or set policy.allowNothingLoaded; the run was rolled back"))
  }

  /// A dry run fails when it found any error (or, when asked, any warning).
  func finishDryRun() throws {
    if issues.errorCount > 0 {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: "validation found \(issues.errorCount) error(s) in \(rejectedRecords) record(s)"))
    }
    if failsOnWarnings && issues.warningCount > 0 {
      throw RunAbort(
        failure: .init(kind: .data, message: "validation found \(issues.warningCount) warning(s) (--fail-on-warnings)"))
    }
  }

  /// The contract's checks for reports: every stage, and every rule of the dataset.
  func checks(dryRun: Bool) -> [RunReport.Check] {
    func check(_ name: String, _ stage: Stage, _ rule: String? = nil) -> RunReport.Check {
      let counts = checkCounts[CheckKey(stage: stage, rule: rule)] ?? (0, 0)
      return RunReport.Check(
        name: name, stage: stage, rule: rule, failures: counts.failures, warnings: counts.warnings)
    }
    var result = [
      check("records are well-formed", .read),
      check("records decode into the contract's types", .decode),
    ]
    result += rules.map { check($0.name, .validate, $0.name) }
    result.append(check("records map to domain values", .map))
    // A validate run writes nothing, but rows that cannot fit their table (a NOT NULL column
    // given nothing) are found without the database.
    if !dryRun || checkCounts.keys.contains(where: { $0.stage == .load }) {
      result.append(check("records load into the database", .load))
    }
    return result
  }
}
