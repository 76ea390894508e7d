import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Alerts naming their device by its key on PostgreSQL's bulk path (`PostgreSQLBulkWriter`: the
/// alerts table's foreign key checks each device as the batch is copied) against SQLite's row
/// writer, which looks the devices up: the same alerts row for row, the same counts, the same
/// orphans rejected at the same records — an orphan breaks its batch's foreign key and sends it
/// row by row; a table without that foreign key keeps the look-ups.
@Suite(
  "PostgreSQL: references checked in bulk",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLBulkReferenceTests {
  static let devices = [Catalog.dataset(named: "devices")].compactMap { $0 }
  static let alerts = [Catalog.dataset(named: "alerts")].compactMap { $0 }

  /// `count` devices `dev-0` … into both stores.
  static func loadDevices(_ twin: TwinStores, count: Int) throws {
    let lines = (0..<count).map { index in
      #"{"id":"dev-\#(index)","name":"Gate \#(index)","latitude":\#(Double(index % 90)),"longitude":\#(Double(index % 180))}"#
    }
    let input = try twin.directory.write("devices.ndjson", FruitsDump.ndjson(lines))
    var configuration = PipelineConfiguration(
      name: "devices", input: input, format: .ndjson, database: .sqlite(""), conflict: .upsert)
    configuration.reportPath = nil
    let reports = try twin.run(configuration, datasets: devices)
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
  }

  /// `count` alerts `alert-0` … over `devices` devices, drawn by a fixed generator.
  static func alertLines(_ count: Int, devices: Int, seed: UInt64 = 3) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    return (0..<count).map { index in
      alert(index, device: "dev-\(next(devices))", code: next(10_000))
    }
  }

  static func alert(_ index: Int, device: String, code: Int = 7) -> String {
    #"{"id":"alert-\#(index)","deviceId":"\#(device)","title":"Alert \#(index)","body":"Body \#(index % 97)","createdAt":"2026-01-01T00:00:00Z","expire":"2026-01-02T00:00:00Z","code":\#(code)}"#
  }

  func runAlerts(
    _ twin: TwinStores, _ lines: [String], name: String, policy: Policy = .strict, conflict: ConflictPolicy = .upsert
  ) throws -> TwinStores.Reports {
    let input = try twin.directory.write("\(name).ndjson", FruitsDump.ndjson(lines))
    var configuration = PipelineConfiguration(
      name: name, input: input, format: .ndjson, policy: policy, database: .sqlite(""), conflict: conflict)
    configuration.reportPath = nil
    return try twin.run(configuration, datasets: Self.alerts)
  }

  @Test func alertsNamingKnownDevicesAreCopiedInBulkWithTheRowWritersResults() throws {
    let twin = try TwinStores()
    try Self.loadDevices(twin, count: 300)
    let lines = Self.alertLines(10_000, devices: 300)
    let reports = try runAlerts(twin, lines, name: "alerts")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.rowsWritten["alerts"] == 10_000)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect((writes.tables["alerts"]?.copied ?? 0) >= 2, "\(writes)")
    #expect(writes.rowByRow == 0, "\(writes)")
    // The foreign key checked the devices: the row writer's look-ups did not run.
    #expect(reports.postgreSQL.referenceLookups?["devices"] == nil)
    #expect((reports.sqlite.referenceLookups?["devices"]?.keys ?? 0) > 0)
    let (sqlite, postgreSQL) = try twin.tables(["devices", "alerts"])
    #expect(postgreSQL == sqlite)

    // Again with every alert known and a tenth of them moved to another device: staged,
    // upserted, the foreign key checking the devices they name now.
    let moved = lines.enumerated().map { index, line in
      index % 10 == 0 ? Self.alert(index, device: "dev-\((index / 10) % 300)", code: 1) : line
    }
    let again = try runAlerts(twin, moved, name: "again")
    #expect(again.postgreSQL.status == .succeeded, "\(again.postgreSQL.failure?.message ?? "")")
    #expect(again.postgreSQL.outcome == again.sqlite.outcome)
    #expect(again.postgreSQL.rowsWritten["alerts"] == 1000)
    let writesAgain = try #require(again.postgreSQL.bulkWrites)
    #expect((writesAgain.tables["alerts"]?.staged ?? 0) >= 2, "\(writesAgain)")
    #expect(writesAgain.rowByRow == 0, "\(writesAgain)")
    let (sqliteAgain, postgreSQLAgain) = try twin.tables(["devices", "alerts"])
    #expect(postgreSQLAgain == sqliteAgain)
  }

  /// Lenient: an alert naming no device breaks its batch's foreign key; the batch goes row by
  /// row, where the alert is rejected at its line and field, and the rest of the batch is
  /// written. The next batch backs off; the one after goes in bulk again.
  @Test func anOrphanSendsItsBatchRowByRowWhereItIsRejectedAtItsRecord() throws {
    let twin = try TwinStores()
    try Self.loadDevices(twin, count: 300)
    var lines = Self.alertLines(20_000, devices: 300, seed: 5)
    lines[10] = Self.alert(10, device: "dev-nowhere")
    lines[17_999] = Self.alert(17_999, device: "dev-nowhere-either")
    let reports = try runAlerts(twin, lines, name: "messy", policy: Policy(preset: .lenient))
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let codes = reports.postgreSQL.issues.map { "\($0.code.rawValue) \($0.location?.line ?? -1) \($0.path)" }
    #expect(codes == ["orphanReference 11 deviceId", "orphanReference 18000 deviceId"], "\(codes)")
    #expect(reports.postgreSQL.rowsWritten["alerts"] == 19_998)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.rowByRow >= 3, "\(writes)")
    #expect((writes.tables["alerts"]?.copied ?? 0) >= 1, "\(writes)")
    let (sqlite, postgreSQL) = try twin.tables(["alerts"])
    #expect(postgreSQL == sqlite)
  }

  /// Strict: one orphan fails the run, and PostgreSQL keeps the alerts it had — as SQLite does.
  @Test func aStrictRunWithAnOrphanLeavesTheAlertsAsTheyWere() throws {
    let twin = try TwinStores()
    try Self.loadDevices(twin, count: 50)
    _ = try runAlerts(twin, Self.alertLines(100, devices: 50), name: "first")
    let before = try twin.schema.rows(of: ["alerts"])
    var lines = Self.alertLines(6000, devices: 50, seed: 9)
    lines[5000] = Self.alert(5000, device: "dev-missing")
    let reports = try runAlerts(twin, lines, name: "strict")
    #expect(reports.postgreSQL.status == .failed)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(try twin.schema.rows(of: ["alerts"]) == before)
    let (sqlite, postgreSQL) = try twin.tables(["alerts"])
    #expect(postgreSQL == sqlite)
  }

  /// A table without the foreign key (adopted, or the constraint dropped by its owner) cannot
  /// check the devices: its references stay with the row writer's look-ups, and an orphan is
  /// still rejected — never written.
  @Test func withoutTheForeignKeyTheRowWriterStillLooksTheDevicesUp() throws {
    let twin = try TwinStores()
    try Self.loadDevices(twin, count: 100)
    _ = try runAlerts(twin, Self.alertLines(10, devices: 100, seed: 1), name: "first")
    try twin.schema.connect().execute("ALTER TABLE alerts DROP CONSTRAINT alerts_device_id_fkey")
    var lines = Self.alertLines(5000, devices: 100)
    lines[42] = Self.alert(42, device: "dev-gone")
    let reports = try runAlerts(twin, lines, name: "loose", policy: Policy(preset: .lenient))
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let codes = reports.postgreSQL.issues.map { "\($0.code.rawValue) \($0.location?.line ?? -1) \($0.path)" }
    #expect(codes == ["orphanReference 43 deviceId"], "\(codes)")
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.tables["alerts"] == nil, "\(writes)")
    #expect((reports.postgreSQL.referenceLookups?["devices"]?.keys ?? 0) > 0)
    #expect(try twin.schema.connect().scalarInt("SELECT count(*) FROM alerts WHERE device_id = 'dev-gone'") == 0)
  }

  /// Under `ignore` an alert whose key the table has is kept as it is, unwritten — so no foreign
  /// key would look at the device it names, which the row writer still checks: such batches go
  /// row by row, and an orphan among the kept alerts is rejected on both stores.
  @Test func underIgnoreTheRowWriterChecksTheDevicesOfAlertsItKeeps() throws {
    let twin = try TwinStores()
    try Self.loadDevices(twin, count: 100)
    let lines = Self.alertLines(3000, devices: 100)
    _ = try runAlerts(twin, lines, name: "first")
    var again = lines
    again[7] = Self.alert(7, device: "dev-unknown")
    let reports = try runAlerts(twin, again, name: "ignore", policy: Policy(preset: .lenient), conflict: .ignore)
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let codes = reports.postgreSQL.issues.map { "\($0.code.rawValue) \($0.location?.line ?? -1) \($0.path)" }
    #expect(codes == ["orphanReference 8 deviceId"], "\(codes)")
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.tables["alerts"] == nil, "\(writes)")
    let (sqlite, postgreSQL) = try twin.tables(["alerts"])
    #expect(postgreSQL == sqlite)
  }
}
