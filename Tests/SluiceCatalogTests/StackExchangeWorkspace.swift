import Foundation
import FoundationXML
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport

/// The files of a Stack Exchange dump in the order they load — users and tags before the posts
/// that name them, posts before the rows about posts — with the dataset and element path of each.
enum StackExchangeDump {
  struct File: Sendable {
    var name: String
    var dataset: String
    var root: String
    /// The table each of the file's rows becomes one row of.
    var table: String
    var recordPath: [String] { [root, "row"] }
  }

  static let files = [
    File(name: "Users.xml", dataset: "stackexchange-users", root: "users", table: "users"),
    File(name: "Tags.xml", dataset: "stackexchange-tags", root: "tags", table: "tags"),
    File(name: "Posts.xml", dataset: "stackexchange-posts", root: "posts", table: "posts"),
    File(name: "Comments.xml", dataset: "stackexchange-comments", root: "comments", table: "comments"),
    File(name: "Votes.xml", dataset: "stackexchange-votes", root: "votes", table: "votes"),
    File(name: "Badges.xml", dataset: "stackexchange-badges", root: "badges", table: "badges"),
    File(name: "PostLinks.xml", dataset: "stackexchange-postlinks", root: "postlinks", table: "post_links"),
    File(name: "PostHistory.xml", dataset: "stackexchange-posthistory", root: "posthistory", table: "post_history"),
  ]

  static func file(_ name: String) -> File {
    guard let file = files.first(where: { $0.name == name }) else { preconditionFailure("no dump file \(name)") }
    return file
  }

  static var conlangDirectory: String {
    (Corpus.root as NSString).appendingPathComponent("xml-legacy/stackexchange-conlang-meta")
  }
  static var coffeePosts: String {
    (Corpus.root as NSString).appendingPathComponent("xml-legacy/stackexchange-coffee-2015/Posts.xml")
  }
  /// A May 2014 Posts.xml (Mathematics Educators), an excerpt, alone in its folder.
  static var matheducators2014Directory: String {
    (Corpus.root as NSString).appendingPathComponent("xml-legacy/stackexchange-matheducators-2014")
  }
  /// An April 2024 Posts.xml (Data Science Meta), tags as `|a|b|`, alone in its folder.
  static var datascienceMeta2024Directory: String {
    (Corpus.root as NSString).appendingPathComponent("xml-legacy/stackexchange-datascience-meta-2024")
  }
  static var sampleDirectory: String { Repository.path("SampleData/stackexchange") }

  /// The policy `Pipelines/stackexchange.json` runs the dump with.
  static var pipelinePolicy: Policy {
    get throws { try PipelineSpec(contentsOf: Repository.path("Pipelines/stackexchange.json")).policy }
  }
}

/// The `<row>` elements of a dump file, read by Foundation's `XMLParser` — a parser independent
/// of Sluice's — as their attributes, entities decoded, in document order.
enum DumpRows {
  static func read(_ path: String) throws -> [[String: String]] {
    let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
    let collector = Collector()
    parser.delegate = collector
    guard parser.parse() else {
      throw ParseFailure(path: path, message: parser.parserError.map { "\($0)" } ?? "unknown error")
    }
    return collector.rows
  }

  struct ParseFailure: Error, CustomStringConvertible {
    var path: String
    var message: String
    var description: String { "XMLParser could not read \(path): \(message)" }
  }

  private final class Collector: NSObject, XMLParserDelegate {
    var rows: [[String: String]] = []
    private var depth = 0

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      depth += 1
      if depth == 2 && elementName == "row" { rows.append(attributes) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
      depth -= 1
    }
  }
}

/// A scratch database the dump's files load into, one pipeline per file, in order.
final class StackExchangeWorkspace {
  let directory: TemporaryDirectory
  let database: String

  init() throws {
    directory = try TemporaryDirectory()
    database = directory.file("stackexchange.sqlite")
  }

  /// Runs one file of a dump through its dataset.
  func run(_ file: StackExchangeDump.File, from folder: String, policy: Policy) throws -> RunReport {
    try run(file, input: (folder as NSString).appendingPathComponent(file.name), policy: policy)
  }

  func run(_ file: StackExchangeDump.File, input: String, policy: Policy) throws -> RunReport {
    guard let dataset = Catalog.dataset(named: file.dataset) else { throw MissingDataset(name: file.dataset) }
    return try dataset.run(
      PipelineConfiguration(
        name: "stackexchange-test", input: input, format: .xml, recordPath: file.recordPath, policy: policy,
        database: .sqlite(database)))
  }

  /// Writes `rows` (attribute lists, values unescaped) as a dump file of `file`'s kind, and runs it.
  func run(_ file: StackExchangeDump.File, rows: [String], policy: Policy = .strict) throws -> RunReport {
    let text =
      "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<\(file.root)>\r\n"
      + rows.map { "  <row \($0) />\r\n" }.joined() + "</\(file.root)>"
    return try run(file, input: try directory.write(file.name, text), policy: policy)
  }

  /// Runs `Pipelines/stackexchange.json` — its inputs in its order, its datasets, its policy, one
  /// transaction — into this database, with no outputs. With `folder`, each input is read from
  /// the file of the same name there: the spec's paths point at the committed sample.
  func runSpec(inputsFrom folder: String? = nil) throws -> RunReport {
    let spec = try PipelineSpec(contentsOf: Repository.path("Pipelines/stackexchange.json"))
    var configuration = try spec.configuration(drivers: .all)
    configuration.database = .sqlite(database)
    configuration.reportPath = nil
    configuration.junitPath = nil
    configuration.rejectsPath = nil
    if let folder {
      for index in configuration.inputs.indices {
        let name = (configuration.inputs[index].path as NSString).lastPathComponent
        configuration.inputs[index].path = (folder as NSString).appendingPathComponent(name)
      }
    }
    return try Pipeline(datasets: try spec.datasets(in: Catalog.datasets), configuration: configuration).run()
  }

  struct MissingDataset: Error {
    var name: String
  }

  private func connection() throws -> SQLiteConnection {
    try SQLiteConnection(path: database, options: .init(readOnly: true))
  }

  /// Each row of a query as the text of its first `columns` columns joined by `|` (NULL as `NULL`).
  func rows(_ sql: String, columns: Int32 = 1) throws -> [String] {
    let statement = try connection().prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append((0..<columns).map { statement.columnText($0) ?? "NULL" }.joined(separator: "|"))
    }
    return rows
  }

  func count(_ sql: String) throws -> Int {
    Int(try connection().scalarInt(sql) ?? -1)
  }
}

extension RunReport {
  /// The section of the input read from a file of this name.
  func input(named name: String) -> InputSection? {
    inputs.first { ($0.path as NSString).lastPathComponent == name }
  }

  /// Records the run read (the read stage's input).
  var recordsRead: Int { statistics(for: .read).recordsIn }
  /// Records whose rows were written.
  var recordsLoaded: Int { statistics(for: .load).recordsOut }
  /// Records some stage rejected and reported.
  var recordsRejected: Int { stages.reduce(0) { $0 + $1.rejected } }

  func issues(_ code: IssueCode) -> [Issue] { issues.filter { $0.code == code } }
}

extension RunReport.InputSection {
  var recordsRead: Int { statistics(for: .read).recordsIn }
  var recordsLoaded: Int { statistics(for: .load).recordsOut }
  var recordsRejected: Int { stages.reduce(0) { $0 + $1.rejected } }
}
