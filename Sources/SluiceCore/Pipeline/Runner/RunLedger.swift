import Foundation

/// The bookkeeping of one run: records counted per stage, their time, issues, drift, coercions,
/// and error counts per check. It decides nothing (`RunState` does).
///
/// It counts the whole run, whatever its inputs: an input's own counts are the difference
/// between a `snapshot()` taken when it begins and one taken when it ends, so the hot loop
/// counts each record once.
package struct RunLedger {
  /// Per stage, in `Stage` order: a plain array, since every record updates several.
  private(set) var statistics: [StageStatistics] = Stage.allCases.map(StageStatistics.init)
  package var issues: IssueCollector
  var drift = DriftCounter()
  var coercions = 0
  /// Records rejected at any stage.
  private(set) var rejectedRecords = 0
  /// Records the datasets skipped by design, per reason.
  private(set) var skippedByDesign: [String: Int] = [:]
  /// Natural keys an earlier record of the run wrote, met again, per table (`duplicateKey`).
  var duplicateKeys: [String: Int] = [:]
  /// Distinct reasons kept; more are counted under `otherReasons`.
  static let skipReasonLimit = 100
  /// Error and warning counts per check (stage, or stage and rule).
  private var checkCounts: [CheckKey: (failures: Int, warnings: Int)] = [:]
  let rules: [ValidationRule]
  /// The input being read, stamped on its issues when a run reads several.
  var input: String?

  struct CheckKey: Hashable {
    var stage: Stage
    var rule: String?
  }

  init(issueSampleLimit: Int, rules: [ValidationRule]) {
    issues = IssueCollector(sampleLimit: issueSampleLimit)
    self.rules = rules
  }

  /// Records read so far.
  var recordsRead: Int { statistics[Stage.read.ordinal].recordsIn }

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

  /// Counts a record the dataset skipped by design at the map stage: it passed the stages
  /// before, and is neither passed on nor rejected there.
  mutating func countSkipped(_ reason: String) {
    countPassed(through: .validate)
    statistics[Stage.map.ordinal].recordsIn += 1
    statistics[Stage.map.ordinal].skipped += 1
    if skippedByDesign[reason] != nil || skippedByDesign.count < Self.skipReasonLimit {
      skippedByDesign[reason, default: 0] += 1
    } else {
      skippedByDesign["other reasons", default: 0] += 1
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
    var issue = issue
    if let input { issue.input = input }
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

  /// Issues a record raised past those it lists: counted wherever a kept one is, kept nowhere.
  mutating func count(_ unlisted: UnlistedIssues) {
    issues.count(unlisted.code, severity: unlisted.severity, times: unlisted.count)
    drift.addUnlisted(unlisted.code, times: unlisted.count)
    let key = CheckKey(stage: unlisted.stage, rule: nil)
    var counts = checkCounts[key] ?? (0, 0)
    if unlisted.severity == .error { counts.failures += unlisted.count } else { counts.warnings += unlisted.count }
    checkCounts[key] = counts
    if unlisted.severity == .warning { statistics[unlisted.stage.ordinal].warnings += unlisted.count }
  }

  /// A rejected record's issues, counted.
  mutating func rejected(_ recordIssues: [Issue]) {
    for issue in recordIssues { collect(issue) }
    rejectedRecords += 1
  }

  /// The counts an input's share of the run is measured by.
  package struct Snapshot: Codable {
    var statistics: [StageStatistics]
    var issueCounts: [IssueCode: Int]
    var coercions: Int
    package var rejectedRecords: Int

    /// What was counted between `start` and this snapshot.
    func since(_ start: Snapshot) -> Snapshot {
      Snapshot(
        statistics: zip(statistics, start.statistics).map { now, then in
          var difference = now
          difference.recordsIn -= then.recordsIn
          difference.recordsOut -= then.recordsOut
          difference.rejected -= then.rejected
          difference.warnings -= then.warnings
          difference.kept -= then.kept
          difference.skipped -= then.skipped
          difference.seconds -= then.seconds
          return difference
        },
        issueCounts: issueCounts.reduce(into: [:]) { counts, entry in
          let count = entry.value - (start.issueCounts[entry.key] ?? 0)
          if count > 0 { counts[entry.key] = count }
        },
        coercions: coercions - start.coercions, rejectedRecords: rejectedRecords - start.rejectedRecords)
    }

    var recordsRead: Int { statistics[Stage.read.ordinal].recordsIn }
  }

  package func snapshot() -> Snapshot {
    Snapshot(statistics: statistics, issueCounts: issues.counts, coercions: coercions, rejectedRecords: rejectedRecords)
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

  /// The ledger of a run whose inputs were read by several lanes, as a serial run would have
  /// kept it: every count summed, and `issueSamples` — the lanes' samples in input order — as
  /// the issue samples (`IssueCollector.merging`).
  package static func merging(
    _ lanes: [RunLedger], issueSamples: [Issue], issueSampleLimit: Int, rules: [ValidationRule]
  )
    -> RunLedger
  {
    var merged = RunLedger(issueSampleLimit: issueSampleLimit, rules: rules)
    merged.issues = IssueCollector.merging(
      lanes.map(\.issues), samplesInOrder: issueSamples, sampleLimit: issueSampleLimit)
    for lane in lanes {
      for (index, statistics) in lane.statistics.enumerated() {
        merged.statistics[index].recordsIn += statistics.recordsIn
        merged.statistics[index].recordsOut += statistics.recordsOut
        merged.statistics[index].rejected += statistics.rejected
        merged.statistics[index].warnings += statistics.warnings
        merged.statistics[index].kept += statistics.kept
        merged.statistics[index].skipped += statistics.skipped
        merged.statistics[index].seconds += statistics.seconds
      }
      merged.drift.absorb(lane.drift)
      merged.coercions += lane.coercions
      merged.duplicateKeys.merge(lane.duplicateKeys, uniquingKeysWith: +)
      merged.rejectedRecords += lane.rejectedRecords
      for (reason, count) in lane.skippedByDesign.sorted(by: { $0.key < $1.key }) {
        if merged.skippedByDesign[reason] != nil || merged.skippedByDesign.count < Self.skipReasonLimit {
          merged.skippedByDesign[reason, default: 0] += count
        } else {
          merged.skippedByDesign["other reasons", default: 0] += count
        }
      }
      for (key, counts) in lane.checkCounts {
        let sum = merged.checkCounts[key] ?? (0, 0)
        merged.checkCounts[key] = (sum.failures + counts.failures, sum.warnings + counts.warnings)
      }
    }
    return merged
  }
}

extension RunLedger {
  /// The ledger as a checkpoint keeps it (`RunCheckpoint`): everything it counted, so a resumed
  /// run counts on from there.
  package struct Saved: Codable {
    var statistics: [StageStatistics]
    var issues: IssueCollector
    var drift: DriftCounter
    var coercions: Int
    var rejectedRecords: Int
    var skippedByDesign: [String: Int]
    var duplicateKeys: [String: Int]
    var checkCounts: [SavedCheck]
  }

  /// One check's counts (`checkCounts`, whose tuples have no `Codable`).
  package struct SavedCheck: Codable {
    var stage: Stage
    var rule: String?
    var failures: Int
    var warnings: Int
  }

  var saved: Saved {
    Saved(
      statistics: statistics, issues: issues, drift: drift, coercions: coercions, rejectedRecords: rejectedRecords,
      skippedByDesign: skippedByDesign, duplicateKeys: duplicateKeys,
      checkCounts: checkCounts.map {
        .init(stage: $0.key.stage, rule: $0.key.rule, failures: $0.value.failures, warnings: $0.value.warnings)
      }
      .sorted { ($0.stage.ordinal, $0.rule ?? "") < ($1.stage.ordinal, $1.rule ?? "") })
  }

  /// A ledger that counts on from `saved`, checking `rules`.
  init(saved: Saved, rules: [ValidationRule]) {
    self.init(issueSampleLimit: saved.issues.sampleLimit, rules: rules)
    statistics = saved.statistics
    issues = saved.issues
    drift = saved.drift
    coercions = saved.coercions
    rejectedRecords = saved.rejectedRecords
    skippedByDesign = saved.skippedByDesign
    duplicateKeys = saved.duplicateKeys
    for check in saved.checkCounts {
      checkCounts[CheckKey(stage: check.stage, rule: check.rule)] = (check.failures, check.warnings)
    }
  }
}
