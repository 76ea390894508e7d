import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `--fail-on-rejects`: a lenient run that rejected records within its budget commits the rest
/// and exits 1, so cron and CI notice; without the flag it exits 0, and 65 keeps meaning that
/// nothing was written.
@Suite("sluice --fail-on-rejects, end to end")
struct FailOnRejectsTests {
  private func count(_ database: String, _ sql: String) throws -> Int64? {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(sql)
  }

  @Test(arguments: [
    ("Pipelines/fruits-lenient.json", "fruits", Int64(25), Int64(5)),
    ("Pipelines/orders-lenient.json", "orders", Int64(229), Int64(11)),
  ])
  func lenientRunWithRejectsCommitsAndExits1(spec: String, table: String, rows: Int64, rejected: Int64) throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("db.sqlite")
    let result = try SluiceCommand.run([
      "run", spec, "--db", database, "--report", scratch.file("r.json"), "--rejects", scratch.file("rejects.ndjson"),
      "--fail-on-rejects",
    ])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stdout.contains("\(table): \(rows) rows"))
    #expect(
      result.stderr.contains(
        "sluice: \(rejected) record(s) rejected; the rest were committed to \(database) (exit 1: --fail-on-rejects)"),
      "\(result.stderr)")
    #expect(try count(database, "SELECT count(*) FROM \(table)") == rows)
    #expect(
      try count(
        database, "SELECT count(*) FROM sluice_runs WHERE status = 'succeeded' AND records_rejected = \(rejected)") == 1
    )
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("r.json"))))
    #expect(report.status == .succeeded)
    #expect(report.committed)
  }

  @Test func theSameRunWithoutTheFlagExits0() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stderr.contains("--fail-on-rejects"))
    #expect(try count(database, "SELECT count(*) FROM fruits") == 25)
  }

  @Test func aCleanLenientRunWithTheFlagExits0() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--policy", "lenient", "--db", database, "--report", scratch.file("r.json"),
      "--fail-on-rejects",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("(fruits, lenient) succeeded"))
    #expect(try count(database, "SELECT count(*) FROM fruits") == 48)
  }

  @Test func aStrictFailureStillExits65AndWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", "SampleData/fruits-broken.ndjson.gz", "--format", "ndjson",
      "--db", database, "--report", scratch.file("r.json"), "--fail-on-rejects",
    ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("the run was rolled back"))
    #expect(!result.stderr.contains("(exit 1: --fail-on-rejects)"))
    #expect(try count(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'fruits'") == 0)
  }

  @Test func aReplayThatStillRejectsRecordsExits1() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let first = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", database, "--rejects", rejects, "--report",
      scratch.file("r.json"),
    ])
    #expect(first.status == 0, "\(first.stderr)")
    // Fix the wrong-type record only: the other four are rejected again.
    let fixed = try String(contentsOfFile: rejects, encoding: .utf8)
      .replacingOccurrences(of: #"\"color\": 7"#, with: #"\"color\": \"red\""#)
    let fixedPath = try scratch.write("fixed.ndjson", fixed)
    let replay = try SluiceCommand.run([
      "replay", "Pipelines/fruits-lenient.json", "--rejects", fixedPath, "--db", database, "--report",
      scratch.file("r2.json"),
      "--fail-on-rejects",
    ])
    #expect(replay.status == 1, "\(replay.stderr)")
    #expect(replay.stderr.contains("sluice: 4 record(s) rejected"))
    #expect(try count(database, "SELECT count(*) FROM fruits") == 26)
  }

  @Test func aLostStandardOutputOutranksTheRejects() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    // The summary on stdout goes to a pipe whose reader is gone: 75, the data committed, even
    // though records were rejected too.
    let result = try SluiceBinary.shell(
      #"sleep 0 | { "$SLUICE" run Pipelines/fruits-lenient.json --db "\#(database)" --report "\#(scratch.file("r.json"))" --fail-on-rejects; echo "status $?" >&2; } | true"#
    )
    #expect(result.stderr.contains("status 75"), "\(result.stderr)")
    #expect(try count(database, "SELECT count(*) FROM fruits") == 25)
  }

  @Test func validateDoesNotTakeTheFlag() throws {
    let result = try SluiceCommand.run(["validate", "Pipelines/fruits-lenient.json", "--fail-on-rejects"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("unknown option --fail-on-rejects"))
  }
}
