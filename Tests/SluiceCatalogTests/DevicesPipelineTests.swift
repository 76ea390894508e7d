import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A scratch database and runs of the device feeds, alone or as one pipeline.
final class DeviceWorkspace {
  let directory: TemporaryDirectory
  let database: String
  static let tables = ["devices", "alerts", "loose_alerts"]

  static let devices = PipelineInput(
    dataset: "devices", path: Repository.path("SampleData/devices/devices.json"), format: .json)
  static let alerts = PipelineInput(
    dataset: "alerts", path: Repository.path("SampleData/devices/alerts.json"), format: .json)
  /// Six good alerts, one naming the unknown device `dev-9999` (record 3) and one that expires
  /// before it is created (record 5).
  static let brokenAlerts = PipelineInput(
    dataset: "alerts", path: Repository.path("SampleData/devices/alerts-broken.json"), format: .json)

  init() throws {
    directory = try TemporaryDirectory()
    database = directory.file("devices.sqlite")
  }

  /// A JSON input of `dataset` written into the directory.
  func input(_ dataset: String, _ name: String, _ records: [[String: Any]]) throws -> PipelineInput {
    let data = try JSONSerialization.data(withJSONObject: records, options: [.sortedKeys])
    return PipelineInput(dataset: dataset, path: try directory.write(name, Array(data)), format: .json)
  }

  func run(
    _ inputs: [PipelineInput], policy: Policy = .strict, conflict: ConflictPolicy = .upsert,
    datasets: [AnyDataset]? = nil
  ) throws -> RunReport {
    let configuration = PipelineConfiguration(
      name: "devices", inputs: inputs, policy: policy, database: .sqlite(database), conflict: conflict)
    let datasets = try datasets ?? inputs.map { input in try #require(Catalog.dataset(named: input.dataset ?? "")) }
    return try Pipeline(datasets: datasets, configuration: configuration.counted).run()
  }

  func snapshot() throws -> DatabaseSnapshot { try DatabaseSnapshot(of: database, tables: Self.tables) }

  /// Each row of `sql` as its columns' text joined by `|`, NULL as `∅`.
  func rows(_ sql: String) throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [String] = []
    while try statement.step() {
      rows.append(
        (0..<statement.columnCount).map { statement.columnIsNull($0) ? "∅" : statement.columnText($0) ?? "" }
          .joined(separator: "|"))
    }
    return rows
  }

  /// Alerts per device, `device|count`, in device order.
  func alertsPerDevice() throws -> [String] {
    try rows("SELECT device_id, count(*) FROM alerts GROUP BY device_id ORDER BY device_id")
  }

  /// The sample's devices, each renamed and moved: a new export of the same devices.
  func movedDevices() throws -> PipelineInput {
    let data = try Data(contentsOf: URL(fileURLWithPath: Self.devices.path))
    let devices = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    let moved = devices.map { device -> [String: Any] in
      var device = device
      device["name"] = "\(device["name"] as? String ?? "") (moved)"
      device["latitude"] = (device["latitude"] as? Double ?? 0) / 2
      return device
    }
    return try input("devices", "devices-moved.json", moved)
  }
}

/// Where a record of a JSON array file starts: its byte offset and line, found from a value
/// only that record holds.
func recordStart(in path: String, containing marker: String) throws -> (byteOffset: Int64, line: Int) {
  let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  let text = String(decoding: bytes, as: UTF8.self)
  let markerOffset = try #require(text.utf8.firstRange(of: marker.utf8)).lowerBound
  let prefix = text.utf8[..<markerOffset]
  let brace = try #require(prefix.lastIndex(of: UInt8(ascii: "{")))
  let offset = text.utf8.distance(from: text.utf8.startIndex, to: brace)
  let line = bytes[..<offset].filter { $0 == UInt8(ascii: "\n") }.count + 1
  return (Int64(offset), line)
}

/// The device feeds (seed 000, issue 12): alerts linked to their devices by natural key across
/// inputs and runs; re-imported devices keep their alerts; orphans under every policy.
@Suite("Devices and their alerts")
struct DevicesPipelineTests {
  typealias Workspace = DeviceWorkspace

  @Test func reimportingTheDevicesAfterTheAlertsKeepsEveryAlertAttached() throws {
    let workspace = try Workspace()
    let first = try workspace.run([Workspace.devices, Workspace.alerts])
    #expect(first.status == .succeeded, "\(first.failure?.message ?? "")")
    #expect(first.dataset == "devices+alerts")
    #expect(first.tableRows == ["devices": 8, "alerts": 15])
    let before = try workspace.alertsPerDevice()
    #expect(
      before == [
        "dev-0001|1", "dev-0002|2", "dev-0003|3", "dev-0004|1", "dev-0005|2", "dev-0006|3", "dev-0007|1", "dev-0008|2",
      ])

    // Tomorrow's devices feed: every device renamed and moved; no alerts feed.
    let moved = try workspace.movedDevices()
    let second = try workspace.run([moved])
    #expect(second.status == .succeeded, "\(second.failure?.message ?? "")")
    #expect(second.rowsWritten["devices"] == 8)
    #expect(try workspace.alertsPerDevice() == before)
    #expect(try workspace.rows("SELECT count(*) FROM devices WHERE name LIKE '% (moved)'") == ["8"])
    #expect(try workspace.rows("SELECT count(*) FROM pragma_foreign_key_check") == ["0"])

    // The same feed again writes nothing.
    let third = try workspace.run([moved])
    #expect(third.rowsWritten["devices"] ?? 0 == 0)
    #expect(try workspace.alertsPerDevice() == before)
  }

  @Test func importingTheAlertsTwiceChangesNothing() throws {
    let workspace = try Workspace()
    #expect(try workspace.run([Workspace.devices, Workspace.alerts]).status == .succeeded)
    let before = try workspace.snapshot()

    let again = try workspace.run([Workspace.alerts])
    #expect(again.status == .succeeded, "\(again.failure?.message ?? "")")
    #expect(again.statistics(for: .load).recordsOut == 15)
    #expect(again.rowsWritten["alerts"] ?? 0 == 0)
    #expect(try workspace.snapshot() == before)
    // Their devices come from the earlier run, found by one batched look-up, not one per alert.
    #expect(again.referenceLookups?["devices"] == RunReport.ReferenceLookups(keys: 8, queries: 1))

    let whole = try workspace.run([Workspace.devices, Workspace.alerts])
    #expect(whole.rowsWritten.values.allSatisfy { $0 == 0 }, "\(whole.rowsWritten)")
    #expect(try workspace.snapshot() == before)
  }

  /// An alert references its device, so its upsert is an insert and, for a key that exists, an
  /// update where a column differs (one `ON CONFLICT DO UPDATE` statement would need SQLite's
  /// statement journal): it must still count only the alerts that changed.
  @Test func reimportedAlertsAreUpdatedWhereTheyDifferAndCountedOnlyThen() throws {
    let workspace = try Workspace()
    #expect(try workspace.run([Workspace.devices, Workspace.alerts]).status == .succeeded)
    let data = try Data(contentsOf: URL(fileURLWithPath: Workspace.alerts.path))
    var alerts = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    alerts[0]["title"] = "Water level very high"
    alerts[1]["deviceId"] = "dev-0008"
    let changed = try workspace.input("alerts", "alerts-changed.json", Array(alerts[0..<3]))

    let report = try workspace.run([changed])
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.rowsWritten["alerts"] == 2)
    #expect(report.tableRows["alerts"] == 15)
    let rows = try workspace.rows(
      "SELECT alert_id, device_id, title FROM alerts WHERE alert_id <= 'alert-00003' ORDER BY 1")
    #expect(
      rows == [
        "alert-00001|dev-0001|Water level very high", "alert-00002|dev-0008|Battery low",
        "alert-00003|dev-0002|Gate stuck",
      ])
    #expect(try workspace.rows("SELECT count(*) FROM pragma_foreign_key_check") == ["0"])
  }

  @Test func replaceDeletesTheReimportedDevicesAlertsWithIt() throws {
    let workspace = try Workspace()
    #expect(try workspace.run([Workspace.devices, Workspace.alerts]).status == .succeeded)
    let gate = try workspace.input(
      "devices", "gate.json", [["id": "dev-0002", "name": "Weir gate 2", "latitude": 48.8566, "longitude": 2.3522]])
    let report = try workspace.run([gate], conflict: .replace)
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(try workspace.alertsPerDevice().contains { $0.hasPrefix("dev-0002|") } == false)
    #expect(report.tableRows == ["devices": 8])
    #expect(try workspace.rows("SELECT count(*) FROM alerts") == ["13"])
    // Under upsert, the same record keeps them: only replace deletes.
    #expect(try workspace.run([Workspace.alerts]).status == .succeeded)
    #expect(try workspace.run([gate], conflict: .upsert).status == .succeeded)
    #expect(try workspace.rows("SELECT count(*) FROM alerts") == ["15"])
  }

  @Test(arguments: [false, true])
  func aStrictOrphanFailsTheRunAndRollsBackTheDevicesLoadedBeforeIt(databaseHadData: Bool) throws {
    let workspace = try Workspace()
    if databaseHadData {
      let moved = try workspace.movedDevices()
      #expect(try workspace.run([moved, Workspace.alerts]).status == .succeeded)
    }
    let before = try workspace.snapshot()
    let report = try workspace.run([Workspace.devices, Workspace.brokenAlerts])
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    #expect(!report.committed)
    #expect(try workspace.snapshot() == before)
    #expect(try workspace.snapshot().count("devices") == (databaseHadData ? 8 : 0))

    let issue = try #require(report.issues.first)
    let start = try recordStart(in: Workspace.brokenAlerts.path, containing: "alert-90001")
    #expect(issue.stage == .load)
    #expect(issue.code == .orphanReference)
    #expect(issue.path == "deviceId")
    #expect(issue.location?.ordinal == 3)
    #expect(issue.location?.byteOffset == start.byteOffset)
    #expect(issue.location?.line == start.line)
    #expect(issue.input == Workspace.brokenAlerts.path)
    #expect(!report.summary().contains("dev-9999"))
    // The failed run's audit row keeps the orphan, with its place and no value.
    #expect(
      try workspace.rows(
        "SELECT code, stage, path, record_ordinal, byte_offset, line, input FROM sluice_rejects") == [
          "orphanReference|load|deviceId|3|\(start.byteOffset)|\(start.line)|\(Workspace.brokenAlerts.path)"
        ])
    #expect(try workspace.rows("SELECT count(*) FROM sluice_rejects WHERE message LIKE '%dev-9999%'") == ["0"])
  }

  @Test(arguments: [false, true])
  func lenientRunsSkipAndReportOrphansInOneRunAndAcrossRuns(acrossRuns: Bool) throws {
    let workspace = try Workspace()
    let report: RunReport
    if acrossRuns {
      #expect(try workspace.run([Workspace.devices]).status == .succeeded)
      report = try workspace.run([Workspace.brokenAlerts], policy: .lenient)
    } else {
      report = try workspace.run([Workspace.devices, Workspace.brokenAlerts], policy: .lenient)
    }
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.committed)
    #expect(report.issueCounts == ["orphanReference": 1, "invalidValue": 1])
    #expect(
      try workspace.rows("SELECT alert_id FROM alerts ORDER BY alert_id") == [
        "alert-00001", "alert-00002", "alert-00003", "alert-00004", "alert-00005", "alert-00006",
      ])
    // Neither the orphan nor its unknown device was stored: no placeholder device.
    #expect(try workspace.rows("SELECT count(*) FROM devices WHERE device_id = 'dev-9999'") == ["0"])
    #expect(try workspace.rows("SELECT count(*) FROM pragma_foreign_key_check") == ["0"])

    let orphan = try #require(report.issues.first { $0.code == .orphanReference })
    let start = try recordStart(in: Workspace.brokenAlerts.path, containing: "alert-90001")
    #expect(orphan.path == "deviceId")
    #expect(orphan.location?.ordinal == 3)
    #expect(orphan.location?.line == start.line)
    let expired = try #require(report.issues.first { $0.code == .invalidValue })
    #expect(expired.stage == .validate)
    #expect(expired.path == "expire")
    #expect(expired.location?.ordinal == 5)
    let rejects = try workspace.rows(
      "SELECT code, path, record_ordinal, byte_offset, line FROM sluice_rejects ORDER BY sequence")
    #expect(
      rejects == [
        "orphanReference|deviceId|3|\(start.byteOffset)|\(start.line)",
        "invalidValue|expire|5|\(try recordStart(in: Workspace.brokenAlerts.path, containing: "alert-90002").byteOffset)|\(try recordStart(in: Workspace.brokenAlerts.path, containing: "alert-90002").line)",
      ])
    #expect(try workspace.rows("SELECT count(*) FROM sluice_rejects WHERE message LIKE '%dev-9999%'") == ["0"])
  }

  @Test func alertsResolveDevicesOfAnEarlierRunAndAStrictOrphanInALaterRunChangesNothing() throws {
    let workspace = try Workspace()
    #expect(try workspace.run([Workspace.devices]).status == .succeeded)
    let alerts = try workspace.run([Workspace.alerts])
    #expect(alerts.status == .succeeded, "\(alerts.failure?.message ?? "")")
    #expect(alerts.rowsWritten["alerts"] == 15)
    let before = try workspace.snapshot()

    let orphan = try workspace.input(
      "alerts", "orphan.json",
      [
        [
          "id": "alert-1", "deviceId": "dev-0001", "title": "t", "body": "b", "createdAt": "2026-11-01T00:00:00Z",
          "expire": "2026-11-02T00:00:00Z", "code": 1,
        ],
        [
          "id": "alert-2", "deviceId": "dev-0404", "title": "t", "body": "b", "createdAt": "2026-11-01T00:00:00Z",
          "expire": "2026-11-02T00:00:00Z", "code": 1,
        ],
      ])
    let report = try workspace.run([orphan])
    #expect(report.exitCode == 65)
    #expect(report.issues.map(\.path) == ["deviceId"])
    #expect(report.issues.first?.location?.ordinal == 2)
    #expect(try workspace.snapshot() == before)
  }

  @Test func alertsBeforeTheirDevicesInOnePipelineAreOrphans() throws {
    let workspace = try Workspace()
    let report = try workspace.run([Workspace.alerts, Workspace.devices])
    #expect(report.exitCode == 65)
    #expect(report.issues.first?.code == .orphanReference)
    #expect(report.issues.first?.input == Workspace.alerts.path)
    #expect(try workspace.snapshot().count("devices") == 0)
  }

  @Test func twentyThousandAlertsOverTwoThousandDevicesLookEachDeviceUpOnceInBatches() throws {
    let workspace = try Workspace()
    let devices = (0..<2_000).map { #"{"id":"d\#($0)","name":"Device \#($0)","latitude":1.5,"longitude":2.5}"# }
    let alerts = (0..<20_000).map { number in
      #"{"id":"a\#(number)","deviceId":"d\#((number * 7919) % 2_000)","title":"t","body":"b","#
        + #""createdAt":"2026-11-01T00:00:00Z","expire":"2026-11-02T00:00:00Z","code":\#(number % 10_000)}"#
    }
    let report = try workspace.run([
      PipelineInput(
        dataset: "devices", path: try workspace.directory.write("d.ndjson", devices.joined(separator: "\n")),
        format: .ndjson),
      PipelineInput(
        dataset: "alerts", path: try workspace.directory.write("a.ndjson", alerts.joined(separator: "\n")),
        format: .ndjson),
    ])
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(report.tableRows == ["devices": 2_000, "alerts": 20_000])
    // Each device is looked up once, a hundred keys a query (plus a short query per batch at
    // most) — never a query per alert.
    let lookups = try #require(report.referenceLookups?["devices"])
    #expect(lookups.keys == 2_000)
    #expect(lookups.queries >= 20)
    #expect(lookups.queries <= 20 + 20_000 / 256)
  }

  // MARK: - A setNull reference

  /// Alerts whose device reference is declared `setNull`: an unknown device is stored as NULL
  /// with a warning instead of rejecting the alert (what a legacy feed with deleted devices
  /// might declare).
  struct LooseAlertsDataset: Dataset {
    static let alerts = Table(
      "loose_alerts", key: ["alert_id"],
      columns: [
        .text("alert_id", field: "id"),
        .reference("device_id", to: Devices.devices, field: "deviceId", orphans: .setNull, onDelete: .cascade),
        .integer("code"),
      ])
    var name: String { "loose-alerts" }
    var summary: String { "alerts whose unknown devices are stored as NULL" }
    var schema: Schema { Schema([Devices.devices, Self.alerts]) }
    func validate(_ alert: AlertDTO, into validation: inout Validation) {}
    func map(_ alert: AlertDTO, context _: inout MappingContext) throws(MappingError) -> AlertDTO { alert }
    func rows(for alert: AlertDTO, into rows: inout RecordRows) {
      rows.add(Self.alerts, alert.id, alert.deviceId, alert.code)
    }
  }

  @Test(arguments: [Policy.strict, .lenient], [false, true])
  func aSetNullReferenceKeepsTheAlertWithoutItsDeviceAndWarns(policy: Policy, acrossRuns: Bool) throws {
    let workspace = try Workspace()
    let loose = PipelineInput(dataset: "loose-alerts", path: Workspace.brokenAlerts.path, format: .json)
    let devices = try #require(Catalog.dataset(named: "devices"))
    var report: RunReport
    if acrossRuns {
      #expect(try workspace.run([Workspace.devices]).status == .succeeded)
      report = try workspace.run([loose], policy: policy, datasets: [AnyDataset(LooseAlertsDataset())])
    } else {
      report = try workspace.run(
        [Workspace.devices, loose], policy: policy, datasets: [devices, AnyDataset(LooseAlertsDataset())])
    }
    #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
    #expect(
      try workspace.rows("SELECT alert_id, device_id FROM loose_alerts WHERE alert_id LIKE 'alert-9%' ORDER BY 1")
        == ["alert-90001|∅", "alert-90002|dev-0002"])
    #expect(try workspace.rows("SELECT count(*) FROM loose_alerts WHERE device_id IS NOT NULL") == ["7"])
    let warning = try #require(report.issues.first)
    #expect(report.issues.count == 1)
    #expect(warning.severity == .warning)
    #expect(warning.code == .orphanReference)
    #expect(warning.path == "deviceId")
    #expect(warning.location?.ordinal == 3)
    #expect(!warning.message.contains("dev-9999"))
  }
}
