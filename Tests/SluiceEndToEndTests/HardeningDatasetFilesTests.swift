import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// Issue 55 (“Hardening, round four”), the findings about dataset files, on the real binary: an
/// output over a dataset file the run reads (4), and a dataset file one store would refuse only
/// once the run had begun (7). Each is refused with exit 64 before any input is opened: the
/// specs here name an input that does not exist, which a run that got that far would fail on
/// with exit 66. Then two small gaps of finding 9: a rejects file that could not be created, and
/// a budget of `1TiB`.
@Suite("Hardening, issue 55: dataset files")
struct HardeningDatasetFilesTests {
  /// Items referencing a table of `shops.dataset.json`, the file beside it.
  private static let items = """
    { "name": "items",
      "fields": [{ "name": "id", "type": "text" }, { "name": "shop", "type": "text" }],
      "tables": [{ "name": "items", "key": ["item_id"], "columns": [
        { "name": "item_id", "field": "id" },
        { "name": "shop_id", "field": "shop", "references": { "dataset": "shops.dataset.json", "table": "shops" } }] }] }
    """

  private static let shops = """
    { "name": "shops", "fields": [{ "name": "id", "type": "text" }],
      "tables": [{ "name": "shops", "key": ["shop_id"], "columns": [{ "name": "shop_id", "field": "id" }]}] }
    """

  /// A spec loading `items.dataset.json` from `missing.ndjson`, into `d.sqlite` unless `database`
  /// says otherwise; `extra` adds keys.
  private func makeFiles(in scratch: TemporaryDirectory, items: String = items, extra: String = "") throws {
    _ = try scratch.write("items.dataset.json", items)
    _ = try scratch.write("shops.dataset.json", Self.shops)
    _ = try scratch.write(
      "spec.json",
      #"{"dataset": "items.dataset.json", "input": "missing.ndjson", "format": "ndjson", "database": "d.sqlite"\#(extra)}"#
    )
  }

  private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  // MARK: Finding 4 — an output over a dataset file

  struct Output: Sendable, CustomStringConvertible {
    /// Command-line arguments after the spec.
    var options: [String]
    /// Keys added to the spec.
    var key: String = ""
    /// The dataset file it names.
    var file: String
    /// What the message calls the output, and what it asks to give another path.
    var role: String
    var option: String
    var description: String { "\(options.joined(separator: " "))\(key) over \(file)" }
  }

  static let outputs: [Output] = [
    Output(options: ["--report", "items.dataset.json"], file: "items.dataset.json", role: "report", option: "report"),
    Output(
      options: ["--html", "./items.dataset.json"], file: "items.dataset.json", role: "HTML report", option: "html"),
    Output(
      options: ["--junit", "shops.dataset.json"], file: "shops.dataset.json", role: "JUnit file", option: "junit"),
    Output(options: ["--rejects", "link.json"], file: "shops.dataset.json", role: "rejects file", option: "rejects"),
    Output(
      options: [], key: #", "report": "shops.dataset.json""#, file: "shops.dataset.json", role: "report",
      option: "report"),
    Output(
      options: [], key: #", "rejects": "items.dataset.json""#, file: "items.dataset.json", role: "rejects file",
      option: "rejects"),
  ]

  /// Every output flag and spec key, naming the spec's dataset file, one it references, or a
  /// link to one: refused before anything is opened, the file as it was — on a run that would
  /// fail with 66 as on any other, so the next run still reads its dataset.
  @Test(arguments: outputs)
  func anOutputOverADatasetFileIsRefusedBeforeAnythingIsWritten(_ output: Output) throws {
    let scratch = try TemporaryDirectory()
    try makeFiles(in: scratch, extra: output.key)
    try FileManager.default.createSymbolicLink(
      atPath: scratch.file("link.json"), withDestinationPath: "shops.dataset.json")
    let before = try #require(bytes(scratch.file(output.file)))
    let result = try SluiceCommand.run(["run", "spec.json"] + output.options, in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("sluice: the \(output.role) "), "\(result.stderr)")
    #expect(result.stderr.contains("is the same file as the dataset file"), "\(result.stderr)")
    #expect(result.stderr.contains(scratch.file(output.file)), "\(result.stderr)")
    #expect(
      result.stderr.contains(#"give --\#(output.option), or the spec's "\#(output.option)", a path of its own"#),
      "\(result.stderr)")
    #expect(bytes(scratch.file(output.file)) == before)
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite")))

    // The dataset files still load, so later runs are not refused for them.
    let contract = try SluiceCommand.run(["contract", scratch.file("items.dataset.json")])
    #expect(contract.status == 0, "\(contract.stderr)")
  }

  @Test func validateRefusesAReportOverItsDatasetFileToo() throws {
    let scratch = try TemporaryDirectory()
    try makeFiles(in: scratch)
    let before = try #require(bytes(scratch.file("shops.dataset.json")))
    let result = try SluiceCommand.run(["validate", "spec.json", "--report", "shops.dataset.json"], in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("is the same file as the dataset file"), "\(result.stderr)")
    #expect(bytes(scratch.file("shops.dataset.json")) == before)
  }

  // MARK: Finding 7 — a dataset file one store would refuse

  struct StoreMistake: Sendable, CustomStringConvertible {
    var description: String
    var items: String
    /// The JSON path the message names.
    var path: String
  }

  static let storeMistakes: [StoreMistake] = [
    StoreMistake(
      description: "tables that differ only in case",
      items: items.replacingOccurrences(of: #""name": "items", "key""#, with: #""name": "Shops", "key""#),
      path: "'tables[0].name'"),
    StoreMistake(
      description: "PostgreSQL's xmin as a column",
      items: items.replacingOccurrences(of: #""name": "item_id""#, with: #""name": "xmin""#)
        .replacingOccurrences(of: #"["item_id"]"#, with: #"["xmin"]"#),
      path: "'tables[0].columns[0].name'"),
    StoreMistake(
      description: "columns that differ only in case",
      items: items.replacingOccurrences(of: #""name": "shop_id""#, with: #""name": "Item_ID""#),
      path: "'tables[0].columns[1].name'"),
  ]

  /// The refusal is the dataset file's, before any store is opened: the same exit and message
  /// for a SQLite file and for a PostgreSQL server (one nobody listens for: it is never reached).
  @Test(arguments: storeMistakes)
  func aDatasetFileOneStoreWouldRefuseIsRefusedTheSameForEveryStore(_ mistake: StoreMistake) throws {
    let scratch = try TemporaryDirectory()
    try makeFiles(in: scratch, items: mistake.items)
    var messages: [String] = []
    for database in ["d.sqlite", "postgresql://sluice@127.0.0.1:9/none"] {
      let result = try SluiceCommand.run(["run", "spec.json", "--db", database], in: scratch.path)
      #expect(result.status == 64, "\(database): \(result.stderr)")
      #expect(
        result.stderr.contains("\(scratch.file("items.dataset.json")): \(mistake.path): "), "\(result.stderr)")
      messages.append(result.stderr)
    }
    #expect(messages[0] == messages[1])
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite")))
  }

  /// Two dataset files loaded together, each right on its own, whose tables differ only in case:
  /// refused at the spec's `inputs` before anything is opened.
  @Test func datasetsLoadedTogetherWhoseTablesDifferOnlyInCaseAreRefused() throws {
    let scratch = try TemporaryDirectory()
    try makeFiles(in: scratch)
    _ = try scratch.write(
      "other.dataset.json",
      Self.shops.replacingOccurrences(of: #""name": "shops", "key""#, with: #""name": "Items", "key""#))
    _ = try scratch.write(
      "both.json",
      #"{"inputs": [{"dataset": "items.dataset.json", "input": "a.ndjson", "format": "ndjson"}, {"dataset": "other.dataset.json", "input": "b.ndjson", "format": "ndjson"}], "database": "d.sqlite"}"#
    )
    let result = try SluiceCommand.run(["run", "both.json"], in: scratch.path)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "both.json: 'inputs': the table Items of one dataset differs only in case from the table items"),
      "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("d.sqlite")))
  }

  // MARK: Finding 9 — the rejects summary, a budget of 1 TiB

  /// The rejects are opened before the first record is read; when that fails the run exits 73,
  /// and stderr says no rejects file was written, with its path and the reason, never that 0
  /// rejected records were written to it.
  @Test func aRejectsFileThatCannotBeCreatedIsNeverClaimedAsWritten() throws {
    let scratch = try TemporaryDirectory()
    let parent = try scratch.write("file", "not a folder\n")
    let rejects = parent + "/rejects.ndjson"
    let result = try SluiceCommand.run([
      "run", "Pipelines/fruits-lenient.json", "--db", scratch.file("f.sqlite"), "--rejects", rejects,
    ])
    #expect(result.status == 73, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "sluice: no rejects file was written to \(rejects): cannot create the rejects file \(rejects): \(parent) is a file, not a directory"
      ), "\(result.stderr)")
    #expect(!result.stderr.contains("rejected record(s) written"), "\(result.stderr)")
  }

  /// The message says budgets go up to 1 TiB: 1 TiB, written with its own unit, is one.
  @Test func aBudgetOfOneTebibyteIsTheLargestAccepted() throws {
    let scratch = try TemporaryDirectory()
    // An input that is not there: the options are checked first, then the run stops (66).
    let run = [
      "run", "Pipelines/fruits.json", "--db", scratch.file("f.sqlite"), "--input", scratch.file("none.ndjson"),
    ]
    let accepted = try SluiceCommand.run(run + ["--memory-budget", "1TiB"])
    #expect(accepted.status == 66, "\(accepted.stderr)")
    #expect(!accepted.stderr.contains("--memory-budget"), "\(accepted.stderr)")
    let refused = try SluiceCommand.run(run + ["--memory-budget", "2TiB"])
    #expect(refused.status == 64, "\(refused.stderr)")
    #expect(refused.stderr.contains("from 56 MiB to 1 TiB"), "\(refused.stderr)")
  }
}
