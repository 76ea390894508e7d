import Foundation
@_spi(Internals) import SluiceCore

/// A pipeline command's metrics for Prometheus: the file node_exporter's textfile collector reads
/// (`--metrics`, the spec's `"metrics"` for `run`) and the push to a Pushgateway
/// (`--metrics-push`, grouped by the pipeline's name and `--metrics-label`s).
///
/// Both are written once the exit code is known, so they carry it. The file is written like the
/// reports (a temporary file renamed into place) and opened before the run, so a path that cannot
/// be written fails the run before any work (73); it keeps `sluice_last_success_timestamp_seconds`
/// of the file it replaces when the run failed. A push that fails after a few tries is a warning:
/// the run's exit code is the run's.
struct MetricsOutput {
  var path: String?
  var pushURL: String?
  var labels: [(String, String)] = []
  var gateway: (any MetricsGateway)?

  /// How many times a push is tried before it is given up with a warning.
  static let pushTries = 3

  static var entries: [OptionEntry] {
    [
      OptionEntry(
        .value("metrics", "PATH"),
        """
        write the run's metrics in Prometheus's text format here, for
        node_exporter's textfile collector (renamed into place)
        """),
      OptionEntry(
        .value("metrics-push", "URL"),
        """
        push the run's metrics to this Pushgateway, grouped by job
        (the pipeline's name); a gateway that is down is a warning
        """),
      OptionEntry(
        .value("metrics-label", "NAME=VALUE"),
        "add a label to the push's group (repeatable: instance=db1)"),
    ]
  }

  /// The retries the program's transports have made so far; nil when none counts them.
  static func remoteRetries(_ context: CommandContext) -> Int? {
    let counting = context.remote.compactMap { $0 as? any RemoteRetryCounting }
    return counting.isEmpty ? nil : counting.map(\.remoteRetries).reduce(0, +)
  }

  /// The metrics options of `parsed`; `specPath` is the spec's own, which only `run` follows.
  init(
    _ parsed: ArgumentParser.Parsed, specPath: String?, mode: RunMode, context: CommandContext
  ) throws(UsageError) {
    path = parsed.values["metrics"].map(PipelineConfiguration.absolute) ?? (mode == .run ? specPath : nil)
    if let url = parsed.values["metrics-push"] {
      let scheme = RemoteURL.scheme(of: url)
      guard scheme == "http" || scheme == "https" else {
        throw UsageError(
          "--metrics-push takes a Pushgateway's http:// or https:// URL, not '\(RemoteURL.redacted(url))'")
      }
      guard let gateway = context.remote.lazy.compactMap({ $0 as? any MetricsGateway }).first else {
        throw UsageError("this program pushes no metrics: it was built without a network transport (SluiceRemote)")
      }
      self.gateway = gateway
      pushURL = url
    }
    for text in parsed.lists["metrics-label"] ?? [] {
      guard pushURL != nil else {
        throw UsageError("--metrics-label names the push's group: give --metrics-push URL too")
      }
      guard let equals = text.firstIndex(of: "=") else {
        throw UsageError("--metrics-label takes NAME=VALUE (instance=db1), not '\(text)'")
      }
      let name = String(text[..<equals])
      guard PrometheusMetrics.isValidLabelName(name) else {
        throw UsageError(
          "--metrics-label: '\(name)' is not a Prometheus label name (letters, digits and _, not first a digit, not starting with __)"
        )
      }
      guard !["job", "pipeline", "mode"].contains(name) else {
        throw UsageError("--metrics-label: '\(name)' is Sluice's own label (job is the pipeline's name)")
      }
      guard !labels.contains(where: { $0.0 == name }) else {
        throw UsageError("--metrics-label: '\(name)' is given twice")
      }
      labels.append((name, String(text[text.index(after: equals)...])))
    }
  }

  /// Opens the metrics file before the run, as the run opens its other outputs.
  func open(readerWait: Double) throws(OutputError) -> OutputFile? {
    try path.map { path throws(OutputError) in
      try OutputFile(path: path, purpose: "metrics file", readerWait: readerWait)
    }
  }

  /// Writes `report`'s metrics, ended with `status`, to `file` and the gateway; returns the exit
  /// code: `status`, or 75 when a committed run's metrics file could not be written (74 when
  /// nothing was committed and the run had succeeded).
  /// `remoteRetries`: the requests to remote inputs the run tried again, when the transport counts.
  func finish(_ report: RunReport, status: Int32, file: OutputFile?, remoteRetries: Int?) -> Int32 {
    let previous = path.flatMap { FileManager.default.contents(atPath: $0) }
      .flatMap { PrometheusMetrics.lastSuccess(in: String(decoding: $0, as: UTF8.self)) }
    let text = PrometheusMetrics.render(
      report, exitCode: status, lastSuccess: previous, remoteRetries: remoteRetries)
    var result = status
    if let file {
      do {
        try file.write(Data(text.utf8))
        try file.publish()
      } catch {
        printError("sluice: \(error.message)")
        if status == ExitCode.success || status == ExitCode.rejectsFound {
          result = report.committed ? ExitCode.committedButOutputFailed : ExitCode.ioError
        }
      }
    }
    if let gateway, let pushURL {
      let base = pushURL.hasSuffix("/") ? String(pushURL.dropLast()) : pushURL
      let url = base + PushgatewayPath.grouping(job: report.pipeline, labels: labels)
      // A failed run's metrics without the last success are POSTed: the gateway then keeps the
      // group's `sluice_last_success_timestamp_seconds` from the last successful push.
      let pushed = PrometheusMetrics.render(report, exitCode: status, lastSuccess: nil, remoteRetries: remoteRetries)
      let replacing = pushed.contains("sluice_last_success_timestamp_seconds")
      do {
        try gateway.pushMetrics(pushed, to: url, replacing: replacing, tries: Self.pushTries)
      } catch {
        printError(
          "sluice: warning: the metrics were not pushed to \(RemoteURL.redacted(pushURL)): \(error.message); the exit code is the run's (\(result))"
        )
      }
    }
    return result
  }
}
