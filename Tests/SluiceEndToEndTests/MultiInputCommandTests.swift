import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The real `sluice` binary on pipelines that list several inputs.
@Suite("sluice with several inputs, end to end")
struct MultiInputCommandTests {
  private static let tables = ["fruits", "recipes", "orders", "order_items", "customers", "order_statuses"]
  private static let fruits = Repository.path("SampleData/fruits.json.gz")
  private static let orders = Repository.path("SampleData/orders.json.gz")

  private func count(_ database: String, _ sql: String) throws -> Int64? {
    try SQLiteConnection(path: database, options: .init(readOnly: true)).scalarInt(sql)
  }

  /// A spec file in `directory` listing `inputs` (JSON objects), into `database`.
  private func writeSpec(
    _ directory: TemporaryDirectory, name: String = "shop.json", inputs: [String], database: String = "shop.sqlite",
    extra: String = ""
  ) throws -> String {
    try directory.write(
      name, #"{"inputs": [\#(inputs.joined(separator: ", "))], "database": "\#(database)"\#(extra)}"#)
  }

  @Test func examplePipelineLoadsFruitsThenOrdersWithOneReportAndOneAuditRow() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("shop.sqlite")
    let reportPath = scratch.file("report.json")
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits-and-orders.json", "--db", database, "--report", reportPath,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    for line in [
      "database: \(database)", "  fruits: 48 rows", "  recipes: ", "  orders: 2000 rows", "  order_statuses: ",
    ] {
      #expect(result.stdout.contains(line), "missing \(line) in \(result.stdout)")
    }
    #expect(result.stderr.contains("fruits-and-orders (fruits+orders, strict) succeeded"), "\(result.stderr)")
    #expect(result.stderr.contains("    1 \(Self.fruits) (fruits, json, gzip): 48 read, 0 rejected, 48 loaded"))
    #expect(result.stderr.contains("    2 \(Self.orders) (orders, json, gzip): 2000 read, 0 rejected, 2000 loaded"))
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    #expect(report.inputs.map(\.path) == [Self.fruits, Self.orders])
    #expect(report.statistics(for: .load).recordsOut == 2048)
    #expect(try count(database, "SELECT count(*) FROM sluice_runs") == 1)
    #expect(try count(database, "SELECT records_loaded FROM sluice_runs") == 2048)
    #expect(try count(database, "SELECT count(*) FROM fruits") == 48)
    #expect(try count(database, "SELECT count(*) FROM orders") == 2000)
  }

  @Test func strictFailureInTheSecondInputLeavesTheDatabaseAsItWas() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("shop.sqlite")
    let first = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--db", database, "--report", scratch.file("r1.json"),
    ])
    #expect(first.status == 0, "\(first.stderr)")
    let before = try DatabaseSnapshot(of: database, tables: Self.tables)

    let broken = Repository.path("SampleData/orders-broken.ndjson.gz")
    let spec = try writeSpec(
      scratch,
      inputs: [
        #"{"dataset": "fruits", "input": "\#(Self.fruits)", "recordPath": "fruits"}"#,
        #"{"dataset": "orders", "input": "\#(broken)", "format": "ndjson"}"#,
      ])
    let result = try SluiceCommand.run(["run", spec, "--db", database, "--report", scratch.file("r2.json")])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("strict policy: "))
    #expect(result.stderr.contains(") of \(broken): "), "\(result.stderr)")
    #expect(result.stderr.contains("the run was rolled back"))
    #expect(try DatabaseSnapshot(of: database, tables: Self.tables) == before)
    #expect(try count(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'fruits'") == 0)
    #expect(
      try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(
        "SELECT group_concat(status, ',') FROM (SELECT status FROM sluice_runs ORDER BY run_id)"
      ).firstText() == "succeeded,failed")
  }

  @Test func aMissingSecondInputExits66AndTouchesNoDatabase() throws {
    let scratch = try TemporaryDirectory()
    let spec = try writeSpec(
      scratch,
      inputs: [
        #"{"dataset": "fruits", "input": "\#(Self.fruits)", "recordPath": "fruits"}"#,
        #"{"dataset": "orders", "input": "tonight/orders.json"}"#,
      ])
    // A database that does not exist is not created…
    let fresh = scratch.file("fresh.sqlite")
    let missing = try SluiceCommand.run(["run", spec, "--db", fresh, "--report", scratch.file("r.json")])
    #expect(missing.status == 66, "\(missing.stderr)")
    #expect(missing.stderr.contains("\(scratch.path)/tonight/orders.json: no such file"), "\(missing.stderr)")
    #expect(!FileManager.default.fileExists(atPath: fresh))
    #expect(missing.stdout.isEmpty)

    // …and one that exists is not even opened: its bytes and its directory stay as they were.
    let existing = scratch.file("db/shop.sqlite")
    try FileManager.default.createDirectory(atPath: scratch.file("db"), withIntermediateDirectories: true)
    let first = try SluiceCommand.run([
      "run", "Pipelines/fruits.json", "--db", existing, "--report", scratch.file("r0.json"),
    ])
    #expect(first.status == 0, "\(first.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: existing))
    let listing = try FileManager.default.contentsOfDirectory(atPath: scratch.file("db")).sorted()
    let again = try SluiceCommand.run(["run", spec, "--db", existing, "--report", scratch.file("r.json")])
    #expect(again.status == 66)
    #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == bytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("db")).sorted() == listing)

    // validate checks them all before reading any.
    let validate = try SluiceCommand.run(["validate", spec])
    #expect(validate.status == 66, "\(validate.stderr)")
  }

  @Test func inputDirRebasesTheSpecsRelativeInputs() throws {
    let specs = try TemporaryDirectory()
    let spec = try writeSpec(
      specs,
      inputs: [
        #"{"dataset": "fruits", "input": "fruits.json.gz", "recordPath": "fruits"}"#,
        #"{"dataset": "orders", "input": "\#(Self.orders)"}"#,
      ])
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("tonight"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Self.fruits, toPath: scratch.file("tonight/fruits.json.gz"))
    let database = scratch.file("shop.sqlite")

    // Beside the spec there is no fruits.json.gz.
    let beside = try SluiceCommand.run(["run", spec, "--db", database, "--report", scratch.file("r.json")])
    #expect(beside.status == 66)
    #expect(beside.stderr.contains("\(specs.path)/fruits.json.gz: no such file"), "\(beside.stderr)")

    // --input-dir, relative to the working directory, re-bases it; the absolute orders path stays.
    let result = try SluiceCommand.run(
      ["run", spec, "--input-dir", "tonight", "--db", database, "--report", scratch.file("r.json")], in: scratch.path)
    #expect(result.status == 0, "\(result.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("r.json"))))
    #expect(report.inputs.map(\.path) == [scratch.file("tonight/fruits.json.gz"), Self.orders])
    #expect(try count(database, "SELECT count(*) FROM fruits") == 48)

    // validate takes it too.
    let validate = try SluiceCommand.run(["validate", spec, "--input-dir", scratch.file("tonight")])
    #expect(validate.status == 0, "\(validate.stderr)")
    #expect(validate.stdout.contains("valid: 2048 record(s) meet the fruits+orders contract"), "\(validate.stdout)")
  }

  @Test func validateOverTwoInputsListsTheIssuesOfEachWithItsInput() throws {
    let scratch = try TemporaryDirectory()
    let fruitsBroken = Repository.path("SampleData/fruits-broken.ndjson.gz")
    let ordersBroken = Repository.path("SampleData/orders-broken.ndjson.gz")
    let spec = try writeSpec(
      scratch,
      inputs: [
        #"{"dataset": "fruits", "input": "\#(fruitsBroken)", "format": "ndjson"}"#,
        #"{"dataset": "orders", "input": "\#(ordersBroken)", "format": "ndjson"}"#,
      ])
    let reportPath = scratch.file("report.json")
    let junitPath = scratch.file("junit.xml")
    let result = try SluiceCommand.run(["validate", spec, "--report", reportPath, "--junit", junitPath])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("invalid: "))
    #expect(
      result.stderr.contains("decode \(fruitsBroken) record 5 (line 5, byte 3064) color: typeMismatch"),
      "\(result.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    #expect(Set(report.issues.compactMap(\.input)) == [fruitsBroken, ordersBroken])
    #expect(report.issues.allSatisfy { $0.input != nil })
    #expect(report.inputs.allSatisfy { !$0.issueCounts.isEmpty })
    let junit = try String(contentsOfFile: junitPath, encoding: .utf8)
    #expect(junit.contains(fruitsBroken) && junit.contains(ordersBroken))
    #expect(!FileManager.default.fileExists(atPath: scratch.file("shop.sqlite")))
  }

  @Test(arguments: [
    (["--input", "SampleData/fruits.json.gz"], "--input is ambiguous: the pipeline lists 2 inputs"),
    (["--format", "ndjson"], "--format is ambiguous"),
    (["--record-path", "fruits"], "--record-path is ambiguous"),
  ])
  func singleInputOptionsOnSeveralInputsExit64(options: [String], expected: String) throws {
    let scratch = try TemporaryDirectory()
    let result = try SluiceCommand.run(
      ["run", "Pipelines/fruits-and-orders.json", "--db", scratch.file("x.sqlite")] + options)
    #expect(result.status == 64)
    #expect(result.stderr.contains(expected), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("x.sqlite")))
  }

  @Test func inputAndInputDirTogetherExit64() throws {
    let result = try SluiceCommand.run(["run", "Pipelines/fruits.json", "--input", "a.json", "--input-dir", "tonight"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--input names the input; --input-dir re-bases the spec's: give one"))
  }

  @Test func replayRefusesAPipelineWithSeveralInputs() throws {
    let scratch = try TemporaryDirectory()
    let rejects = try scratch.write("rejects.ndjson", "")
    let result = try SluiceCommand.run(["replay", "Pipelines/fruits-and-orders.json", "--rejects", rejects])
    #expect(result.status == 64)
    #expect(result.stderr.contains("lists 2 inputs"), "\(result.stderr)")
  }

  @Test(arguments: [
    (
      #""dataset": "fruits", "inputs": [{"dataset": "fruits", "input": "f.json"}]"#,
      "'inputs' and 'dataset' are both given"
    ),
    (#""inputs": []"#, "'inputs' is empty"),
    (
      #""inputs": [{"dataset": "fruits", "input": "f.json"}, {"dataset": "vegetables", "input": "v.json"}]"#,
      "'inputs[1].dataset': unknown dataset 'vegetables'; known: fruits, orders"
    ),
  ])
  func badInputsInTheSpecExit64NamingTheKey(body: String, expected: String) throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write("bad.json", #"{\#(body), "database": "x.sqlite"}"#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 64)
    #expect(result.stderr.contains("pipeline spec \(spec): \(expected)"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("x.sqlite")))
  }

  @Test func helpDocumentsInputDir() throws {
    for command in ["run", "validate"] {
      let result = try SluiceCommand.run([command, "--help"])
      #expect(result.status == 0)
      #expect(result.stdout.contains("--input-dir DIR"), "\(command)")
    }
  }
}

extension SQLiteStatement {
  /// The first column of the first row, as text.
  fileprivate func firstText() throws -> String? {
    try step() ? columnText(0) : nil
  }
}
