import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

/// `--memory-budget` and the spec's `memoryBudget`: what they accept, and that any budget loads
/// the same rows (what it changes is memory and speed, measured in `Benchmarks/scale`).
@Suite("sluice run --memory-budget")
struct MemoryBudgetCommandTests {
  static let tables = ["orders", "order_items", "customers", "order_statuses"]

  @Test(arguments: ["55", "64KiB", "lots", "1.5GiB"])
  func aBudgetThatIsNotOneIsAUsageErrorAndNothingIsWritten(text: String) throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("orders.sqlite")
    let result = try SluiceCommand.run(["run", "Pipelines/orders.json", "--db", database, "--memory-budget", text])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--memory-budget must be a size from 56 MiB to 1 TiB"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: database))
  }

  @Test func aSpecsBudgetIsCheckedLikeTheOption() throws {
    let scratch = try TemporaryDirectory()
    let spec = try scratch.write(
      "orders.json",
      #"{"dataset": "orders", "input": "x.json.gz", "database": "x.sqlite", "memoryBudget": "2TiB"}"#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 64)
    #expect(result.stderr.contains("'memoryBudget' must be a size from 56 MiB to 1 TiB"), "\(result.stderr)")
  }

  @Test func everyBudgetLoadsTheSameRows() throws {
    let scratch = try TemporaryDirectory()
    let input = Repository.path("SampleData/orders.json.gz")
    func load(_ name: String, spec extra: String, _ arguments: [String]) throws -> TableRows {
      let database = scratch.file("\(name).sqlite")
      let spec = try scratch.write(
        "\(name).json", #"{"dataset": "orders", "input": "\#(input)", "database": "\#(database)"\#(extra)}"#)
      let result = try SluiceCommand.run(["run", spec] + arguments)
      #expect(result.status == 0, "\(name): \(result.stderr)")
      return try TableRows(sqlite: database, tables: Self.tables)
    }
    let byDefault = try load("default", spec: "", [])
    #expect(byDefault.tables["orders"]?.count ?? 0 > 1)
    #expect(try load("least", spec: "", ["--memory-budget", "56"]) == byDefault)
    #expect(try load("spec", spec: #", "memoryBudget": "512MiB""#, []) == byDefault)
    #expect(try load("number", spec: #", "memoryBudget": 128"#, []) == byDefault)
  }
}
