import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceRemote
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A pipeline of notes, one NDJSON record each (`{"id": "a"}`), run in process through the
/// command line with SluiceRemote's transport, as the `sluice` binary runs it.
struct MetricsWorkspace {
  /// The remote runs' notes dataset (`RemoteRunTests.NotesDataset`).
  typealias NotesDataset = RemoteRunTests.NotesDataset

  let directory: TemporaryDirectory
  /// The pipeline's name, unique to the test (the spec's file name): the job it pushes as.
  let name: String

  init(name: String = RemoteServers.uniqueName("nightly")) throws {
    directory = try TemporaryDirectory()
    self.name = name
  }

  /// Writes the input and the spec (`extra` adds keys to it); returns the spec's path.
  @discardableResult
  func spec(_ input: String, policy: String = "strict", extra: String = "") throws -> String {
    _ = try directory.write("notes.ndjson", input)
    return try directory.write(
      "\(name).json",
      """
      {"dataset": "notes", "input": "notes.ndjson", "format": "ndjson", "database": "notes.sqlite",
       "policy": "\(policy)"\(extra)}
      """)
  }

  var specPath: String { directory.file("\(name).json") }

  /// Runs `sluice arguments…`; returns the exit code, stdout and stderr.
  func sluice(_ arguments: [String]) -> (status: Int32, output: String, error: String) {
    let io = CommandIO(capturingIn: directory.path)
    let status = Sluice.run(
      arguments: arguments, datasets: [AnyDataset(NotesDataset())], drivers: [SQLiteDriver()], io: io,
      remote: [CurlRemoteInputs()])
    return (status, io.output, io.error)
  }

  func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  /// The samples of `family` in `text`: each line's labels (as written, in braces) → value.
  static func samples(_ family: String, in text: String) -> [String: String] {
    var samples: [String: String] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix(family + "{") {
      guard let space = line.lastIndex(of: " ") else { continue }
      samples[String(line[line.index(line.startIndex, offsetBy: family.count)..<space])] = String(
        line[line.index(after: space)...])
    }
    return samples
  }
}

/// `--metrics FILE`, `--metrics-push URL` and `--metrics-label`: what they write, where, and what
/// the command line refuses. Runs with no monitoring program.
@Suite("Prometheus metrics")
struct MetricsTests {
  static let good = "{\"id\": \"a\"}\n{\"id\": \"b\"}\n{\"id\": \"c\"}\n"
  /// The second of three records has a number for its id: rejected by the decoder.
  static let oneBad = "{\"id\": \"a\"}\n{\"id\": 5}\n{\"id\": \"c\"}\n"

  @Test func aLenientRunWritesItsCountsPerStageDatasetIssueAndTable() throws {
    let work = try MetricsWorkspace(name: "orders-nightly")
    let spec = try work.spec(Self.oneBad, policy: "lenient")
    let metrics = work.directory.file("metrics/orders.prom")
    let run = work.sluice(["run", spec, "--metrics", metrics])
    #expect(run.status == 0, "\(run.error)")
    let text = try work.read(metrics)
    let common = "pipeline=\"orders-nightly\",mode=\"run\""
    #expect(MetricsWorkspace.samples("sluice_run_success", in: text) == ["{\(common)}": "1"])
    #expect(MetricsWorkspace.samples("sluice_run_exit_code", in: text) == ["{\(common)}": "0"])
    #expect(
      MetricsWorkspace.samples("sluice_dataset_records_read_total", in: text) == ["{\(common),dataset=\"notes\"}": "3"])
    #expect(
      MetricsWorkspace.samples("sluice_dataset_records_rejected_total", in: text) == [
        "{\(common),dataset=\"notes\"}": "1"
      ])
    #expect(
      MetricsWorkspace.samples("sluice_dataset_records_loaded_total", in: text) == [
        "{\(common),dataset=\"notes\"}": "2"
      ])
    #expect(
      MetricsWorkspace.samples("sluice_stage_records_rejected_total", in: text)["{\(common),stage=\"decode\"}"] == "1")
    #expect(MetricsWorkspace.samples("sluice_stage_records_in_total", in: text)["{\(common),stage=\"load\"}"] == "2")
    #expect(MetricsWorkspace.samples("sluice_issues_total", in: text) == ["{\(common),code=\"typeMismatch\"}": "1"])
    #expect(MetricsWorkspace.samples("sluice_rows_written_total", in: text) == ["{\(common),table=\"notes\"}": "2"])
    let size = try FileManager.default.attributesOfItem(atPath: work.directory.file("notes.ndjson"))[.size] as? Int
    #expect(
      MetricsWorkspace.samples("sluice_input_bytes_read_total", in: text) == [
        "{\(common),input=\"\(work.directory.file("notes.ndjson"))\"}": "\(size ?? -1)"
      ])
    #expect(MetricsWorkspace.samples("sluice_bytes_read_total", in: text) == ["{\(common)}": "\(size ?? -1)"])
    #expect(MetricsWorkspace.samples("sluice_inputs_loaded_total", in: text) == ["{\(common)}": "1"])
    #expect(MetricsWorkspace.samples("sluice_inputs_skipped_total", in: text) == ["{\(common)}": "0"])
    #expect(MetricsWorkspace.samples("sluice_peak_memory_bytes", in: text).count == 1)
    #expect(MetricsWorkspace.samples("sluice_remote_retries_total", in: text) == ["{\(common)}": "0"])
    // Every family has its HELP and TYPE, before its samples; no value of a record is in it.
    var families: [String] = []
    for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
      families.append(String(line.split(separator: " ")[2]))
    }
    for family in families {
      #expect(text.contains("# HELP \(family) "), "\(family) has no HELP")
    }
    #expect(families.count == 22)
    #expect(!text.contains("\"a\"") && !text.contains("\"c\""))
    // Renamed into place: nothing else is left in its folder.
    #expect(try FileManager.default.contentsOfDirectory(atPath: work.directory.file("metrics")) == ["orders.prom"])
  }

  @Test func aFailedRunSaysSoAndCarriesTheLastSuccessOfTheFileItReplaces() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.good)
    let metrics = work.directory.file("orders.prom")
    #expect(work.sluice(["run", spec, "--metrics", metrics]).status == 0)
    let first = try work.read(metrics)
    let ended = MetricsWorkspace.samples("sluice_run_end_timestamp_seconds", in: first).values.first
    #expect(
      MetricsWorkspace.samples("sluice_last_success_timestamp_seconds", in: first).values.first == ended)

    _ = try work.directory.write("notes.ndjson", Self.oneBad)
    let failed = work.sluice(["run", spec, "--metrics", metrics])
    #expect(failed.status == 65)
    let second = try work.read(metrics)
    let common = "{pipeline=\"orders\",mode=\"run\"}"
    #expect(MetricsWorkspace.samples("sluice_run_success", in: second) == [common: "0"])
    #expect(MetricsWorkspace.samples("sluice_run_exit_code", in: second) == [common: "65"])
    #expect(MetricsWorkspace.samples("sluice_last_success_timestamp_seconds", in: second) == [common: ended ?? "-"])
    #expect(MetricsWorkspace.samples("sluice_run_end_timestamp_seconds", in: second)[common] != ended)
  }

  @Test func aFailedFirstRunHasNoLastSuccess() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.oneBad)
    let metrics = work.directory.file("orders.prom")
    #expect(work.sluice(["run", spec, "--metrics", metrics]).status == 65)
    let text = try work.read(metrics)
    #expect(!text.contains("sluice_last_success_timestamp_seconds"))
    #expect(MetricsWorkspace.samples("sluice_run_exit_code", in: text) == ["{pipeline=\"orders\",mode=\"run\"}": "65"])
  }

  @Test func theSpecsMetricsKeyIsTheRunsAndValidateWritesOnlyItsOwnOption() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.good, extra: ", \"metrics\": \"out/orders.prom\"")
    #expect(work.sluice(["run", spec]).status == 0)
    let runs = try work.read(work.directory.file("out/orders.prom"))
    #expect(runs.contains("sluice_run_success{pipeline=\"orders\",mode=\"run\"} 1"))
    let validated = work.directory.file("validate.prom")
    #expect(work.sluice(["validate", spec, "--metrics", validated]).status == 0)
    #expect(try work.read(work.directory.file("out/orders.prom")) == runs)
    #expect(try work.read(validated).contains("sluice_run_success{pipeline=\"orders\",mode=\"validate\"} 1"))
  }

  @Test func aMetricsPathThatIsADirectoryFailsTheRunBeforeAnyWork() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.good)
    let folder = work.directory.file("folder")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    let run = work.sluice(["run", spec, "--metrics", folder])
    #expect(run.status == 73)
    #expect(run.error == "sluice: cannot create the metrics file \(folder): it is a directory\n")
    #expect(!FileManager.default.fileExists(atPath: work.directory.file("notes.sqlite")))
  }

  @Test func theMetricsFileCannotBeTheDatabase() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.good)
    let run = work.sluice(["run", spec, "--metrics", work.directory.file("notes.sqlite")])
    #expect(run.status == 64)
    #expect(
      run.error.hasPrefix(
        "sluice: the metrics file \(work.directory.file("notes.sqlite")) is the same file as the database: "),
      "\(run.error)")
  }

  @Test(arguments: [
    (
      ["--metrics-label", "instance=db1"],
      "sluice: --metrics-label names the push's group: give --metrics-push URL too\n"
    ),
    (
      ["--metrics-push", "http://127.0.0.1:9/", "--metrics-label", "9lives=1"],
      "sluice: --metrics-label: '9lives' is not a Prometheus label name (letters, digits and _, not first a digit, not starting with __)\n"
    ),
    (
      ["--metrics-push", "http://127.0.0.1:9/", "--metrics-label", "__name__=x"],
      "sluice: --metrics-label: '__name__' is not a Prometheus label name (letters, digits and _, not first a digit, not starting with __)\n"
    ),
    (
      ["--metrics-push", "http://127.0.0.1:9/", "--metrics-label", "job=x"],
      "sluice: --metrics-label: 'job' is Sluice's own label (job is the pipeline's name)\n"
    ),
    (
      ["--metrics-push", "http://127.0.0.1:9/", "--metrics-label", "instance"],
      "sluice: --metrics-label takes NAME=VALUE (instance=db1), not 'instance'\n"
    ),
    (
      ["--metrics-push", "http://127.0.0.1:9/", "--metrics-label", "a=1", "--metrics-label", "a=2"],
      "sluice: --metrics-label: 'a' is given twice\n"
    ),
    (
      ["--metrics-push", "ftp://user:secret@gateway/x?token=1"],
      "sluice: --metrics-push takes a Pushgateway's http:// or https:// URL, not 'ftp://gateway/x'\n"
    ),
  ])
  func aMetricsOptionThatMeansNothingIsAUsageError(arguments: [String], message: String) throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.good)
    let run = work.sluice(["run", spec] + arguments)
    #expect(run.status == 64)
    #expect(run.error == message + "Run 'sluice run --help' for usage.\n")
    #expect(!FileManager.default.fileExists(atPath: work.directory.file("notes.sqlite")))
  }

  @Test func aProgramWithoutATransportRefusesAPush() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.good)
    let io = CommandIO(capturingIn: work.directory.path)
    let status = Sluice.run(
      arguments: ["run", spec, "--metrics-push", "http://127.0.0.1:9/"],
      datasets: [AnyDataset(MetricsWorkspace.NotesDataset())], drivers: [SQLiteDriver()], io: io)
    #expect(status == 64)
    #expect(
      io.error
        == "sluice: this program pushes no metrics: it was built without a network transport (SluiceRemote)\nRun 'sluice run --help' for usage.\n"
    )
  }

  @Test func aGatewayThatIsDownIsAWarningAndTheRunKeepsItsExitCode() throws {
    let work = try MetricsWorkspace(name: "orders")
    let spec = try work.spec(Self.good)
    // A port nothing listens on: bound by the kernel's choice, then closed.
    let port = try Self.closedPort()
    let run = work.sluice(["run", spec, "--metrics-push", "http://user:secret@127.0.0.1:\(port)/?token=abc"])
    #expect(run.status == 0)
    #expect(run.error.contains("sluice: warning: the metrics were not pushed to http://127.0.0.1:\(port)/: "))
    #expect(run.error.contains(" (3 tries); the exit code is the run's (0)\n"))
    #expect(!run.error.contains("secret") && !run.error.contains("token"))
    #expect(run.output.hasPrefix("database: "))

    _ = try work.directory.write("notes.ndjson", Self.oneBad)
    let failed = work.sluice(["run", spec, "--metrics-push", "http://127.0.0.1:\(port)"])
    #expect(failed.status == 65)
    #expect(failed.error.contains(" (3 tries); the exit code is the run's (65)\n"))
  }

  @Test func pastTwentyInputsTheBytesAreSummedIntoOneSeries() throws {
    let work = try MetricsWorkspace(name: "drops")
    try FileManager.default.createDirectory(atPath: work.directory.file("drops"), withIntermediateDirectories: false)
    for index in 1...25 { _ = try work.directory.write("drops/\(index).ndjson", "{\"id\": \"\(index)\"}\n") }
    let spec = try work.directory.write(
      "drops.json",
      #"{"dataset": "notes", "input": "drops/*.ndjson", "format": "ndjson", "database": "notes.sqlite"}"#)
    let metrics = work.directory.file("drops.prom")
    #expect(work.sluice(["run", spec, "--metrics", metrics]).status == 0)
    let samples = MetricsWorkspace.samples("sluice_input_bytes_read_total", in: try work.read(metrics))
    #expect(samples.count == 21)
    // Sorted by path, 1 10 11 … 19 2 20 … : the last five (5 6 7 8 9), 12 bytes each, are summed.
    #expect(samples["{pipeline=\"drops\",mode=\"run\",input=\"(other inputs)\"}"] == "60")
    #expect(MetricsWorkspace.samples("sluice_inputs_loaded_total", in: try work.read(metrics)).values.first == "25")
  }

  @Test(.enabled(if: TestServers.isAvailable, TestServers.skipReason))
  func theRetriesOfARemoteInputAreCounted() throws {
    let work = try MetricsWorkspace(name: "remote")
    let folder = try ServedFolder("metrics")
    try folder.write("notes.ndjson", Array(Self.good.utf8))
    // The first request answers 503 with `Retry-After: 0`: one retry, at once.
    let url = folder.faultURL("notes.ndjson", id: RemoteServers.uniqueName("retry"), faults: "status:503:0:1")
    let spec = try work.directory.write(
      "remote.json", #"{"dataset": "notes", "input": "\#(url)", "format": "ndjson", "database": "notes.sqlite"}"#)
    let metrics = work.directory.file("remote.prom")
    let run = work.sluice(["run", spec, "--metrics", metrics])
    #expect(run.status == 0, "\(run.error)")
    let text = try work.read(metrics)
    #expect(
      MetricsWorkspace.samples("sluice_remote_retries_total", in: text) == ["{pipeline=\"remote\",mode=\"run\"}": "1"])
    #expect(
      MetricsWorkspace.samples("sluice_input_bytes_read_total", in: text) == [
        "{pipeline=\"remote\",mode=\"run\",input=\"\(url)\"}": "\(Self.good.utf8.count)"
      ])
  }

  @Test func theGroupingKeyIsEncodedAsThePushgatewayReadsIt() {
    #expect(
      PushgatewayPath.grouping(job: "orders nightly", labels: [("instance", "db-1.example")])
        == "/metrics/job/orders%20nightly/instance/db-1.example")
    // "/" and the empty value take the base64 (URL-safe) form.
    #expect(
      PushgatewayPath.grouping(job: "orders", labels: [("path", "/var/dumps"), ("empty", "")])
        == "/metrics/job/orders/path@base64/L3Zhci9kdW1wcw==/empty@base64/=")
  }

  @Test func labelValuesAreEscapedAndLabelNamesChecked() {
    #expect(PrometheusMetrics.escapeLabelValue("a\"b\\c\nd") == #"a\"b\\c\nd"#)
    #expect(PrometheusMetrics.isValidLabelName("instance_2"))
    #expect(PrometheusMetrics.isValidLabelName("_x"))
    #expect(!PrometheusMetrics.isValidLabelName("2x"))
    #expect(!PrometheusMetrics.isValidLabelName("a-b"))
    #expect(!PrometheusMetrics.isValidLabelName("__reserved"))
    #expect(!PrometheusMetrics.isValidLabelName(""))
  }

  static func closedPort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
        Glibc.bind(socket, raw, length) == 0 && getsockname(socket, raw, &length) == 0
      }
    }
    try #require(bound)
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
