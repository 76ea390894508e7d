import Foundation
import OrderSamples
@_spi(Internals) import SluiceCore
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// "Every record rejected fails the run, whatever the budget" is judged per input the spec
/// declares: a glob pattern's files together, since they share a format and a record path. One
/// file of a pattern whose every record was rejected — a Slack day file holding one bad
/// message — counts against the budget like any other rejected record; a pattern or a file whose
/// every record was rejected still fails the run, as a wrong format or record path would.
@Suite("Many small inputs, each partly bad: the budget is the run's")
struct ManyInputsBudgetTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// `count` NDJSON files `drops/NNNN.ndjson`, each with three orders; in file `n`, the orders
  /// `bad(n)` (0…2) have a broken currency and are rejected at the validate stage.
  func drops(_ count: Int, folder: String = "drops", bad: (Int) -> Set<Int>) throws {
    try FileManager.default.createDirectory(atPath: scratch.file(folder), withIntermediateDirectories: true)
    for file in 1...count {
      let lines = (0..<3).map { position in
        GeneratedOrder(
          id: String(format: "%06d-%d", file, position), currency: bad(file).contains(position) ? "euros" : "EUR",
          status: "pending", createdAt: "2023-01-01T00:00:00Z", customerID: 1, customerName: "Ann",
          items: [.init(sku: "SKU-1", qty: 1, priceMinor: 10)]
        ).json
      }
      _ = try scratch.write("\(folder)/\(String(format: "%04d", file)).ndjson", lines.joined(separator: "\n") + "\n")
    }
  }

  func spec(_ inputs: String, maxRejectRate: Double = 0.5) throws -> String {
    try scratch.write(
      "spec.json",
      #"{"inputs": [\#(inputs)], "database": "orders.sqlite", "policy": {"preset": "lenient", "maxRejectRate": \#(maxRejectRate)}}"#
    )
  }

  func orders() throws -> Int64? {
    try SQLiteConnection(path: scratch.file("orders.sqlite"), options: .init(readOnly: true))
      .scalarInt("SELECT count(*) FROM orders")
  }

  /// 1,005 day files — more than the report keeps sections for, so most are summed as they end
  /// — each with one bad order of three, and file 1,003 with all three bad: 1,007 of 3,015
  /// records rejected (33 %), within a 50 % budget. The run commits, and says so.
  @Test func aFileWhoseEveryRecordWasRejectedIsWithinTheBudgetWhenItsPatternsOtherFilesLoaded() throws {
    try drops(1_005) { $0 == 1_003 ? [0, 1, 2] : [$0 % 3] }
    let spec = try spec(#"{"dataset": "orders", "input": "drops/*.ndjson", "format": "ndjson"}"#)
    let report = scratch.file("report.json")
    let result = try SluiceCommand.run(["run", spec, "--report", report])
    #expect(result.status == 0, "\(result.stderr)")
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    #expect(decoded.status == .succeeded && decoded.committed)
    #expect(decoded.statistics(for: .validate).rejected == 1_004 + 3)
    #expect(try orders() == Int64(3_015 - 1_007))
  }

  /// The same with the all-bad file among the first files, whose sections the report keeps.
  @Test func anEarlyFileWhoseEveryRecordWasRejectedIsWithinTheBudgetToo() throws {
    try drops(12) { $0 == 2 ? [0, 1, 2] : [] }
    let spec = try spec(#"{"dataset": "orders", "input": "drops/*.ndjson", "format": "ndjson"}"#)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try orders() == 33)
  }

  /// Every file of a pattern rejected whole: the pattern loaded nothing — a wrong format or
  /// record path looks like this — and the run fails, naming the pattern, beyond any budget.
  @Test func aPatternWhoseEveryFileWasRejectedFailsTheRun() throws {
    try drops(1_003) { _ in [0, 1, 2] }
    let spec = try spec(#"{"dataset": "orders", "input": "drops/*.ndjson", "format": "ndjson"}"#, maxRejectRate: 1)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "all 3009 record(s) read from \(scratch.file("drops/*.ndjson")) were rejected and none was loaded"),
      "\(result.stderr)")
  }

  /// Two inputs the spec declares on their own: the second rejected whole fails the run though
  /// the first loaded, each having its own format and record path.
  @Test func aDeclaredInputWhoseEveryRecordWasRejectedStillFailsTheRun() throws {
    try drops(2, folder: "a") { _ in [] }
    try drops(1, folder: "b") { _ in [0, 1, 2] }
    let spec = try spec(
      #"{"dataset": "orders", "input": "a/*.ndjson", "format": "ndjson"}, {"dataset": "orders", "input": "b/0001.ndjson", "format": "ndjson"}"#,
      maxRejectRate: 1)
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.contains("all 3 record(s) read from \(scratch.file("b/0001.ndjson")) were rejected"),
      "\(result.stderr)")
  }

  /// A Slack export (the committed sample's shape, as Slack writes it: one folder per channel,
  /// one file per day) with one more day file in `general` holding one message the mapping
  /// rejects (no `ts`): a lenient run loads the other days and counts the one message.
  @Test func aSlackExportWithOneDayFileOfOneBadMessageLoadsUnderALenientPolicy() throws {
    let export = scratch.file("slack")
    try FileManager.default.copyItem(atPath: Repository.path("SampleData/slack"), toPath: export)
    _ = try scratch.write(
      "slack/general/2026-11-04.json",
      #"[{"type": "message", "user": "U07SLUICE1", "text": "a message without its ts"}]"#)
    let report = scratch.file("slack.json")
    let result = try SluiceCommand.run([
      "run", "Pipelines/slack.json", "--input-dir", export, "--db", scratch.file("messages.sqlite"), "--policy",
      "lenient", "--report", report,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    #expect(decoded.committed)
    let rejected = decoded.stages.map(\.rejected).reduce(0, +)
    #expect(rejected == 1)
    let day = try #require(decoded.inputs.first { $0.path.hasSuffix("general/2026-11-04.json") })
    #expect(day.stages.map(\.rejected).reduce(0, +) == 1)
  }
}
