import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// The metrics against the real programs, from Debian's packages, that `.ci/with-monitoring`
/// starts: `promtool check metrics` accepts what every mode writes, a pushed run is in a real
/// Prometheus that scrapes the Pushgateway, node_exporter's textfile collector serves the file,
/// and the example alert rules pass `promtool check rules` and `promtool test rules`.
@Suite(
  "Metrics against Prometheus, the Pushgateway and node_exporter",
  .enabled(if: MonitoringPrograms.isAvailable, MonitoringPrograms.skipReason), .serialized)
struct MetricsMonitoringTests {
  /// Runs `arguments` with `--metrics`; returns its exit code and the metrics it wrote.
  func metrics(
    _ work: MetricsWorkspace, _ arguments: [String], file: String = "run.prom"
  ) throws -> (status: Int32, text: String) {
    let path = work.directory.file(file)
    let run = work.sluice(arguments + ["--metrics", path])
    return (run.status, try work.read(path))
  }

  @Test func promtoolAcceptsTheMetricsOfEveryMode() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(MetricsTests.good)
    let rejects = work.directory.file("rejects.ndjson")
    var written: [(String, Int32, String)] = []
    func check(_ what: String, _ arguments: [String]) throws {
      let path = work.directory.file("\(what).prom")
      let run = work.sluice(arguments + ["--metrics", path])
      let text = try #require(try? work.read(path), "\(what): \(run.status) \(run.error)")
      let status = run.status
      written.append((what, status, text))
    }
    try check("strict", ["run", spec])
    _ = try work.directory.write("notes.ndjson", MetricsTests.oneBad)
    try check("failed", ["run", spec])
    try check("lenient", ["run", spec, "--policy", "lenient", "--rejects", rejects])
    try check("validate failed", ["validate", spec])
    _ = try work.directory.write("notes.ndjson", MetricsTests.good)
    try check("validate", ["validate", spec])
    try check("plan", ["plan", spec])
    // The rejected record is still invalid: the replay fails, and says so.
    try check("replay", ["replay", spec, "--rejects", rejects])
    #expect(
      written.map { "\($0.0) \($0.1)" } == [
        "strict 0", "failed 65", "lenient 0", "validate failed 65", "validate 0", "plan 0", "replay 65",
      ])
    for (what, _, text) in written {
      let checked = try MonitoringPrograms.checkMetrics(text)
      #expect(checked.status == 0 && checked.output.isEmpty, "\(what): \(checked.output)")
    }
  }

  @Test func aPushedRunIsInPrometheusWithItsNumbers() throws {
    let work = try MetricsWorkspace()
    let spec = try work.spec(MetricsTests.oneBad, policy: "lenient")
    let instance = RemoteServers.uniqueName("db")
    let run = work.sluice([
      "run", spec, "--metrics-push", MonitoringPrograms.pushgatewayURL, "--metrics-label", "instance=\(instance)",
    ])
    #expect(run.status == 0, "\(run.error)")
    #expect(!run.error.contains("sluice: warning:"), "\(run.error)")
    let loaded = try MonitoringPrograms.query("sluice_dataset_records_loaded_total{instance=\"\(instance)\"}")
    #expect(
      loaded == [
        [
          "__name__": "sluice_dataset_records_loaded_total", "job": work.name, "instance": instance,
          "pipeline": work.name, "mode": "run", "dataset": "notes",
        ]: "2"
      ])
    let rejected = try MonitoringPrograms.query(
      "sum by (job) (sluice_dataset_records_rejected_total{instance=\"\(instance)\"}) / sum by (job) (sluice_dataset_records_read_total{instance=\"\(instance)\"})"
    )
    #expect(rejected.values.first.flatMap(Double.init).map { abs($0 - 1.0 / 3) < 1e-9 } == true, "\(rejected)")

    // A failed run is POSTed without the last success: the gateway keeps the first run's.
    let first = try MonitoringPrograms.get(MonitoringPrograms.pushgatewayURL + "/metrics")
    let success = first.split(separator: "\n").first {
      $0.hasPrefix("sluice_last_success_timestamp_seconds{") && $0.contains("instance=\"\(instance)\"")
    }
    try #require(success != nil)
    _ = try work.directory.write("notes.ndjson", MetricsTests.oneBad)
    let failed = work.sluice([
      "run", spec, "--policy", "strict", "--metrics-push", MonitoringPrograms.pushgatewayURL, "--metrics-label",
      "instance=\(instance)",
    ])
    #expect(failed.status == 65)
    let exit = try MonitoringPrograms.query("sluice_run_exit_code{instance=\"\(instance)\"} == 65")
    #expect(exit.values.first == "65", "\(exit)")
    let after = try MonitoringPrograms.get(MonitoringPrograms.pushgatewayURL + "/metrics")
    #expect(after.split(separator: "\n").contains { $0 == success ?? "" })
  }

  @Test func nodeExportersTextfileCollectorServesTheFile() throws {
    let work = try MetricsWorkspace()
    let spec = try work.spec(MetricsTests.good)
    let file = (MonitoringPrograms.textfileDirectory as NSString).appendingPathComponent("\(work.name).prom")
    defer { try? FileManager.default.removeItem(atPath: file) }
    let run = work.sluice(["run", spec, "--metrics", file])
    #expect(run.status == 0, "\(run.error)")
    let served = try MonitoringPrograms.get(MonitoringPrograms.nodeExporterURL + "/metrics")
    // node_exporter sorts the labels by name.
    #expect(
      served.contains("sluice_dataset_records_loaded_total{dataset=\"notes\",mode=\"run\",pipeline=\"\(work.name)\"} 3")
    )
    #expect(served.contains("sluice_run_success{mode=\"run\",pipeline=\"\(work.name)\"} 1"))
    // The collector read the file without an error (node_textfile_scrape_error is 1 otherwise).
    #expect(served.contains("node_textfile_scrape_error 0"))
  }

  @Test func theExampleAlertRulesPassPromtoolsCheckAndTheirTests() throws {
    let folder = Repository.path("Examples/monitoring")
    for arguments in [["check", "rules", "sluice-alerts.yml"], ["test", "rules", "sluice-alerts.test.yml"]] {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: MonitoringPrograms.promtool)
      process.arguments = arguments
      process.currentDirectoryURL = URL(fileURLWithPath: folder)
      let output = Pipe()
      process.standardOutput = output
      process.standardError = output
      try process.run()
      let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "promtool \(arguments.joined(separator: " ")): \(printed)")
      #expect(printed.contains("SUCCESS"))
    }
  }
}

/// In CI the monitoring tests must run: `.ci/run` runs the tests inside `.ci/with-monitoring`.
@Suite("Monitoring programs in CI")
struct MonitoringProgramsInCITests {
  @Test(
    .enabled(
      if: ProcessInfo.processInfo.environment["CI"] == "true",
      "only in CI (CI=true), where .ci/run runs the tests through .ci/with-monitoring"))
  func theTestsHaveTheMonitoringProgramsInCI() {
    #expect(
      MonitoringPrograms.missing.isEmpty,
      "CI=true but \(MonitoringPrograms.missing.joined(separator: ", ")) not set: the monitoring tests would be skipped"
    )
  }
}
