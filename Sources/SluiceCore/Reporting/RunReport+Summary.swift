import Foundation

extension RunReport {
  /// The human summary for stderr: the outcome, one row per stage, then the top issues.
  public func summary(maxIssues: Int = 10, maxInputs: Int = 20) -> String {
    var lines: [String] = []
    let outcome = status == .succeeded ? "succeeded" : "FAILED"
    lines.append(
      "sluice: \(pipeline) (\(dataset), \(policy)) \(outcome) in \(Self.seconds(durationSeconds))")
    if let failure { lines.append("  reason: \(failure.message)") }
    for note in notes ?? [] { lines.append("  note: \(note)") }
    let header = ["stage", "in", "out", "rejected", "warnings", "time"]
    var rows = [header]
    for stage in stages {
      rows.append([
        stage.stage.rawValue, "\(stage.recordsIn)", "\(stage.recordsOut)", "\(stage.rejected)",
        "\(stage.warnings)", Self.seconds(stage.seconds),
      ])
    }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      let cells = row.enumerated().map { column, cell in
        column == 0
          ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
          : String(repeating: " ", count: widths[column] - cell.count) + cell
      }
      lines.append("  " + cells.joined(separator: "  "))
    }
    if failure == nil && statistics(for: .read).recordsIn == 0 && (inputsSkipped ?? 0) < inputCount {
      // An empty NDJSON file is a valid dump of no records; a nightly job should still hear it.
      lines.append("  note: no record was read: the input\(inputCount > 1 ? "s hold" : " holds") none")
    }
    if inputCount > 1 {
      lines.append("  inputs:")
      for (number, section) in inputs.prefix(maxInputs).enumerated() {
        let kind = section.format + (section.gzip ? ", gzip" : "")
        var line = "    \(number + 1) \(section.path) (\(section.dataset), \(kind)): "
        if section.opened {
          let read = section.statistics(for: .read).recordsIn
          let rejected = section.stages.map(\.rejected).reduce(0, +)
          line += "\(read) read, \(rejected) rejected"
          if mode != RunMode.validate.rawValue { line += ", \(section.statistics(for: .load).recordsOut) loaded" }
          if let run = section.changedSinceRunId { line += " (changed since run \(run): loaded again)" }
        } else if let skipped = section.skipped {
          line += "skipped, \(skipped.description)"
        } else {
          line += "not read"
        }
        lines.append(line)
      }
      if inputCount > maxInputs {
        let rest = OmittedInputs.summing(inputs.dropFirst(maxInputs), and: inputsOmitted)
        var line =
          "    … \(rest.count) more: \(rest.statistics(for: .read).recordsIn) read, \(rest.stages.map(\.rejected).reduce(0, +)) rejected"
        if mode != RunMode.validate.rawValue { line += ", \(rest.statistics(for: .load).recordsOut) loaded" }
        if rest.opened < rest.count { line += ", \(rest.count - rest.opened) not read" }
        lines.append(line + " (the JSON report lists the first \(RunReport.inputSectionLimit) inputs)")
      }
    }
    if let inputsSkipped {
      var line = "  incremental: \(inputsSkipped) of \(inputCount) input(s) skipped, their content already loaded"
      if inputCount == 1, let skipped = inputs.first?.skipped { line += " (\(skipped.description))" }
      lines.append(line)
    }
    if inputCount == 1, let run = inputs.first?.changedSinceRunId {
      lines.append("  incremental: the input changed since run \(run) loaded it, and was loaded again")
    }
    if let parallel {
      lines.append(
        "  parallel: \(parallel.lanes) lanes over \(parallel.connections) connections, \(parallel.commit) commit")
    }
    if let skippedByDesign, !skippedByDesign.isEmpty {
      let reasons = skippedByDesign.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
      lines.append(
        "  skipped by design: \(skippedByDesign.values.reduce(0, +)) — "
          + reasons.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
    let unknownValues = drift.unsupportedEnumValues.filter { $0.value != nil }
    if !unknownValues.isEmpty {
      lines.append(
        "  unknown values: "
          + unknownValues.prefix(10).map { "\($0.path) '\($0.value ?? "")' \($0.count)" }.joined(separator: ", "))
    }
    if let referenceLookups, !referenceLookups.isEmpty {
      lines.append(
        "  references looked up: "
          + referenceLookups.sorted { $0.key < $1.key }.map {
            "\($0.key) \($0.value.keys) key(s) in \($0.value.queries) quer\($0.value.queries == 1 ? "y" : "ies")"
          }
          .joined(separator: ", "))
    }
    if let bulkWrites {
      lines.append("  bulk batches: " + bulkWrites.summary { String($0) })
    }
    if let baselineChanges {
      let breaking = baselineChanges.filter { $0.impact == .breaking }.count
      lines.append(
        "  baseline: \(baselineChanges.isEmpty ? "no drift" : "\(breaking) breaking, \(baselineChanges.count - breaking) non-breaking change(s)")"
      )
      let ordered =
        baselineChanges.filter { $0.impact == .breaking } + baselineChanges.filter { $0.impact != .breaking }
      for change in ordered.prefix(maxIssues) { lines.append("    \(change)") }
      if ordered.count > maxIssues { lines.append("    … \(ordered.count - maxIssues) more (see the JSON report)") }
    }
    if let plan { lines += plan.lines }
    if let rowsDeleted {
      lines.append(
        "  snapshot: deleted "
          + (rowsDeleted.isEmpty ? "nothing: every row's key was in the input" : Self.perTable(rowsDeleted)))
    }
    if let duplicateKeys, !duplicateKeys.isEmpty {
      lines.append("  duplicate keys: " + Self.perTable(duplicateKeys))
    }
    let kept = statistics(for: .load).kept
    if kept > 0 {
      lines.append("  kept \(kept) record(s) whose key existed, as they were (onConflict \(conflict))")
    }
    let total = issueCounts.values.reduce(0, +)
    if total > 0 {
      let byCount = issueCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
      lines.append(
        "  issues: \(total) — " + byCount.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
      for issue in issues.prefix(maxIssues) {
        lines.append("    \(issue)")
      }
      if issues.count > maxIssues {
        lines.append("    … \(total - maxIssues) more (see the JSON report)")
      }
    }
    // Paths, keys and messages come from the data: no escape sequence or newline of theirs
    // reaches the terminal or the log.
    return TerminalText.lines(lines)
  }

  /// `orders 3, messages 255`: most first, then by name.
  static func perTable(_ counts: [String: Int]) -> String {
    counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
      .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
  }

  static func seconds(_ value: Double) -> String {
    if value < 10 { return String(format: "%.3fs", value) }
    return String(format: "%.1fs", value)
  }
}
