import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// A scratch directory with a database path, and helpers to run and inspect pipelines.
final class Workspace {
  let directory: TemporaryDirectory
  let database: String

  init() throws {
    directory = try TemporaryDirectory()
    database = directory.file("fruits.sqlite")
  }

  func configuration(
    input: String, format: PipelineConfiguration.Format = .json, recordPath: [String] = [],
    policy: Policy = .strict, conflict: ConflictPolicy = .upsert
  ) -> PipelineConfiguration {
    PipelineConfiguration(
      name: "test", input: input, format: format, recordPath: recordPath, policy: policy,
      database: .sqlite(database), conflict: conflict
    ).counted
  }

  func run(
    _ text: String, name: String = "input.json", gzip: Bool = false,
    format: PipelineConfiguration.Format = .json, recordPath: [String] = [],
    policy: Policy = .strict, conflict: ConflictPolicy = .upsert
  ) throws -> RunReport {
    let bytes = gzip ? Gzip.compress(text) : Array(text.utf8)
    let input = try directory.write(name, bytes)
    return try Pipeline(
      dataset: FruitsDataset(),
      configuration: configuration(
        input: input, format: format, recordPath: recordPath, policy: policy, conflict: conflict)
    ).run()
  }

  /// Every row of both tables, in key order, as text: equal dumps mean equal tables.
  func dump() throws -> [String] { try FruitsTables.dump(database) }

  func count(_ table: String) throws -> Int64? { try FruitsTables.count(table, in: database) }

  var databaseExists: Bool { FileManager.default.fileExists(atPath: database) }

  /// The dataset tables that exist (the audit tables are not counted).
  func dataTables() throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true))
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('fruits', 'recipes') ORDER BY name")
    var names: [String] = []
    while try statement.step() { names.append(statement.columnText(0) ?? "") }
    return names
  }

  /// The status of every audited run, oldest first.
  func auditRuns() throws -> [String] {
    let statement = try SQLiteConnection(path: database, options: .init(readOnly: true))
      .prepare("SELECT status FROM sluice_runs ORDER BY run_id")
    var statuses: [String] = []
    while try statement.step() { statuses.append(statement.columnText(0) ?? "") }
    return statuses
  }
}

@Suite("Fruits pipeline")
struct FruitsPipelineTests {
  @Test func committedSampleImportsEveryFruitAndRecipe() throws {
    let workspace = try Workspace()
    let report = try Pipeline(
      dataset: FruitsDataset(),
      configuration: workspace.configuration(
        input: Repository.path("SampleData/fruits.json.gz"), recordPath: ["fruits"])
    ).run()
    #expect(report.status == .succeeded)
    #expect(report.input.gzip)
    #expect(report.input.decompressedBytes > report.input.compressedBytes)
    #expect(try workspace.count("fruits") == 48)
    let recipes = try #require(try workspace.count("recipes"))
    #expect(recipes >= 96 && recipes == Int64(report.rowsWritten["recipes"] ?? -1))
    #expect(report.tableRows == ["fruits": 48, "recipes": Int(recipes)])
    let name = try SQLiteConnection(path: workspace.database)
      .prepare("SELECT name FROM fruits WHERE fruit_id = 'F0000007'")
    #expect(try name.step())
    #expect(name.columnText(0) == "Pitaya (火龍果)")
  }

  @Test(arguments: [false, true])
  func everyInputShapeLoadsTheSameRows(gzip: Bool) throws {
    let records = (1...5).map { FruitsDump.fruit($0) }
    var dumps: [[String]] = []
    for (text, format, path) in [
      (FruitsDump.array(records), PipelineConfiguration.Format.json, [String]()),
      (#"{"fruits": \#(FruitsDump.array(records))}"#, .json, ["fruits"]),
      (#"{"data": {"page": 1, "fruits": \#(FruitsDump.array(records))}}"#, .json, ["data", "fruits"]),
      (FruitsDump.ndjson(records), .ndjson, []),
    ] {
      let workspace = try Workspace()
      let report = try workspace.run(text, gzip: gzip, format: format, recordPath: path)
      #expect(report.status == .succeeded, "\(report.failure?.message ?? "")")
      #expect(report.input.gzip == gzip)
      dumps.append(try workspace.dump())
    }
    #expect(dumps[0].count == 5 + 10)
    #expect(Set(dumps.map { $0.joined(separator: "\n") }).count == 1)
  }

  @Test func emptyArrayCreatesTheSchemaAndNoRows() throws {
    let workspace = try Workspace()
    let report = try workspace.run("[]")
    #expect(report.status == .succeeded)
    #expect(report.statistics(for: .read).recordsIn == 0)
    #expect(try workspace.count("fruits") == 0)
    #expect(try workspace.count("recipes") == 0)
  }

  @Test func reimportingTheSameDumpIsIdempotent() throws {
    let workspace = try Workspace()
    let text = FruitsDump.array((1...20).map { FruitsDump.fruit($0, recipes: $0 % 4) })
    #expect(try workspace.run(text).status == .succeeded)
    let first = try workspace.dump()
    #expect(try workspace.run(text).status == .succeeded)
    #expect(try workspace.dump() == first)
    #expect(try workspace.count("recipes") == Int64((1...20).map { $0 % 4 }.reduce(0, +)))
  }

  @Test func reimportingAFruitReplacesItsRecipes() throws {
    let workspace = try Workspace()
    #expect(try workspace.run(FruitsDump.array([FruitsDump.fruit(1, recipes: 4)])).status == .succeeded)
    let update = FruitsDump.array([FruitsDump.fruit(1, recipes: 1, name: "Renamed")])
    #expect(try workspace.run(update).status == .succeeded)
    #expect(
      try workspace.dump() == [
        "F1|Renamed|red", "F1|0|Recipe 0 of 1|Stir 0 times.|https://v.example.com/1/0",
      ])
  }

  @Test func deletingAFruitCascadesToItsRecipes() throws {
    let workspace = try Workspace()
    #expect(
      try workspace.run(FruitsDump.array([FruitsDump.fruit(1, recipes: 3), FruitsDump.fruit(2, recipes: 2)])).status
        == .succeeded)
    let db = try SQLiteConnection(path: workspace.database)
    try db.execute("DELETE FROM fruits WHERE fruit_id = 'F1'")
    #expect(try db.scalarInt("SELECT count(*) FROM recipes") == 2)
    #expect(try db.scalarInt("SELECT count(*) FROM recipes WHERE fruit_id = 'F1'") == 0)
  }

  @Test func conflictPoliciesDecideWhatHappensToExistingFruits() throws {
    let original = FruitsDump.array([FruitsDump.fruit(1, recipes: 2)])
    let changed = FruitsDump.array([FruitsDump.fruit(1, recipes: 1, name: "Changed")])

    let ignore = try Workspace()
    _ = try ignore.run(original)
    let before = try ignore.dump()
    let kept = try ignore.run(changed, conflict: .ignore)
    #expect(kept.status == .succeeded)
    #expect(try ignore.dump() == before)
    #expect(kept.rowsWritten["fruits"] == 0)
    #expect(kept.statistics(for: .load).kept == 1)
    #expect(kept.summary().contains("kept 1 record(s) whose key existed"))

    let replace = try Workspace()
    _ = try replace.run(original)
    #expect(try replace.run(changed, conflict: .replace).status == .succeeded)
    #expect(try replace.dump().first == "F1|Changed|red")
    #expect(try replace.count("recipes") == 1)

    let fail = try Workspace()
    _ = try fail.run(original)
    let failed = try fail.run(changed, conflict: .fail)
    #expect(failed.status == .failed)
    #expect(failed.exitCode == 65)
    #expect(failed.issues.first?.code == .constraint)
    #expect(failed.issues.first?.stage == .load)
    #expect(try fail.dump() == before)
  }

  @Test func strictRunWithOneBadRecordLeavesTheDatabaseAsItWas() throws {
    let workspace = try Workspace()
    _ = try workspace.run(FruitsDump.array((1...3).map { FruitsDump.fruit($0) }))
    let before = try workspace.dump()

    var records = (10...40).map { FruitsDump.fruit($0) }
    records[17] = records[17].replacingOccurrences(of: #""color": "red""#, with: #""color": 12"#)
    let report = try workspace.run(FruitsDump.array(records))
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    #expect(!report.committed)
    #expect(report.rowsWritten.isEmpty)
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .decode)
    #expect(issue.code == .typeMismatch)
    #expect(issue.path == "color")
    #expect(issue.location?.ordinal == 18)
    #expect(issue.location?.line == 19)
    #expect(try workspace.dump() == before)
  }

  @Test func failedFirstRunLeavesOnlyItsAuditRow() throws {
    let workspace = try Workspace()
    let report = try workspace.run(FruitsDump.array([FruitsDump.fruit(1), #"{"fruitID": "F2"}"#]))
    #expect(report.status == .failed)
    #expect(try workspace.dataTables().isEmpty)
    #expect(try workspace.auditRuns() == ["failed"])
  }

  @Test func lenientRunSkipsBadRecordsAndReportsEachWithItsPlace() throws {
    let workspace = try Workspace()
    var records = (1...12).map { FruitsDump.fruit($0) }
    records[2] = records[2].replacingOccurrences(of: #""color": "red""#, with: #""color": null"#)
    records[4] = records[4].replacingOccurrences(of: #""name": "Frücht 5", "#, with: "")
    records[6] = String(records[6].prefix(30))  // malformed: cut mid-record
    records[8] = records[8].replacingOccurrences(of: "https://v.example.com/9/1", with: "ftp:/nowhere")
    let report = try workspace.run(FruitsDump.ndjson(records), format: .ndjson, policy: .lenient)
    #expect(report.status == .succeeded)
    #expect(report.exitCode == 0)
    #expect(try workspace.count("fruits") == 8)

    let found = report.issues.map { "\($0.stage.rawValue) \($0.code) \($0.location?.line ?? 0) \($0.path)" }
    #expect(
      found == [
        "decode nullValue 3 color",
        "decode missingField 5 name",
        "read syntax 7 ",
        "validate invalidValue 9 recipes[1].videoTutorial",
      ])
    #expect(report.issueCounts == ["nullValue": 1, "missingField": 1, "syntax": 1, "invalidValue": 1])
    let read = report.statistics(for: .read)
    #expect((read.recordsIn, read.recordsOut, read.rejected) == (12, 11, 1))
    let decode = report.statistics(for: .decode)
    #expect((decode.recordsIn, decode.recordsOut, decode.rejected) == (11, 9, 2))
    let validate = report.statistics(for: .validate)
    #expect((validate.recordsIn, validate.recordsOut, validate.rejected) == (9, 8, 1))
    #expect(report.statistics(for: .load).recordsOut == 8)
  }

  @Test func hostileRecordsAreReportedWithStageCodeAndPlaceAndTheRunGoesOn() throws {
    let workspace = try Workspace()
    let deep =
      #"{"fruitID": "F2", "name": "Deep", "color": "red", "recipes": "# + String(repeating: "[", count: 300)
      + String(repeating: "]", count: 300) + "}"
    let huge =
      #"{"fruitID": "F3", "name": ""# + String(repeating: "x", count: (16 << 20) + 10)
      + #"", "color": "red", "recipes": []}"#
    var invalidUTF8 = Array(FruitsDump.fruit(4).utf8)
    let nameStart = try #require(invalidUTF8.firstIndex(of: UInt8(ascii: "F")))
    invalidUTF8[nameStart + 8] = 0xFF
    let text = [FruitsDump.fruit(1), deep, huge, ""].joined(separator: "\n")
    let bytes = Array(text.utf8) + invalidUTF8 + Array(("\n" + FruitsDump.fruit(5) + "\n").utf8)
    let input = try workspace.directory.write("hostile.ndjson", bytes)
    let report = try Pipeline(
      dataset: FruitsDataset(), configuration: workspace.configuration(input: input, format: .ndjson, policy: .lenient)
    ).run()
    #expect(report.status == .succeeded)
    let found = report.issues.map {
      "\($0.stage.rawValue) \($0.code) record \($0.location?.ordinal ?? 0) line \($0.location?.line ?? 0)"
    }
    #expect(
      found == [
        "read nestingTooDeep record 2 line 2",
        "read valueTooLarge record 3 line 3",
        "read syntax record 4 line 4",
      ])
    #expect(try workspace.count("fruits") == 2)
  }

  @Test func malformedJSONInsideAnArrayFailsTheRunAtItsLine() throws {
    let workspace = try Workspace()
    var records = (1...6).map { FruitsDump.fruit($0) }
    records[3] = records[3].replacingOccurrences(of: #""color": "red""#, with: #""color" "red""#)
    let report = try workspace.run(FruitsDump.array(records), policy: .lenient)
    #expect(report.status == .failed)
    #expect(report.failure?.kind == .data)
    let issue = try #require(report.issues.first)
    #expect(issue.stage == .read)
    #expect(issue.code == .syntax)
    #expect(issue.location?.line == 5)
    #expect(issue.location?.ordinal == 4)
    let text = FruitsDump.array(records)
    let broken = try #require(text.range(of: #""color" "red""#))
    let expectedOffset = text.utf8.distance(from: text.startIndex, to: broken.lowerBound) + 8
    #expect(issue.location?.byteOffset == Int64(expectedOffset))  // where ':' was expected
    #expect(issue.message.contains("expected ':'"))
    #expect(try workspace.dataTables().isEmpty)
  }

  @Test func corruptGzipMidStreamWritesNothing() throws {
    let workspace = try Workspace()
    _ = try workspace.run(FruitsDump.array([FruitsDump.fruit(1)]))
    let before = try workspace.dump()

    let text = FruitsDump.array((1...3000).map { FruitsDump.fruit($0) })
    var bytes = Gzip.compress(text)
    let middle = bytes.count * 3 / 4
    for index in middle..<middle + 16 { bytes[index] ^= 0xA5 }
    let input = try workspace.directory.write("broken.json.gz", bytes)
    let report = try Pipeline(dataset: FruitsDataset(), configuration: workspace.configuration(input: input).counted)
      .run()
    #expect(report.status == .failed)
    #expect(report.exitCode == 74)
    #expect(report.failure?.message.contains("corrupt") == true)
    #expect(report.statistics(for: .load).recordsOut > 0)  // it had loaded records before the damage
    #expect(try workspace.dump() == before)

    let truncated = try workspace.directory.write("cut.json.gz", Array(Gzip.compress(text).prefix(middle)))
    let cut = try Pipeline(dataset: FruitsDataset(), configuration: workspace.configuration(input: truncated).counted)
      .run()
    #expect(cut.exitCode == 74)
    #expect(cut.failure?.message.contains("truncated") == true)
    #expect(try workspace.dump() == before)
  }

  @Test func missingInputAndUncreatableDatabaseHaveTheirOwnExitCodes() throws {
    let workspace = try Workspace()
    let missing = try Pipeline(
      dataset: FruitsDataset(), configuration: workspace.configuration(input: workspace.directory.file("nope.json"))
    ).run()
    #expect(missing.exitCode == 66)
    #expect(!workspace.databaseExists)

    let input = try workspace.directory.write("ok.json", FruitsDump.array([FruitsDump.fruit(1)]))
    var configuration = workspace.configuration(input: input)
    configuration.database = .sqlite(workspace.directory.file("no-such-dir/fruits.sqlite"))
    let report = try Pipeline(dataset: FruitsDataset(), configuration: configuration.counted).run()
    #expect(report.exitCode == 73)
  }

  @Test func reportIsVersionedJSONAndNeverCarriesRecordValues() throws {
    let workspace = try Workspace()
    let secret = "Top-Secret-Fruit-Name"
    var records = [FruitsDump.fruit(1), FruitsDump.fruit(2, name: secret)]
    records[1] = records[1].replacingOccurrences(of: #""color": "red""#, with: #""color": ["\#(secret)"]"#)
    let report = try workspace.run(FruitsDump.array(records), policy: .lenient)
    let data = try report.jsonData()
    let json = String(decoding: data, as: UTF8.self)
    #expect(json.contains(#""reportVersion" : 1"#))
    #expect(!json.contains(secret))
    #expect(!report.summary().contains(secret))
    let decoded = try RunReport.decode(from: data)
    #expect(decoded.issues == report.issues)
    #expect(decoded.stages == report.stages)
    #expect(decoded.issueCounts == ["typeMismatch": 1])
  }

  @Test func issueSamplesAreCappedPerCodeButAllAreCounted() throws {
    let workspace = try Workspace()
    let records = (1...250).map { #"{"fruitID": "F\#($0)", "color": "red", "recipes": []}"# }
    let input = try workspace.directory.write("many.ndjson", FruitsDump.ndjson(records))
    var configuration = workspace.configuration(input: input, format: .ndjson, policy: .lenient)
    configuration.issueSampleLimit = 10
    let report = try Pipeline(dataset: FruitsDataset(), configuration: configuration.counted).run()
    #expect(report.issueCounts["missingField"] == 250)
    #expect(report.issues.count == 10)
    #expect(report.statistics(for: .decode).rejected == 250)
  }
}
