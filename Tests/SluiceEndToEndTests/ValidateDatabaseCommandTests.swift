import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice validate --db`: the checks that need the database — orphans under each reference's
/// policy, keys already there under `--on-conflict fail` — on a connection that only reads. The
/// database file is byte-identical afterwards and nothing is created beside it.
@Suite("validate --db: references and keys against a database that is only read")
struct ValidateDatabaseCommandTests {
  let scratch: TemporaryDirectory
  let devices: [[String: Any]]
  let alerts: [[String: Any]]

  init() throws {
    scratch = try TemporaryDirectory()
    let samples = Repository.path("SampleData/devices")
    func read(_ name: String) throws -> [[String: Any]] {
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(samples)/\(name)")))
        as? [[String: Any]] ?? []
    }
    devices = try read("devices.json")
    alerts = try read("alerts.json")
  }

  func write(_ name: String, _ records: [[String: Any]]) throws -> String {
    try scratch.write(name, String(decoding: try JSONSerialization.data(withJSONObject: records), as: UTF8.self))
  }

  /// The sample devices and alerts loaded into `devices.sqlite`; returns its path.
  func loadedDatabase() throws -> String {
    let database = scratch.file("devices.sqlite")
    let loaded = try SluiceCommand.run(["run", "Pipelines/devices.json", "--db", database])
    try #require(loaded.status == 0, "\(loaded.stderr)")
    return database
  }

  func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() }

  @Test func anAlertNamingADeviceTheDatabaseLacksIsAnOrphanAndTheFileIsUntouched() throws {
    let database = try loadedDatabase()
    var changed = alerts
    changed[3]["deviceId"] = "dev-9999"
    _ = try write("alerts.json", changed)
    let spec = try scratch.write(
      "alerts-spec.json", #"{"dataset": "alerts", "input": "alerts.json", "database": "unused.sqlite"}"#)
    let before = try Data(contentsOf: URL(fileURLWithPath: database))
    let listing = try files()
    let report = scratch.file("report.json")
    let result = try SluiceCommand.run(["validate", spec, "--db", database, "--report", report])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "load record 4 (line 1, byte "), "\(result.stderr)")
    #expect(result.stderr.contains("deviceId: orphanReference: names a row of devices that does not exist"))
    #expect(result.stderr.contains("references looked up: devices"), "\(result.stderr)")
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    #expect(
      decoded.statistics(for: .load).rejected == 1 && decoded.statistics(for: .load).recordsOut == alerts.count - 1)
    // Nothing written, nothing created: the same bytes, no journal, no audit row.
    #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    #expect(try files() == (listing + ["report.json"]).sorted())
    // Without --db the contract alone holds: the device is not its business.
    #expect(try SluiceCommand.run(["validate", spec]).status == 0)
  }

  /// Devices then alerts in one validate run against a database without those tables: an
  /// alert naming a device of the run's own devices input is no orphan; one naming a device
  /// nobody has is.
  @Test func theRunsOwnEarlierRecordsCountAsTheDatabaseWould() throws {
    let database = scratch.file("empty.sqlite")
    _ = try SQLiteConnection(path: database, options: .init(readOnly: false, create: true)).scalarInt(
      "PRAGMA user_version")
    _ = try write("devices.json", devices)
    var changed = alerts
    changed[0]["deviceId"] = "dev-4242"
    _ = try write("alerts.json", changed)
    let spec = try scratch.write(
      "both.json",
      #"{"inputs": [{"dataset": "devices", "input": "devices.json"}, {"dataset": "alerts", "input": "alerts.json"}], "database": "unused.sqlite", "policy": "lenient"}"#
    )
    let report = scratch.file("report.json")
    let result = try SluiceCommand.run(["validate", spec, "--db", database, "--report", report])
    #expect(result.status == 65, "\(result.stderr)")
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    #expect(decoded.issueCounts == ["orphanReference": 1], "\(result.stderr)")
    #expect(decoded.issues.first?.input == scratch.file("alerts.json"))
    #expect(decoded.issues.first?.location?.ordinal == 1)
  }

  @Test func onConflictFailReportsKeysTheDatabaseAlreadyHolds() throws {
    let database = try loadedDatabase()
    var tonight = Array(devices.prefix(3))
    tonight.append(["id": "dev-7777", "name": "New pump", "latitude": 1.0, "longitude": 2.0])
    _ = try write("devices.json", tonight)
    let spec = try scratch.write(
      "devices-spec.json",
      #"{"dataset": "devices", "input": "devices.json", "database": "unused.sqlite", "policy": "lenient"}"#)
    let report = scratch.file("report.json")
    let result = try SluiceCommand.run([
      "validate", spec, "--db", database, "--on-conflict", "fail", "--report", report,
    ])
    #expect(result.status == 65, "\(result.stderr)")
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    #expect(decoded.issueCounts == ["constraint": 3])
    #expect(decoded.issues.allSatisfy { $0.message.hasPrefix("devices: a row with this key exists already") })
    #expect(decoded.issues.map(\.location?.ordinal) == [1, 2, 3])
    // Upsert, the default, has nothing to say about keys that are there.
    #expect(try SluiceCommand.run(["validate", spec, "--db", database]).status == 0)
  }

  @Test func aMissingDatabaseIsExit66AndDatabaseOptionsNeedDb() throws {
    _ = try write("alerts.json", alerts)
    let spec = try scratch.write(
      "alerts-spec.json", #"{"dataset": "alerts", "input": "alerts.json", "database": "unused.sqlite"}"#)
    let missing = try SluiceCommand.run(["validate", spec, "--db", scratch.file("nope.sqlite")])
    #expect(missing.status == 66, "\(missing.stderr)")
    #expect(missing.stderr.contains("no such database file"))
    #expect(!FileManager.default.fileExists(atPath: scratch.file("nope.sqlite")))
    let orphan = try SluiceCommand.run(["validate", spec, "--on-conflict", "fail"])
    #expect(orphan.status == 64 && orphan.stderr.contains("--on-conflict applies to validate with --db"))
  }
}

@Suite(
  "validate --db against PostgreSQL",
  .enabled(
    if: PostgreSQLServer.isAvailable,
    "no PostgreSQL server: set SLUICE_TEST_POSTGRES_URL or run the tests through .ci/with-postgres"))
struct PostgreSQLValidateDatabaseTests {
  @Test func orphansAreFoundInAReadOnlyTransactionThatChangesNothing() throws {
    let scratch = try TemporaryDirectory()
    let schema = PostgreSQLSchema()
    let loaded = try SluiceCommand.run([
      "run", "Pipelines/devices.json", "--db", schema.url, "--db-schema", schema.name,
    ])
    try #require(loaded.status == 0, "\(loaded.stderr)")
    let store = try schema.connect()
    let runs = try store.scalarInt("SELECT count(*) FROM sluice_runs")
    let alerts = try Data(contentsOf: URL(fileURLWithPath: Repository.path("SampleData/devices/alerts.json")))
    var records = try #require(try JSONSerialization.jsonObject(with: alerts) as? [[String: Any]])
    records[2]["deviceId"] = "dev-0404"
    _ = try scratch.write(
      "alerts.json", String(decoding: try JSONSerialization.data(withJSONObject: records), as: UTF8.self))
    let spec = try scratch.write(
      "alerts-spec.json", #"{"dataset": "alerts", "input": "alerts.json", "database": "unused.sqlite"}"#)
    let result = try SluiceCommand.run(["validate", spec, "--db", schema.url, "--db-schema", schema.name])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("load record 3 (line 1, byte "), "\(result.stderr)")
    #expect(result.stderr.contains("deviceId: orphanReference: names a row of devices that does not exist"))
    #expect(try store.scalarInt("SELECT count(*) FROM sluice_runs") == runs)
    #expect(try store.scalarInt("SELECT count(*) FROM alerts") == Int64(records.count))
  }
}
