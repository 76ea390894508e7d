import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceRemote
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Issue 57's "Done when", end to end: the command line, in process, over the real servers
/// `.ci/with-remote` starts — gzip NDJSON drops in a bucket on moto (authentication on) and behind
/// nginx over HTTPS, transfers broken by the fault server — into SQLite, each run's database
/// compared with a clean run's, what was not downloaded proven by the servers' own logs, and every
/// output searched for the S3 key, its secret and a presigned query.
@Suite(
  "Issue 57 end to end: remote drops into SQLite", .enabled(if: RemoteServers.isAvailable, RemoteServers.skipReason))
struct RemoteEndToEndTests {
  static let tables = ["orders", "order_lines", "line_taxes", "tax_parts", "part_tags"]

  /// The command line reads the S3 key from the environment, as the tool does; the suites of
  /// this target set the same test key.
  static let credentials: Void = {
    setenv("AWS_ACCESS_KEY_ID", RemoteServers.s3AccessKeyID, 1)
    setenv("AWS_SECRET_ACCESS_KEY", RemoteServers.s3SecretAccessKey, 1)
  }()

  /// Runs `sluice arguments…` in `directory`, as the `sluice` executable would (the nested
  /// orders dataset, SQLite, SluiceRemote's transport): exit code, stdout, stderr.
  func sluice(_ arguments: [String], in directory: TemporaryDirectory) -> (status: Int32, output: String, error: String)
  {
    _ = Self.credentials
    let io = CommandIO(capturingIn: directory.path)
    let status = Sluice.run(
      arguments: arguments, datasets: [AnyDataset(NestedOrdersDataset())], drivers: [SQLiteDriver()], io: io,
      remote: [CurlRemoteInputs()])
    return (status, io.output, io.error)
  }

  /// `count` nested orders `prefix-0…`, one gzip NDJSON member; with `badCode`, order 1's tax
  /// part has an empty code (rejected by its check).
  static func drop(_ prefix: String, count: Int, badCode: Bool = false) -> [UInt8] {
    let lines = (0..<count).map { index in
      let code = badCode && index == 1 ? "" : "c\(index % 7)"
      return #"{"id": "\#(prefix)-\#(index)", "note": "order \#(index) of \#(prefix)", "lines": ["#
        + #"{"sku": "s\#(index % 13)", "taxes": [{"rate": \#(index % 20), "parts": [{"code": "\#(code)", "tags": ["t\#(index % 3)", "u"]}]}]},"#
        + #"{"sku": "k\#(index % 5)", "taxes": []}]}"#
    }
    return Gzip.compress(lines.joined(separator: "\n") + "\n")
  }

  func snapshot(_ database: String) throws -> DatabaseSnapshot {
    try DatabaseSnapshot(of: database, tables: Self.tables)
  }

  /// A spec over `input` into `database` (both relative to `directory`), the nested orders as
  /// NDJSON, moto as the S3 storage.
  func spec(_ input: String, in directory: TemporaryDirectory, extra: String = "") throws -> String {
    try directory.write(
      "nested.json",
      """
      {"dataset": "nested", "input": "\(input)", "format": "ndjson", "database": "nested.sqlite",
       "storage": {"endpoint": "\(RemoteServers.s3Endpoint)", "region": "us-east-1", "pathStyle": true}\(extra)}
      """)
  }

  /// The JSON report's top-level numbers a test checks.
  struct Report: Decodable {
    var status: String
    var inputsSkipped: Int?
  }

  func report(_ path: String) throws -> Report {
    try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
  }

  @Test func aBucketOfGzipDropsLoadsThenAnIncrementalRunSkipsThemWithoutDownloadingAndLoadsOnlyANewOne() throws {
    let scratch = try TemporaryDirectory()
    let bucket = try TestBucket("drops")
    try bucket.put("drops/2026-12-05.ndjson.gz", Self.drop("a", count: 300))
    try bucket.put("drops/2026-12-06.ndjson.gz", Self.drop("b", count: 200))
    try bucket.put("drops/notes.txt", Array("not a drop\n".utf8))
    try bucket.put("other/2026-12-05.ndjson.gz", Self.drop("x", count: 5))
    let spec = try spec(bucket.url("drops/*.ndjson.gz"), in: scratch)
    let database = scratch.file("nested.sqlite")
    let objects = ["drops/2026-12-05.ndjson.gz", "drops/2026-12-06.ndjson.gz", "drops/2026-12-07.ndjson.gz"].map {
      "/" + bucket.name + "/" + $0
    }
    // The requests for the objects themselves (GET or HEAD), past the first `start` of the bucket's.
    func downloads(since start: Int) throws -> [String] {
      try RemoteServers.s3Requests(bucket: bucket.name).dropFirst(start).filter { request in
        objects.contains { request.hasPrefix("GET " + $0) || request.hasPrefix("HEAD " + $0) }
      }
    }

    let first = sluice(["run", spec, "--report", scratch.file("first.json")], in: scratch)
    #expect(first.status == 0, "\(first.error)")
    #expect(try snapshot(database).count("orders") == 500)
    #expect(try downloads(since: 0).filter { $0.hasPrefix("GET ") } == ["GET " + objects[0], "GET " + objects[1]])

    let before = try RemoteServers.s3Requests(bucket: bucket.name).count
    let second = sluice(["run", spec, "--incremental", "--report", scratch.file("second.json")], in: scratch)
    #expect(second.status == 0, "\(second.error)")
    // Only the listing: not a byte of either object, not even a HEAD.
    #expect(try downloads(since: before) == [])
    #expect(
      try RemoteServers.s3Requests(bucket: bucket.name).dropFirst(before).allSatisfy { $0.contains("list-type=2") })
    #expect(try report(scratch.file("second.json")).inputsSkipped == 2)
    #expect(try snapshot(database).count("orders") == 500)

    try bucket.put("drops/2026-12-07.ndjson.gz", Self.drop("c", count: 100))
    let newer = try RemoteServers.s3Requests(bucket: bucket.name).count
    let third = sluice(["run", spec, "--incremental", "--report", scratch.file("third.json")], in: scratch)
    #expect(third.status == 0, "\(third.error)")
    #expect(try downloads(since: newer).filter { !$0.hasSuffix(objects[2]) } == [])
    #expect(try downloads(since: newer).filter { $0.hasPrefix("GET ") } == ["GET " + objects[2]])
    #expect(try report(scratch.file("third.json")).inputsSkipped == 2)

    // Three nights, incremental, hold what one clean run over the three drops loads.
    let clean = try TemporaryDirectory()
    let cleanSpec = try self.spec(bucket.url("drops/*.ndjson.gz"), in: clean)
    #expect(sluice(["run", cleanSpec], in: clean).status == 0)
    #expect(try snapshot(database) == snapshot(clean.file("nested.sqlite")))
    #expect(try snapshot(database).count("orders") == 600)
  }

  @Test func anHTTPSDumpFromNginxLoadsThenAnIncrementalRunAsksOnlyForItsHeadAndRefusesItChanged() throws {
    let scratch = try TemporaryDirectory()
    let folder = try ServedFolder("nightly")
    try folder.write("orders.ndjson.gz", Self.drop("h", count: 250))
    let url = folder.httpsURL("orders.ndjson.gz")
    let spec = try spec(url, in: scratch, extra: #", "caBundle": "\#(RemoteServers.caBundle)""#)
    let database = scratch.file("nested.sqlite")

    let first = sluice(["run", spec], in: scratch)
    #expect(first.status == 0, "\(first.error)")
    #expect(try snapshot(database).count("orders") == 250)
    let loaded = try snapshot(database)
    let seen = try RemoteServers.httpsRequests(folder: folder).count

    let again = sluice(["run", spec, "--incremental", "--report", scratch.file("again.json")], in: scratch)
    #expect(again.status == 0, "\(again.error)")
    #expect(
      try RemoteServers.httpsRequests(folder: folder).dropFirst(seen).map { $0.split(separator: " ")[0] } == ["HEAD"])
    #expect(try report(scratch.file("again.json")).inputsSkipped == 1)

    // Another dump under the same name: refused, exit 65, nothing written.
    try folder.write("orders.ndjson.gz", Self.drop("h2", count: 10))
    let changed = sluice(["run", spec, "--incremental"], in: scratch)
    #expect(changed.status == 65)
    #expect(changed.error.contains(url))
    #expect(changed.error.contains("loaded by run 1"))
    #expect(try snapshot(database) == loaded)
  }

  @Test func aTransferCutHalfwayResumesByOneRangeRequestAndLoadsWhatACleanRunLoads() throws {
    let scratch = try TemporaryDirectory()
    let folder = try ServedFolder("cut")
    let dump = Self.drop("r", count: 3_000)
    try folder.write("orders.ndjson.gz", dump)
    let half = dump.count / 2
    let id = RemoteServers.uniqueName("cut")
    let cutSpec = try spec(folder.faultURL("orders.ndjson.gz", id: id, faults: "truncate:\(half)"), in: scratch)
    let cut = sluice(["run", cutSpec, "--retries", "3"], in: scratch)
    #expect(cut.status == 0, "\(cut.error)")

    let requests = try RemoteServers.faultRequests(id: id).filter { $0.method == "GET" }
    #expect(requests.count == 2)
    #expect(requests.first?.status == 200)
    #expect(requests.first?.bytesSent == half)
    #expect(requests.last?.range == "bytes=\(half)-")
    #expect(requests.last?.ifMatch != nil)
    #expect(requests.last?.status == 206)
    #expect(requests.last?.bytesSent == dump.count - half)

    let clean = try TemporaryDirectory()
    let cleanSpec = try spec(folder.faultURL("orders.ndjson.gz", id: RemoteServers.uniqueName("clean")), in: clean)
    #expect(sluice(["run", cleanSpec], in: clean).status == 0)
    #expect(try snapshot(scratch.file("nested.sqlite")) == snapshot(clean.file("nested.sqlite")))
    #expect(try snapshot(scratch.file("nested.sqlite")).count("orders") == 3_000)
  }

  @Test func anObjectReplacedBetweenTwoRangesIsRefusedAndTheDatabaseKeepsWhatItHad() throws {
    let scratch = try TemporaryDirectory()
    let folder = try ServedFolder("replaced")
    try folder.write("first.ndjson.gz", Self.drop("p", count: 50))
    let dump = Self.drop("q", count: 3_000)
    try folder.write("orders.ndjson.gz", dump)
    try folder.write("orders.ndjson.gz.v2", Self.drop("v", count: 3_000))
    let firstSpec = try spec(folder.faultURL("first.ndjson.gz", id: RemoteServers.uniqueName("first")), in: scratch)
    #expect(sluice(["run", firstSpec], in: scratch).status == 0)
    let before = try snapshot(scratch.file("nested.sqlite"))

    let id = RemoteServers.uniqueName("replaced")
    let url = folder.faultURL("orders.ndjson.gz", id: id, faults: "truncate:\(dump.count / 2),change")
    let run = sluice(["run", firstSpec, "--input", url, "--retries", "3"], in: scratch)
    #expect(run.status == 65)
    #expect(run.error.contains(url))
    #expect(try snapshot(scratch.file("nested.sqlite")) == before)
    // The resumption asked for the first object by its ETag and got 412: nothing spliced.
    let gets = try RemoteServers.faultRequests(id: id).filter { $0.method == "GET" }
    #expect(gets.last?.status == 412)
  }

  /// The nightly modes read a bucket as they read a folder: a snapshot and a staged run over the
  /// objects a first run loaded change nothing, a plan says nothing would change, and a run that
  /// commits every 100 records loads what one transaction does.
  @Test func snapshotStagedPlanAndCheckpointedRunsReadABucketAsAFolder() throws {
    let scratch = try TemporaryDirectory()
    let bucket = try TestBucket("modes")
    try bucket.put("drops/1.ndjson.gz", Self.drop("m", count: 400))
    try bucket.put("drops/2.ndjson.gz", Self.drop("n", count: 300))
    let spec = try spec(bucket.url("drops/*.ndjson.gz"), in: scratch)
    let database = scratch.file("nested.sqlite")
    #expect(sluice(["run", spec], in: scratch).status == 0)
    let loaded = try snapshot(database)
    #expect(loaded.count("orders") == 700)

    for mode in ["--snapshot", "--stage"] {
      let run = sluice(["run", spec, mode], in: scratch)
      #expect(run.status == 0, "\(mode): \(run.error)")
      #expect(try snapshot(database) == loaded, "\(mode)")
    }
    let plan = sluice(["plan", spec], in: scratch)
    #expect(plan.status == 0, "\(plan.error)")
    #expect((plan.output + plan.error).contains("0 row(s) would change"), "\(plan.output)\(plan.error)")

    let checkpointed = sluice(
      ["run", spec, "--db", scratch.file("chunks.sqlite"), "--checkpoint-every", "100"], in: scratch)
    #expect(checkpointed.status == 0, "\(checkpointed.error)")
    #expect(try snapshot(scratch.file("chunks.sqlite")) == loaded)
  }

  /// What cannot be retried, or cannot be any more, exits with the code that says why, naming
  /// the URL without its query.
  @Test func refusalsExitWithTheirCodesNamingTheURLWithoutItsQuery() throws {
    let scratch = try TemporaryDirectory()
    let folder = try ServedFolder("refused")
    try folder.write("orders.ndjson.gz", Self.drop("e", count: 10))
    let bucket = try TestBucket("refused")
    let id = RemoteServers.uniqueName("busy")
    let cases: [(url: String, extra: [String], status: Int32)] = [
      (RemoteServers.httpsURL + "/private/orders.ndjson.gz", ["--ca-bundle", RemoteServers.caBundle], 77),
      (folder.httpsURL("missing.ndjson.gz"), ["--ca-bundle", RemoteServers.caBundle], 66),
      (bucket.url("drops/missing.ndjson.gz"), [], 66),
      (folder.httpsURL("orders.ndjson.gz"), [], 74),
      (folder.faultURL("orders.ndjson.gz", id: id, faults: "status:503:0:100"), ["--retries", "2"], 74),
    ]
    let spec = try spec("unused.ndjson", in: scratch)
    for (url, extra, status) in cases {
      let run = sluice(["run", spec, "--input", url + "?token=SECRETQUERY"] + extra, in: scratch)
      #expect(run.status == status, "\(url): \(run.error)")
      #expect(run.error.contains(url), "\(run.error)")
      #expect(!run.error.contains("SECRETQUERY"))
    }
    // Exhausted: the first try and two retries.
    #expect(try RemoteServers.faultRequests(id: id).count == 3)
  }

  /// The S3 key, its secret and a presigned URL's query appear in no output of any command: not
  /// stdout or stderr, the JSON report, the rejects, the HTML page, JUnit, `sluice runs` (text and
  /// JSON), nor any byte of the database (the tables, the ledger, the audit tables).
  @Test func noOutputHoldsTheKeyTheSecretOrAPresignedQuery() throws {
    let scratch = try TemporaryDirectory()
    let bucket = try TestBucket("secrets")
    try bucket.put("drops/1.ndjson.gz", Self.drop("s", count: 20, badCode: true))
    let folder = try ServedFolder("presigned")
    try folder.write("2.ndjson.gz", Self.drop("t", count: 20, badCode: true))
    let query =
      "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAPRESIGNED0000000%2F20261207&X-Amz-Signature=5ec2e75e9a7e"
    let spec = try scratch.write(
      "nested.json",
      """
      {"inputs": [{"dataset": "nested", "input": "\(bucket.url("drops/*.ndjson.gz"))", "format": "ndjson"},
                  {"dataset": "nested", "input": "\(folder.httpsURL("2.ndjson.gz"))?\(query)", "format": "ndjson"}],
       "policy": "lenient", "database": "nested.sqlite", "caBundle": "\(RemoteServers.caBundle)",
       "storage": {"endpoint": "\(RemoteServers.s3Endpoint)", "region": "us-east-1", "pathStyle": true},
       "report": "report.json", "rejects": "rejects.ndjson", "html": "report.html", "junit": "report.xml"}
      """)
    let run = sluice(["run", spec], in: scratch)
    #expect(run.status == 0, "\(run.error)")
    #expect(try snapshot(scratch.file("nested.sqlite")).count("orders") == 38)
    let missing = try scratch.write(
      "missing.json",
      """
      {"dataset": "nested", "input": "\(bucket.url("drops/missing.ndjson.gz"))?\(query)", "format": "ndjson",
       "database": "nested.sqlite",
       "storage": {"endpoint": "\(RemoteServers.s3Endpoint)", "region": "us-east-1", "pathStyle": true}}
      """)
    let failed = sluice(["run", missing], in: scratch)
    #expect(failed.status == 66)

    var outputs = [
      "run": run.output + run.error, "failed run": failed.output + failed.error,
    ]
    for arguments in [
      ["runs", "nested.sqlite"], ["runs", "nested.sqlite", "--json"], ["runs", "nested.sqlite", "1"],
    ] {
      let runs = sluice(arguments, in: scratch)
      #expect(runs.status == 0, "\(runs.error)")
      outputs[arguments.joined(separator: " ")] = runs.output + runs.error
    }
    for file in ["report.json", "rejects.ndjson", "report.html", "report.xml", "nested.sqlite"] {
      let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.file(file)))
      outputs[file] = String(decoding: bytes, as: UTF8.self)
    }
    #expect(outputs["report.json"]?.contains(folder.httpsURL("2.ndjson.gz")) == true)
    let secrets = [
      RemoteServers.s3AccessKeyID, RemoteServers.s3SecretAccessKey, "AKIAPRESIGNED0000000", "5ec2e75e9a7e",
      "X-Amz-Credential", "X-Amz-Signature",
    ]
    for (name, text) in outputs.sorted(by: { $0.key < $1.key }) {
      for secret in secrets {
        #expect(!text.contains(secret), "\(name) holds \(secret)")
      }
    }
  }
}
