import Foundation
import OrderSamples
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A nightly drop folder of order dumps, loaded through the command line with `--incremental`: the
/// input ledger (`sluice_inputs`) records every file a committed run read, and a later run skips
/// what the database holds — by fingerprint, or by content under any name — refuses a loaded
/// name with other content, and loads what is new.
@Suite("Incremental loads and the input ledger, end to end")
struct IncrementalCommandTests {
  let scratch: TemporaryDirectory

  init() throws {
    scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("drops"), withIntermediateDirectories: true)
  }

  static func order(_ id: Int, amount: Int64 = 10) -> String {
    GeneratedOrder(
      id: String(format: "%010d", id), currency: "EUR", status: "pending", createdAt: "2023-01-01T00:00:00Z",
      customerID: 7, customerName: "Ann", items: [.init(sku: "SKU-\(id)", qty: 1, priceMinor: amount)]
    ).json
  }

  /// A dump of orders `ids`, written to `drops/NAME`.
  @discardableResult
  func drop(_ name: String, _ ids: some Sequence<Int>, amount: Int64 = 10) throws -> String {
    try scratch.write(
      "drops/" + name, "[\n" + ids.map { Self.order($0, amount: amount) }.joined(separator: ",\n") + "\n]\n")
  }

  func spec(incremental: Bool? = nil, database: String = "orders.sqlite") throws -> String {
    let flag = incremental.map { #", "incremental": \#($0)"# } ?? ""
    return try scratch.write(
      "orders.json", #"{"dataset": "orders", "input": "drops/*.json", "database": "\#(database)"\#(flag)}"#)
  }

  func run(_ arguments: [String]) throws -> (SluiceBinary.Result, RunReport) {
    let reportPath = scratch.file("report-\(UUID().uuidString).json")
    let result = try SluiceCommand.run(arguments + ["--report", reportPath])
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    return (result, report)
  }

  /// The orders tables and the ledger: what a refused run must leave as they were.
  static let tables = ["orders", "order_items", "customers", "sluice_inputs"]

  var database: SQLiteConnection {
    get throws { try SQLiteConnection(path: scratch.file("orders.sqlite"), options: .init(readOnly: true)) }
  }

  static func sha256sum(_ path: String) throws -> String {
    let result = try Tool.shell("sha256sum '\(path)' | cut -c1-64")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The ledger's rows: `run position status path same_as_run`.
  func ledger() throws -> [String] {
    let query = try database.prepare(
      "SELECT run_id, position, status, path, coalesce(same_as_run, '-') FROM sluice_inputs ORDER BY run_id, position")
    var rows: [String] = []
    while try query.step() {
      let path = (query.columnText(3) ?? "").replacingOccurrences(of: scratch.file("drops/"), with: "")
      rows.append(
        "\(query.columnInt64(0)) \(query.columnInt64(1)) \(query.columnText(2) ?? "") \(path) \(query.columnText(4) ?? "")"
      )
    }
    return rows
  }

  @Test func aPlainRunRecordsEveryInputAndAnIncrementalOneLoadsOnlyWhatIsNew() throws {
    let day1 = try drop("day1.json", 1...3)
    let day2 = try drop("day2.json", 4...5)
    let spec = try spec()
    // A run that is not incremental records its inputs all the same.
    let (first, _) = try run(["run", spec])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(try ledger() == ["1 0 loaded day1.json -", "1 1 loaded day2.json -"])
    let sha = try database.prepare(
      "SELECT sha256, size, records_read, records_loaded FROM sluice_inputs ORDER BY position")
    for path in [day1, day2] {
      #expect(try sha.step())
      #expect(sha.columnText(0) == (try Self.sha256sum(path)))
      let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
      #expect(sha.columnInt64(1) == Int64(size))
      #expect(sha.columnInt64(2) == (path == day1 ? 3 : 2) && sha.columnInt64(3) == sha.columnInt64(2))
    }
    sha.reset()  // A read left open would hold the lock the next run needs.

    try drop("day3.json", 6...9)
    let html = scratch.file("report.html")
    let (second, report) = try run(["run", spec, "--incremental", "--html", html])
    #expect(second.status == 0, "\(second.stderr)")
    let page = try String(contentsOfFile: html, encoding: .utf8)
    #expect(page.contains("<dt>inputs skipped</dt><dd>2 of 3, their content already loaded</dd>"))
    #expect(page.contains("skipped: unchanged since run 1</td>"))
    #expect(second.stderr.contains("day1.json (orders, json): skipped, unchanged since run 1"), "\(second.stderr)")
    #expect(second.stderr.contains("  incremental: 2 of 3 input(s) skipped, their content already loaded"))
    #expect(report.inputsSkipped == 2)
    #expect(report.inputs.map { $0.skipped?.reason } == [.unchanged, .unchanged, nil])
    #expect(report.inputs.map { $0.skipped?.loadedByRunId } == [1, 1, nil])
    #expect(report.inputs[2].sha256 == (try Self.sha256sum(scratch.file("drops/day3.json"))))
    #expect(report.statistics(for: .read).recordsIn == 4 && report.statistics(for: .load).recordsOut == 4)
    #expect(try database.scalarInt("SELECT count(*) FROM orders") == 9)
    #expect(
      try ledger() == [
        "1 0 loaded day1.json -", "1 1 loaded day2.json -", "2 0 skipped day1.json 1", "2 1 skipped day2.json 1",
        "2 2 loaded day3.json -",
      ])

    // `sluice runs DB RUN_ID` lists the run's inputs from the ledger.
    let runs = try SluiceCommand.run(["runs", scratch.file("orders.sqlite"), "2"])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stdout.contains("inputs (sluice_inputs): 3, 2 skipped by an incremental run"), "\(runs.stdout)")
    #expect(runs.stdout.contains("skipped (run 1)"))
    let json = try SluiceCommand.run(["runs", scratch.file("orders.sqlite"), "2", "--json"])
    let detail = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let inputs = try #require(detail["inputs"] as? [[String: Any]])
    #expect(inputs.map { $0["status"] as? String } == ["skipped", "skipped", "loaded"])
    #expect(inputs[2]["recordsLoaded"] as? Int == 4 && inputs[0]["sameAsRunId"] as? Int == 1)
  }

  @Test func theSameContentUnderTwoNamesLoadsOnceAndATouchedFileIsHashedNotReloaded() throws {
    let a = try drop("a.json", 1...3)
    try FileManager.default.copyItem(atPath: a, toPath: scratch.file("drops/b.json"))
    let spec = try spec(incremental: true)
    let (first, report) = try run(["run", spec])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(report.inputs[1].skipped == .init(reason: .sameContent, loadedByRunId: nil, loadedAs: a))
    #expect(first.stderr.contains("b.json (orders, json): skipped, same content as \(a) loaded by this run"))
    #expect(report.statistics(for: .read).recordsIn == 3)
    #expect(try ledger() == ["1 0 loaded a.json -", "1 1 skipped b.json 1"])

    // Another name in a later run; and a.json touched: its fingerprint differs, its content not.
    try FileManager.default.copyItem(atPath: a, toPath: scratch.file("drops/c.json"))
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: a)
    let (second, again) = try run(["run", spec])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(again.inputsSkipped == 3 && again.statistics(for: .read).recordsIn == 0)
    #expect(again.inputs[0].skipped == .init(reason: .sameContent, loadedByRunId: 1, loadedAs: a))
    #expect(again.inputs[1].skipped == .init(reason: .unchanged, loadedByRunId: 1, loadedAs: nil))
    #expect(again.inputs[2].skipped == .init(reason: .sameContent, loadedByRunId: 1, loadedAs: a))
    #expect(!second.stderr.contains("no record was read"), "\(second.stderr)")
  }

  /// Two files of the same size whose first 64 KiB are the same: the pre-check cannot tell
  /// them apart, the whole digest does, and the second loads.
  @Test func aFileLikeALoadedOneButForItsEndLoads() throws {
    let ids = 1...400
    try drop("a.json", ids, amount: 10)
    let (first, _) = try run(["run", try spec(incremental: true)])
    #expect(first.status == 0, "\(first.stderr)")
    let a = try String(contentsOfFile: scratch.file("drops/a.json"), encoding: .utf8)
    #expect(a.utf8.count > 70_000)
    // The last order's SKU, SKU-400 → SKU-999: same length, a difference past the first 64 KiB.
    let lastSKU = try #require(a.range(of: "SKU-400", options: .backwards))
    _ = try scratch.write("drops/b.json", a.replacingCharacters(in: lastSKU, with: "SKU-999"))
    let (second, report) = try run(["run", try spec(incremental: true)])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(report.inputs.map { $0.skipped?.reason } == [.unchanged, nil])
    #expect(report.statistics(for: .read).recordsIn == 400)
    #expect(try database.scalarInt("SELECT count(*) FROM order_items WHERE sku = 'SKU-999'") == 1)
  }

  @Test func aChangedFileUnderALoadedNameIsRefusedUnlessReloadChanged() throws {
    try drop("day1.json", 1...3)
    let spec = try spec(incremental: true)
    #expect(try run(["run", spec]).0.status == 0)
    let before = try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: Self.tables)
    try drop("day1.json", 1...3, amount: 55)
    let (refused, report) = try run(["run", spec])
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(
      refused.stderr.contains(
        "\(scratch.file("drops/day1.json")) was loaded by run 1 with other content (its SHA-256 then was "),
      "\(refused.stderr)")
    #expect(refused.stderr.contains("unless --reload-changed is given; nothing was written"))
    #expect(!report.committed)
    #expect(try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: Self.tables) == before)
    #expect(try database.scalarInt("SELECT count(*) FROM sluice_runs WHERE run_id = 2 AND status = 'failed'") == 1)

    let (reloaded, again) = try run(["run", spec, "--reload-changed"])
    #expect(reloaded.status == 0, "\(reloaded.stderr)")
    #expect(again.inputs[0].changedSinceRunId == 1 && again.inputs[0].skipped == nil)
    #expect(reloaded.stderr.contains("incremental: the input changed since run 1 loaded it, and was loaded again"))
    #expect(try database.scalarInt("SELECT sum(amount_minor) FROM orders") == 3 * 55)
    #expect(try ledger() == ["1 0 loaded day1.json -", "3 0 loaded day1.json -"])
  }

  @Test func aFileRemovedFromTheFolderLeavesItsRowsAndAFailedRunLeavesNoLedgerRows() throws {
    let day1 = try drop("day1.json", 1...3)
    try drop("day2.json", 4...5)
    let spec = try spec(incremental: true)
    #expect(try run(["run", spec]).0.status == 0)
    try FileManager.default.removeItem(atPath: day1)
    let (second, _) = try run(["run", spec])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(try database.scalarInt("SELECT count(*) FROM orders") == 5)
    // A strict failure in a new file: the run is rolled back, its ledger rows with it.
    _ = try scratch.write("drops/day3.json", "[\n" + Self.order(6) + ",\n{\"orderId\": 1}\n]\n")
    let (failed, _) = try run(["run", spec])
    #expect(failed.status == 65, "\(failed.stderr)")
    #expect(try database.scalarInt("SELECT count(*) FROM sluice_inputs WHERE run_id = 3") == 0)
    #expect(try ledger() == ["1 0 loaded day1.json -", "1 1 loaded day2.json -", "2 0 skipped day2.json 1"])
  }

  @Test func standardInputCannotBeIncrementalAndReloadChangedNeedsIncremental() throws {
    try drop("day1.json", 1...3)
    let stdin = try SluiceCommand.run(["run", try spec(), "--incremental", "--input", "-"])
    #expect(stdin.status == 64)
    #expect(stdin.stderr.contains("standard input ('-') cannot be: read files"), "\(stdin.stderr)")
    let reload = try SluiceCommand.run(["run", try spec(), "--reload-changed"])
    #expect(reload.status == 64)
    #expect(reload.stderr.contains("--reload-changed applies to an incremental run"), "\(reload.stderr)")
    let spec = try scratch.write(
      "stdin.json", #"{"dataset": "orders", "input": "-", "database": "o.sqlite", "incremental": true}"#)
    let refused = try SluiceCommand.run(["run", spec])
    #expect(refused.status == 64)
    #expect(refused.stderr.contains("'incremental': standard input ('-') cannot be skipped"), "\(refused.stderr)")
  }
}

/// The same nightly cycle into PostgreSQL: the ledger in the server's `sluice_inputs`, the skip,
/// the refusal, and `runs` reading the ledger back.
@Suite(
  "Incremental loads into PostgreSQL, end to end",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLIncrementalCommandTests {
  @Test func aNightlyCycleIntoPostgreSQL() throws {
    let scratch = try TemporaryDirectory()
    let schema = PostgreSQLSchema()
    try FileManager.default.createDirectory(atPath: scratch.file("drops"), withIntermediateDirectories: true)
    func drop(_ name: String, _ ids: ClosedRange<Int>, amount: Int64 = 10) throws {
      _ = try scratch.write(
        "drops/" + name,
        "[\n" + ids.map { IncrementalCommandTests.order($0, amount: amount) }.joined(separator: ",\n") + "\n]\n")
    }
    try drop("day1.json", 1...3)
    try drop("day2.json", 4...5)
    let spec = try scratch.write(
      "orders.json",
      #"{"dataset": "orders", "input": "drops/*.json", "database": "\#(schema.url)", "databaseSchema": "\#(schema.name)", "incremental": true}"#
    )
    let first = try SluiceCommand.run(["run", spec])
    #expect(first.status == 0, "\(first.stderr)")
    try drop("day3.json", 6...6)
    try FileManager.default.copyItem(atPath: scratch.file("drops/day1.json"), toPath: scratch.file("drops/day0.json"))
    let second = try SluiceCommand.run(["run", spec])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stderr.contains("incremental: 3 of 4 input(s) skipped"), "\(second.stderr)")
    let store = try schema.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM orders") == 6)
    let rows = try store.prepare(
      "SELECT run_id, position, status, coalesce(same_as_run, 0), sha256 FROM sluice_inputs ORDER BY run_id, position")
    var ledger: [String] = []
    while try rows.step() {
      guard case .integer(let run)? = rows.columnValue(0), case .integer(let position)? = rows.columnValue(1),
        case .text(let status)? = rows.columnValue(2), case .integer(let same)? = rows.columnValue(3)
      else { continue }
      ledger.append("\(run) \(position) \(status) \(same)")
    }
    #expect(
      ledger == ["1 0 loaded 0", "1 1 loaded 0", "2 0 skipped 1", "2 1 skipped 1", "2 2 skipped 1", "2 3 loaded 0"])
    try drop("day2.json", 4...5, amount: 77)
    let refused = try SluiceCommand.run(["run", spec])
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(refused.stderr.contains("day2.json was loaded by run 1 with other content"), "\(refused.stderr)")
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_inputs WHERE run_id = 3") == 0)
    let runs = try SluiceCommand.run(["runs", schema.url, "2", "--db-schema", schema.name])
    #expect(runs.status == 0, "\(runs.stderr)")
    #expect(runs.stdout.contains("inputs (sluice_inputs): 4, 3 skipped by an incremental run"), "\(runs.stdout)")
  }
}
