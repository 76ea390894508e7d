import Foundation
import SluiceSQLite
import Testing

@_spi(Internals) @testable import SluiceCore

@Suite("Reading run reports back")
struct RunReportDecodingTests {
  static func fixture(_ name: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/reports/\(name)")
    return try Data(contentsOf: url)
  }

  /// A fixture as a JSON object, to take keys out of or put wrong values in.
  static func object(_ name: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: fixture(name)) as? [String: Any])
  }

  static func decodingError(_ object: Any) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: object)
    do {
      _ = try RunReport.decode(from: data)
      return "no error"
    } catch {
      return error.message
    }
  }

  @Test(arguments: ["16c76ec-fruits-lenient.json", "e8cdfdc-fruits-lenient.json"])
  func aReportFromBeforeSeveralInputsReadsAsOneInputWithTheRunsTotals(_ name: String) throws {
    let report = try RunReport.decode(from: Self.fixture(name))
    #expect(report.pipeline == "fruits-lenient")
    #expect(report.status == .succeeded)
    #expect(report.outputErrors.isEmpty)
    #expect(report.inputs.count == 1)
    let section = try #require(report.inputs.first)
    #expect(section.path == report.input.path)
    #expect(section.path.hasSuffix("SampleData/fruits-broken.ndjson.gz"))
    #expect(section.dataset == "fruits")
    #expect(section.format == "ndjson")
    #expect(section.opened)
    #expect(section.gzip)
    #expect(section.compressedBytes == report.input.compressedBytes)
    #expect(section.decompressedBytes == 24_239)
    #expect(section.stages == report.stages)
    #expect(section.statistics(for: .read).recordsIn == 30)
    #expect(section.statistics(for: .load).recordsOut == 25)
    #expect(section.issueCounts == ["invalidValue": 2, "missingField": 1, "syntax": 1, "typeMismatch": 1])
    #expect(section.rowsWritten == ["fruits": 25, "recipes": 93])
    // Written again, it is a report of today's shape, and reads back the same.
    let again = try RunReport.decode(from: report.jsonData())
    #expect(try again.jsonData() == report.jsonData())
    let html = HTMLReport.render(report)
    #expect(html.contains("<h1>fruits-lenient <span class=\"badge ok\">succeeded</span></h1>"))
    #expect(html.contains("in 30 · out 29"))
  }

  @Test func keysAddedLaterTakeTheDefaultsOfTheRunsThatPredateThem() throws {
    var object = try Self.object("16c76ec-fruits-lenient.json")
    for key in [
      "mode", "checks", "drift", "coercions", "quarantined", "outputErrors", "skippedByDesign", "parallel",
      "inputsOmitted", "duplicateKeys", "inputsSkipped", "rowsDeleted", "baselineChanges", "plan",
    ] {
      object.removeValue(forKey: key)
    }
    let report = try RunReport.decode(from: JSONSerialization.data(withJSONObject: object))
    #expect(report.mode == "run")
    #expect(report.checks.isEmpty)
    #expect(report.drift == DriftSummary())
    #expect(report.coercions == 0)
    #expect(report.quarantined == 0)
    #expect(report.skippedByDesign == nil)
    #expect(report.parallel == nil)
    #expect(report.inputsOmitted == nil)
    #expect(report.duplicateKeys == nil)
    #expect(report.inputsSkipped == nil)
    #expect(report.rowsDeleted == nil)
    #expect(report.baselineChanges == nil)
    #expect(report.plan == nil)
    #expect(report.inputs.allSatisfy { $0.sha256 == nil && $0.skipped == nil && $0.changedSinceRunId == nil })
  }

  @Test func aCurrentReportReadsBackExactly() throws {
    var report = HTMLReportTests.report(failure: .init(kind: .io, message: "disk full"))
    report.referenceLookups = ["devices": .init(keys: 12, queries: 1)]
    report.skippedByDesign = ["version line": 1]
    report.parallel = .init(connections: 2, lanes: 3, commit: "two-phase")
    report.bulkWrites = .init(tables: ["fruits": .init(copied: 3, staged: 1)], rowByRow: 1)
    var omitted = OmittedInputs()
    omitted.count = 2
    omitted.opened = 1
    omitted.rowsWritten = ["fruits": 4]
    report.inputsOmitted = omitted
    report.duplicateKeys = ["orders": 3, "messages": 255]
    report.inputsSkipped = 1
    report.rowsDeleted = ["orders": 2, "order_items": 5]
    report.baselineChanges = [
      .init(impact: .breaking, kind: "typeChanged", path: "price", message: "was integer; tonight also string")
    ]
    report.plan = RunPlan(
      tables: [
        .init(
          table: "orders", existed: true, rowsBefore: 10, inserts: 2, updates: 1, unchanged: 9, deletes: 0,
          columnsUpdated: ["status_id": 1])
      ], lookupChanges: ["order_statuses": 1], pendingMigrations: ["create index x"], maxChanges: "5%",
      exceedsMaxChanges: false)
    report.inputs[0].sha256 = String(repeating: "ab", count: 32)
    report.inputs[0].skipped = .init(reason: .sameContent, loadedByRunId: 4, loadedAs: "/drops/a.json")
    report.inputs[0].changedSinceRunId = 3
    report.notes = [
      "nothing to resume: no chunk of an unfinished run of pipeline p is committed in d; starting the run"
    ]
    let data = try report.jsonData()
    #expect(try RunReport.decode(from: data).jsonData() == data)
    let object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(Set(object.keys) == Set(RunReport.CodingKeys.allCases.map(\.stringValue)))
  }

  @Test func everyStoredPropertyOfTheReportHasAKey() {
    let properties = Mirror(reflecting: HTMLReportTests.report()).children.compactMap(\.label)
    #expect(properties.count == RunReport.CodingKeys.allCases.count)
    for property in properties {
      #expect(RunReport.CodingKeys(stringValue: property) != nil, "RunReport.\(property) has no coding key")
    }
  }

  @Test func whatIsNotAReportIsRefusedWithThePlaceThatIsWrong() throws {
    var object = try Self.object("16c76ec-fruits-lenient.json")
    object["reportVersion"] = 2
    #expect(try Self.decodingError(object) == "'reportVersion': version 2 is newer than this sluice reads (up to 1)")

    object = try Self.object("16c76ec-fruits-lenient.json")
    object.removeValue(forKey: "stages")
    #expect(try Self.decodingError(object) == "'stages': missing required key")

    object = try Self.object("16c76ec-fruits-lenient.json")
    var stages = try #require(object["stages"] as? [[String: Any]])
    stages[1]["recordsIn"] = "many"
    object["stages"] = stages
    let mismatch = try Self.decodingError(object)
    #expect(mismatch.hasPrefix("'stages[1].recordsIn': "), "\(mismatch)")

    object = try Self.object("16c76ec-fruits-lenient.json")
    object["status"] = "maybe"
    let status = try Self.decodingError(object)
    #expect(status.hasPrefix("'status': "), "\(status)")

    #expect(try Self.decodingError(["dataset": "fruits"]) == "'reportVersion': missing required key")
    #expect(try Self.decodingError([1, 2]).hasPrefix("the top level: "))
    do {
      _ = try RunReport.decode(from: Data("{\"reportVersion\": 1,".utf8))
      Issue.record("a truncated report was read")
    } catch {
      #expect(error.message == "not valid JSON")
    }
  }
}
