import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The `sluice` command line on the committed sample files and specs.
@Suite("sluice command line, end to end")
struct SluiceCommandTests {
  private func count(_ database: String, _ sql: String) throws -> Int64? {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(sql)
  }

  @Test func sampleImportCreatesTheDatabaseAndPrintsTheReport() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let reportPath = scratch.file("reports/fruits.json")
    let result = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--db", database, "--report", reportPath])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("database: \(database)"))
    #expect(result.stdout.contains("  fruits: 48 rows written\n  recipes: 173 rows written"))
    #expect(result.stderr.contains("succeeded"))
    for stage in ["read", "decode", "validate", "map", "load"] {
      #expect(result.stderr.contains("\n  \(stage) "), "stage \(stage) missing from the summary")
    }
    #expect(try count(database, "SELECT count(*) FROM fruits") == 48)
    #expect(
      try count(database, "SELECT count(*) FROM recipes WHERE fruit_id NOT IN (SELECT fruit_id FROM fruits)") == 0)
    #expect(try count(database, "SELECT min(n) FROM (SELECT count(*) AS n FROM recipes GROUP BY fruit_id)") ?? 0 >= 2)
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    #expect(report.status == .succeeded)
    // Tables are counted only when asked: a full scan of a growing nightly target otherwise.
    #expect(report.tableRows.isEmpty)
    #expect(report.rowsWritten["fruits"] == 48)

    let again = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--db", database, "--report", reportPath, "--count-rows",
    ])
    #expect(again.status == 0)
    // The re-run upserts the same rows (an upsert replaces a fruit's recipes); counted, the
    // tables hold what they held.
    #expect(
      again.stdout.contains("  fruits: 48 rows (48 written)\n  recipes: 173 rows (173 written)"), "\(again.stdout)")
    let counted = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    #expect(counted.tableRows == ["fruits": 48, "recipes": 173])
  }

  @Test func lenientPipelineSkipsTheBrokenRecordsAndListsThem() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("issues: 5"))
    for expected in [
      "decode record 5 (line 5, byte 3064) color: typeMismatch: expected a string, found a number",
      "decode record 10 (line 10, byte 7289) name: missingField",
      "read record 15 (line 15, byte 11166): syntax",
      "validate record 20 (line 20, byte 14940) recipes[1].videoTutorial: invalidValue",
      "validate record 25 (line 25, byte 19057) recipes[1].title: invalidValue",
    ] {
      #expect(result.stderr.contains(expected), "missing: \(expected)")
    }
    #expect(try count(database, "SELECT count(*) FROM fruits") == 25)
  }

  @Test func strictRunOnBrokenInputExits65AndCreatesNothing() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", "SampleData/fruits-broken.ndjson.gz", "--format", "ndjson",
      "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 65)
    #expect(result.stderr.contains("strict policy: decode rejected record 5 (line 5): color: typeMismatch"))
    #expect(result.stderr.contains("the run was rolled back"))
    #expect(try count(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'fruits'") == 0)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs WHERE status = 'failed'") == 1)
    #expect(result.stdout.isEmpty)
  }

  @Test(arguments: ["SampleData/fruits.json.gz", "plain"])
  func standardInputIsReadForTheDashPath(source: String) throws {
    let scratch = try TemporaryDirectory()
    var input = Repository.path("SampleData/fruits.json.gz")
    if source == "plain" {
      let bytes = try gunzip(input)
      input = try scratch.write("fruits.json", bytes)
    }
    let database = scratch.file("stdin.sqlite")
    let result = try SluiceBinary.run(
      ["run", "Pipelines/fruits.json", "--input", "-", "--db", database, "--report", scratch.file("r.json")],
      stdin: input)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try count(database, "SELECT count(*) FROM fruits") == 48)
  }

  @Test func corruptGzipExits74AndWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Repository.path("SampleData/fruits.json.gz"))))
    bytes = Array(bytes.prefix(bytes.count / 2))
    let input = try scratch.write("cut.json.gz", bytes)
    let database = scratch.file("fruits.sqlite")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", input, "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(result.status == 74)
    #expect(result.stderr.contains("truncated"))
    #expect(result.stderr.contains("compressed byte \(bytes.count)"))
    #expect(try count(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'fruits'") == 0)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs WHERE status = 'failed'") == 1)
  }

  @Test func missingInputExits66() throws {
    let scratch = try TemporaryDirectory()
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--input", "no/such/file.json", "--db", scratch.file("x.sqlite"), "--report",
      scratch.file("r.json"),
    ])
    #expect(result.status == 66)
    #expect(result.stderr.contains("no such file"))
  }

  @Test(arguments: [
    ([String](), "USAGE"),
    (["run"], "missing the pipeline spec"),
    (["run", "Pipelines/fruits.json", "--speed", "fast"], "unknown option --speed"),
    (
      ["run", "Pipelines/fruits.json", "--format", "yaml"], "--format must be json, ndjson, xml, csv or tsv, not 'yaml'"
    ),
    (["run", "Pipelines/no-such-spec.json"], "no such file"),
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["schema", "vegetables"], "unknown dataset 'vegetables'"),
  ])
  func usageErrorsExit64WithAMessage(arguments: [String], expected: String) throws {
    let result = try SluiceCommand.run(arguments)
    #expect(result.status == 64)
    #expect(result.stderr.contains(expected), "\(result.stderr)")
  }

  @Test func specNamingAnUnknownDatasetExits64() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write("veg.json", #"{"dataset": "vegetables", "input": "x.json", "database": "x.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 64)
    #expect(result.stderr.contains("unknown dataset 'vegetables'; known: fruits"))
  }

  /// Options override the spec, `--db` included: a spec without `database` runs, plans and
  /// replays into the `--db` given, validates without one (it opens none), and only a command
  /// that needs a database and gets neither is refused, with both ways to give it.
  @Test func aSpecWithoutDatabaseTakesTheOneDbNamesAndValidateNeedsNone() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "nodb.json",
      #"{"dataset": "fruits", "input": "\#(Repository.path("SampleData/fruits.json.gz"))", "recordPath": "fruits"}"#
    )
    let validated = try SluiceCommand.run(["validate", spec])
    #expect(validated.status == 0, "\(validated.stderr)")
    #expect(validated.stdout.contains("valid: 48 record(s) meet the fruits contract"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["nodb.json"])
    let database = scratch.file("given.sqlite")
    let planned = try SluiceCommand.run(["plan", spec, "--db", database])
    #expect(planned.status == 0, "\(planned.stderr)")
    let ran = try SluiceCommand.run(["run", spec, "--db", database])
    #expect(ran.status == 0, "\(ran.stderr)")
    #expect(try count(database, "SELECT count(*) FROM fruits") == 48)
    let checked = try SluiceCommand.run(["validate", spec, "--db", database])
    #expect(checked.status == 0, "\(checked.stderr)")
    for command in ["run", "plan"] {
      let refused = try SluiceCommand.run([command, spec])
      #expect(refused.status == 64, "\(command): \(refused.stderr)")
      #expect(
        refused.stderr.contains(
          "pipeline spec \(spec): no database to load into: name it with 'database' in the spec or with --db on the command line"
        ), "\(command): \(refused.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: scratch.file("fruits.sqlite")))
  }

  @Test func helpDescribesCommandsAndExitCodes() throws {
    let top = try SluiceCommand.run(["--help"])
    #expect(top.status == 0)
    #expect(top.stdout.contains("sluice run PIPELINE.json"))
    #expect(top.stdout.contains("fruits"))
    #expect(top.stdout.contains("65 data error"))
    let run = try SluiceCommand.run(["run", "--help"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("--record-path"))
  }

  @Test func ordersSampleImportsStrictlyAndTheLenientMigrationReportsItsRejects() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("orders.sqlite")
    let strict = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--db", database, "--report", scratch.file("r.json"),
    ])
    #expect(strict.status == 0, "\(strict.stderr)")
    #expect(strict.stdout.contains("orders: 2000 rows"))
    #expect(strict.stdout.contains("order_statuses: 3 rows"))
    #expect(try count(database, "SELECT count(*) FROM orders WHERE order_id = '0000000001'") == 1)

    let lenient = try SluiceCommand.run([
      "run", "Pipelines/orders-lenient.json", "--db", database, "--report", scratch.file("r2.json"),
      "--rejects", scratch.file("rejects.ndjson"),
    ])
    #expect(lenient.status == 0, "\(lenient.stderr)")
    #expect(lenient.stderr.contains("map record 54 (line 54, byte 17588) status: unsupportedEnumValue"))
    #expect(lenient.stderr.contains("11 rejected record(s) written"))

    let strictOnBroken = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--input", "SampleData/orders-broken.ndjson.gz", "--format", "ndjson",
      "--db", database, "--report", scratch.file("r3.json"),
    ])
    #expect(strictOnBroken.status == 65)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs WHERE status = 'failed'") == 1)
  }

  @Test func schemaPrintsTheDatasetDDL() throws {
    let result = try SluiceCommand.run(["schema", "fruits"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("CREATE TABLE recipes"))
    #expect(result.stdout.contains("ON DELETE CASCADE"))
    let orders = try SluiceCommand.run(["schema", "orders"])
    #expect(orders.status == 0)
    #expect(orders.stdout.contains("CREATE TABLE order_statuses"))
    #expect(orders.stdout.contains("retired INTEGER NOT NULL DEFAULT 0"))
  }

  @Test func validateChecksTheContractWritesJUnitAndCreatesNoDatabase() throws {
    let scratch = try TemporaryDirectory()
    let junit = scratch.file("junit.xml")
    let database = scratch.file("never-created.sqlite")
    let spec = try scratch.write(
      "spec.json",
      #"{"dataset": "fruits", "input": "\#(Repository.path("SampleData/fruits-broken.ndjson.gz"))", "format": "ndjson", "policy": "lenient", "database": "\#(database)"}"#
    )
    let result = try SluiceCommand.run(["validate", spec, "--junit", junit])
    #expect(result.status == 65)
    #expect(result.stdout.contains("invalid: 30 record(s) checked, 5 issue(s)"))
    #expect(result.stderr.contains("validate record 20 (line 20, byte 14940) recipes[1].videoTutorial"))
    let xml = try String(contentsOfFile: junit, encoding: .utf8)
    #expect(xml.contains("<testsuites"))
    #expect(xml.contains(#"<failure message="2 record(s) failed: records decode into the contract's types""#))
    #expect(!FileManager.default.fileExists(atPath: database))

    let clean = try SluiceCommand.run(["validate", "Pipelines/fruits.json", "--report", scratch.file("r2.json")])
    #expect(clean.status == 0)
    #expect(clean.stdout.contains("valid: 48 record(s) meet the fruits contract"))
  }

  @Test func rejectsFileCanBeFixedAndReplayed() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("fruits.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let first = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", database, "--rejects", rejects, "--report",
      scratch.file("r.json"),
    ])
    #expect(first.status == 0)
    #expect(first.stderr.contains("5 rejected record(s) written to \(rejects)"))
    // Keep only the wrong-type record and fix it.
    let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    let fixed = try #require(lines.first { $0.contains(#"\"color\": 7"#) })
      .replacingOccurrences(of: #"\"color\": 7"#, with: #"\"color\": \"red\""#)
    let fixedPath = try scratch.write("fixed.ndjson", fixed + "\n")
    let replay = try SluiceCommand.run([
      "replay", "Pipelines/fruits-lenient.json", "--rejects", fixedPath, "--db", database, "--report",
      scratch.file("r2.json"),
    ])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(try count(database, "SELECT count(*) FROM fruits") == 26)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs WHERE mode = 'replay' AND status = 'succeeded'") == 1)

    let missing = try SluiceCommand.run(["replay", "Pipelines/fruits-lenient.json"])
    #expect(missing.status == 64)
    #expect(missing.stderr.contains("replay needs --rejects PATH"))
  }

  private func gunzip(_ path: String) throws -> [UInt8] {
    let input = try Input(path: path)
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
      if n == 0 { return output }
      output += buffer[0..<n]
    }
  }
}
