import Foundation

/// A run's metrics in Prometheus's text exposition format (version 0.0.4), for node_exporter's
/// textfile collector (`--metrics FILE`) or a Pushgateway (`--metrics-push URL`).
///
/// Every family has its HELP and TYPE and the `sluice_` prefix; counts of the run are counters
/// (`_total`: each run is a process of its own, whose counters start at zero), times, the outcome
/// and the peak memory gauges. Every series carries `pipeline` and `mode`; the other labels are
/// names the pipeline declares — stages, datasets, issue codes, tables — or an input's redacted
/// name, and the inputs beyond `inputSeriesLimit` are summed into one series
/// (`input="(other inputs)"`), so a glob over a drop folder cannot make thousands of series. No
/// value from a record is ever a label or a sample.
package struct PrometheusMetrics {
  /// How many inputs get a `sluice_input_bytes_read_total` series of their own.
  package static let inputSeriesLimit = 20
  /// The `input` label of the inputs past `inputSeriesLimit`, summed.
  package static let otherInputsLabel = "(other inputs)"

  /// The media type a Pushgateway and a scraper take this text as.
  package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  private var lines: [String] = []
  private let common: [(String, String)]

  /// The metrics of `report`, ended with `exitCode`. `lastSuccess` is the end of the last
  /// successful run before this one (from the metrics file it replaces); nil leaves
  /// `sluice_last_success_timestamp_seconds` out of a failed run's metrics (a push then keeps
  /// the gateway's). `remoteRetries`: the requests to remote inputs the run tried again; nil for
  /// a program whose transport does not count them (or that has none).
  package static func render(
    _ report: RunReport, exitCode: Int32, lastSuccess: Double?, remoteRetries: Int? = nil
  ) -> String {
    var metrics = PrometheusMetrics(common: [("pipeline", report.pipeline), ("mode", report.mode)])
    metrics.add(report, exitCode: exitCode, lastSuccess: lastSuccess)
    if let remoteRetries {
      metrics.counter(
        "sluice_remote_retries_total", "Requests to remote inputs the last run tried again (listings included).",
        [([], Double(remoteRetries))])
    }
    return metrics.lines.joined(separator: "\n") + "\n"
  }

  private init(common: [(String, String)]) { self.common = common }

  private mutating func add(_ report: RunReport, exitCode: Int32, lastSuccess: Double?) {
    let succeeded = exitCode == 0 || exitCode == 1 && report.committed
    let start = report.startedAt.timeIntervalSince1970
    let end = report.finishedAt.timeIntervalSince1970
    gauge("sluice_run_start_timestamp_seconds", "When the last run started, in seconds since the epoch.", [([], start)])
    gauge("sluice_run_end_timestamp_seconds", "When the last run ended, in seconds since the epoch.", [([], end)])
    gauge("sluice_run_duration_seconds", "How long the last run took.", [([], report.durationSeconds)])
    gauge(
      "sluice_run_success", "1 when the last run succeeded (exit 0, or 1 for committed rejects), else 0.",
      [([], succeeded ? 1 : 0)])
    gauge("sluice_run_exit_code", "The exit code of the last run.", [([], Double(exitCode))])
    if let last = succeeded ? end : lastSuccess {
      gauge(
        "sluice_last_success_timestamp_seconds", "When the last successful run ended, in seconds since the epoch.",
        [([], last)])
    }

    let stages = Stage.allCases.map { report.statistics(for: $0) }
    let outcomes: [(String, String, (StageStatistics) -> Int)] = [
      ("in", "Records that entered each stage in the last run.", \.recordsIn),
      ("out", "Records that left each stage for the next in the last run.", \.recordsOut),
      ("rejected", "Records each stage rejected in the last run.", \.rejected),
      ("skipped", "Records each stage skipped by design in the last run.", \.skipped),
    ]
    for (outcome, help, value) in outcomes {
      counter(
        "sluice_stage_records_\(outcome)_total", help,
        stages.map { ([("stage", $0.stage.rawValue)], Double(value($0))) })
    }

    var datasets: [String: [Stage: StageStatistics]] = [:]
    for section in report.inputs {
      for stage in section.stages {
        datasets[section.dataset, default: [:]][stage.stage, default: .init(stage: stage.stage)].add(stage)
      }
    }
    if let omitted = report.inputsOmitted {
      let name = report.dataset.contains("+") ? "(unlisted inputs)" : report.dataset
      for stage in omitted.stages {
        datasets[name, default: [:]][stage.stage, default: .init(stage: stage.stage)].add(stage)
      }
    }
    let names = datasets.keys.sorted()
    func perDataset(_ value: ([Stage: StageStatistics]) -> Int) -> [([(String, String)], Double)] {
      names.map { ([("dataset", $0)], Double(value(datasets[$0] ?? [:]))) }
    }
    counter(
      "sluice_dataset_records_read_total", "Records read from each dataset's inputs in the last run.",
      perDataset { $0[.read]?.recordsIn ?? 0 })
    counter(
      "sluice_dataset_records_rejected_total", "Records of each dataset rejected by any stage in the last run.",
      perDataset { $0.values.map(\.rejected).reduce(0, +) })
    counter(
      "sluice_dataset_records_skipped_total", "Records of each dataset skipped by design in the last run.",
      perDataset { $0.values.map(\.skipped).reduce(0, +) })
    counter(
      "sluice_dataset_records_loaded_total", "Records of each dataset the load stage wrote in the last run.",
      perDataset { $0[.load]?.recordsOut ?? 0 })

    counter(
      "sluice_issues_total", "Issues the last run raised, per issue code.",
      report.issueCounts.sorted { $0.key < $1.key }.map { ([("code", $0.key)], Double($0.value)) })
    counter(
      "sluice_rows_written_total", "Rows the last run wrote, per table (rolled back ones included).",
      report.rowsWritten.sorted { $0.key < $1.key }.map { ([("table", $0.key)], Double($0.value)) })

    var inputBytes: [([(String, String)], Double)] = report.inputs.prefix(Self.inputSeriesLimit).map {
      ([("input", RemoteURL.redacted($0.path))], Double($0.compressedBytes))
    }
    let rest =
      report.inputs.dropFirst(Self.inputSeriesLimit).map(\.compressedBytes).reduce(0, +)
      + (report.inputsOmitted?.compressedBytes ?? 0)
    if report.inputCount > Self.inputSeriesLimit {
      inputBytes.append(([("input", Self.otherInputsLabel)], Double(rest)))
    }
    counter(
      "sluice_input_bytes_read_total",
      "Bytes the last run read from each input (compressed, for gzip); past \(Self.inputSeriesLimit) inputs, summed.",
      inputBytes)
    counter(
      "sluice_bytes_read_total", "Bytes the last run read from all its inputs (compressed, for gzip).",
      [([], Double(report.input.compressedBytes))])
    let skipped = report.inputsSkipped ?? 0
    let opened = report.inputs.filter { $0.opened && $0.skipped == nil }.count + (report.inputsOmitted?.opened ?? 0)
    counter("sluice_inputs_loaded_total", "Inputs the last run read.", [([], Double(max(0, opened)))])
    counter(
      "sluice_inputs_skipped_total", "Inputs an incremental run skipped: the database held their content.",
      [([], Double(skipped))])
    if let peak = report.peakMemoryBytes {
      gauge("sluice_peak_memory_bytes", "The last run's peak resident memory.", [([], Double(peak))])
    }
  }

  private mutating func gauge(_ name: String, _ help: String, _ samples: [([(String, String)], Double)]) {
    family(name, "gauge", help, samples)
  }

  private mutating func counter(_ name: String, _ help: String, _ samples: [([(String, String)], Double)]) {
    family(name, "counter", help, samples)
  }

  private mutating func family(
    _ name: String, _ type: String, _ help: String, _ samples: [([(String, String)], Double)]
  ) {
    lines.append("# HELP \(name) \(Self.escapeHelp(help))")
    lines.append("# TYPE \(name) \(type)")
    for (labels, value) in samples {
      let text = (common + labels).map { "\($0.0)=\"\(Self.escapeLabelValue($0.1))\"" }.joined(separator: ",")
      lines.append("\(name){\(text)} \(Self.format(value))")
    }
  }

  /// A sample value as the format writes it: an integer without a fraction, else Swift's
  /// shortest round-trip form.
  static func format(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }

  /// "label_value can be any sequence of UTF-8 characters, but the backslash (\), double-quote
  /// ("), and line feed (\n) characters have to be escaped as \\, \", and \n, respectively."
  package static func escapeLabelValue(_ text: String) -> String {
    var escaped = ""
    for character in text {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// HELP lines escape the backslash and the line feed.
  static func escapeHelp(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
  }

  /// Whether `name` is a label name Prometheus accepts from a client: `[a-zA-Z_][a-zA-Z0-9_]*`,
  /// not starting with `__` (reserved for internal use).
  package static func isValidLabelName(_ name: String) -> Bool {
    guard let first = name.utf8.first, !name.hasPrefix("__") else { return false }
    func isLetter(_ byte: UInt8) -> Bool {
      (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
    }
    return isLetter(first) && name.utf8.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) }
  }

  /// The value of `sluice_last_success_timestamp_seconds` in metrics Sluice wrote before
  /// (`text`, the file being replaced); nil when it holds none.
  package static func lastSuccess(in text: String) -> Double? {
    let name = "sluice_last_success_timestamp_seconds"
    for line in text.split(separator: "\n") where line.hasPrefix(name + "{") || line.hasPrefix(name + " ") {
      guard let value = line.split(separator: " ").last.flatMap({ Double($0) }), value.isFinite else { continue }
      return value
    }
    return nil
  }
}

extension StageStatistics {
  fileprivate mutating func add(_ other: StageStatistics) {
    recordsIn += other.recordsIn
    recordsOut += other.recordsOut
    rejected += other.rejected
    warnings += other.warnings
    kept += other.kept
    skipped += other.skipped
  }
}
