import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluicePostgreSQLTestSupport
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// Patches and natural-key references on the bulk path on a real Citus cluster
/// (`.ci/with-citus`), into tables laid out as `sluice schema --dialect citus` prints them
/// (profiles and alerts distributed by their keys, devices a reference table), against SQLite's
/// row writer on the same input: the same rows, counts and issues at the same records. Each test
/// also proves the bulk path ran: `bulkWrites` counts a batch `staged` or `copied` only when the
/// bulk writer wrote it, and the row writer's look-ups of the devices did not run — neither can
/// hold when Citus sends these records row by row, as it did before.
@Suite(
  "Citus: patches and references in bulk", .serialized, .enabled(if: CitusCluster.isAvailable, CitusCluster.skipReason))
struct CitusBulkPatchAndReferenceTests {
  /// A twin whose PostgreSQL side is a new schema on the coordinator, its tables made and laid
  /// out as a user does it: the DDL and the Citus layout `sluice schema --dialect citus` prints.
  static func twin(laidOut datasets: [String]) throws -> TwinStores {
    let twin = try TwinStores(schema: CitusCluster.schema())
    let catalog = Catalog.datasets.map(\.schema)
    var script: [String] = []
    for name in datasets {
      let dataset = try #require(Catalog.dataset(named: name))
      script += dataset.schema.migrations(dialect: PostgreSQLDialect()).map { $0.sql + ";" }
      script += CitusLayout().statements(
        for: dataset.schema, named: name, among: catalog, dialect: PostgreSQLDialect())
    }
    let applied = try CitusCluster.psql(script.joined(separator: "\n"), in: twin.schema)
    try #require(applied.status == 0, "\(applied.stderr)")
    let layout = try CitusCluster.layout(of: ["profiles", "devices", "alerts"], in: twin.schema)
    for name in datasets {
      switch name {
      case "profiles": #expect(layout["profiles"] == "distributed by 'profile_id'", "\(layout)")
      case "alerts":
        #expect(layout["devices"] == "reference", "\(layout)")
        #expect(layout["alerts"] == "distributed by 'alert_id'", "\(layout)")
      default: break
      }
    }
    return twin
  }

  let patches = PostgreSQLBulkPatchTests()
  let references = PostgreSQLBulkReferenceTests()

  @Test func patchesOfRepeatedKeysApplyInBulkInOrderAsTheRowWriterDoes() throws {
    let twin = try Self.twin(laidOut: ["profiles"])
    try PostgreSQLBulkPatchTests.loadProfiles(twin, count: 1000)
    let lines = PostgreSQLBulkPatchTests.patchLines(6000, keys: 1000)
    let reports = try patches.runPatches(twin, lines, name: "patches")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect((reports.postgreSQL.rowsWritten["profiles"] ?? 0) > 3000)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect((writes.tables["profiles"]?.staged ?? 0) >= 2, "\(writes)")
    #expect(writes.rowByRow == 0, "\(writes)")
    let (sqlite, citus) = try twin.tables(["profiles"])
    #expect(citus == sqlite)

    // The same patches again: only those a later patch of the same key undid change anything.
    let again = try patches.runPatches(twin, lines, name: "again")
    #expect(again.postgreSQL.outcome == again.sqlite.outcome)
    #expect(again.postgreSQL.bulkWrites?.rowByRow == 0)
    #expect((again.postgreSQL.bulkWrites?.tables["profiles"]?.staged ?? 0) >= 2)
    let (sqliteAgain, citusAgain) = try twin.tables(["profiles"])
    #expect(citusAgain == sqliteAgain)
    // Both workers hold patched profiles: the UPDATEs ran on every shard.
    #expect(try CitusCluster.rowsPerWorker(of: "profiles", in: twin.schema).count == 2)
  }

  /// Lenient: a batch with a patch of a profile that does not exist, or one clearing the
  /// nickname, goes row by row, where those records are rejected at their lines and paths; the
  /// other batches go in bulk.
  @Test func orphansAndClearedNicknamesAreRejectedAtTheirRecords() throws {
    let twin = try Self.twin(laidOut: ["profiles"])
    try PostgreSQLBulkPatchTests.loadProfiles(twin, count: 3000)
    var lines = PostgreSQLBulkPatchTests.patchLines(30000, keys: 3000, seed: 11)
    lines[10] = #"{"id":"p-nobody","nickname":"Ghost"}"#
    lines[20] = #"{"id":"p-3","nickname":null}"#
    lines[29_990] = #"{"id":"p-nobody-either","introduction":null}"#
    let reports = try patches.runPatches(twin, lines, name: "messy", policy: Policy(preset: .lenient))
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let codes = reports.postgreSQL.issues.map { "\($0.code.rawValue) \($0.location?.line ?? -1) \($0.path)" }
    #expect(codes.contains("orphanReference 11 id"), "\(codes)")
    #expect(codes.contains("nullValue 21 nickname"), "\(codes)")
    #expect(codes.contains("orphanReference 29991 id"), "\(codes)")
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.rowByRow >= 2, "\(writes)")
    #expect((writes.tables["profiles"]?.staged ?? 0) >= 1, "\(writes)")
    let (sqlite, citus) = try twin.tables(["profiles"])
    #expect(citus == sqlite)
  }

  /// Strict: one orphan fails the run, and the cluster keeps the profiles as they were.
  @Test func aStrictRunWithAnOrphanPatchLeavesTheProfilesAsTheyWere() throws {
    let twin = try Self.twin(laidOut: ["profiles"])
    try PostgreSQLBulkPatchTests.loadProfiles(twin, count: 200)
    let before = try twin.schema.rows(of: ["profiles"])
    var lines = PostgreSQLBulkPatchTests.patchLines(5000, keys: 200)
    lines.append(#"{"id":"p-missing","nickname":"X"}"#)
    let reports = try patches.runPatches(twin, lines, name: "strict")
    #expect(reports.postgreSQL.status == .failed)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(try twin.schema.rows(of: ["profiles"]) == before)
  }

  /// A key patched more often in a batch than the rounds allow goes row by row; text COPY must
  /// escape arrives as is, in bulk too.
  @Test func manyPatchesOfOneKeyAndTextCOPYMustEscapeEndAsTheRowWritersDo() throws {
    let twin = try Self.twin(laidOut: ["profiles"])
    try PostgreSQLBulkPatchTests.loadProfiles(twin, count: 10)
    let names = [#"back\\slash"#, #"tab\there"#, #"new\nline"#, #"\\N"#, "emoji 🍓 ü", #"quote \" '"#]
    var lines = (0..<100).map { #"{"id":"p-1","nickname":"\#(names[$0 % names.count])"}"# }
    lines += names.enumerated().map { #"{"id":"p-\#($0.offset + 2)","introduction":"\#($0.element)"}"# }
    let reports = try patches.runPatches(twin, lines, name: "many")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let few = try patches.runPatches(twin, Array(lines.suffix(names.count + 3)), name: "few")
    #expect(few.postgreSQL.outcome == few.sqlite.outcome)
    #expect(few.postgreSQL.bulkWrites?.rowByRow == 0)
    #expect((few.postgreSQL.bulkWrites?.tables["profiles"]?.staged ?? 0) >= 1)
    let (sqlite, citus) = try twin.tables(["profiles"])
    #expect(citus == sqlite)
  }

  /// Two runs of patches at once into the same distributed table (other keys each) both go in
  /// bulk: each connection stages in temporary tables of its own, so their names never meet.
  @Test func twoPatchRunsAtOnceStageApartAndBothGoInBulk() async throws {
    let twin = try Self.twin(laidOut: ["profiles"])
    try PostgreSQLBulkPatchTests.loadProfiles(twin, count: 2000)
    // Keys p-0 … p-999 for the first, p-1000 … p-1999 for the second, several patches each.
    func shifted(_ line: String) -> String {
      guard let id = line.range(of: #""id":"p-"#) else { return line }
      let rest = line[id.upperBound...]
      let digits = rest.prefix(while: \.isNumber)
      return String(line[..<id.upperBound]) + String((Int(digits) ?? 0) + 1000) + rest.dropFirst(digits.count)
    }
    let halves = [
      PostgreSQLBulkPatchTests.patchLines(8000, keys: 1000, seed: 20),
      PostgreSQLBulkPatchTests.patchLines(8000, keys: 1000, seed: 21).map(shifted),
    ]
    var configurations: [PipelineConfiguration] = []
    for (half, lines) in halves.enumerated() {
      let input = try twin.directory.write("half-\(half).ndjson", FruitsDump.ndjson(lines))
      var configuration = PipelineConfiguration(
        name: "half-\(half)", input: input, format: .ndjson, database: .sqlite(""))
      configuration.reportPath = nil
      configurations.append(configuration)
    }
    // Into SQLite one after the other (the keys are apart, so the order does not matter) …
    for configuration in configurations {
      var sqlite = configuration
      sqlite.database = .sqlite(twin.sqlitePath)
      #expect(
        try Pipeline(datasets: PostgreSQLBulkPatchTests.patches, configuration: sqlite.counted).run().status
          == .succeeded)
    }
    // … and into the cluster at once.
    let aimed = configurations.map { twin.schema.aim($0).counted }
    let reports = try await withThrowingTaskGroup(of: RunReport.self) { group in
      for configuration in aimed {
        group.addTask { try Pipeline(datasets: PostgreSQLBulkPatchTests.patches, configuration: configuration).run() }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    for report in reports {
      #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
      #expect((report.bulkWrites?.tables["profiles"]?.staged ?? 0) >= 2, "\(String(describing: report.bulkWrites))")
      #expect(report.bulkWrites?.rowByRow == 0)
    }
    let (sqlite, citus) = try twin.tables(["profiles"])
    #expect(citus == sqlite)
  }

  /// Profiles made a reference table by their owner: Citus refuses an `UPDATE` of a reference
  /// table joined with the staging table ("relation … is not distributed"), so their patches go
  /// row by row — with the same result.
  @Test func patchesOfAReferenceTableGoRowByRowWithTheSameResult() throws {
    let twin = try TwinStores(schema: CitusCluster.schema())
    let dataset = try #require(Catalog.dataset(named: "profiles"))
    let script =
      dataset.schema.migrations(dialect: PostgreSQLDialect()).map { $0.sql + ";" }
      + ["SELECT create_reference_table('profiles');"]
    let applied = try CitusCluster.psql(script.joined(separator: "\n"), in: twin.schema)
    try #require(applied.status == 0, "\(applied.stderr)")
    #expect(try CitusCluster.layout(of: ["profiles"], in: twin.schema)["profiles"] == "reference")
    try PostgreSQLBulkPatchTests.loadProfiles(twin, count: 300)
    let reports = try patches.runPatches(twin, PostgreSQLBulkPatchTests.patchLines(2000, keys: 300), name: "patches")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(reports.postgreSQL.bulkWrites?.tables["profiles"] == nil)
    let (sqlite, citus) = try twin.tables(["profiles"])
    #expect(citus == sqlite)
  }

  @Test func alertsNamingKnownDevicesGoInBulkCheckedByTheForeignKey() throws {
    let twin = try Self.twin(laidOut: ["alerts"])
    try PostgreSQLBulkReferenceTests.loadDevices(twin, count: 300)
    let lines = PostgreSQLBulkReferenceTests.alertLines(10_000, devices: 300)
    let reports = try references.runAlerts(twin, lines, name: "alerts")
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect((writes.tables["alerts"]?.copied ?? 0) >= 2, "\(writes)")
    #expect(writes.rowByRow == 0, "\(writes)")
    // The foreign key checked the devices: the row writer's look-ups did not run.
    #expect(reports.postgreSQL.referenceLookups?["devices"] == nil)
    #expect((reports.sqlite.referenceLookups?["devices"]?.keys ?? 0) > 0)
    let (sqlite, citus) = try twin.tables(["devices", "alerts"])
    #expect(citus == sqlite)

    // Every alert known and a tenth moved to another device (and one repeated with other
    // values): staged and upserted, the foreign key checking the devices they name now.
    var moved = lines.enumerated().map { index, line in
      index % 10 == 0 ? PostgreSQLBulkReferenceTests.alert(index, device: "dev-\((index / 10) % 300)", code: 1) : line
    }
    moved.insert(PostgreSQLBulkReferenceTests.alert(20, device: "dev-5", code: 2), at: 40)
    let again = try references.runAlerts(twin, moved, name: "again")
    #expect(again.postgreSQL.status == .succeeded, "\(again.postgreSQL.failure?.message ?? "")")
    #expect(again.postgreSQL.outcome == again.sqlite.outcome)
    let writesAgain = try #require(again.postgreSQL.bulkWrites)
    #expect((writesAgain.tables["alerts"]?.staged ?? 0) >= 2, "\(writesAgain)")
    #expect(writesAgain.rowByRow == 0, "\(writesAgain)")
    let (sqliteAgain, citusAgain) = try twin.tables(["devices", "alerts"])
    #expect(citusAgain == sqliteAgain)
  }

  /// Lenient: an orphan breaks its batch's foreign key on a worker; the batch goes row by row,
  /// where the alert is rejected at its line and field.
  @Test func anOrphanAlertIsRejectedAtItsRecord() throws {
    let twin = try Self.twin(laidOut: ["alerts"])
    try PostgreSQLBulkReferenceTests.loadDevices(twin, count: 300)
    var lines = PostgreSQLBulkReferenceTests.alertLines(20_000, devices: 300, seed: 5)
    lines[10] = PostgreSQLBulkReferenceTests.alert(10, device: "dev-nowhere")
    lines[17_999] = PostgreSQLBulkReferenceTests.alert(17_999, device: "dev-nowhere-either")
    let reports = try references.runAlerts(twin, lines, name: "messy", policy: Policy(preset: .lenient))
    #expect(reports.postgreSQL.status == .succeeded, "\(reports.postgreSQL.failure?.message ?? "")")
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    let codes = reports.postgreSQL.issues.map { "\($0.code.rawValue) \($0.location?.line ?? -1) \($0.path)" }
    #expect(codes == ["orphanReference 11 deviceId", "orphanReference 18000 deviceId"], "\(codes)")
    #expect(reports.postgreSQL.rowsWritten["alerts"] == 19_998)
    let writes = try #require(reports.postgreSQL.bulkWrites)
    #expect(writes.rowByRow >= 3, "\(writes)")
    #expect((writes.tables["alerts"]?.copied ?? 0) >= 1, "\(writes)")
    let (sqlite, citus) = try twin.tables(["alerts"])
    #expect(citus == sqlite)
  }

  /// Strict: one orphan fails the run, and the cluster keeps the alerts it had.
  @Test func aStrictRunWithAnOrphanAlertLeavesTheAlertsAsTheyWere() throws {
    let twin = try Self.twin(laidOut: ["alerts"])
    try PostgreSQLBulkReferenceTests.loadDevices(twin, count: 50)
    _ = try references.runAlerts(twin, PostgreSQLBulkReferenceTests.alertLines(100, devices: 50), name: "first")
    let before = try twin.schema.rows(of: ["alerts"])
    var lines = PostgreSQLBulkReferenceTests.alertLines(6000, devices: 50, seed: 9)
    lines[5000] = PostgreSQLBulkReferenceTests.alert(5000, device: "dev-missing")
    let reports = try references.runAlerts(twin, lines, name: "strict")
    #expect(reports.postgreSQL.status == .failed)
    #expect(reports.postgreSQL.outcome == reports.sqlite.outcome)
    #expect(try twin.schema.rows(of: ["alerts"]) == before)
  }
}
