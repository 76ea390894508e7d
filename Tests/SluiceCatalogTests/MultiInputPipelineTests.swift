import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A scratch directory with a database, and runs of pipelines that read several inputs of the
/// catalog's datasets.
final class MultiInputWorkspace {
  let directory: TemporaryDirectory
  let database: String
  static let tables = ["fruits", "recipes", "orders", "order_items", "customers", "order_statuses"]

  init() throws {
    directory = try TemporaryDirectory()
    database = directory.file("shop.sqlite")
  }

  /// An input file in the directory, as one of the run's inputs.
  func input(
    _ dataset: String, _ name: String, _ text: String, format: PipelineConfiguration.Format = .ndjson
  ) throws -> PipelineInput {
    PipelineInput(dataset: dataset, path: try directory.write(name, text), format: format)
  }

  func run(
    _ inputs: [PipelineInput], policy: Policy = .strict, mode: RunMode = .run, rejects: String? = nil
  ) throws -> RunReport {
    var configuration = PipelineConfiguration(
      name: "shop", inputs: inputs, policy: policy, database: .sqlite(database), rejectsPath: rejects)
    configuration.mode = mode
    let datasets = try inputs.map { input in try #require(Catalog.dataset(named: input.dataset ?? "")) }
    return try Pipeline(datasets: datasets, configuration: configuration.counted).run()
  }

  func snapshot() throws -> DatabaseSnapshot { try DatabaseSnapshot(of: database, tables: Self.tables) }

  func connection() throws -> SQLiteConnection { try SQLiteConnection(path: database, options: .init(readOnly: true)) }

  func strings(_ sql: String) throws -> [String] {
    let statement = try connection().prepare(sql)
    var rows: [String] = []
    while try statement.step() { rows.append(statement.columnText(0) ?? "NULL") }
    return rows
  }
}

@Suite("Pipelines with several inputs")
struct MultiInputPipelineTests {
  private static let fruits = PipelineInput(
    dataset: "fruits", path: Repository.path("SampleData/fruits.json.gz"), format: .json, recordPath: ["fruits"])
  private static let orders = PipelineInput(
    dataset: "orders", path: Repository.path("SampleData/orders.json.gz"), format: .json)

  @Test func twoDatasetsLoadInOneRunWithOneAuditRowAndASectionPerInput() throws {
    let workspace = try MultiInputWorkspace()
    let report = try workspace.run([Self.fruits, Self.orders])
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.committed)
    #expect(report.dataset == "fruits+orders")

    // A section per input, each with its own counts, bytes and rows.
    #expect(report.inputs.map(\.path) == [Self.fruits.path, Self.orders.path])
    #expect(report.inputs.map(\.dataset) == ["fruits", "orders"])
    #expect(report.inputs.map(\.format) == ["json", "json"])
    #expect(report.inputs.allSatisfy { $0.opened && $0.gzip && $0.decompressedBytes > $0.compressedBytes })
    let (fruits, orders) = (report.inputs[0], report.inputs[1])
    #expect(fruits.statistics(for: .read).recordsIn == 48)
    #expect(fruits.statistics(for: .load).recordsOut == 48)
    #expect(orders.statistics(for: .read).recordsIn == 2000)
    #expect(orders.statistics(for: .load).recordsOut == 2000)
    #expect(fruits.rowsWritten["fruits"] == 48)
    #expect(fruits.rowsWritten["orders"] == nil)
    #expect(orders.rowsWritten["orders"] == 2000)

    // The top-level fields are the totals.
    #expect(report.statistics(for: .read).recordsIn == 2048)
    #expect(report.input.path == "\(Self.fruits.path), \(Self.orders.path)")
    #expect(report.input.compressedBytes == fruits.compressedBytes + orders.compressedBytes)
    #expect(report.input.decompressedBytes == fruits.decompressedBytes + orders.decompressedBytes)
    #expect(report.rowsWritten["fruits"] == 48)
    #expect(report.rowsWritten["orders"] == 2000)
    #expect(report.tableRows["fruits"] == 48)
    #expect(report.tableRows["orders"] == 2000)
    #expect(report.tableRows["order_statuses"] ?? 0 > 0)

    // One audit row for the run, which keeps the sections.
    #expect(
      try workspace.strings("SELECT dataset || '|' || records_read || '|' || status FROM sluice_runs") == [
        "fruits+orders|2048|succeeded"
      ])
    let sections = try #require(try workspace.strings("SELECT inputs FROM sluice_runs").first)
    #expect(sections.contains(Self.fruits.path) && sections.contains(Self.orders.path))
    // Every table was created once, in the order the datasets list them.
    let created = try workspace.strings(
      "SELECT identifier FROM sluice_migrations WHERE identifier LIKE 'create table %' ORDER BY rowid")
    #expect(
      created.filter { $0.contains("fruits") || $0.contains("orders") } == [
        "create table fruits", "create table orders",
      ])
  }

  @Test func theSameDatasetFromTwoFilesLoadsBoth() throws {
    let workspace = try MultiInputWorkspace()
    let first = try workspace.input("orders", "a.ndjson", OrdersDump.ndjson(OrdersDump.orders(30).map(\.json)))
    let second = try workspace.input(
      "orders", "b.ndjson", OrdersDump.ndjson(OrdersDump.orders(20, first: 31).map(\.json)))
    let report = try workspace.run([first, second])
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.dataset == "orders")
    #expect(report.inputs.map { $0.statistics(for: .load).recordsOut } == [30, 20])
    #expect(try workspace.connection().scalarInt("SELECT count(*) FROM orders") == 50)
    #expect(try workspace.connection().scalarInt("SELECT count(*) FROM sluice_runs") == 1)
  }

  @Test func strictFailureInTheSecondInputRollsBackTheFirstToo() throws {
    let workspace = try MultiInputWorkspace()
    // The database holds 10 orders from an earlier night.
    let earlier = try workspace.input("orders", "earlier.ndjson", OrdersDump.ndjson(OrdersDump.orders(10).map(\.json)))
    #expect(try workspace.run([earlier]).status == .succeeded)
    let before = try workspace.snapshot()
    #expect(before.count("orders") == 10)

    // Tonight: 48 fruits (new rows), 5 new orders of which the fourth is bad, then more orders.
    var tonight = OrdersDump.orders(5, first: 11).map(\.json)
    tonight[3] = OrdersDump.orders(1, first: 14)[0].json(
      replacing: #""createdAt":""#, with: #""createdAt":"yesterday "#)
    let broken = try workspace.input("orders", "tonight.ndjson", OrdersDump.ndjson(tonight))
    let report = try workspace.run([Self.fruits, broken, Self.orders])

    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    #expect(!report.committed)
    let failure = try #require(report.failure)
    #expect(failure.message.contains("record 4 (line 4) of \(broken.path)"), "\(failure.message)")
    #expect(try workspace.snapshot() == before)
    // The first input was read and loaded before the failure; the third was never opened.
    #expect(report.inputs.map(\.opened) == [true, true, false])
    #expect(report.inputs[0].statistics(for: .load).recordsOut == 48)
    #expect(report.inputs[1].statistics(for: .decode).rejected == 1)
    #expect(report.issues.map(\.input) == [broken.path])
    #expect(report.issues.first?.location?.ordinal == 4)
    // The failed run's audit row is the only write it left, with its issue's input.
    #expect(try workspace.strings("SELECT status FROM sluice_runs ORDER BY run_id") == ["succeeded", "failed"])
    #expect(try workspace.strings("SELECT input || '|' || record_ordinal FROM sluice_rejects") == ["\(broken.path)|4"])
  }

  @Test func theErrorBudgetSpansEveryInput() throws {
    let workspace = try MultiInputWorkspace()
    // One bad fruit in each input: either alone is within a budget of 1, both are not.
    let one = try workspace.input(
      "fruits", "one.ndjson", FruitsDump.ndjson([FruitsDump.fruit(1), #"{"fruitID": "F2"}"#, FruitsDump.fruit(3)]))
    let two = try workspace.input(
      "fruits", "two.ndjson", FruitsDump.ndjson([FruitsDump.fruit(4), FruitsDump.fruit(5), #"{"fruitID": "F6"}"#]))
    var policy = Policy.lenient
    policy.maxRejects = 1
    #expect(try workspace.run([one], policy: policy).status == .succeeded)
    let before = try workspace.snapshot()

    let report = try workspace.run([one, two], policy: policy)
    #expect(report.status == .failed)
    #expect(report.failure?.message.contains("error budget exceeded") == true, "\(report.failure?.message ?? "")")
    #expect(report.issues.map(\.input) == [one.path, two.path])
    #expect(try workspace.snapshot() == before)
  }

  @Test func lenientRunQuarantinesEachRejectWithItsInput() throws {
    let workspace = try MultiInputWorkspace()
    let one = try workspace.input(
      "fruits", "one.ndjson", FruitsDump.ndjson([FruitsDump.fruit(1), #"{"fruitID": "F2"}"#]))
    let orders = OrdersDump.orders(3).map(\.json)
    let two = try workspace.input(
      "orders", "two.ndjson",
      OrdersDump.ndjson([
        orders[0], orders[1].replacingOccurrences(of: #""status":""#, with: #""status":"x"#), orders[2],
      ]))
    let rejects = workspace.directory.file("rejects.ndjson")
    let report = try workspace.run([one, two], policy: .lenient, rejects: rejects)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.quarantined == 2)
    let entries = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n").map { line in
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
    }
    #expect(entries.map { $0["input"] as? String } == [one.path, two.path])
    #expect(entries.map { $0["ordinal"] as? Int } == [2, 2])
    #expect(report.inputs.map { $0.issueCounts } == [["missingField": 1], ["unsupportedEnumValue": 1]])
    #expect(
      try workspace.strings("SELECT input || '|' || code FROM sluice_rejects ORDER BY sequence") == [
        "\(one.path)|missingField", "\(two.path)|unsupportedEnumValue",
      ])
  }

  @Test func anInputWhoseEveryRecordIsRejectedFailsTheRunWhateverTheOthersLoaded() throws {
    // Orders read as fruits: a wrong dataset or record path for one input looks like this.
    let workspace = try MultiInputWorkspace()
    let fruits = try workspace.input(
      "fruits", "fruits.ndjson", FruitsDump.ndjson((1...20).map { FruitsDump.fruit($0) }))
    let misread = try workspace.input("fruits", "orders.ndjson", OrdersDump.ndjson(OrdersDump.orders(3).map(\.json)))
    let report = try workspace.run([fruits, misread], policy: .lenient)
    #expect(report.status == .failed)
    let message = report.failure?.message ?? ""
    #expect(message.contains("all 3 record(s) read from \(misread.path) were rejected"), "\(message)")
    #expect(try workspace.snapshot().count("fruits") == 0)
  }

  @Test func validateChecksEveryInputAndNamesTheInputOfEachIssue() throws {
    let workspace = try MultiInputWorkspace()
    let fruitsBroken = PipelineInput(
      dataset: "fruits", path: Repository.path("SampleData/fruits-broken.ndjson.gz"), format: .ndjson)
    let ordersBroken = PipelineInput(
      dataset: "orders", path: Repository.path("SampleData/orders-broken.ndjson.gz"), format: .ndjson)
    let report = try workspace.run([fruitsBroken, ordersBroken], mode: .validate)
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    #expect(!FileManager.default.fileExists(atPath: workspace.database))
    #expect(report.inputs.map(\.opened) == [true, true])
    let read = report.inputs.map { $0.statistics(for: .read).recordsIn }
    #expect(read[0] == 30)
    #expect(read[1] > 0)
    #expect(report.statistics(for: .read).recordsIn == read[0] + read[1])
    // Every issue names its input, and each input's issues are counted in its section.
    for (index, section) in report.inputs.enumerated() {
      let issues = report.issues.filter { $0.input == section.path }
      #expect(!issues.isEmpty, "no issues of input \(index + 1)")
      #expect(section.issueCounts.values.reduce(0, +) >= issues.count)
    }
    #expect(report.issues.allSatisfy { $0.input != nil })
    #expect(report.issues.contains { $0.input == fruitsBroken.path && $0.location?.ordinal == 5 && $0.path == "color" })
    #expect(report.issueCounts.values.reduce(0, +) == report.inputs.flatMap(\.issueCounts.values).reduce(0, +))
    let described = report.issues.first { $0.input == fruitsBroken.path && $0.location?.ordinal == 5 }?.description
    #expect(described?.hasPrefix("decode \(fruitsBroken.path) record 5 (line 5") == true, "\(described ?? "")")
  }

  @Test func aMissingLaterInputFailsBeforeTheDatabaseIsOpened() throws {
    let workspace = try MultiInputWorkspace()
    let missing = PipelineInput(dataset: "orders", path: workspace.directory.file("no-such-orders.json"))
    let report = try workspace.run([Self.fruits, missing])
    #expect(report.exitCode == 66)
    #expect(report.failure?.kind == .inputMissing)
    #expect(report.failure?.message.contains("no-such-orders.json: no such file") == true)
    #expect(!FileManager.default.fileExists(atPath: workspace.database))
    #expect(report.inputs.map(\.opened) == [false, false])
  }

  @Test func singleInputReportsKeepTheirShape() throws {
    let workspace = try MultiInputWorkspace()
    let one = try workspace.input(
      "fruits", "one.ndjson", FruitsDump.ndjson([FruitsDump.fruit(1), #"{"fruitID": "F2"}"#]))
    let report = try workspace.run([one], policy: .lenient)
    #expect(report.dataset == "fruits")
    #expect(report.input.path == one.path)
    #expect(report.input.format == "ndjson")
    #expect(report.inputs.count == 1)
    #expect(report.inputs[0].stages == report.stages)
    // Issues of a single-input run leave the input to the report.
    #expect(report.issues.map(\.input) == [nil])
    #expect(!report.summary().contains("inputs:"))
    #expect(try workspace.strings("SELECT input FROM sluice_rejects") == [one.path])
  }
}
