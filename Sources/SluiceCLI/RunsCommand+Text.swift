import Foundation
@_spi(Internals) import SluiceCore

extension RunsCommand {
  /// The runs as an aligned table, one line each; the failure, free text, comes last.
  static func listLines(_ runs: [RecordedRun]) -> [String] {
    var table = TextTable([
      ("run", .right), ("pipeline", .left), ("mode", .left), ("started", .left), ("duration", .right),
      ("status", .left), ("read", .right), ("loaded", .right), ("rejected", .right), ("failure", .left),
    ])
    for run in runs {
      table.append([
        "\(run.runID)", run.pipeline, run.mode, run.startedAt, seconds(run.durationSeconds), run.status,
        "\(run.recordsRead)", "\(run.recordsLoaded)", "\(run.recordsRejected)", oneLine(run.failure ?? ""),
      ])
    }
    return table.lines()
  }

  /// One run: what it was, its counts per stage, and its issues by stage, code and path.
  static func detailLines(_ run: RecordedRun, issues: [IssueGroup]) -> [String] {
    var lines = [
      "run \(run.runID): \(run.pipeline) (\(run.dataset), \(run.policy)) \(run.status) in \(seconds(run.durationSeconds))",
      "  mode:      \(run.mode)",
      "  input:     \(run.input)",
      "  started:   \(run.startedAt)",
      "  finished:  \(run.finishedAt)",
      "  records:   \(run.recordsRead) read, \(run.recordsLoaded) loaded, \(run.recordsRejected) rejected, \(run.warnings) warning(s)",
    ]
    if let failure = run.failure { lines.append("  reason:    \(oneLine(failure))") }
    let written = run.rowsWritten.filter { $0.value > 0 }.sorted { $0.key < $1.key }
    lines.append(
      "  rows written: " + (written.isEmpty ? "none" : written.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
    if let deleted = run.rowsDeleted {
      let tables = deleted.filter { $0.value > 0 }.sorted { $0.key < $1.key }
      lines.append(
        "  rows deleted (snapshot): "
          + (tables.isEmpty ? "none" : tables.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
    }
    if !run.stages.isEmpty {
      var stages = TextTable([
        ("stage", .left), ("in", .right), ("out", .right), ("rejected", .right), ("warnings", .right),
      ])
      for stage in run.stages {
        stages.append([
          stage.stage.rawValue, "\(stage.recordsIn)", "\(stage.recordsOut)", "\(stage.rejected)", "\(stage.warnings)",
        ])
      }
      lines += stages.lines(indent: "  ")
    }
    let total = run.issueCounts.values.reduce(0, +)
    guard total > 0 else {
      lines.append("  issues: none")
      return lines
    }
    let byCount = run.issueCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    lines.append("  issues: \(total) — " + byCount.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    var table = TextTable([("stage", .left), ("severity", .left), ("code", .left), ("path", .left), ("count", .right)])
    for group in issues {
      table.append([
        group.stage.rawValue, group.severity.rawValue, group.code, group.path.isEmpty ? "-" : group.path,
        "\(group.count)",
      ])
    }
    lines.append("  by stage, code and field path (sluice_rejects; - is the record as a whole):")
    lines += table.lines(indent: "    ")
    // sluice_rejects keeps a sample of each code; say so where the counts above are larger.
    var kept: [String: Int] = [:]
    for group in issues { kept[group.code, default: 0] += group.count }
    let sampled = byCount.filter { (kept[$0.key] ?? 0) < $0.value }
    if !sampled.isEmpty {
      lines.append(
        "  sluice_rejects keeps the first issues of each code: "
          + sampled.map { "\($0.key) \(kept[$0.key] ?? 0) of \($0.value)" }.joined(separator: ", "))
    }
    return lines
  }

  /// The run's inputs from the ledger: status, records, size, SHA-256 (its first 16 digits),
  /// then the path; a skipped one says which run loaded its content. Past the listed ones, one
  /// line sums the rest.
  static func inputLines(_ all: ListedInputs) -> [String] {
    let inputs = all.listed
    guard !inputs.isEmpty else { return [] }
    var table = TextTable([
      ("#", .right), ("status", .left), ("read", .right), ("loaded", .right), ("rejected", .right),
      ("skipped", .right), ("bytes", .right), ("modified", .left), ("sha256", .left), ("path", .left),
    ])
    for input in inputs {
      var status = input.status.rawValue
      if input.status == .skipped, let run = input.sameAsRun { status += " (run \(run))" }
      table.append([
        "\(input.position + 1)", status, "\(input.recordsRead)", "\(input.recordsLoaded)", "\(input.recordsRejected)",
        "\(input.recordsSkipped)", input.size.map { "\($0)" } ?? "-",
        input.modifiedAt.map(TimestampText.text) ?? "-", String(input.sha256.prefix(16)), input.path,
      ])
    }
    var heading = "  inputs (sluice_inputs): \(all.count)"
    if all.omitted != nil { heading += ", the first \(inputs.count) listed" }
    if all.skipped > 0 {
      heading += ", \(all.skipped) skipped by an incremental run (their content loaded by the run named)"
    }
    var lines = [heading + ":"] + table.lines(indent: "    ")
    if let rest = all.omitted {
      lines.append(
        "    … \(rest.count) more: \(rest.recordsRead) read, \(rest.recordsLoaded) loaded, \(rest.recordsRejected) rejected, \(rest.recordsSkipped) skipped, \(rest.bytes) bytes"
          + (rest.skipped > 0 ? "; \(rest.skipped) of them skipped by an incremental run" : ""))
    }
    return lines
  }

  /// Durations as the run summary prints them: milliseconds under 10 s, tenths above.
  static func seconds(_ value: Double) -> String {
    String(format: value < 10 ? "%.3fs" : "%.1fs", value)
  }

  private static func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
  }
}
