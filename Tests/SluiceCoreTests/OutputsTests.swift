import Foundation
import FoundationXML
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

@_spi(Internals) @testable import SluiceCore

@Suite("Outputs: validate, JUnit, quarantine and replay, audit tables")
struct OutputsTests {
  /// 40 records: every fifth has a wrong type, every seventh a bad URL (record 35 fails its
  /// decode first, so 4 reach validation with one), record 13 has an extra field.
  static func messyDump() -> String {
    FruitsDump.ndjson(
      (1...40).map { index in
        var record = FruitsDump.fruit(index)
        if index % 5 == 0 { record = record.replacingOccurrences(of: #""color": "red""#, with: #""color": false"#) }
        if index % 7 == 0 {
          record = record.replacingOccurrences(of: "https://v.example.com/\(index)/1", with: "v.example.com")
        }
        if index == 13 {
          record = record.replacingOccurrences(of: #""color": "red""#, with: #""color": "red", "shelfLife": 9"#)
        }
        return record
      })
  }

  private func dryRun(_ workspace: FruitsWorkspace, _ text: String, failsOnWarnings: Bool = false, junit: Bool = false)
    throws
    -> RunReport
  {
    let input = try workspace.directory.write("dump.ndjson", text)
    var configuration = workspace.configuration(input: input, format: .ndjson)
    configuration.mode = .validate
    configuration.failsOnWarnings = failsOnWarnings
    return try workspace.dataset.run(configuration)
  }

  @Test func validateListsEveryIssueAndWritesNothing() throws {
    let workspace = try FruitsWorkspace()
    let report = try dryRun(workspace, Self.messyDump())
    #expect(report.mode == "validate")
    #expect(report.status == .failed)
    #expect(report.exitCode == 65)
    #expect(!workspace.databaseExists)
    #expect(report.issueCounts == ["typeMismatch": 8, "invalidValue": 4, "unknownField": 1])
    #expect(report.issues.count == 13)
    #expect(report.statistics(for: .read).recordsIn == 40)
    #expect(report.statistics(for: .load).recordsIn == 0)
    let lines = report.issues.filter { $0.code == .typeMismatch }.compactMap(\.location?.line)
    #expect(lines == [5, 10, 15, 20, 25, 30, 35, 40])
  }

  @Test func validateLeavesAnExistingDatabaseUntouched() throws {
    let workspace = try FruitsWorkspace()
    _ = try workspace.run(FruitsDump.array([FruitsDump.fruit(1)]))
    let before = try Data(contentsOf: URL(fileURLWithPath: workspace.database))
    _ = try dryRun(workspace, Self.messyDump())
    #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.database)) == before)
  }

  @Test func validatePassesWithWarningsUnlessAskedToFailOnThem() throws {
    let text = FruitsDump.ndjson([
      FruitsDump.fruit(1).replacingOccurrences(of: #""color": "red""#, with: #""color": "red", "x": 1"#)
    ])
    #expect(try dryRun(FruitsWorkspace(), text).exitCode == 0)
    let strict = try dryRun(FruitsWorkspace(), text, failsOnWarnings: true)
    #expect(strict.exitCode == 65)
    #expect(strict.failure?.message.contains("warning") == true)
  }

  @Test func junitReportHasTheStructureCISystemsRead() throws {
    let report = try dryRun(FruitsWorkspace(), Self.messyDump())
    let xml = JUnitReport.render(report)
    let document = try XMLDocument(xmlString: xml)
    let root = try #require(document.rootElement())
    #expect(root.name == "testsuites")
    let suites = root.elements(forName: "testsuite")
    #expect(suites.count == 1)
    let suite = try #require(suites.first)
    let cases = suite.elements(forName: "testcase")
    #expect(cases.count == report.checks.count)
    #expect(suite.attribute(forName: "tests")?.stringValue == "\(cases.count)")
    let failing = cases.filter { !$0.elements(forName: "failure").isEmpty }
    #expect(suite.attribute(forName: "failures")?.stringValue == "\(failing.count)")
    #expect(
      Set(failing.compactMap { $0.attribute(forName: "name")?.stringValue }) == [
        "records decode into the contract's types", "recipe videos are http(s) URLs",
      ])
    let decode = try #require(failing.first { $0.attribute(forName: "classname")?.stringValue == "fruits.decode" })
    let failure = try #require(decode.elements(forName: "failure").first)
    #expect(
      failure.attribute(forName: "message")?.stringValue
        == "8 record(s) failed: records decode into the contract's types")
    #expect(failure.stringValue?.contains("record 5 (line 5") == true)
    let passing = cases.filter { $0.children?.isEmpty ?? true }.compactMap {
      $0.attribute(forName: "name")?.stringValue
    }
    #expect(passing.contains("recipe titles are unique within a fruit"))
  }

  @Test func quarantinedRecordsCanBeFixedAndReplayed() throws {
    let workspace = try FruitsWorkspace()
    let rejects = workspace.directory.file("rejects.ndjson")
    let input = try workspace.directory.write("dump.ndjson", Self.messyDump())
    var configuration = workspace.configuration(input: input, format: .ndjson, policy: .lenient)
    configuration.rejectsPath = rejects
    let first = try workspace.dataset.run(configuration)
    #expect(first.status == .succeeded)
    #expect(first.quarantined == 12)
    #expect(try workspace.count("fruits") == 28)

    let lines = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 12)
    let entry = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect(entry["line"] as? Int == 5)
    #expect((entry["record"] as? String)?.contains(#""fruitID": "F5""#) == true)
    #expect((entry["issues"] as? [[String: Any]])?.first?["code"] as? String == "typeMismatch")

    // Fix the records the way a person would, then replay the file.
    let fixed = try String(contentsOfFile: rejects, encoding: .utf8)
      .replacingOccurrences(of: #"\"color\": false"#, with: #"\"color\": \"red\""#)
      .replacingOccurrences(
        of: #"\"videoTutorial\": \"v.example.com\""#, with: #"\"videoTutorial\": \"https://v.example.com/fixed\""#)
    let fixedPath = try workspace.directory.write("fixed.ndjson", fixed)
    var replay = workspace.configuration(input: fixedPath, policy: .strict)
    replay.mode = .replay
    let second = try workspace.dataset.run(replay)
    #expect(second.status == .succeeded, "\(second.failure?.message ?? "")")
    #expect(second.mode == "replay")
    #expect(second.statistics(for: .load).recordsOut == 12)
    #expect(try workspace.count("fruits") == 40)
    #expect(try workspace.auditRuns() == ["succeeded", "succeeded"])
  }

  @Test func replayReportsARecordThatIsStillMalformed() throws {
    let workspace = try FruitsWorkspace()
    let entry =
      #"{"ordinal": 3, "line": 3, "byteOffset": 10, "input": "x", "issues": [], "record": "{\"fruitID\": \"F1\", "}"#
    let path = try workspace.directory.write("rejects.ndjson", entry + "\n")
    var policy = Policy.lenient
    policy.allowsNothingLoaded = true
    var replay = workspace.configuration(input: path, policy: policy)
    replay.mode = .replay
    let report = try workspace.dataset.run(replay)
    #expect(report.status == .succeeded)
    #expect(report.issues.first?.code == .syntax)
    #expect(report.issues.first?.location?.line == 1)
  }

  @Test func auditTablesRecordEachRunAndItsIssuesWithoutValues() throws {
    let workspace = try FruitsWorkspace()
    let input = try workspace.directory.write("dump.ndjson", Self.messyDump())
    _ = try workspace.dataset.run(workspace.configuration(input: input, format: .ndjson, policy: .lenient))
    let db = try SQLiteConnection(path: workspace.database, options: .init(readOnly: true))
    #expect(try db.scalarInt("SELECT count(*) FROM sluice_runs") == 1)
    #expect(try db.scalarInt("SELECT records_read FROM sluice_runs") == 40)
    #expect(try db.scalarInt("SELECT records_loaded FROM sluice_runs") == 28)
    #expect(try db.scalarInt("SELECT records_rejected FROM sluice_runs") == 12)
    #expect(try db.scalarInt("SELECT warnings FROM sluice_runs") == 1)
    #expect(
      try db.scalarInt(
        "SELECT count(*) FROM sluice_rejects WHERE code = 'typeMismatch' AND path = 'color' AND stage = 'decode'") == 8)
    #expect(try db.scalarInt("SELECT count(*) FROM sluice_rejects WHERE rule = 'recipe videos are http(s) URLs'") == 4)
    #expect(try db.scalarInt("SELECT line FROM sluice_rejects WHERE code = 'unknownField'") == 13)
    #expect(
      try db.scalarInt(
        "SELECT count(*) FROM sluice_rejects WHERE message LIKE '%example.com%' OR message LIKE '%Frücht%'") == 0)
  }

  /// Issue 21, finding 3, for a program that runs a pipeline itself: an output that is the
  /// database fails the run as a configuration error (exit 64) before anything is opened.
  @Test func anOutputThatIsTheDatabaseFailsTheRunBeforeAnythingIsOpened() throws {
    let workspace = try FruitsWorkspace()
    let input = try workspace.directory.write("dump.ndjson", FruitsDump.ndjson([FruitsDump.fruit(1)]))
    var configuration = workspace.configuration(input: input, format: .ndjson)
    configuration.reportPath = configuration.database.location
    let report = try workspace.dataset.run(configuration)
    #expect(report.failure?.kind == .configuration)
    #expect(report.exitCode == 64)
    #expect(report.failure?.message.contains("is the same file as the database") == true)
    #expect(!workspace.databaseExists)
    var rejects = workspace.configuration(input: input, format: .ndjson)
    rejects.rejectsPath = input
    let overInput = try workspace.dataset.run(rejects)
    #expect(overInput.failure?.message.contains("the rejects file \(input) is the same file as the input") == true)
    #expect(try String(contentsOfFile: input, encoding: .utf8) == FruitsDump.ndjson([FruitsDump.fruit(1)]))
  }
}
