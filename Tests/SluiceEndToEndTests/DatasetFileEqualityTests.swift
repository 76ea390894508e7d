import Foundation
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The proof that the dataset file format is whole (issue 41, item 6): `fruits` and `orders`
/// written as dataset files (`Examples/datasets/`) load exactly the rows of their Swift datasets,
/// table by table, into the same schema — on the samples, strict, and on the broken samples,
/// lenient, where they reject the same records with the same issues at the same field paths.
@Suite("dataset files equal their Swift datasets")
struct DatasetFileEqualityTests {
  struct Case: Sendable, CustomStringConvertible {
    var dataset: String
    var spec: String
    var tables: [String]
    var description: String { spec }
  }

  static let cases = [
    Case(dataset: "fruits", spec: "Pipelines/fruits.json", tables: ["fruits", "recipes"]),
    Case(dataset: "fruits", spec: "Pipelines/fruits-lenient.json", tables: ["fruits", "recipes"]),
    Case(
      dataset: "orders", spec: "Pipelines/orders.json",
      tables: ["customers", "orders", "order_items", "order_statuses"]),
    Case(
      dataset: "orders", spec: "Pipelines/orders-lenient.json",
      tables: ["customers", "orders", "order_items", "order_statuses"]),
  ]

  /// The spec with its dataset replaced, its outputs dropped (the test names its own).
  private func spec(_ source: String, dataset: String?, in scratch: TemporaryDirectory) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: Repository.path(source)))
    var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    for key in ["report", "junit", "html", "rejects", "database"] { object[key] = nil }
    let input = try #require(object["input"] as? String)
    object["input"] = FilePaths.absolute(input, in: FilePaths.folder(of: Repository.path(source)))
    if let dataset { object["dataset"] = dataset }
    let name = dataset == nil ? "swift" : "file"
    return try scratch.write(
      "\(name).json", String(decoding: JSONSerialization.data(withJSONObject: object), as: UTF8.self))
  }

  private func run(_ spec: String, name: String, in scratch: TemporaryDirectory) throws -> (String, RunReport, String) {
    let database = scratch.file("\(name).sqlite")
    let report = scratch.file("\(name).report.json")
    let result = try SluiceCommand.run(["run", spec, "--db", database, "--report", report])
    #expect(result.status == 0, "\(name): \(result.stderr)")
    return (database, try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report))), try schema(database))
  }

  /// The statements that made the database's tables and indexes, in order.
  private func schema(_ database: String) throws -> String {
    let db = try SQLiteConnection(path: database, options: .init(readOnly: true, create: false))
    let select = try db.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
    var statements: [String] = []
    while try select.step() { statements.append(select.columnText(0) ?? "") }
    return statements.joined(separator: "\n")
  }

  /// An issue as both datasets must report it. Only an unknown enum value's message differs: the
  /// Swift dataset words its own.
  private func keys(_ report: RunReport) -> [String] {
    report.issues.map { issue in
      let message = issue.code == .unsupportedEnumValue ? "" : issue.message
      return "\(issue.stage) \(issue.severity) \(issue.code) \(issue.path) \(issue.location.map { "\($0)" } ?? "-") "
        + "\(issue.rule ?? "") \(message)"
    }.sorted()
  }

  @Test(arguments: cases)
  func aDatasetFileLoadsTheRowsAndIssuesOfItsSwiftDataset(_ test: Case) throws {
    let scratch = try TemporaryDirectory()
    let file = Repository.path("Examples/datasets/\(test.dataset).dataset.json")
    let swift = try run(spec(test.spec, dataset: nil, in: scratch), name: "swift", in: scratch)
    let declared = try run(spec(test.spec, dataset: file, in: scratch), name: "file", in: scratch)
    let swiftRows = try DatabaseSnapshot(of: swift.0, tables: test.tables)
    #expect(swiftRows.count(test.tables[0]) > 0)
    #expect(try DatabaseSnapshot(of: declared.0, tables: test.tables) == swiftRows)
    #expect(declared.2 == swift.2, "the schemas differ")
    #expect(keys(declared.1) == keys(swift.1))
    #expect(declared.1.issueCounts == swift.1.issueCounts)
    #expect(declared.1.stages.map(\.recordsOut) == swift.1.stages.map(\.recordsOut))
    if test.spec.contains("lenient") { #expect(!swift.1.issues.isEmpty, "a broken sample has issues to compare") }
  }

  @Test(arguments: ["fruits", "orders"])
  func aDatasetFilesContractIsItsSwiftDatasets(_ dataset: String) throws {
    let file = Repository.path("Examples/datasets/\(dataset).dataset.json")
    let declared = try SluiceCommand.run(["contract", file])
    let swift = try SluiceCommand.run(["contract", dataset])
    #expect(declared.status == 0, "\(declared.stderr)")
    #expect(declared.stdout == swift.stdout)
    #expect(declared.stdout.contains("\"required\""))
  }

  @Test func theExampleSpecsRunAsWritten() throws {
    let scratch = try TemporaryDirectory()
    for name in ["fruits", "orders"] {
      let database = scratch.file("\(name).sqlite")
      let result = try SluiceCommand.run(["run", "Examples/datasets/\(name).json", "--db", database])
      #expect(result.status == 0, "\(name): \(result.stderr)")
      #expect(try DatabaseSnapshot(of: database, tables: [name]).count(name) > 0)
    }
  }
}
