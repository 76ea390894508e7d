import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport

/// The real chat exports of `Tests/Corpus/messages/`, read in place.
enum ChatCorpus {
  static var root: String { (Corpus.root as NSString).appendingPathComponent("messages") }

  static func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }

  /// The elements of a JSON file's array at `key` (or of its top-level array), read with
  /// Foundation — a parser independent of Sluice's.
  static func array(_ relative: String, at keys: [String] = []) throws -> [[String: Any]] {
    var value = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path(relative))))
    for key in keys { value = (value as? [String: Any])?[key] as Any }
    guard let array = value as? [[String: Any]] else { throw NotAnArray(file: relative) }
    return array
  }

  /// One JSON object per line.
  static func lines(_ relative: String) throws -> [[String: Any]] {
    try String(contentsOfFile: path(relative), encoding: .utf8).split(separator: "\n").map { line in
      guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw NotAnArray(file: relative)
      }
      return object
    }
  }

  struct NotAnArray: Error, CustomStringConvertible {
    var file: String
    var description: String { "\(file): not the array the test expects" }
  }
}

/// A scratch database the chat exports load into, through the catalog's datasets — the way a
/// pipeline spec names them — with nothing written but the database.
final class ChatExportWorkspace {
  let directory: TemporaryDirectory
  let database: String

  init() throws {
    directory = try TemporaryDirectory()
    database = directory.file("messages.sqlite")
  }

  /// Runs `inputs` (each naming its dataset) in one transaction.
  func run(_ inputs: [PipelineInput], policy: Policy = .strict) throws -> RunReport {
    let datasets = try inputs.map { input in
      guard let dataset = Catalog.dataset(named: input.dataset ?? "") else {
        throw StackExchangeWorkspace.MissingDataset(name: input.dataset ?? "")
      }
      return dataset
    }
    let configuration = PipelineConfiguration(
      name: "chat-exports-test", inputs: inputs, policy: policy, database: .sqlite(database), issueSampleLimit: 1000)
    return try Pipeline(datasets: datasets, configuration: configuration).run()
  }

  func run(
    _ dataset: String, _ path: String, format: PipelineConfiguration.Format = .json, recordPath: [String] = [],
    policy: Policy = .strict
  ) throws -> RunReport {
    try run([PipelineInput(dataset: dataset, path: path, format: format, recordPath: recordPath)], policy: policy)
  }

  /// Runs a committed spec (`Pipelines/slack.json`) as the command line does — its inputs,
  /// globs expanded, re-based onto `inputDirectory` if given — into this database, no outputs.
  func runSpec(_ name: String, inputDirectory: String? = nil) throws -> (RunReport, PipelineConfiguration) {
    let spec = try PipelineSpec(contentsOf: Repository.path("Pipelines/\(name)"))
    var configuration = try spec.configuration(inputDirectory: inputDirectory, drivers: .all)
    configuration.database = .sqlite(database)
    configuration.reportPath = nil
    configuration.junitPath = nil
    configuration.rejectsPath = nil
    configuration.issueSampleLimit = 1000
    let datasets = try spec.datasets(for: configuration, in: Catalog.datasets)
    return (try Pipeline(datasets: datasets, configuration: configuration).run(), configuration)
  }

  private func connection() throws -> SQLiteConnection {
    try SQLiteConnection(path: database, options: .init(readOnly: true))
  }

  /// Each row of a query as its columns' text joined by `|` (NULL as `∅`).
  func rows(_ sql: String) throws -> [String] {
    let statement = try connection().prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<statement.columnCount).map { statement.columnIsNull($0) ? "∅" : statement.columnText($0) ?? "" }
          .joined(separator: "|"))
    }
    return rows
  }

  func count(_ sql: String) throws -> Int {
    Int(try connection().scalarInt(sql) ?? -1)
  }

  /// Messages per kind name, for the messages whose key is one of `ids` (all if nil).
  func kinds(of ids: [String]? = nil) throws -> [String: Int] {
    var counts: [String: Int] = [:]
    let filter = ids.map { ids in
      " WHERE m.message_id IN ("
        + ids.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ",") + ")"
    }
    for row in try rows(
      "SELECT k.name, count(*) FROM messages m JOIN message_kinds k ON k.id = m.kind_id\(filter ?? "") GROUP BY k.name")
    {
      let parts = row.split(separator: "|")
      counts[String(parts[0])] = Int(parts[1])
    }
    return counts
  }

  /// Every row of the message tables, for proving a second import changed nothing.
  func snapshot() throws -> DatabaseSnapshot {
    try DatabaseSnapshot(of: database, tables: MessageTables.schema.tableNames)
  }
}

extension RunReport {
  /// The input sections read from files whose path ends with `suffix`.
  func inputs(endingWith suffix: String) -> [InputSection] {
    inputs.filter { $0.path.hasSuffix(suffix) }
  }
}
