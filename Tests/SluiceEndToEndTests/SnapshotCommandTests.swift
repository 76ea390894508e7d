import Foundation
import OrderSamples
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Snapshot runs through the command line: a full nightly dump mirrored into the tables — the orders
/// it no longer holds deleted with their items — and the guard that refuses an empty or
/// truncated dump before it can wipe a table.
@Suite("Snapshots: a full dump mirrored, and its guard, end to end")
struct SnapshotCommandTests {
  let scratch: TemporaryDirectory

  init() throws { scratch = try TemporaryDirectory() }
  init(scratch: TemporaryDirectory) { self.scratch = scratch }

  /// Orders `ids`, each with `id % 3 + 1` items, as a JSON array at `name`.
  @discardableResult
  func dump(_ name: String, _ ids: [Int], badCurrency: Set<Int> = []) throws -> String {
    let orders = ids.map { id in
      GeneratedOrder(
        id: String(format: "%010d", id), currency: badCurrency.contains(id) ? "euros" : "EUR", status: "pending",
        createdAt: "2023-01-01T00:00:00Z",
        customerID: 7, customerName: "Ann",
        items: (0...(id % 3)).map { .init(sku: "SKU-\(id)-\($0)", qty: 1, priceMinor: 10) }
      ).json
    }
    return try scratch.write(name, "[\n" + orders.joined(separator: ",\n") + "\n]\n")
  }

  static func items(_ ids: some Sequence<Int>) -> Int { ids.reduce(0) { $0 + $1 % 3 + 1 } }

  func spec(_ extra: String = "") throws -> String {
    try scratch.write(
      "orders.json",
      #"{"dataset": "orders", "input": "full.json", "database": "orders.sqlite", "snapshot": true\#(extra)}"#)
  }

  func run(_ arguments: [String]) throws -> (SluiceBinary.Result, RunReport) {
    let reportPath = scratch.file("report-\(UUID().uuidString).json")
    let result = try SluiceCommand.run(arguments + ["--report", reportPath])
    return (result, try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath))))
  }

  var database: SQLiteConnection {
    get throws { try SQLiteConnection(path: scratch.file("orders.sqlite"), options: .init(readOnly: true)) }
  }

  static let tables = ["orders", "order_items", "customers"]

  @Test func aDumpMissingOnePercentOfTheKeysDeletesExactlyThoseRowsAndTheirChildren() throws {
    let all = Array(1...200)
    try dump("full.json", all)
    let spec = try spec()
    #expect(try run(["run", spec]).0.status == 0)
    #expect(try database.scalarInt("SELECT count(*) FROM order_items") == Int64(Self.items(all)))
    // Tonight's dump lacks orders 17 and 150 (1 %).
    let gone = [17, 150]
    try dump("tonight.json", all.filter { !gone.contains($0) })
    let html = scratch.file("report.html")
    let (result, report) = try run(["run", spec, "--input", scratch.file("tonight.json"), "--html", html])
    #expect(result.status == 0, "\(result.stderr)")
    let items = Self.items(gone)
    #expect(report.rowsDeleted == ["orders": 2, "order_items": items])
    #expect(result.stderr.contains("  snapshot: deleted order_items \(items), orders 2\n"), "\(result.stderr)")
    #expect(try database.scalarInt("SELECT count(*) FROM orders") == 198)
    #expect(try database.scalarInt("SELECT count(*) FROM orders WHERE order_id IN ('0000000017', '0000000150')") == 0)
    #expect(try database.scalarInt("SELECT count(*) FROM order_items") == Int64(Self.items(all) - items))
    // The customer they named is another dataset's row kept by the others: it stays.
    #expect(try database.scalarInt("SELECT count(*) FROM customers") == 1)
    let page = try String(contentsOfFile: html, encoding: .utf8)
    #expect(page.contains("<dt>deleted (snapshot)</dt><dd>order_items \(items), orders 2</dd>"))
    // The history keeps it: `runs` and its JSON.
    let runs = try SluiceCommand.run(["runs", scratch.file("orders.sqlite"), "2"])
    #expect(runs.stdout.contains("  rows deleted (snapshot): order_items \(items), orders 2\n"), "\(runs.stdout)")
    let json = try SluiceCommand.run(["runs", scratch.file("orders.sqlite"), "2", "--json"])
    let detail = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let recorded = try #require(detail["run"] as? [String: Any])
    #expect(recorded["rowsDeleted"] as? [String: Int] == ["orders": 2, "order_items": items])
    // The same dump again deletes nothing.
    let (again, same) = try run(["run", spec, "--input", scratch.file("tonight.json")])
    #expect(again.status == 0 && same.rowsDeleted == [:])
    #expect(again.stderr.contains("  snapshot: deleted nothing: every row's key was in the input"))
  }

  /// Under the lenient policy, a record rejected before its key was known (here: order 40 with a
  /// broken currency, rejected at the validate stage) was in the dump all the same: its row must not be deleted as gone. The orders table then loses
  /// nothing this run, a `snapshotHeld` warning says why, and once the dump is clean the
  /// snapshot deletes exactly what is gone.
  @Test func aLenientSnapshotWithRecordsRejectedBeforeTheirKeysDeletesNothingFromTheirTables() throws {
    let all = Array(1...200)
    try dump("full.json", all)
    let spec = try spec(#", "policy": "lenient""#)
    #expect(try run(["run", spec]).0.status == 0)
    let before = try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: Self.tables)
    let gone = [17, 150]
    let tonight = try dump("tonight.json", all.filter { !gone.contains($0) }, badCurrency: [40])
    let (held, report) = try run(["run", spec, "--input", tonight])
    #expect(held.status == 0, "\(held.stderr)")
    #expect(report.stages.first { $0.stage == .validate }?.rejected == 1)
    #expect(report.rowsDeleted == [:] || report.rowsDeleted == nil, "\(String(describing: report.rowsDeleted))")
    let warning = try #require(report.issues.first { $0.code == .snapshotHeld })
    #expect(warning.severity == .warning && warning.stage == .load && warning.path == "orders")
    #expect(
      warning.message.hasPrefix("the snapshot deleted nothing from orders: 1 record(s) of its input were rejected"))
    #expect(try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: Self.tables) == before)
    // The dump without the broken record: the two orders gone are deleted, order 40 stays.
    try dump("fixed.json", all.filter { !gone.contains($0) })
    let (fixed, deleted) = try run(["run", spec, "--input", scratch.file("fixed.json")])
    #expect(fixed.status == 0, "\(fixed.stderr)")
    #expect(deleted.rowsDeleted?["orders"] == 2)
    #expect(try database.scalarInt("SELECT count(*) FROM orders WHERE order_id = '0000000040'") == 1)
  }

  @Test(arguments: ["empty", "truncated"])
  func anEmptyOrTruncatedDumpIsRefusedByTheGuardAndNothingIsWritten(_ kind: String) throws {
    let all = Array(1...200)
    try dump("full.json", all)
    let spec = try spec()
    #expect(try run(["run", spec]).0.status == 0)
    let before = try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: Self.tables)
    let kept = kind == "empty" ? [] : Array(all.prefix(20))
    try dump("tonight.json", kept)
    let (result, report) = try run(["run", spec, "--input", scratch.file("tonight.json")])
    #expect(result.status == 65, "\(result.stderr)")
    let doomed = 200 - kept.count
    let share = kind == "empty" ? "100%" : "90%"
    #expect(
      result.stderr.contains(
        "snapshot: this run would delete \(doomed) of the 200 rows orders held before it (\(share) > maxDeleteRate 5%), more than an incomplete dump should; nothing was written"
      ), "\(result.stderr)")
    #expect(!report.committed && report.rowsDeleted == nil)
    #expect(try DatabaseSnapshot(of: scratch.file("orders.sqlite"), tables: Self.tables) == before)
    // A dump known to be right passes with a raised guard.
    let (raised, deleted) = try run(["run", spec, "--input", scratch.file("tonight.json"), "--max-delete-rate", "1"])
    #expect(raised.status == 0, "\(raised.stderr)")
    #expect(deleted.rowsDeleted?["orders"] == doomed)
    #expect(try database.scalarInt("SELECT count(*) FROM orders") == Int64(kept.count))
  }

  @Test func theGuardIsASpecKeyAndItsLimitsAreChecked() throws {
    try dump("full.json", Array(1...100))
    #expect(try run(["run", try spec()]).0.status == 0)
    try dump("full.json", Array(1...90))
    // 10 % of the orders go: over the default 5 %, under a spec's 0.2.
    let (refused, _) = try run(["run", try spec()])
    #expect(refused.status == 65)
    let (allowed, report) = try run(["run", try spec(#", "maxDeleteRate": 0.2"#)])
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(report.rowsDeleted?["orders"] == 10)
    let bad = try SluiceCommand.run(["run", try spec(#", "maxDeleteRate": 2"#)])
    #expect(bad.status == 64 && bad.stderr.contains("'maxDeleteRate' must be a share from 0 to 1"), "\(bad.stderr)")
    let plain = try scratch.write("plain.json", #"{"dataset": "orders", "input": "full.json", "database": "o.sqlite"}"#)
    let orphan = try SluiceCommand.run(["run", plain, "--max-delete-rate", "0.5"])
    #expect(orphan.status == 64 && orphan.stderr.contains("--max-delete-rate applies to a snapshot run"))
    let wrong = try SluiceCommand.run(["run", plain, "--snapshot", "--max-delete-rate", "lots"])
    #expect(wrong.status == 64 && wrong.stderr.contains("--max-delete-rate must be a share from 0 to 1"))
  }

  /// Devices and their alerts, both feeds snapshots: a device gone from tonight's feed takes
  /// its alerts with it (counted under alerts, with the alerts gone from their own feed). Under
  /// the lenient policy an alert the store rejects at the load stage — its device unknown — had
  /// its key in the feed: its row is kept, not deleted.
  @Test func devicesAndAlertsMirrorTogetherAndARecordRejectedAtTheLoadStageKeepsItsRow() throws {
    let samples = Repository.path("SampleData/devices")
    var devices = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: samples + "/devices.json")))
        as? [[String: Any]])
    var alerts = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: samples + "/alerts.json")))
        as? [[String: Any]])
    func write() throws {
      _ = try scratch.write(
        "devices.json", String(decoding: try JSONSerialization.data(withJSONObject: devices), as: UTF8.self))
      _ = try scratch.write(
        "alerts.json", String(decoding: try JSONSerialization.data(withJSONObject: alerts), as: UTF8.self))
    }
    try write()
    let spec = try scratch.write(
      "devices-spec.json",
      #"{"inputs": [{"dataset": "devices", "input": "devices.json"}, {"dataset": "alerts", "input": "alerts.json"}], "database": "devices.sqlite", "policy": {"preset": "lenient", "maxRejects": 5}, "snapshot": true, "maxDeleteRate": 0.5}"#
    )
    #expect(try run(["run", spec]).0.status == 0)
    let db = try SQLiteConnection(path: scratch.file("devices.sqlite"), options: .init(readOnly: true))
    let deviceCount = Int(try db.scalarInt("SELECT count(*) FROM devices") ?? 0)
    let alertCount = Int(try db.scalarInt("SELECT count(*) FROM alerts") ?? 0)
    #expect(deviceCount == devices.count && alertCount == alerts.count)

    // dev-0002 leaves the feed with its alerts; alert-00001 now names a device nobody knows.
    devices.removeAll { $0["id"] as? String == "dev-0002" }
    let ofDevice2 = alerts.filter { $0["deviceId"] as? String == "dev-0002" }.count
    alerts.removeAll { $0["deviceId"] as? String == "dev-0002" }
    alerts[0]["deviceId"] = "dev-9999"
    try write()
    let (result, report) = try run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(report.statistics(for: .load).rejected == 1)
    #expect(report.rowsDeleted == ["devices": 1, "alerts": ofDevice2])
    let after = try SQLiteConnection(path: scratch.file("devices.sqlite"), options: .init(readOnly: true))
    #expect(try after.scalarInt("SELECT count(*) FROM alerts WHERE alert_id = 'alert-00001'") == 1)
    #expect(try after.scalarInt("SELECT count(*) FROM alerts") == Int64(alertCount - ofDevice2))
  }
}

/// The same mirror into PostgreSQL: the deletion, its count, and the guard.
@Suite(
  "Snapshots into PostgreSQL, end to end",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLSnapshotCommandTests {
  @Test func aSnapshotIntoPostgreSQLDeletesWhatIsGoneAndTheGuardHolds() throws {
    let scratch = try TemporaryDirectory()
    let schema = PostgreSQLSchema()
    let tests = SnapshotCommandTests(scratch: scratch)
    try tests.dump("full.json", Array(1...100))
    let spec = try scratch.write(
      "orders.json",
      #"{"dataset": "orders", "input": "full.json", "database": "\#(schema.url)", "databaseSchema": "\#(schema.name)", "snapshot": true}"#
    )
    #expect(try SluiceCommand.run(["run", spec]).status == 0)
    try tests.dump("full.json", Array(1...100).filter { $0 != 42 })
    let result = try SluiceCommand.run(["run", spec])
    #expect(result.status == 0, "\(result.stderr)")
    let items = SnapshotCommandTests.items([42])
    #expect(result.stderr.contains("  snapshot: deleted order_items \(items), orders 1\n"), "\(result.stderr)")
    let store = try schema.connect()
    #expect(try store.scalarInt("SELECT count(*) FROM orders") == 99)
    #expect(try store.scalarInt("SELECT count(*) FROM order_items WHERE order_id = '0000000042'") == 0)
    try tests.dump("full.json", Array(1...10))
    let refused = try SluiceCommand.run(["run", spec])
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(refused.stderr.contains("would delete 89 of the 99 rows orders held before it"), "\(refused.stderr)")
    #expect(try store.scalarInt("SELECT count(*) FROM orders") == 99)
    let runs = try SluiceCommand.run(["runs", schema.url, "2", "--db-schema", schema.name])
    #expect(runs.stdout.contains("rows deleted (snapshot): order_items \(items), orders 1"), "\(runs.stdout)")
  }

  /// Two snapshot (or incremental) runs into one schema never interleave: while another session
  /// holds the schema's lock, a run waits its busy timeout, then exits 74 naming the holder.
  @Test func aSecondSnapshotRunWaitsThenExits74NamingWhoHoldsTheLock() throws {
    let scratch = try TemporaryDirectory()
    let schema = PostgreSQLSchema()
    let tests = SnapshotCommandTests(scratch: scratch)
    try tests.dump("full.json", Array(1...20))
    let spec = try scratch.write(
      "orders.json",
      #"{"dataset": "orders", "input": "full.json", "database": "\#(schema.url)", "databaseSchema": "\#(schema.name)", "snapshot": true}"#
    )
    #expect(try SluiceCommand.run(["run", spec]).status == 0)
    // Another Sluice session (the test's connection names itself sluice too) holds the lock.
    let holder = try schema.connect()
    try holder.execute("BEGIN")
    let lock = try holder.prepare("SELECT pg_advisory_xact_lock(hashtext('sluice exclusive runs ' || $1))")
    try lock.run([.text(schema.name)])
    let pid = try #require(try holder.scalarInt("SELECT pg_backend_pid()"))
    let waited = try SluiceCommand.run(["run", spec, "--busy-timeout", "1"])
    #expect(waited.status == 74, "\(waited.stderr)")
    #expect(waited.stderr.contains("is locked by another process (waited 1 s)"), "\(waited.stderr)")
    #expect(waited.stderr.contains("held by sluice (PostgreSQL backend \(pid), client "), "\(waited.stderr)")
    try holder.execute("COMMIT")
    let after = try SluiceCommand.run(["run", spec, "--busy-timeout", "1"])
    #expect(after.status == 0, "\(after.stderr)")
  }
}
