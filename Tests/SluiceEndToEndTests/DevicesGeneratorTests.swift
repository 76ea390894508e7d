import Foundation
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The reference look-up benchmark's data, checked on a small N: the generator is deterministic,
/// every alert names a device of its feed and every patch a profile of its feed, strict runs of
/// the real binary write exactly what its expected.json says — rows, the patches' final state —
/// with the references looked up in batches, and the CSVs the floors import hold exactly the rows
/// Sluice writes and the patches it applies. So the benchmark's contenders do the work they claim.
@Suite("Devices benchmark data")
struct DevicesGeneratorTests {
  static let generator = Tool.built("devices-generator")
  static let counts = ["--devices", "200", "--alerts", "2000", "--profiles", "300", "--patches", "1000"]
  static let files = [
    "devices.ndjson.gz", "alerts.ndjson.gz", "alerts.csv", "profiles.ndjson.gz", "patches.ndjson.gz", "patches.csv",
    "expected.json",
  ]

  private func generate(_ arguments: [String]) throws -> SluiceBinary.Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.generator)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    return try Tool.capture(process)
  }

  /// The feeds of one generator run, in `directory/feeds`, and its expected.json.
  private func feeds(in scratch: TemporaryDirectory, seed: String = "7", as name: String = "feeds") throws -> (
    path: String, expected: [String: Any]
  ) {
    let path = scratch.file(name)
    let result = try generate(Self.counts + ["--seed", seed, "--out", path])
    #expect(result.status == 0, "\(result.stderr)")
    let data = try Data(contentsOf: URL(fileURLWithPath: path + "/expected.json"))
    return (path, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
  }

  /// The records of a gzip NDJSON feed.
  private func records(_ path: String) throws -> [[String: Any]] {
    let input = try Input(path: path)
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
      if count == 0 { break }
      bytes += buffer[0..<count]
    }
    return try bytes.split(separator: UInt8(ascii: "\n")).map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
    }
  }

  /// The records of a CSV file as sqlite3's `.import` reads them (quotes doubled, newlines in
  /// quotes), without its header.
  private func csv(_ path: String) throws -> [[String]] {
    let scalars = Array(try String(contentsOfFile: path, encoding: .utf8).unicodeScalars)
    var records: [[String]] = []
    var fields: [String] = []
    var field = ""
    var quoted = false
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      if quoted && scalar == "\"" && index + 1 < scalars.count && scalars[index + 1] == "\"" {
        field.unicodeScalars.append("\"")
        index += 1
      } else if scalar == "\"" {
        quoted.toggle()
      } else if !quoted && scalar == "," {
        fields.append(field)
        field = ""
      } else if !quoted && scalar == "\n" {
        records.append(fields + [field])
        fields = []
        field = ""
      } else {
        field.unicodeScalars.append(scalar)
      }
      index += 1
    }
    return Array(records.dropFirst())
  }

  /// Each row of `sql`, its columns as text, NULL as nil.
  private func rows(_ database: String, _ sql: String) throws -> [[String?]] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true)).prepare(sql)
    var rows: [[String?]] = []
    while try statement.step() {
      rows.append((0..<statement.columnCount).map { statement.columnIsNull($0) ? nil : statement.columnText($0) })
    }
    return rows
  }

  /// A strict single-input spec over one of the feeds, as the benchmark writes them.
  private func spec(_ scratch: TemporaryDirectory, _ dataset: String, _ input: String, upsert: Bool = true) throws
    -> String
  {
    var spec: [String: Any] = [
      "dataset": dataset, "input": input, "format": "ndjson", "policy": "strict",
      "database": scratch.file("unused.sqlite"),
    ]
    if upsert { spec["onConflict"] = "upsert" }
    return try scratch.write("\(dataset).json", Array(try JSONSerialization.data(withJSONObject: spec)))
  }

  private func run(_ spec: String, _ database: String, report: String) throws -> RunReport {
    let result = try SluiceCommand.run(["run", spec, "--db", database, "--report", report, "--count-rows"])
    #expect(result.status == 0, "\(result.stderr)")
    return try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
  }

  @Test func generatorIsDeterministicAndEveryAlertAndPatchNamesARecordOfItsFeed() throws {
    let scratch = try TemporaryDirectory()
    let (first, expected) = try feeds(in: scratch)
    let (second, _) = try feeds(in: scratch, as: "second")
    let (other, _) = try feeds(in: scratch, seed: "8", as: "other")
    func bytes(_ directory: String, _ file: String) throws -> Data {
      try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(file)"))
    }
    for file in Self.files {
      #expect(try bytes(first, file) == bytes(second, file), "\(file)")
    }
    #expect(try bytes(first, "alerts.ndjson.gz") != bytes(other, "alerts.ndjson.gz"))
    #expect(try bytes(first, "patches.ndjson.gz") != bytes(other, "patches.ndjson.gz"))
    // Either pair of feeds is the same whatever the other pair's counts.
    let alone = scratch.file("alone")
    #expect(
      try generate([
        "--devices", "200", "--alerts", "2000", "--profiles", "0", "--patches", "0",
        "--seed", "7", "--out", alone,
      ]).status == 0)
    #expect(try bytes(first, "alerts.ndjson.gz") == bytes(alone, "alerts.ndjson.gz"))

    let devices = try records(first + "/devices.ndjson.gz")
    #expect(devices.count == 200)
    let deviceIDs = Set(devices.compactMap { $0["id"] as? String })
    #expect(deviceIDs.count == 200 && deviceIDs.contains("dev-0000042"))
    #expect(devices.contains { ($0["name"] as? String)?.unicodeScalars.contains { !$0.isASCII } == true })
    for device in devices {
      #expect((-90...90).contains(device["latitude"] as? Double ?? 100), "\(device)")
      #expect((-180...180).contains(device["longitude"] as? Double ?? 200), "\(device)")
    }
    let alerts = try records(first + "/alerts.ndjson.gz")
    #expect(alerts.count == 2000)
    var named = Set<String>()
    for alert in alerts {
      let device = alert["deviceId"] as? String ?? ""
      #expect(deviceIDs.contains(device), "\(alert)")
      named.insert(device)
      #expect((alert["createdAt"] as? String ?? "~") < (alert["expire"] as? String ?? ""), "\(alert)")
      #expect((0...9999).contains(alert["code"] as? Int ?? -1), "\(alert)")
    }
    #expect(named.count == expected["devicesWithAlerts"] as? Int)

    let profiles = try records(first + "/profiles.ndjson.gz")
    let profileIDs = Set(profiles.compactMap { $0["id"] as? String })
    #expect(profileIDs.count == 300)
    let patches = try records(first + "/patches.ndjson.gz")
    #expect(patches.count == 1000)
    var kinds: [String: Int] = [:]
    for patch in patches {
      #expect(profileIDs.contains(patch["id"] as? String ?? ""), "\(patch)")
      // Valid patches only: a nickname is never cleared or blank.
      #expect(patch["nickname"] == nil || !((patch["nickname"] as? String) ?? "").isEmpty, "\(patch)")
      switch (patch["nickname"] != nil, patch["introduction"]) {
      case (true, nil): kinds["nickname", default: 0] += 1
      case (false, is NSNull): kinds["clearIntroduction", default: 0] += 1
      case (false, is String): kinds["introduction", default: 0] += 1
      case (true, is String): kinds["nicknameAndIntroduction", default: 0] += 1
      default: Issue.record("an unexpected patch: \(patch)")
      }
    }
    #expect(kinds == expected["patchKinds"] as? [String: Int])
    // Roughly the mix asked for: 40 % nickname, 30 % introduction, 20 % cleared, 10 % both.
    #expect((300...500).contains(kinds["nickname"] ?? 0) && (50...150).contains(kinds["nicknameAndIntroduction"] ?? 0))
  }

  @Test func strictRunsWriteWhatTheGeneratorExpectsWithBatchedLookUpsAndTheCSVsMatch() throws {
    let scratch = try TemporaryDirectory()
    let (feeds, expected) = try feeds(in: scratch)
    let database = scratch.file("feeds.sqlite")

    let devices = try run(
      spec(scratch, "devices", feeds + "/devices.ndjson.gz"), database, report: scratch.file("devices-report.json"))
    #expect(devices.tableRows["devices"] == 200)
    let alerts = try run(
      spec(scratch, "alerts", feeds + "/alerts.ndjson.gz"), database, report: scratch.file("alerts-report.json"))
    #expect(alerts.rowsWritten["alerts"] == 2000)
    #expect(alerts.tableRows == ["devices": 200, "alerts": 2000])
    // Each device looked up once at most, a hundred keys a query at most — never one per alert.
    let deviceLookups = try #require(alerts.referenceLookups?["devices"])
    #expect(deviceLookups.keys <= 200 && deviceLookups.keys >= expected["devicesWithAlerts"] as? Int ?? 0)
    #expect(deviceLookups.queries * 50 <= 2000 && deviceLookups.queries >= (deviceLookups.keys + 99) / 100)
    #expect(
      try rows(database, "SELECT count(DISTINCT device_id) FROM alerts") == [["\(expected["devicesWithAlerts"] ?? "")"]]
    )
    // The floor's CSV holds exactly the alerts Sluice wrote.
    let stored = try rows(
      database, "SELECT alert_id, device_id, title, body, created_at, expires_at, code FROM alerts ORDER BY alert_id")
    #expect(try csv(feeds + "/alerts.csv") == stored.map { $0.map { $0 ?? "" } })

    let profiles = try run(
      spec(scratch, "profiles", feeds + "/profiles.ndjson.gz"), database, report: scratch.file("profiles-report.json"))
    #expect(profiles.tableRows["profiles"] == 300)
    let withoutIntroduction = "SELECT count(*) FROM profiles WHERE introduction IS NULL"
    #expect(try rows(database, withoutIntroduction) == [["\(expected["profilesWithoutIntroductionBefore"] ?? "")"]])
    let profileRows = "SELECT profile_id, nickname, introduction FROM profiles ORDER BY profile_id"
    var state = Dictionary(uniqueKeysWithValues: try rows(database, profileRows).map { ($0[0] ?? "", [$0[1], $0[2]]) })

    let patches = try run(
      spec(scratch, "profile-patches", feeds + "/patches.ndjson.gz", upsert: false), database,
      report: scratch.file("patches-report.json"))
    #expect(patches.statistics(for: .load).recordsOut == 1000)
    #expect(patches.rowsWritten["profiles"] == expected["patchesThatChange"] as? Int)
    #expect(try rows(database, withoutIntroduction) == [["\(expected["profilesWithoutIntroduction"] ?? "")"]])
    let profileLookups = try #require(patches.referenceLookups?["profiles"])
    #expect(profileLookups.keys <= expected["patchedProfiles"] as? Int ?? 0)
    #expect(profileLookups.queries * 50 <= 1000)
    let samples = try #require(expected["samples"] as? [[String: Any]])
    #expect(samples.count == 12 && samples.contains { ($0["patches"] as? Int ?? 0) > 1 })
    for sample in samples {
      let id = sample["id"] as? String ?? ""
      #expect(
        try rows(database, "SELECT nickname, introduction FROM profiles WHERE profile_id = '\(id)'")
          == [[sample["nickname"] as? String, sample["introduction"] as? String]], "\(id)")
    }
    // The floor's CSV, applied in order to the profiles as they were, gives the profiles Sluice left.
    for patch in try csv(feeds + "/patches.csv") {
      let (id, nickname, change, introduction) = (patch[1], patch[2], patch[3], patch[4])
      if !nickname.isEmpty { state[id]?[0] = nickname }
      if change == "set" { state[id]?[1] = introduction }
      if change == "clear" { state[id]?[1] = nil }
    }
    let patched = try rows(database, profileRows)
    #expect(patched.count == 300)
    #expect(patched.filter { state[$0[0] ?? ""] != [$0[1], $0[2]] }.isEmpty)
  }
}
