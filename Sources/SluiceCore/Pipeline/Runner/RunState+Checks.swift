import Foundation

/// The policy applied as the run goes: a rejected record quarantined and judged, the error
/// budget and reject rate, and the checks at the end of a run.
extension RunState {
  /// A rejected record: collects its issues, quarantines it, and applies the policy — a strict
  /// run stops at the first, a lenient one when its budget is spent. A dry run always goes on.
  /// `record` is the record's own place (issues may point at a byte inside it); `unlisted`, its
  /// issues past those listed, counted after them.
  mutating func reject(
    _ recordIssues: [Issue], raw: [UInt8]?, record: RecordLocation? = nil, unlisted: UnlistedIssues? = nil
  ) throws {
    ledger.rejected(recordIssues)
    if let unlisted { ledger.count(unlisted) }
    if let quarantine, let raw, let location = record ?? recordIssues.first?.location {
      try quarantine.write(location: location, bytes: raw, issues: recordIssues)
    }
    guard !isDryRun, let first = recordIssues.first else { return }
    if policy.invalidRecord == .fail {
      let place =
        first.location.map {
          $0.ordinal == 0
            ? "line \($0.line), byte \($0.byteOffset), outside the records\(inputSuffix)"
            : "record \($0.ordinal) (line \($0.line)\($0.column.map { ", column \($0)" } ?? ""))\(inputSuffix)"
        } ?? ledger.input ?? "the input"
      let path = first.path.isEmpty ? "" : "\(first.path): "
      throw RunAbort(
        failure: .init(
          kind: .data,
          message:
            "\(policy.preset.rawValue) policy: \(first.stage.rawValue) rejected \(place): \(path)\(first.code): \(first.message); nothing was written"
        ))
    }
    if let maxRejects = policy.maxRejects,
      (part?.countRejected(atInput: inputs.last?.index ?? 0) ?? ledger.rejectedRecords) > maxRejects
    {
      throw RunAbort(failure: Self.budgetExceeded(maxRejects))
    }
  }

  /// The failure of a run that rejected more than `maxRejects` records.
  package static func budgetExceeded(_ maxRejects: Int) -> RunReport.Failure {
    .init(
      kind: .data, message: "error budget exceeded: more than \(maxRejects) rejected record(s); the run was rolled back"
    )
  }

  /// Stops a part of the run (a lane) when an input before the one it reads has failed
  /// (`RunPart`); checked after every batch.
  func checkGoesOn() throws {
    guard let part, let index = inputs.last?.index else { return }
    try part.checkGoesOn(atInput: index)
  }

  /// The rate half of the error budget, checked once the whole input has been read.
  package func checkRejectRate() throws {
    guard let maxRejectRate = policy.maxRejectRate else { return }
    let read = ledger.recordsRead
    guard read > 0 else { return }
    let rate = Double(ledger.rejectedRecords) / Double(read)
    if rate > maxRejectRate {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: String(
            format:
              "error budget exceeded: %d of %d records rejected (%.2f%% > %.2f%%); the run was rolled back. "
              + "The report's issues say why; a wrong dialect, encoding or data region rejects most rows. "
              + "If that many rejects are expected, raise the spec's policy.maxRejectRate",
            ledger.rejectedRecords, read, rate * 100, maxRejectRate * 100)))
    }
  }

  /// A run that rejected every record of a non-empty input fails whatever its budget — a wrong
  /// `--format` or record path looks exactly like that — unless the policy allows it. With
  /// several inputs each input the spec declares is judged on its own, since each has its own
  /// format and record path: a glob pattern's files together (they share both), so one file
  /// whose every record was rejected — a chat export's day file with one bad message — is
  /// within the budget when the pattern's other files loaded.
  package func checkSomethingLoaded() throws {
    guard !policy.allowsNothingLoaded else { return }
    let now = ledger.snapshot()
    var declared = omittedByDeclaration
    var order: [String] = []
    var listed = Set<String>()
    for progress in inputs {
      let key = Self.declaration(of: progress.input)
      if listed.insert(key).inserted { order.append(key) }
      let counts = progress.counts(now: now)
      declared[key, default: .init()].add(read: counts.recordsRead, rejected: counts.rejectedRecords)
    }
    order += declared.keys.filter { !listed.contains($0) }.sorted()
    let loadingNothing = order.compactMap { key in
      declared[key].flatMap { $0.read > 0 && $0.rejected >= $0.read ? (key, $0.read) : nil }
    }
    guard let (path, read) = loadingNothing.first else { return }
    let source = namesInputs ? " from \(path)" : ""
    throw RunAbort(
      failure: .init(
        kind: .data,
        message:
          "all \(read) record(s) read\(source) were rejected and none was loaded; check the format and the record path, or set policy.allowNothingLoaded; the run was rolled back"
      ))
  }

  /// A dry run fails when it found any error (or, when asked, any warning).
  func finishDryRun(failsOnWarnings: Bool) throws {
    if ledger.issues.errorCount > 0 {
      throw RunAbort(
        failure: .init(
          kind: .data,
          message: "validation found \(ledger.issues.errorCount) error(s) in \(ledger.rejectedRecords) record(s)"))
    }
    if failsOnWarnings && ledger.issues.warningCount > 0 {
      throw RunAbort(
        failure: .init(
          kind: .data, message: "validation found \(ledger.issues.warningCount) warning(s) (--fail-on-warnings)"))
    }
  }
}
