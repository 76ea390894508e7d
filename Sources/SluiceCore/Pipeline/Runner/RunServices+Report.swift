import Foundation

/// The run's report, made from its state: its counts, sections per input, issues and checks.
extension RunServices {
  package func makeReport(
    _ run: RunState, failure: RunReport.Failure?, rowsWritten: [String: Int], tableRows: [String: Int],
    committed: Bool
  ) -> RunReport {
    let (sections, omitted) = inputSections(run)
    let paths = sections.prefix(RunReport.inputPathLimit).map(\.path)
    let unnamed = sections.count + omitted.count - paths.count
    var report = RunReport(
      mode: configuration.mode.rawValue, pipeline: configuration.name, dataset: datasetName,
      policy: configuration.policy.summary, conflict: configuration.conflict.rawValue,
      database: configuration.isDryRun ? "" : configuration.databaseDescription,
      status: failure == nil ? .succeeded : .failed, failure: failure,
      startedAt: run.startedAt, finishedAt: Date(),
      durationSeconds: Double(Stopwatch.now() - run.clockStart) / 1e9,
      peakMemoryBytes: ProcessMemory.peakResidentBytes(),
      input: .init(
        path: paths.joined(separator: ", ") + (unnamed > 0 ? ", … and \(unnamed) more" : ""),
        format: Self.joined(sections.map(\.format)),
        gzip: sections.contains { $0.gzip },
        compressedBytes: sections.map(\.compressedBytes).reduce(omitted.compressedBytes, +),
        decompressedBytes: sections.map(\.decompressedBytes).reduce(omitted.decompressedBytes, +)),
      inputs: sections,
      stages: run.ledger.statistics,
      issueCounts: Dictionary(uniqueKeysWithValues: run.ledger.issues.counts.map { ($0.key.rawValue, $0.value) }),
      issueSampleLimit: configuration.issueSampleLimit,
      issues: run.ledger.issues.samples, checks: run.ledger.checks(dryRun: configuration.isDryRun),
      drift: run.ledger.drift.summary, coercions: run.ledger.coercions,
      skippedByDesign: run.ledger.skippedByDesign.isEmpty ? nil : run.ledger.skippedByDesign,
      quarantined: run.quarantine?.count ?? 0,
      rowsWritten: rowsWritten, tableRows: tableRows, committed: committed, outputErrors: [])
    report.inputsOmitted = omitted.count > 0 ? omitted : nil
    report.duplicateKeys = run.ledger.duplicateKeys.isEmpty ? nil : run.ledger.duplicateKeys
    report.inputsSkipped = run.skippedInputs > 0 ? run.skippedInputs : nil
    let evolution = configuration.schemaChanges.map { change in
      committed
        ? "schema evolved: \(change)"
        : configuration.mode == .plan ? "schema would evolve: \(change)" : "schema change rolled back: \(change)"
    }
    report.notes = run.notes.isEmpty && evolution.isEmpty ? nil : run.notes + evolution
    return report
  }

  /// A section per input — its share of the run's counts, or nothing for an input never opened
  /// — for the first `RunReport.inputSectionLimit` inputs, and the rest summed.
  private func inputSections(_ run: RunState) -> ([RunReport.InputSection], OmittedInputs) {
    let now = run.ledger.snapshot()
    var sections: [RunReport.InputSection] = []
    var omitted = run.omitted
    // A serial run folds the inputs it opened past the limit, in order, as they end; the ones
    // after them were never opened (or are missing optional ones, never opened either).
    var foldedLeft = run.omitted.count
    for (index, source) in inputs.enumerated() {
      var section: RunReport.InputSection
      if let progress = run.progress(ofInput: index) {
        section = progress.section(format: run.formatName(of: source.input), now: now)
      } else if index < RunReport.inputSectionLimit || foldedLeft == 0 || missingInputs.contains(index)
        || run.incremental[index]?.skipped != nil
      {
        section = RunReport.InputSection(
          path: source.input.path, format: run.formatName(of: source.input), dataset: source.dataset.name,
          opened: false, gzip: false, compressedBytes: 0, decompressedBytes: 0,
          stages: Stage.allCases.map(StageStatistics.init), issueCounts: [:], coercions: 0, rowsWritten: [:])
      } else {
        foldedLeft -= 1
        continue  // Folded into `run.omitted` when it ended.
      }
      if let note = run.incremental[index] {
        section.skipped = note.skipped
        section.changedSinceRunId = note.changedSinceRun
      }
      if index < RunReport.inputSectionLimit {
        sections.append(section)
      } else {
        omitted.add(section)
      }
    }
    return (sections, omitted)
  }

  /// The datasets' names, each once, joined by `+`: `fruits`, or `devices+alerts`.
  private var datasetName: String { Self.joined(inputs.map(\.dataset.name)) }

  /// Every input's dataset's validation rules, each once: the contract's checks.
  package var rules: [ValidationRule] {
    var rules: [ValidationRule] = []
    for source in inputs {
      for rule in source.dataset.rules where !rules.contains(where: { $0.name == rule.name }) {
        rules.append(rule)
      }
    }
    return rules
  }

  /// Distinct names in first-seen order, joined by `+`.
  private static func joined(_ names: [String]) -> String {
    var distinct: [String] = []
    for name in names where !distinct.contains(name) { distinct.append(name) }
    return distinct.joined(separator: "+")
  }

}
