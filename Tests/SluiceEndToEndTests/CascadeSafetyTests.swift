import Foundation
import OrderSamples
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQLTestSupport
@_spi(Internals) import SluiceTestSupport
import Testing

/// Rows of other datasets' tables that reference a run's rows `ON DELETE CASCADE` (a device's
/// alerts): a staged run publishes only what it changed, so they stay; a snapshot counts the
/// rows its deletes take with them, guards them as its own and reports them; and the guard's
/// share is of the rows a table held before the run, not after its inserts. On SQLite and, where
/// a server is given, on PostgreSQL.
@Suite("Cascades: staged runs and snapshots never delete what they must not")
struct CascadeSafetyTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }

  /// Where a test loads: a SQLite file of the scratch folder, or a schema of the test server.
  enum Store: CustomStringConvertible, CaseIterable {
    case sqlite, postgresql

    var description: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    /// The stores a test runs on: PostgreSQL only where a server is given.
    static var available: [Store] { PostgreSQLServer.isAvailable ? allCases : [.sqlite] }
  }

  /// One target database of a test.
  final class Target {
    let arguments: [String]
    private let rowsOf: ([String]) throws -> TableRows
    private let schema: PostgreSQLSchema?

    init(_ store: Store, scratch: TemporaryDirectory, name: String) {
      switch store {
      case .sqlite:
        let path = scratch.file("\(name).sqlite")
        arguments = ["--db", path]
        rowsOf = { try TableRows(sqlite: path, tables: $0) }
        schema = nil
      case .postgresql:
        let schema = PostgreSQLSchema()
        arguments = ["--db", schema.url, "--db-schema", schema.name]
        rowsOf = { try schema.rows(of: $0) }
        self.schema = schema
      }
    }

    deinit {
      if let schema {
        _ = try? PostgreSQLServer.connect().execute("DROP SCHEMA IF EXISTS \"sluice_stage_\(schema.name)\" CASCADE")
      }
    }

    func rows(_ tables: [String]) throws -> TableRows { try rowsOf(tables) }

    func run(_ command: String, _ spec: String, _ extra: [String] = []) throws -> SluiceBinary.Result {
      try SluiceCommand.run([command, spec] + arguments + extra)
    }
  }

  // MARK: - Devices and alerts

  /// `devices` as the devices feed writes them (`dev-0001` …), each named `name(id)`.
  @discardableResult
  func devices(_ file: String, _ ids: some Sequence<Int>, name: (Int) -> String = { "Device \($0)" }) throws
    -> String
  {
    let rows = ids.map { id in
      #"{"id": "dev-\#(String(format: "%04d", id))", "name": "\#(name(id))", "latitude": 52.5, "longitude": 13.4}"#
    }
    return try scratch.write(file, "[\n" + rows.joined(separator: ",\n") + "\n]\n")
  }

  /// Alerts, each naming the device of its number in `devices`.
  @discardableResult
  func alerts(_ file: String, devices: [Int]) throws -> String {
    let rows = devices.enumerated().map { number, device in
      #"""
      {"id": "alert-\#(String(format: "%05d", number + 1))", "deviceId": "dev-\#(String(format: "%04d", device))", "title": "Water level high", "body": "Level above the mark.", "createdAt": "2026-11-02T00:15:00Z", "expire": "2026-11-03T00:15:00Z", "code": 2101}
      """#
    }
    return try scratch.write(file, "[\n" + rows.joined(separator: ",\n") + "\n]\n")
  }

  /// A spec loading the devices feed `devices`, and the alerts feed `alerts` when given.
  func spec(_ name: String, devices: String, alerts: String? = nil, snapshot: Bool = false) throws -> String {
    var inputs = [#"{"dataset": "devices", "input": "\#(devices)", "format": "json"}"#]
    if let alerts { inputs.append(#"{"dataset": "alerts", "input": "\#(alerts)", "format": "json"}"#) }
    return try scratch.write(
      name,
      #"{"inputs": [\#(inputs.joined(separator: ", "))], "database": "unused.sqlite", "onConflict": "upsert", "snapshot": \#(snapshot)}"#
    )
  }

  static let deviceTables = ["devices", "alerts"]

  /// The nightly devices and alerts loaded, then tonight's devices feed alone (one device
  /// renamed, one new) re-imported plainly into one target and staged into another: both end
  /// with the same rows, and every alert stays. Before, the publication deleted the devices
  /// table and inserted it again, and the alerts went with the deleted rows.
  @Test(arguments: Store.available)
  func aStagedReImportKeepsTheRowsOtherTablesHangOnItsRowsAndEndsAsAPlainRun(_ store: Store) throws {
    let base = try spec(
      "base.json", devices: try devices("devices.json", 1...8),
      alerts: try alerts("alerts.json", devices: [1, 1, 2, 3, 5, 8]))
    let tonight = try spec(
      "tonight.json",
      devices: try devices("tonight-devices.json", 1...9) { $0 == 1 ? "Pump station north (renamed)" : "Device \($0)" })
    let plain = Target(store, scratch: scratch, name: "plain")
    let staged = Target(store, scratch: scratch, name: "staged")
    for target in [plain, staged] {
      let loaded = try target.run("run", base)
      #expect(loaded.status == 0, "\(loaded.stderr)")
    }
    let before = try staged.rows(Self.deviceTables)
    #expect(before.count("alerts") == 6 && before.count("devices") == 8)

    let plainRun = try plain.run("run", tonight)
    #expect(plainRun.status == 0, "\(plainRun.stderr)")
    let stagedRun = try staged.run("run", tonight, ["--stage"])
    #expect(stagedRun.status == 0, "\(stagedRun.stderr)")
    let after = try staged.rows(Self.deviceTables)
    #expect(after.count("alerts") == 6, "the staged re-import deleted alerts it never touched")
    #expect(after.count("devices") == 9)
    #expect(after == (try plain.rows(Self.deviceTables)))
    #expect(after.tables["alerts"] == before.tables["alerts"])
  }

  /// Orders re-imported staged, one losing items, one gaining, one gone from tonight's file (a
  /// plain run keeps it), one new: the staged publication changes the child rows exactly as the
  /// plain run does.
  @Test(arguments: Store.available)
  func aStagedReImportReplacesChildRowsAsAPlainRunDoes(_ store: Store) throws {
    func orders(_ file: String, _ items: [Int: Int]) throws -> String {
      let lines = items.keys.sorted().map { id in
        GeneratedOrder(
          id: String(format: "%010d", id), currency: "EUR", status: "pending", createdAt: "2023-01-01T00:00:00Z",
          customerID: Int64(id % 3 + 1), customerName: "Customer \(id % 3 + 1)",
          items: (0..<items[id, default: 1]).map { .init(sku: "SKU-\(id)-\($0)", qty: 1, priceMinor: 10) }
        ).json
      }
      return try scratch.write(file, lines.joined(separator: "\n") + "\n")
    }
    let spec = try scratch.write(
      "orders.json",
      #"{"dataset": "orders", "input": "orders.ndjson", "format": "ndjson", "database": "unused.sqlite"}"#)
    let earlier = try orders("earlier.ndjson", [1: 3, 2: 1, 3: 2, 4: 2])
    let tonight = try orders("tonight.ndjson", [1: 1, 2: 4, 3: 2, 5: 2])
    let tables = ["orders", "order_items", "customers"]
    let plain = Target(store, scratch: scratch, name: "plain")
    let staged = Target(store, scratch: scratch, name: "staged")
    for target in [plain, staged] {
      #expect(try target.run("run", spec, ["--input", earlier]).status == 0)
    }
    #expect(try plain.run("run", spec, ["--input", tonight]).status == 0)
    let result = try staged.run("run", spec, ["--input", tonight, "--stage"])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try staged.rows(tables)
    #expect(rows == (try plain.rows(tables)))
    #expect(rows.count("orders") == 5 && rows.count("order_items") == 1 + 4 + 2 + 2 + 2)
  }

  /// 100 devices and 1,000 alerts, 900 of them on four devices; tonight's full devices dump lacks
  /// those four. Deleting them is 4 % of the devices, under the guard, but 90 % of the alerts
  /// go with them: the guard refuses (exit 65, nothing written) and says which table and why;
  /// the plan lists the alerts it would delete; a raised guard deletes them and the report,
  /// the summary and the history count them table by table.
  @Test(arguments: Store.available)
  func aSnapshotCountsGuardsAndReportsTheRowsItsDeletesCascadeInto(_ store: Store) throws {
    let owners = Array(repeating: [1, 2, 3, 4], count: 225).flatMap { $0 } + (0..<100).map { 5 + $0 % 96 }
    let base = try spec(
      "base.json", devices: try devices("devices.json", 1...100), alerts: try alerts("alerts.json", devices: owners))
    let tonight = try spec("tonight.json", devices: try devices("tonight-devices.json", 5...100), snapshot: true)
    let target = Target(store, scratch: scratch, name: "devices")
    #expect(try target.run("run", base).status == 0)
    let before = try target.rows(Self.deviceTables)
    #expect(before.count("devices") == 100 && before.count("alerts") == 1_000)

    let refused = try target.run("run", tonight)
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(
      refused.stderr.contains(
        "snapshot: this run would delete, through foreign keys ON DELETE CASCADE from the rows it deletes, 900 of the 1000 rows alerts held before it (90% > maxDeleteRate 5%)"
      ), "\(refused.stderr)")
    #expect(try target.rows(Self.deviceTables) == before)

    let planReport = scratch.file("plan-\(store).json")
    let plan = try target.run("plan", tonight, ["--max-delete-rate", "1", "--json", "--report", planReport])
    #expect(plan.status == 0, "\(plan.stderr)")
    let planned = try #require(try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: planReport))).plan)
    let alerts = try #require(planned.tables.first { $0.table == "alerts" }, "\(planned.tables)")
    #expect(alerts.deletes == 900 && alerts.rowsBefore == 1_000 && alerts.unchanged == 100)
    #expect(planned.tables.first { $0.table == "devices" }?.deletes == 4)
    #expect(plan.stdout.contains("\"deletes\" : 900"), "\(plan.stdout)")
    #expect(try target.rows(Self.deviceTables) == before)

    let reportPath = scratch.file("report-\(store).json")
    let raised = try target.run("run", tonight, ["--max-delete-rate", "1", "--report", reportPath])
    #expect(raised.status == 0, "\(raised.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    #expect(report.rowsDeleted == ["devices": 4, "alerts": 900])
    #expect(raised.stderr.contains("  snapshot: deleted alerts 900, devices 4\n"), "\(raised.stderr)")
    let after = try target.rows(Self.deviceTables)
    #expect(after.count("devices") == 96 && after.count("alerts") == 100)
  }

  /// A snapshot whose dump is mostly new rows: 200 orders loaded; tonight's dump holds 10 of
  /// them and 3,800 new ones. It would delete 190 of the 200 rows that existed (95 %); counted
  /// against the 4,000 rows after its inserts it looked like 4.75 %, under the guard.
  @Test func theSnapshotGuardsShareIsOfTheRowsBeforeTheRunNotAfterItsInserts() throws {
    let tests = SnapshotCommandTests(scratch: scratch)
    try tests.dump("full.json", Array(1...200))
    let spec = try tests.spec()
    #expect(try tests.run(["run", spec]).0.status == 0)
    let before = try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: SnapshotCommandTests.tables)
    let tonight = try tests.dump("tonight.json", Array(191...200) + Array(1_001...4_800))
    let (refused, report) = try tests.run(["run", spec, "--input", tonight])
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(
      refused.stderr.contains(
        "snapshot: this run would delete 190 of the 200 rows orders held before it (95% > maxDeleteRate 5%)"),
      "\(refused.stderr)")
    #expect(!report.committed)
    #expect(try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: SnapshotCommandTests.tables) == before)
  }

  /// An incremental run skips a dump the database already holds, and a snapshot deletes what the
  /// run did not read: together, an unchanged night would read as an empty dump. The combination
  /// is refused before anything is read, from the command line, the spec and the engine's API.
  @Test func aSnapshotThatAnIncrementalRunWouldSkipIsRefused() throws {
    let tests = SnapshotCommandTests(scratch: scratch)
    try tests.dump("full.json", Array(1...50))
    let spec = try tests.spec()
    let flags = try SluiceCommand.run(["run", spec, "--incremental"])
    #expect(flags.status == 64, "\(flags.stderr)")
    #expect(
      flags.stderr.contains(
        "a snapshot and an incremental run cannot load the same tables (orders): an incremental run skips a file the database already holds"
      ), "\(flags.stderr)")
    #expect(!FileManager.default.fileExists(atPath: scratch.file("orders.sqlite")))
    let both = try tests.spec(#", "incremental": true"#)
    let fromSpec = try SluiceCommand.run(["plan", both])
    #expect(fromSpec.status == 64 && fromSpec.stderr.contains("cannot load the same tables"), "\(fromSpec.stderr)")

    var configuration = PipelineConfiguration(
      name: "orders", input: scratch.file("full.json"), format: .json, policy: .strict,
      database: try StoreDrivers.all.target(for: scratch.file("api.sqlite")))
    configuration.inputs[0].isSnapshot = true
    configuration.inputs[0].isIncremental = true
    #expect(throws: PipelineError.self) {
      _ = try Pipeline(dataset: OrdersDataset(), configuration: configuration)
    }
  }
}
