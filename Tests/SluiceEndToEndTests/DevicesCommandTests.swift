import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The real `sluice` binary on the committed device and profile pipelines and samples.
@Suite("sluice on devices, alerts, profiles and patches, end to end")
struct DevicesCommandTests {
  private static let brokenAlerts = Repository.path("SampleData/devices/alerts-broken.json")

  private func strings(_ database: String, _ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() { rows.append(statement.columnText(0) ?? "∅") }
    return rows
  }

  @Test func theNightlyPipelineLoadsDevicesThenAlertsAndARerunWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("devices.sqlite")
    let first = try SluiceCommand.run([
      "run", "Pipelines/devices.json", "--db", database, "--report", scratch.file("1.json"),
    ])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains("  devices: 8 rows") && first.stdout.contains("  alerts: 15 rows"), "\(first.stdout)")
    #expect(first.stderr.contains("devices (devices+alerts, strict) succeeded"), "\(first.stderr)")
    #expect(first.stderr.contains("references looked up: devices 8 key(s) in 1 query"), "\(first.stderr)")

    let again = try SluiceCommand.run([
      "run", "Pipelines/devices.json", "--db", database, "--report", scratch.file("2.json"),
    ])
    #expect(again.status == 0, "\(again.stderr)")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: scratch.file("2.json"))))
    #expect(report.rowsWritten.values.allSatisfy { $0 == 0 }, "\(report.rowsWritten)")
    #expect(try strings(database, "SELECT count(*) FROM alerts") == ["15"])
  }

  /// Alerts loaded into a database that holds only devices: the alerts table is new, so its
  /// deferrable index waits for the load (`Migrator`), and is there, recorded, when the run ends —
  /// and a failed run leaves neither table nor index behind.
  @Test func alertsLoadedBesideExistingDevicesEndWithTheirIndexBuilt() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("devices.sqlite")
    let devicesOnly = try scratch.write(
      "devices-only.json",
      #"""
      {"dataset": "devices", "input": "\#(Repository.path("SampleData/devices/devices.json"))", "format": "json",
       "database": "devices.sqlite"}
      """#)
    let first = try SluiceCommand.run(["run", devicesOnly, "--db", database])
    #expect(first.status == 0, "\(first.stderr)")
    let index = "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'alerts_by_device'"
    #expect(try strings(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'alerts'") == ["0"])

    let brokenSpec = try scratch.write(
      "broken.json",
      #"""
      {"inputs": [
        {"dataset": "devices", "input": "\#(Repository.path("SampleData/devices/devices.json"))", "format": "json"},
        {"dataset": "alerts", "input": "\#(Self.brokenAlerts)", "format": "json"}],
       "database": "devices.sqlite"}
      """#)
    let broken = try SluiceCommand.run(["run", brokenSpec, "--db", database])
    #expect(broken.status != 0)
    #expect(try strings(database, "SELECT count(*) FROM sqlite_schema WHERE name = 'alerts'") == ["0"])
    #expect(try strings(database, index) == ["0"])

    let alerts = try SluiceCommand.run(["run", "Pipelines/devices.json", "--db", database])
    #expect(alerts.status == 0, "\(alerts.stderr)")
    #expect(try strings(database, index) == ["1"])
    #expect(
      try strings(database, "SELECT count(*) FROM sluice_migrations WHERE identifier = 'create index alerts_by_device'")
        == ["1"])
    #expect(try strings(database, "SELECT count(*) FROM alerts") == ["15"])
  }

  @Test func theLenientPipelineSkipsTheOrphanAndTheExpiredAlertAndSaysWhere() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("devices.sqlite")
    let rejects = scratch.file("rejects.ndjson")
    let result = try SluiceCommand.run([
      "run", "Pipelines/devices-lenient.json", "--db", database, "--report", scratch.file("r.json"), "--rejects",
      rejects,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("issues: 2 — invalidValue 1, orphanReference 1"), "\(result.stderr)")
    #expect(
      result.stderr.contains("load \(Self.brokenAlerts) record 3 (line 20, byte 463) deviceId: orphanReference"),
      "\(result.stderr)")
    #expect(result.stderr.contains("record 5 (line 38, byte 912) expire: invalidValue"), "\(result.stderr)")
    #expect(!result.stderr.contains("dev-9999"))
    #expect(try strings(database, "SELECT count(*) FROM alerts") == ["6"])
    #expect(
      try strings(database, "SELECT path || '@' || line FROM sluice_rejects ORDER BY sequence") == [
        "deviceId@20", "expire@38",
      ])
    // The quarantine keeps the records themselves, to be fixed and replayed.
    let quarantined = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    #expect(quarantined.count == 2)
    #expect(quarantined.first?.contains("dev-9999") == true)
  }

  @Test func profilesThenPatchesLeaveEachProfileAsItsPatchesSay() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.file("profiles.sqlite")
    let full = try SluiceCommand.run([
      "run", "Pipelines/profiles.json", "--db", database, "--report", scratch.file("1.json"),
    ])
    #expect(full.status == 0, "\(full.stderr)")
    let patches = try SluiceCommand.run([
      "run", "Pipelines/profile-patches.json", "--db", database, "--report", scratch.file("2.json"), "--rejects",
      scratch.file("rejects.ndjson"),
    ])
    #expect(patches.status == 0, "\(patches.stderr)")
    #expect(patches.stderr.contains("issues: 2 — nullValue 1, orphanReference 1"), "\(patches.stderr)")
    #expect(patches.stderr.contains("record 6 (line 6, byte 298) id: orphanReference"), "\(patches.stderr)")
    #expect(patches.stderr.contains("record 7 (line 7, byte 336) nickname: nullValue"), "\(patches.stderr)")
    #expect(
      try strings(
        database, "SELECT profile_id || '|' || nickname || '|' || ifnull(introduction, '∅') FROM profiles ORDER BY 1")
        == [
          "p-001|Ada|Keeps the canal sensors honest, and the dashboards.",
          "p-002|Grace H.|Writes the nightly import jobs.",
          "p-003|Linus|Joined the data team.",
          "p-004|Zoë|∅",
          "p-005|Ken T.|On call this week.",
        ])
  }

  @Test func helpSaysReplaceDeletesADevicesAlerts() throws {
    let help = try SluiceCommand.run(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("replace deletes them with the device"), "\(help.stdout)")
    #expect(help.stdout.contains("profile-patches"))
  }
}
