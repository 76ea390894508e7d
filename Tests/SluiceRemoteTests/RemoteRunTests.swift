import Foundation
@_spi(Internals) import SluiceCLI
@_spi(Internals) import SluiceCore
import SluiceRemote
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Runs of the command line in process over remote inputs: the ledger, incremental runs that
/// skip objects without downloading them, refusals and what is never shown.
@Suite("Runs over remote inputs", .enabled(if: TestServers.isAvailable, TestServers.skipReason), .serialized)
struct RemoteRunTests {
  /// Notes, one NDJSON record each: `{"id": "a"}`.
  struct NotesDataset: Dataset {
    struct Note: Decodable { let id: String }
    var name: String { "notes" }
    var summary: String { "notes → notes" }
    static let notes = Table("notes", key: ["note_id"], columns: [.text("note_id", field: "id")])
    var schema: Schema { Schema([Self.notes]) }
    func validate(_ note: Note, into validation: inout Validation) {}
    func map(_ note: Note, context _: inout MappingContext) throws(MappingError) -> Note { note }
    func rows(for note: Note, into rows: inout RecordRows) { rows.add(Self.notes, note.id) }
  }

  /// The command line reads credentials from the environment, as the tool does.
  static let credentials: Void = {
    setenv("AWS_ACCESS_KEY_ID", TestServers.accessKeyID ?? "", 1)
    setenv("AWS_SECRET_ACCESS_KEY", TestServers.secretAccessKey ?? "", 1)
  }()

  /// Runs `sluice arguments…` in `directory`; returns the exit code, stdout and stderr.
  func sluice(_ arguments: [String], in directory: TemporaryDirectory) -> (status: Int32, output: String, error: String)
  {
    _ = Self.credentials
    let io = CommandIO(capturingIn: directory.path)
    let status = Sluice.run(
      arguments: arguments, datasets: [AnyDataset(NotesDataset())], drivers: [SQLiteDriver()], io: io,
      remote: [CurlRemoteInputs()])
    return (status, io.output, io.error)
  }

  /// The ledger's rows of run `run`: status and ETag (`-` for none) per input, in order.
  func ledger(_ database: String, run: Int) throws -> [String] {
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true, create: false))
    let query = try db.prepare(
      "SELECT path, status, coalesce(etag, '-'), size FROM sluice_inputs WHERE run_id = ?1 ORDER BY position")
    try query.bind(.integer(Int64(run)), at: 1)
    var rows: [String] = []
    while try query.step() {
      rows.append((Int32(0)..<4).map { query.columnText($0) ?? "" }.joined(separator: " "))
    }
    return rows
  }

  func notes(_ database: String) throws -> [String] {
    try DatabaseSnapshot(of: database, tables: ["notes"]).tables["notes"] ?? []
  }

  func put(_ text: String, bucket: String, key: String) throws {
    let file = NSTemporaryDirectory() + "/sluice-upload-" + UUID().uuidString
    try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    try TestServers.s3("PUT", "/\(bucket)/\(key)", upload: file)
  }

  @Test func aBucketPatternLoadsEveryObjectAndAnIncrementalRunSkipsThemUntilANewOneComes() throws {
    let scratch = try TemporaryDirectory()
    let bucket = try TestServers.bucket()
    try put("{\"id\": \"a\"}\n{\"id\": \"b\"}\n", bucket: bucket, key: "drops/1.ndjson")
    try put("{\"id\": \"c\"}\n", bucket: bucket, key: "drops/2.ndjson")
    let database = scratch.file("notes.sqlite")
    let spec = try scratch.write(
      "notes.json",
      """
      {"dataset": "notes", "input": "s3://\(bucket)/drops/*.ndjson", "format": "ndjson", "database": "notes.sqlite",
       "storage": {"endpoint": "\(TestServers.s3Endpoint ?? "")", "region": "us-east-1"}}
      """)
    let first = sluice(["run", spec], in: scratch)
    #expect(first.status == 0, "\(first.error)")
    #expect(try notes(database) == ["'a'", "'b'", "'c'"])
    let loaded = try ledger(database, run: 1)
    #expect(loaded.count == 2)
    #expect(loaded.allSatisfy { $0.contains(" loaded \"") })
    #expect(loaded.first?.hasPrefix("s3://\(bucket)/drops/1.ndjson loaded ") == true)
    #expect(loaded.first?.hasSuffix(" 24") == true)

    let again = sluice(["run", spec, "--incremental"], in: scratch)
    #expect(again.status == 0, "\(again.error)")
    let skipped = try ledger(database, run: 2)
    #expect(skipped.map { $0.replacingOccurrences(of: " skipped ", with: " loaded ") } == loaded)

    try put("{\"id\": \"d\"}\n", bucket: bucket, key: "drops/3.ndjson")
    let third = sluice(["run", spec, "--incremental"], in: scratch)
    #expect(third.status == 0, "\(third.error)")
    #expect(try ledger(database, run: 3).map { $0.split(separator: " ")[1] } == ["skipped", "skipped", "loaded"])
    #expect(try notes(database) == ["'a'", "'b'", "'c'", "'d'"])

    try put("{\"id\": \"z\"}\n", bucket: bucket, key: "drops/2.ndjson")
    let changed = sluice(["run", spec, "--incremental"], in: scratch)
    #expect(changed.status == 65)
    #expect(changed.error.contains("s3://\(bucket)/drops/2.ndjson was loaded by run 1 as another object (ETag \""))
    #expect(try notes(database) == ["'a'", "'b'", "'c'", "'d'"])
  }

  @Test func anIncrementalRunOverHTTPAsksOnlyForTheHeadOfAnObjectItHolds() throws {
    let scratch = try TemporaryDirectory()
    let folder = try TestServers.folder()
    try Data("{\"id\": \"a\"}\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/a.ndjson"))
    let id = "run-" + UUID().uuidString.lowercased()
    let url = (TestServers.faultURL ?? "") + "/\(id)/-/\(folder.name)/a.ndjson"
    let database = scratch.file("notes.sqlite")
    let arguments = ["--input", url, "--format", "ndjson", "--db", database]
    let spec = try scratch.write("notes.json", #"{"dataset": "notes", "input": "x.ndjson", "format": "ndjson"}"#)
    #expect(sluice(["run", spec] + arguments, in: scratch).status == 0)
    let again = sluice(["run", spec, "--incremental"] + arguments, in: scratch)
    #expect(again.status == 0, "\(again.error)")
    #expect(try TestServers.stats(id).map { $0["method"] as? String } == ["GET", "HEAD"])
    #expect(try ledger(database, run: 2).first?.contains(" skipped \"") == true)
  }

  @Test func aPresignedQueryIsNeverStoredReportedOrPrinted() throws {
    let scratch = try TemporaryDirectory()
    let folder = try TestServers.folder()
    try Data("{\"id\": \"a\"}\n{\"id\": 5}\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/a.ndjson"))
    let secret = "X-Amz-Signature=SECRET5ecret&X-Amz-Credential=AKIAEXAMPLE"
    let url = (TestServers.httpsURL ?? "") + "/\(folder.name)/a.ndjson"
    let spec = try scratch.write(
      "notes.json",
      #"{"dataset": "notes", "input": "x.ndjson", "format": "ndjson", "policy": "lenient"}"#)
    let database = scratch.file("notes.sqlite")
    let run = sluice(
      [
        "run", spec, "--input", "\(url)?\(secret)", "--db", database, "--ca-bundle", TestServers.caBundle ?? "",
        "--report", scratch.file("report.json"), "--rejects", scratch.file("rejects.ndjson"), "--html",
        scratch.file("report.html"),
      ], in: scratch)
    #expect(run.status == 0, "\(run.error)")
    let runs = sluice(["runs", database, "--json"], in: scratch)
    var everything = run.output + run.error + runs.output + runs.error
    for file in ["report.json", "rejects.ndjson", "report.html", "notes.sqlite"] {
      everything += String(decoding: try Data(contentsOf: URL(fileURLWithPath: scratch.file(file))), as: UTF8.self)
    }
    #expect(everything.contains(url))
    #expect(!everything.contains("SECRET5ecret"))
    #expect(!everything.contains("AKIAEXAMPLE"))
    #expect(try ledger(database, run: 1).first?.hasPrefix(url + " loaded ") == true)
  }

  @Test(arguments: [
    ("/no/such.ndjson", Int32(66), "no such object (HTTP 404)"),
    ("/private/a.ndjson", Int32(77), "access denied (HTTP 403): the server refused to serve this URL"),
  ])
  func aRefusedInputExitsWithItsCodeNamingTheURL(path: String, status: Int32, message: String) throws {
    let scratch = try TemporaryDirectory()
    let url = (TestServers.httpsURL ?? "") + path
    let spec = try scratch.write("notes.json", #"{"dataset": "notes", "input": "x.ndjson", "format": "ndjson"}"#)
    let run = sluice(
      [
        "run", spec, "--input", url + "?token=SECRET", "--db", scratch.file("n.sqlite"), "--ca-bundle",
        TestServers.caBundle ?? "",
      ], in: scratch)
    #expect(run.status == status)
    #expect(run.error.contains("\(url): \(message)"))
    #expect(!run.error.contains("SECRET"))
  }

  @Test func aServerTLSCannotVerifyExits74() throws {
    let scratch = try TemporaryDirectory()
    let folder = try TestServers.folder()
    try Data("{\"id\": \"a\"}\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/a.ndjson"))
    let url = (TestServers.httpsURL ?? "") + "/\(folder.name)/a.ndjson"
    let spec = try scratch.write("notes.json", #"{"dataset": "notes", "input": "x.ndjson", "format": "ndjson"}"#)
    let run = sluice(["run", spec, "--input", url, "--db", scratch.file("n.sqlite")], in: scratch)
    #expect(run.status == 74)
    #expect(run.error.contains("\(url): TLS failed: "))
  }

  @Test func anObjectReplacedMidReadIsRefusedWithNothingCommitted() throws {
    let scratch = try TemporaryDirectory()
    let folder = try TestServers.folder()
    let text = (0..<20_000).map { "{\"id\": \"n\($0)\"}\n" }.joined()
    try Data(text.utf8).write(to: URL(fileURLWithPath: folder.path + "/a.ndjson"))
    let url =
      (TestServers.faultURL ?? "")
      + "/r-\(UUID().uuidString.lowercased())/truncate:100000,change/\(folder.name)/a.ndjson"
    let spec = try scratch.write("notes.json", #"{"dataset": "notes", "input": "x.ndjson", "format": "ndjson"}"#)
    let database = scratch.file("n.sqlite")
    let run = sluice(["run", spec, "--input", url, "--db", database, "--retries", "2"], in: scratch)
    #expect(run.status == 65)
    #expect(run.error.contains("the object was replaced while it was read"))
    #expect(try notes(database).isEmpty)
  }

  @Test func aTransferCutHalfwayResumesAndLoadsWhatACleanRunLoads() throws {
    let scratch = try TemporaryDirectory()
    let folder = try TestServers.folder()
    let text = (0..<20_000).map { "{\"id\": \"n\($0)\"}\n" }.joined()
    try Data(text.utf8).write(to: URL(fileURLWithPath: folder.path + "/a.ndjson"))
    let spec = try scratch.write("notes.json", #"{"dataset": "notes", "input": "x.ndjson", "format": "ndjson"}"#)
    let clean = scratch.file("clean.sqlite")
    let cut = scratch.file("cut.sqlite")
    let base = (TestServers.faultURL ?? "") + "/c-\(UUID().uuidString.lowercased())"
    #expect(
      sluice(["run", spec, "--input", "\(base)/-/\(folder.name)/a.ndjson", "--db", clean], in: scratch).status == 0)
    let half = text.utf8.count / 2
    let run = sluice(
      ["run", spec, "--input", "\(base)/truncate:\(half)/\(folder.name)/a.ndjson", "--db", cut], in: scratch)
    #expect(run.status == 0, "\(run.error)")
    #expect(try notes(cut) == notes(clean))
    #expect(try notes(cut).count == 20_000)
  }

  @Test func aResumeRefusesARemoteInputReplacedSinceTheInterruptedRunReadIt() throws {
    let scratch = try TemporaryDirectory()
    let folder = try TestServers.folder()
    let file = folder.path + "/a.ndjson"
    // Record 500 has a number for its id: the strict run fails there, its first chunk committed.
    let records = (0..<600).map { $0 == 500 ? "{\"id\": 5}\n" : "{\"id\": \"n\($0)\"}\n" }
    try Data(records.joined().utf8).write(to: URL(fileURLWithPath: file))
    let url = (TestServers.httpsURL ?? "") + "/\(folder.name)/a.ndjson"
    let spec = try scratch.write("notes.json", #"{"dataset": "notes", "input": "x.ndjson", "format": "ndjson"}"#)
    let database = scratch.file("n.sqlite")
    let arguments = [
      "run", spec, "--input", url, "--db", database, "--ca-bundle", TestServers.caBundle ?? "", "--checkpoint-every",
      "100",
    ]
    let interrupted = sluice(arguments, in: scratch)
    #expect(interrupted.status == 65)
    #expect(try notes(database).count == 256)
    // The same object: the resume reads it again, and fails where the run did.
    let same = sluice(arguments + ["--resume"], in: scratch)
    #expect(same.status == 65)
    #expect(!same.error.contains("was replaced"))
    try Data(records.dropLast().joined().utf8).write(to: URL(fileURLWithPath: file))
    let replaced = sluice(arguments + ["--resume"], in: scratch)
    #expect(replaced.status == 65)
    #expect(replaced.error.contains("\(url) was replaced since the interrupted run read it (ETag \""))
    #expect(try notes(database).count == 256)
  }

  @Test func inspectReadsAURLThroughTheSameInput() throws {
    let scratch = try TemporaryDirectory()
    let folder = try TestServers.folder()
    try Data(try gzipMember("{\"id\": \"a\"}\n{\"id\": \"b\"}\n")).write(
      to: URL(fileURLWithPath: folder.path + "/notes.ndjson.gz"))
    let url = (TestServers.httpsURL ?? "") + "/\(folder.name)/notes.ndjson.gz"
    let inspect = sluice(
      ["inspect", url + "?sig=SECRET", "--ca-bundle", TestServers.caBundle ?? "", "--json"], in: scratch)
    #expect(inspect.status == 0, "\(inspect.error)")
    #expect(inspect.output.contains("\"ndjson\""))
    #expect(!inspect.output.contains("SECRET") && !inspect.error.contains("SECRET"))
    let denied = sluice(
      ["inspect", (TestServers.httpsURL ?? "") + "/private/a.json", "--ca-bundle", TestServers.caBundle ?? ""],
      in: scratch)
    #expect(denied.status == 77)
  }

  @Test func anS3PatternsExcludeLeavesObjectsOutWithAWarning() throws {
    let scratch = try TemporaryDirectory()
    let bucket = try TestServers.bucket()
    try put("{\"id\": \"a\"}\n", bucket: bucket, key: "drops/a.ndjson")
    try put("{\"id\": \"x\"}\n", bucket: bucket, key: "drops/skip-x.ndjson")
    let spec = try scratch.write(
      "notes.json",
      """
      {"inputs": [{"dataset": "notes", "input": "s3://\(bucket)/drops/*.ndjson", "format": "ndjson", "exclude": ["skip-*"]}],
       "database": "notes.sqlite", "storage": {"endpoint": "\(TestServers.s3Endpoint ?? "")"}}
      """)
    let run = sluice(["run", spec, "--report", scratch.file("report.json")], in: scratch)
    #expect(run.status == 0, "\(run.error)")
    #expect(try notes(scratch.file("notes.sqlite")) == ["'a'"])
    let report = try String(contentsOfFile: scratch.file("report.json"), encoding: .utf8)
    #expect(report.contains("excludedInput") && report.contains("s3://\(bucket)/drops/skip-x.ndjson"))
    #expect(try ledger(scratch.file("notes.sqlite"), run: 1).count == 1)
  }
}
