import Foundation
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport

@_spi(Internals) @testable import SluiceCore

/// A scratch SQLite database and the fruits of `Examples/datasets/fruits.dataset.json`: a declared
/// dataset, so the engine's policies and outputs are tested on no catalog's. The records are
/// `FruitsDump`'s, which the catalog's fruits read too.
final class FruitsWorkspace {
  let directory: TemporaryDirectory
  let database: String
  let dataset: AnyDataset

  init() throws {
    directory = try TemporaryDirectory()
    database = directory.file("fruits.sqlite")
    dataset = try DatasetFile.load(Repository.path("Examples/datasets/fruits.dataset.json"))
  }

  func configuration(
    input: String, format: PipelineConfiguration.Format = .json, policy: Policy = .strict
  ) -> PipelineConfiguration {
    PipelineConfiguration(name: "test", input: input, format: format, policy: policy, database: .sqlite(database))
      .counted
  }

  func run(_ text: String, format: PipelineConfiguration.Format = .json, policy: Policy = .strict) throws -> RunReport {
    let input = try directory.write("input-\(UUID().uuidString).\(format.rawValue)", text)
    return try dataset.run(configuration(input: input, format: format, policy: policy))
  }

  /// Every row of both tables, in key order, as text: equal dumps mean equal tables.
  func dump() throws -> [String] { try FruitsTables.dump(database) }

  func count(_ table: String) throws -> Int64? { try FruitsTables.count(table, in: database) }

  var databaseExists: Bool { FileManager.default.fileExists(atPath: database) }

  /// The status of every audited run, oldest first.
  func auditRuns() throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true))
      .prepare("SELECT status FROM sluice_runs ORDER BY run_id")
    var statuses: [String] = []
    while try statement.step() { statuses.append(statement.columnText(0) ?? "") }
    return statuses
  }
}
