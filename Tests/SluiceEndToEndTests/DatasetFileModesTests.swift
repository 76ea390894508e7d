import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

/// What works for a Swift dataset works for a dataset file: `validate`, `plan`, `replay`,
/// incremental and checkpointed runs, each side by side with the catalog's `orders`, and runs
/// into PostgreSQL and a Citus cluster.
@Suite("dataset files in every mode")
struct DatasetFileModesTests {
  static let orders = "Examples/datasets/orders.dataset.json"
  static let tables = ["customers", "orders", "order_items", "order_statuses"]

  /// A spec loading `input` as `dataset`, into `database` in the scratch directory.
  private func spec(
    _ dataset: String, input: String, format: String = "ndjson", policy: String = "lenient",
    in scratch: TemporaryDirectory, named name: String
  ) throws -> String {
    let object: [String: Any] = [
      "dataset": dataset == "orders" ? "orders" : Repository.path(dataset), "input": Repository.path(input),
      "format": format, "policy": policy, "database": "\(name).sqlite",
    ]
    return try scratch.write(
      "\(name).json", String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
  }

  /// The issues of a report as both datasets give them (an unknown status's message is each one's).
  private func issues(_ path: String) throws -> [String] {
    try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: path))).issues.map {
      "\($0.stage) \($0.code) \($0.path) \($0.location.map { "\($0)" } ?? "")"
    }.sorted()
  }

  @Test func validateReportsTheSameIssuesAndWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    var outcomes: [(Int32, [String])] = []
    for (name, dataset) in [("swift", "orders"), ("file", Self.orders)] {
      let spec = try spec(dataset, input: "SampleData/orders-broken.ndjson.gz", in: scratch, named: name)
      let junit = scratch.file("\(name).xml")
      let result = try SluiceCommand.run([
        "validate", spec, "--report", scratch.file("\(name).report.json"), "--junit", junit,
      ])
      outcomes.append((result.status, try issues(scratch.file("\(name).report.json"))))
      #expect(!FileManager.default.fileExists(atPath: scratch.file("\(name).sqlite")))
      let xml = try String(contentsOfFile: junit, encoding: .utf8)
      #expect(xml.contains("currency is a three-letter code"))
    }
    #expect(outcomes[0].0 == outcomes[1].0)
    #expect(outcomes[0].0 != 0)
    #expect(outcomes[1].1 == outcomes[0].1)
    #expect(!outcomes[1].1.isEmpty)
  }

  @Test func planAfterALoadChangesNothingAndReplayRejectsTheSameRecords() throws {
    let scratch = try TemporaryDirectory()
    let spec = try spec(Self.orders, input: "SampleData/orders-broken.ndjson.gz", in: scratch, named: "file")
    let rejects = scratch.file("rejects.ndjson")
    let first = try SluiceCommand.run(["run", spec, "--rejects", rejects, "--report", scratch.file("first.json")])
    #expect(first.status == 0, "\(first.stderr)")
    let loaded = try DatabaseSnapshot(of: scratch.file("file.sqlite"), tables: Self.tables)

    let plan = try SluiceCommand.run(["plan", spec, "--json"])
    #expect(plan.status == 0, "\(plan.stderr)")
    let planned = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
    let changes = try #require(planned["tables"] as? [[String: Any]], "\(plan.stdout)")
    for table in changes {
      #expect(table["inserts"] as? Int == 0, "\(table)")
      #expect(table["updates"] as? Int == 0, "\(table)")
    }

    let replay = try SluiceCommand.run(["replay", spec, "--rejects", rejects, "--report", scratch.file("replay.json")])
    #expect(
      try issues(scratch.file("replay.json")).map { $0.split(separator: " ").prefix(3) }
        == (try issues(scratch.file("first.json"))).map { $0.split(separator: " ").prefix(3) }, "\(replay.stderr)")
    #expect(try DatabaseSnapshot(of: scratch.file("file.sqlite"), tables: Self.tables) == loaded)
  }

  @Test func incrementalAndCheckpointedRunsLoadTheRowsOfTheSwiftDataset() throws {
    let scratch = try TemporaryDirectory()
    let swift = try spec(
      "orders", input: "SampleData/orders.json.gz", format: "json", policy: "strict", in: scratch, named: "swift")
    let file = try spec(
      Self.orders, input: "SampleData/orders.json.gz", format: "json", policy: "strict", in: scratch, named: "file")
    #expect(try SluiceCommand.run(["run", swift]).status == 0)
    let checkpointed = try SluiceCommand.run(["run", file, "--checkpoint-every", "300", "--incremental"])
    #expect(checkpointed.status == 0, "\(checkpointed.stderr)")
    let expected = try DatabaseSnapshot(of: scratch.file("swift.sqlite"), tables: Self.tables)
    #expect(try DatabaseSnapshot(of: scratch.file("file.sqlite"), tables: Self.tables) == expected)

    let again = try SluiceCommand.run(["run", file, "--incremental", "--report", scratch.file("again.json")])
    #expect(again.status == 0, "\(again.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("again.json"))))
    #expect(report.inputs.allSatisfy { $0.skipped != nil }, "the second incremental run skips the input")
  }
}

@Suite(
  "dataset files on PostgreSQL",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct DatasetFilePostgreSQLTests {
  @Test func theOrdersFileLoadsTheRowsOfTheSwiftDatasetIntoTheServer() throws {
    let scratch = try TemporaryDirectory()
    let swift = PostgreSQLSchema()
    let file = PostgreSQLSchema()
    let report = scratch.file("report.json")
    let a = try SluiceCommand.run([
      "run", "Pipelines/orders.json", "--db", swift.url, "--db-schema", swift.name, "--report", report,
    ])
    let b = try SluiceCommand.run([
      "run", "Examples/datasets/orders.json", "--db", file.url, "--db-schema", file.name, "--report", report,
    ])
    #expect(a.status == 0, "\(a.stderr)")
    #expect(b.status == 0, "\(b.stderr)")
    let tables = DatasetFileModesTests.tables
    #expect(try file.rows(of: tables) == (try swift.rows(of: tables)))
    #expect(try file.rows(of: tables).count("order_items") > 0)
    let again = try SluiceCommand.run([
      "run", "Examples/datasets/orders.json", "--db", file.url, "--db-schema", file.name, "--report", report,
    ])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try file.rows(of: tables) == (try swift.rows(of: tables)))
  }
}

@Suite(
  "dataset files on a Citus cluster", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct DatasetFileCitusTests {
  @Test func theOrdersFileIsLaidOutAndLoadedLikeTheSwiftDataset() throws {
    let scratch = try TemporaryDirectory()
    var loaded: [TableRows] = []
    for (dataset, spec) in [
      ("orders", "Pipelines/orders.json"), (DatasetFileModesTests.orders, "Examples/datasets/orders.json"),
    ] {
      let schema = CitusCluster.schema()
      let printed = try SluiceCommand.run(["schema", dataset, "--dialect", "citus"])
      try #require(printed.status == 0, "\(printed.stderr)")
      let applied = try CitusCluster.psql(printed.stdout, in: schema)
      try #require(applied.status == 0, "\(dataset): \(applied.stderr)")
      let result = try SluiceCommand.run([
        "run", spec, "--db", schema.url, "--db-schema", schema.name, "--report", scratch.file("report.json"),
      ])
      #expect(result.status == 0, "\(result.stderr)")
      loaded.append(try schema.rows(of: DatasetFileModesTests.tables))
    }
    #expect(loaded[1] == loaded[0])
    #expect(loaded[0].count("orders") > 0)
  }
}
