import Foundation

/// Renders a run report as one self-contained HTML page (`--html`, `sluice report`): the outcome
/// and why it failed, the stage funnel as inline SVG, issues by code and by field path, the
/// first issues of each code with their locations, the drift, timings, bytes, memory, rows per
/// table, the inputs and the contract's checks.
///
/// The page is a pure function of the report, so `sluice report REPORT.json --html` gives the
/// page the run itself wrote. It loads nothing — inline CSS and SVG, no script, font or image —
/// and tells the browser so: its Content-Security-Policy is `default-src 'none'`. Like the JSON
/// report it holds counts, locations, field paths and messages, never record values, and every
/// text taken from the report goes through `escape`.
package enum HTMLReport {
  /// How many issues of each code the page lists (the JSON report keeps up to its sample limit).
  public static let listedIssuesPerCode = 10
  /// How many field paths the "by field path" table lists.
  public static let listedPaths = 40

  public static func render(_ report: RunReport) -> String {
    var sections = [header(report), overview(report), funnelSection(report), issuesSection(report)]
    if !report.issues.isEmpty { sections.append(firstIssuesSection(report)) }
    sections.append(driftSection(report))
    if let changes = report.baselineChanges { sections.append(baselineSection(changes)) }
    if let plan = report.plan { sections.append(planSection(plan)) }
    sections.append(tablesSection(report))
    if report.inputCount > 1 { sections.append(inputsSection(report)) }
    if !report.checks.isEmpty { sections.append(checksSection(report)) }
    sections.append(runSection(report))
    let title = "sluice: \(report.pipeline) \(report.status == .succeeded ? "succeeded" : "FAILED")"
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="generator" content="sluice">
      <title>\(escape(title))</title>
      <style>
      \(stylesheet)
      </style>
      </head>
      <body>
      <main>
      \(sections.joined(separator: "\n"))
      <footer>Sluice run report (reportVersion \(report.reportVersion)). Locations and field paths only: no record values.</footer>
      </main>
      </body>
      </html>

      """
  }

  // MARK: - Sections

  static func header(_ report: RunReport) -> String {
    let succeeded = report.status == .succeeded
    var meta = [report.dataset, report.policy]
    if report.mode != RunMode.validate.rawValue { meta.append("on conflict \(report.conflict)") }
    meta.append("started \(timestamp(report.startedAt))")
    meta.append("took \(RunReport.seconds(report.durationSeconds))")
    var html = """
      <header>
      <p class="eyebrow">Sluice \(escape(report.mode)) report</p>
      <h1>\(escape(report.pipeline)) <span class="badge \(succeeded ? "ok" : "failed")">\(succeeded ? "succeeded" : "failed")</span></h1>
      <p class="meta">\(meta.map(escape).joined(separator: " · "))</p>
      </header>
      """
    if let failure = report.failure {
      html += """

        <section class="failure" role="alert" id="failure">
        <h2>Failed: \(escape(describe(failure.kind)))</h2>
        <p class="reason">\(escape(failure.message))</p>
        <p>\(escape(outcome(report)))</p>
        </section>
        """
    }
    if !report.outputErrors.isEmpty {
      html += """

        <section class="notice" role="alert" id="output-errors">
        <h2>Outputs lost after the outcome was final</h2>
        <ul>\(report.outputErrors.map { "<li>\(escape($0))</li>" }.joined())</ul>
        </section>
        """
    }
    return html
  }

  static func overview(_ report: RunReport) -> String {
    let read = report.statistics(for: .read).recordsIn
    let rejected = report.stages.map(\.rejected).reduce(0, +)
    let warnings = report.stages.map(\.warnings).reduce(0, +)
    var cards: [(String, String, String?)] = [("Records read", grouped(read), nil)]
    if report.mode == RunMode.validate.rawValue {
      cards.append(("Valid", grouped(report.statistics(for: .map).recordsOut), "nothing written"))
    } else {
      cards.append(
        ("Loaded", grouped(report.statistics(for: .load).recordsOut), report.committed ? "committed" : "rolled back"))
    }
    cards.append(
      ("Rejected", grouped(rejected), report.quarantined > 0 ? "\(grouped(report.quarantined)) quarantined" : nil))
    cards.append(("Warnings", grouped(warnings), nil))
    cards.append(("Duration", RunReport.seconds(report.durationSeconds), nil))
    cards.append(
      (
        "Bytes read", size(report.input.decompressedBytes),
        report.input.gzip ? "\(size(report.input.compressedBytes)) gzip" : nil
      ))
    cards.append(("Peak memory", report.peakMemoryBytes.map(size) ?? "unknown", nil))
    let items = cards.map { label, value, note in
      "<div><dt>\(escape(label))</dt><dd>\(escape(value))\(note.map { "<small>\(escape($0))</small>" } ?? "")</dd></div>"
    }
    return "<dl class=\"cards\" id=\"overview\">\(items.joined())</dl>"
  }

  static func funnelSection(_ report: RunReport) -> String {
    var rows: [String] = []
    let showsKept = report.stages.contains { $0.kept > 0 }
    let showsSkipped = report.stages.contains { $0.skipped > 0 }
    for stage in Stage.allCases {
      let statistics = report.statistics(for: stage)
      var cells = [
        "<th scope=\"row\">\(stage.rawValue)</th>", number(statistics.recordsIn), number(statistics.recordsOut),
        number(statistics.rejected), number(statistics.warnings),
      ]
      if showsKept { cells.append(number(statistics.kept)) }
      if showsSkipped { cells.append(number(statistics.skipped)) }
      cells.append("<td class=\"n\">\(RunReport.seconds(statistics.seconds))</td>")
      rows.append("<tr>\(cells.joined())</tr>")
    }
    var headings = ["stage", "in", "out", "rejected", "warnings"]
    if showsKept { headings.append("kept") }
    if showsSkipped { headings.append("skipped") }
    headings.append("time")
    let head = headings.enumerated().map { index, name in
      "<th scope=\"col\"\(index == 0 ? "" : " class=\"n\"")>\(name)</th>"
    }
    return """
      <section id="funnel">
      <h2>Stage funnel</h2>
      \(funnel(report))
      <table class="stages">
      <thead><tr>\(head.joined())</tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody>
      </table>
      </section>
      """
  }

  static func issuesSection(_ report: RunReport) -> String {
    let total = report.issueCounts.values.reduce(0, +)
    guard total > 0 else {
      return """
        <section id="issues">
        <h2>Issues</h2>
        <p class="none">No issues: every record that was read passed every stage it reached.</p>
        </section>
        """
    }
    let byCode = report.issueCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    let largest = byCode.first?.value ?? 1
    let codeRows = byCode.map { code, count in
      let sampled = report.issues.filter { $0.code.rawValue == code }
      let stages = Stage.allCases.filter { stage in sampled.contains { $0.stage == stage } }.map(\.rawValue)
      let warningsOnly = !sampled.isEmpty && sampled.allSatisfy { $0.severity == .warning }
      return "<tr><td><code>\(escape(code))</code>\(warningsOnly ? " <span class=\"tag\">warning</span>" : "")</td>"
        + "<td>\(escape(stages.isEmpty ? "—" : stages.joined(separator: ", ")))</td>\(number(count))"
        + "<td class=\"share\">\(shareBar(count, of: largest, warning: warningsOnly))</td></tr>"
    }

    var paths: [String: (count: Int, codes: [String: Int])] = [:]
    for issue in report.issues {
      let path = DriftCounter.folded(issue.path)
      paths[path, default: (0, [:])].count += 1
      paths[path, default: (0, [:])].codes[issue.code.rawValue, default: 0] += 1
    }
    let byPath = paths.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key }
    var pathRows = byPath.prefix(listedPaths).map { path, entry in
      let codes = entry.codes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
      let shown = path.isEmpty ? "<span class=\"none\">(the whole record)</span>" : "<code>\(escape(path))</code>"
      return "<tr><td>\(shown)</td>\(number(entry.count))<td>\(escape(codes))</td></tr>"
    }
    if byPath.count > listedPaths {
      pathRows.append(
        "<tr><td colspan=\"3\" class=\"none\">… \(grouped(byPath.count - listedPaths)) more paths</td></tr>")
    }
    var note = ""
    if report.issues.count < total {
      note =
        "<p class=\"note\">Field paths are counted over the \(grouped(report.issues.count)) issues the report keeps "
        + "(the first \(grouped(report.issueSampleLimit)) of each code); all \(grouped(total)) are counted by code.</p>"
    }
    return """
      <section id="issues">
      <h2>Issues <span class="count">\(grouped(total))</span></h2>
      <div class="grid">
      <div>
      <h3>By code</h3>
      <table>
      <thead><tr><th scope="col">code</th><th scope="col">stage</th><th scope="col" class="n">count</th><th scope="col"><span class="hidden">share</span></th></tr></thead>
      <tbody>
      \(codeRows.joined(separator: "\n"))
      </tbody>
      </table>
      </div>
      <div>
      <h3>By field path</h3>
      <table>
      <thead><tr><th scope="col">field path</th><th scope="col" class="n">count</th><th scope="col">codes</th></tr></thead>
      <tbody>
      \(pathRows.joined(separator: "\n"))
      </tbody>
      </table>
      \(note)
      </div>
      </div>
      </section>
      """
  }

  static func firstIssuesSection(_ report: RunReport) -> String {
    let showsInput = report.inputCount > 1 || report.issues.contains { $0.input != nil }
    var groups: [String] = []
    let codes = report.issueCounts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    let sampledOnly = Set(report.issues.map(\.code.rawValue)).subtracting(codes).sorted()
    for code in codes + sampledOnly {
      let issues = report.issues.filter { $0.code.rawValue == code }
      guard !issues.isEmpty else { continue }
      let count = report.issueCounts[code] ?? issues.count
      var rows = issues.prefix(listedIssuesPerCode).map { issue in
        var cells = [
          "<td>\(issue.stage.rawValue)\(issue.severity == .warning ? " <span class=\"tag\">warning</span>" : "")</td>"
        ]
        if showsInput {
          let input = issue.input ?? report.input.path
          cells.append("<td class=\"path\" title=\"\(escape(input))\">\(escape(fileName(input)))</td>")
        }
        if let location = issue.location {
          cells += [number(location.ordinal), number(location.line), number(Int(clamping: location.byteOffset))]
        } else {
          cells += Array(repeating: "<td class=\"n none\">—</td>", count: 3)
        }
        cells.append(issue.path.isEmpty ? "<td class=\"none\">—</td>" : "<td><code>\(escape(issue.path))</code></td>")
        cells.append("<td>\(escape(issue.message))</td>")
        return "<tr>\(cells.joined())</tr>"
      }
      let listed = min(issues.count, listedIssuesPerCode)
      if count > listed {
        let more = count - listed
        let kept = issues.count > listed ? " (the JSON report lists \(grouped(issues.count)) of them)" : ""
        rows.append(
          "<tr><td colspan=\"\(showsInput ? 7 : 6)\" class=\"none\">… and \(grouped(more)) more\(kept)</td></tr>")
      }
      var head = ["stage"]
      if showsInput { head.append("input") }
      head += ["record", "line", "byte", "field path", "message"]
      let classes = [
        "stage": "stage", "input": "input", "record": "n", "line": "n", "byte": "n", "field path": "field",
      ]
      let headCells = head.map { name in
        "<th scope=\"col\"\(classes[name].map { " class=\"\($0)\"" } ?? "")>\(name)</th>"
      }
      groups.append(
        """
        <h3><code>\(escape(code))</code> <span class="count">\(grouped(count))</span></h3>
        <table class="issues">
        <thead><tr>\(headCells.joined())</tr></thead>
        <tbody>
        \(rows.joined(separator: "\n"))
        </tbody>
        </table>
        """)
    }
    return """
      <section id="first-issues">
      <h2>First issues of each code</h2>
      \(groups.joined(separator: "\n"))
      </section>
      """
  }

  static func driftSection(_ report: RunReport) -> String {
    let drift = report.drift
    guard !drift.unknownFields.isEmpty || !drift.unsupportedEnumValues.isEmpty || drift.otherCount > 0 else {
      return """
        <section id="drift">
        <h2>Drift</h2>
        <p class="none">No drift: no unknown fields and no unsupported enum values.</p>
        </section>
        """
    }
    var parts: [String] = []
    if !drift.unknownFields.isEmpty {
      let rows = drift.unknownFields.map { entry in
        "<tr><td><code>\(escape(entry.path))</code></td>\(number(entry.count))\(number(entry.firstRecord))</tr>"
      }
      parts.append(
        """
        <div>
        <h3>Unknown fields</h3>
        <table>
        <thead><tr><th scope="col">field path</th><th scope="col" class="n">count</th><th scope="col" class="n">first record</th></tr></thead>
        <tbody>
        \(rows.joined(separator: "\n"))
        </tbody>
        </table>
        </div>
        """)
    }
    if !drift.unsupportedEnumValues.isEmpty {
      let rows = drift.unsupportedEnumValues.map { entry in
        let value = entry.value.map { "<code>\(escape($0))</code>" } ?? "<span class=\"none\">not named</span>"
        return
          "<tr><td><code>\(escape(entry.path))</code></td><td>\(value)</td>\(number(entry.count))\(number(entry.firstRecord))</tr>"
      }
      parts.append(
        """
        <div>
        <h3>Unsupported enum values</h3>
        <table>
        <thead><tr><th scope="col">field path</th><th scope="col">value</th><th scope="col" class="n">count</th><th scope="col" class="n">first record</th></tr></thead>
        <tbody>
        \(rows.joined(separator: "\n"))
        </tbody>
        </table>
        </div>
        """)
    }
    let other =
      drift.otherCount > 0
      ? "\n<p class=\"note\">\(grouped(drift.otherCount)) more occurrence(s) at paths past the summary's limit.</p>"
      : ""
    return """
      <section id="drift">
      <h2>Drift</h2>
      <div class="grid">
      \(parts.joined(separator: "\n"))
      </div>\(other)
      </section>
      """
  }

  /// A validate run's differences from its baseline (`--baseline`), breaking ones first.
  static func baselineSection(_ changes: [BaselineChange]) -> String {
    guard !changes.isEmpty else {
      return """
        <section id="baseline">
        <h2>Baseline</h2>
        <p class="none">No drift from the baseline.</p>
        </section>
        """
    }
    let ordered = changes.filter { $0.impact == .breaking } + changes.filter { $0.impact != .breaking }
    let rows = ordered.map { change in
      "<tr><td>\(escape(change.impact.rawValue))</td><td><code>\(escape(change.kind))</code></td>"
        + "<td><code>\(escape(change.path.isEmpty ? "(the records)" : change.path))</code></td>"
        + "<td>\(escape(change.message))</td></tr>"
    }
    let breaking = changes.filter { $0.impact == .breaking }.count
    return """
      <section id="baseline">
      <h2>Baseline</h2>
      <p>\(breaking) breaking, \(changes.count - breaking) non-breaking change(s) from the baseline.</p>
      <table>
      <thead><tr><th scope="col">impact</th><th scope="col">change</th><th scope="col">field path</th><th scope="col">what</th></tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody>
      </table>
      </section>
      """
  }

  /// What a plan found the run would change, per table (`sluice plan`).
  static func planSection(_ plan: RunPlan) -> String {
    let rows = plan.tables.map { table in
      let columns = table.columnsUpdated.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { "<code>\(escape($0.key))</code> \($0.value)" }.joined(separator: ", ")
      return "<tr><td><code>\(escape(table.table))</code>\(table.existed ? "" : " (new)")</td>"
        + "<td class=\"n\">\(table.inserts)</td><td class=\"n\">\(table.updates)</td>"
        + "<td class=\"n\">\(table.unchanged)</td><td class=\"n\">\(table.deletes)</td>"
        + "<td>\(columns)</td></tr>"
    }
    var notes: [String] = []
    if !plan.lookupChanges.isEmpty {
      notes.append(
        "Lookup rows: "
          + plan.lookupChanges.sorted { $0.key < $1.key }.map { "<code>\(escape($0.key))</code> \($0.value)" }
          .joined(separator: ", ") + ".")
    }
    notes.append(
      plan.pendingMigrations.isEmpty
        ? "No migration pending."
        : "\(plan.pendingMigrations.count) migration(s) pending: "
          + plan.pendingMigrations.map { "<code>\(escape($0))</code>" }.joined(separator: ", ") + ".")
    var gate = ""
    if let limit = plan.maxChanges {
      gate =
        plan.exceedsMaxChanges
        ? " More than <code>--max-changes \(escape(limit))</code> allows."
        : " Within <code>--max-changes \(escape(limit))</code>."
    }
    return """
      <section id="plan">
      <h2>Plan</h2>
      <p>The run was rolled back: nothing was written. It would change \(plan.changes) row(s) of the \(plan.rowsBefore) the tables held.\(gate)</p>
      <table>
      <thead><tr><th scope="col">table</th><th scope="col">insert</th><th scope="col">update</th><th scope="col">unchanged</th><th scope="col">delete</th><th scope="col">updated columns</th></tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody>
      </table>
      <p>\(notes.joined(separator: " "))</p>
      </section>
      """
  }

  static func tablesSection(_ report: RunReport) -> String {
    let names = Set(report.rowsWritten.keys).union(report.tableRows.keys).sorted()
    var note: String
    if report.mode == RunMode.validate.rawValue {
      note = "validate writes nothing."
    } else if !report.committed {
      note = "Nothing was committed: the tables are as they were before the run."
    } else {
      note = ""
    }
    if names.isEmpty {
      return """
        <section id="tables">
        <h2>Rows per table</h2>
        <p class="none">\(escape(note.isEmpty ? "No table was written." : note))</p>
        </section>
        """
    }
    if !note.isEmpty { note = "<p class=\"note\">\(escape(note))</p>" }
    let rows = names.map { name in
      let after = report.tableRows[name].map(number) ?? "<td class=\"n none\">—</td>"
      return "<tr><td><code>\(escape(name))</code></td>\(number(report.rowsWritten[name] ?? 0))\(after)</tr>"
    }
    return """
      <section id="tables">
      <h2>Rows per table</h2>
      <table>
      <thead><tr><th scope="col">table</th><th scope="col" class="n">written by this run</th><th scope="col" class="n">rows after the run</th></tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody>
      </table>
      \(note)
      </section>
      """
  }

  static func inputsSection(_ report: RunReport) -> String {
    let loads = report.mode != RunMode.validate.rawValue
    var rows = report.inputs.enumerated().map { index, section in
      var cells = [
        "<td class=\"n\">\(index + 1)</td>",
        "<td class=\"path\">\(escape(section.path))</td>",
        "<td>\(escape(section.dataset))</td>",
        "<td>\(escape(section.format + (section.gzip ? ", gzip" : "")))</td>",
      ]
      guard section.opened else {
        let why = section.skipped.map { "skipped: \($0.description)" } ?? "not read: the run failed before it"
        return "<tr>\(cells.joined())<td colspan=\"\(loads ? 6 : 5)\" class=\"none\">\(escape(why))</td></tr>"
      }
      if let run = section.changedSinceRunId {
        cells[1] = "<td class=\"path\">\(escape(section.path)) (changed since run \(run): loaded again)</td>"
      }
      cells.append(number(section.statistics(for: .read).recordsIn))
      cells.append(number(section.stages.map(\.rejected).reduce(0, +)))
      if loads { cells.append(number(section.statistics(for: .load).recordsOut)) }
      cells.append(number(section.issueCounts.values.reduce(0, +)))
      cells.append("<td class=\"n\">\(escape(size(section.compressedBytes)))</td>")
      cells.append("<td class=\"n\">\(escape(size(section.decompressedBytes)))</td>")
      return "<tr>\(cells.joined())</tr>"
    }
    if let omitted = report.inputsOmitted {
      // The inputs past the listed ones, in one row of sums.
      var cells = [
        "<td class=\"n\">\(report.inputs.count + 1)…\(report.inputCount)</td>",
        "<td class=\"path\">\(omitted.count) more input(s), summed (\(omitted.opened) read)</td>", "<td></td>",
        "<td></td>",
        number(omitted.statistics(for: .read).recordsIn), number(omitted.stages.map(\.rejected).reduce(0, +)),
      ]
      if loads { cells.append(number(omitted.statistics(for: .load).recordsOut)) }
      cells.append(number(omitted.issueCounts.values.reduce(0, +)))
      cells.append("<td class=\"n\">\(escape(size(omitted.compressedBytes)))</td>")
      cells.append("<td class=\"n\">\(escape(size(omitted.decompressedBytes)))</td>")
      rows.append("<tr>\(cells.joined())</tr>")
    }
    var head = ["#", "input", "dataset", "format", "read", "rejected"]
    if loads { head.append("loaded") }
    head += ["issues", "bytes read", "decompressed"]
    let numeric: Set<String> = ["#", "read", "rejected", "loaded", "issues", "bytes read", "decompressed"]
    let headCells = head.map { "<th scope=\"col\"\(numeric.contains($0) ? " class=\"n\"" : "")>\($0)</th>" }
    return """
      <section id="inputs">
      <h2>Inputs <span class="count">\(report.inputCount)</span></h2>
      <table>
      <thead><tr>\(headCells.joined())</tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody>
      </table>
      </section>
      """
  }

  static func checksSection(_ report: RunReport) -> String {
    let rows = report.checks.map { check in
      let result =
        check.failures > 0
        ? "<span class=\"result failed\">failed</span>"
        : check.warnings > 0
          ? "<span class=\"result warning\">warnings</span>" : "<span class=\"result ok\">passed</span>"
      return "<tr><td>\(escape(check.name))</td><td>\(check.stage.rawValue)</td><td>\(result)</td>"
        + "\(number(check.failures))\(number(check.warnings))</tr>"
    }
    return """
      <section id="checks">
      <h2>Contract checks</h2>
      <table>
      <thead><tr><th scope="col">check</th><th scope="col">stage</th><th scope="col">result</th><th scope="col" class="n">failures</th><th scope="col" class="n">warnings</th></tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody>
      </table>
      </section>
      """
  }

  static func runSection(_ report: RunReport) -> String {
    var facts: [(String, String)] = [
      ("mode", report.mode), ("pipeline", report.pipeline), ("dataset", report.dataset), ("policy", report.policy),
    ]
    if report.mode != RunMode.validate.rawValue {
      facts.append(("on conflict", report.conflict))
      facts.append(("database", report.database))
    }
    facts.append(("outcome", outcome(report)))
    facts.append(("started", timestamp(report.startedAt)))
    facts.append(("finished", timestamp(report.finishedAt)))
    facts.append(("duration", RunReport.seconds(report.durationSeconds)))
    facts.append((report.inputCount > 1 ? "inputs" : "input", report.input.path))
    facts.append(("format", report.input.format + (report.input.gzip ? ", gzip" : "")))
    var bytes = "\(grouped(report.input.decompressedBytes)) bytes"
    if report.input.gzip { bytes += " decompressed from \(grouped(report.input.compressedBytes)) bytes of gzip" }
    facts.append(("bytes read", bytes))
    facts.append(("peak memory", report.peakMemoryBytes.map { "\(size($0)) (\(grouped($0)) bytes)" } ?? "unknown"))
    facts.append(("coercions", grouped(report.coercions)))
    facts.append(("quarantined", grouped(report.quarantined)))
    if let duplicates = report.duplicateKeys, !duplicates.isEmpty {
      let tables = duplicates.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { "\($0.key) \(grouped($0.value))" }
      facts.append(("duplicate keys", tables.joined(separator: ", ")))
    }
    if let deleted = report.rowsDeleted {
      let tables = deleted.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { "\($0.key) \(grouped($0.value))" }
      facts.append(("deleted (snapshot)", tables.isEmpty ? "nothing" : tables.joined(separator: ", ")))
    }
    if let skipped = report.inputsSkipped {
      var text = "\(grouped(skipped)) of \(grouped(report.inputCount)), their content already loaded"
      if report.inputCount == 1, let reason = report.inputs.first?.skipped { text += " (\(reason.description))" }
      facts.append(("inputs skipped", text))
    }
    if report.inputCount == 1, let run = report.inputs.first?.changedSinceRunId {
      facts.append(("input changed", "since run \(run) loaded it; loaded again (--reload-changed)"))
    }
    let kept = report.statistics(for: .load).kept
    if kept > 0 { facts.append(("kept as they were", grouped(kept))) }
    if let lookups = report.referenceLookups, !lookups.isEmpty {
      let tables = lookups.sorted { $0.key < $1.key }.map { table, lookup in
        "\(table) \(grouped(lookup.keys)) key(s) in \(grouped(lookup.queries)) quer\(lookup.queries == 1 ? "y" : "ies")"
      }
      facts.append(("references looked up", tables.joined(separator: ", ")))
    }
    if let writes = report.bulkWrites {
      facts.append(("bulk batches", writes.summary { grouped($0) }))
    }
    if let parallel = report.parallel {
      facts.append(
        ("parallel", "\(parallel.lanes) lanes over \(parallel.connections) connections, \(parallel.commit) commit"))
    }
    if let skipped = report.skippedByDesign, !skipped.isEmpty {
      let reasons = skipped.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        .map { "\($0.key) \(grouped($0.value))" }.joined(separator: ", ")
      facts.append(("skipped by design", reasons))
    }
    let items = facts.map { "<dt>\(escape($0.0))</dt><dd>\(escape($0.1))</dd>" }
    return """
      <section id="run">
      <h2>Run</h2>
      <dl class="facts">
      \(items.joined(separator: "\n"))
      </dl>
      </section>
      """
  }

  // MARK: - Words

  static func describe(_ kind: RunReport.Failure.Kind) -> String {
    switch kind {
    case .configuration: "configuration error"
    case .data: "data error"
    case .inputMissing: "input missing or unreadable"
    case .permissionDenied: "access to an input denied"
    case .cannotCreateOutput: "cannot create an output"
    case .io: "I/O error"
    }
  }

  /// What the run left behind, in a sentence.
  static func outcome(_ report: RunReport) -> String {
    // A `validate --db` run reads the database, in a read-only transaction: it writes to none.
    if report.mode == RunMode.validate.rawValue { return "Nothing written: validate writes to no database." }
    if report.committed {
      return report.outputErrors.isEmpty
        ? "Committed." : "Committed; the outputs above were lost after the commit."
    }
    return "Rolled back: no data was written; only the run's own row in sluice_runs records it."
  }

  /// `<td class="n">1,234</td>`.
  static func number(_ value: Int) -> String { "<td class=\"n\">\(grouped(value))</td>" }

  /// A horizontal bar for a share of the largest count, as a small inline SVG.
  static func shareBar(_ count: Int, of largest: Int, warning: Bool) -> String {
    let width = largest > 0 ? max(Double(count) / Double(largest) * 120, 2) : 0
    let color = warning ? Palette.warning : Palette.rejected
    return "<svg class=\"share\" width=\"120\" height=\"10\" viewBox=\"0 0 120 10\" aria-hidden=\"true\">"
      + "<rect x=\"0\" y=\"1\" width=\"\(svgNumber(width))\" height=\"8\" rx=\"2\" fill=\"\(color)\"/></svg>"
  }

  /// The last component of a path.
  static func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  /// `2026-11-30 16:24:25 UTC`, to the second the JSON report keeps (`RunReport.wholeSeconds`).
  static func timestamp(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime]
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: RunReport.wholeSeconds(date)) + " UTC"
  }
}
