import Foundation
@_spi(Internals) import SluiceCore
@_spi(Internals) import SluiceTestSupport
import Testing

/// `validate --baseline`: tonight's dump compared, field by field, with a saved `inspect --json`
/// of an earlier one, through the command line — breaking drift exits 65, non-breaking drift exits 1
/// under `--fail-on-drift`, and JUnit has a test case per change.
@Suite("validate --baseline: drift from a saved inspection")
struct BaselineCommandTests {
  let scratch: TemporaryDirectory
  let fruits: [String: Any]

  init() throws {
    scratch = try TemporaryDirectory()
    let text = try Tool.shell("zcat SampleData/fruits.json.gz").stdout
    fruits = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  /// The sample's inspection, saved as the baseline.
  func baseline() throws -> String {
    let inspected = try SluiceCommand.run(["inspect", "SampleData/fruits.json.gz", "--all", "--json"])
    try #require(inspected.status == 0, "\(inspected.stderr)")
    return try scratch.write("baseline.json", inspected.stdout)
  }

  /// The sample with `change` applied to each fruit (by position), as tonight's dump.
  func tonight(_ change: (Int, inout [String: Any]) -> Void) throws -> String {
    var document = fruits
    var records = try #require(document["fruits"] as? [[String: Any]])
    for index in records.indices { change(index, &records[index]) }
    document["fruits"] = records
    return try scratch.write(
      "tonight.json", String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
  }

  func validate(_ input: String, _ extra: [String] = []) throws -> (SluiceBinary.Result, RunReport, String) {
    let report = scratch.file("report-\(UUID().uuidString).json")
    let junit = scratch.file("junit-\(UUID().uuidString).xml")
    let result = try SluiceCommand.run(
      [
        "validate", "Pipelines/fruits.json", "--input", input, "--baseline", try baseline(), "--report", report,
        "--junit", junit,
      ] + extra)
    return (
      result, try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report))),
      try String(contentsOfFile: junit, encoding: .utf8)
    )
  }

  @Test func theSameDumpHasNoDrift() throws {
    let (result, report, junit) = try validate(Repository.path("SampleData/fruits.json.gz"), ["--fail-on-drift"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(report.baselineChanges == [])
    #expect(result.stderr.contains("  baseline: no drift\n"))
    #expect(junit.contains(#"<testcase classname="fruits.baseline" name="no drift from the baseline"/>"#))
  }

  @Test func aNewOptionalFieldIsNonBreakingAndFailsOnlyWithFailOnDrift() throws {
    // Every third fruit gains a field the dataset does not read: lenient unknown fields pass.
    let input = try tonight { index, fruit in if index % 3 == 0 { fruit["origin"] = "Spain" } }
    let policy = ["--policy", "lenient"]
    let (plain, report, junit) = try validate(input, policy)
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(report.baselineChanges?.map(\.kind) == ["newField"])
    #expect(report.baselineChanges?.first?.impact == .nonBreaking && report.baselineChanges?.first?.path == "origin")
    #expect(junit.contains(#"<testcase classname="fruits.baseline" name="newField origin">"#))
    #expect(junit.contains("<system-out>non-breaking newField origin: new: in 16 of 48</system-out>"))
    let (strict, _, _) = try validate(input, policy + ["--fail-on-drift"])
    #expect(strict.status == 1, "\(strict.stderr)")
    #expect(strict.stderr.contains("1 non-breaking change(s) from the baseline (exit 1: --fail-on-drift)"))
  }

  @Test func breakingDriftExits65WithATestCasePerChange() throws {
    let input = try tonight { index, fruit in
      if index == 0 { fruit["name"] = NSNull() }  // never null before
      if index == 1 { fruit.removeValue(forKey: "color") }  // in every fruit before
    }
    let html = scratch.file("report.html")
    let (result, report, junit) = try validate(input, ["--policy", "lenient", "--html", html])
    #expect(result.status == 65, "\(result.stderr)")
    let page = try String(contentsOfFile: html, encoding: .utf8)
    #expect(page.contains("<p>2 breaking, 0 non-breaking change(s) from the baseline.</p>"), "\(page)")
    #expect(page.contains("<td>breaking</td><td><code>nullAppeared</code></td><td><code>name</code></td>"))
    let breaking = report.baselineChanges?.filter { $0.impact == .breaking }.map { "\($0.kind) \($0.path)" }
    #expect(breaking?.sorted() == ["nullAppeared name", "requiredFieldMissing color"])
    // The records that broke the contract fail it too; the drift is named beside them.
    #expect(report.failure?.message.contains("; the input drifted from the baseline in 2 breaking way(s): ") == true)
    #expect(junit.contains(#"name="nullAppeared name">"#) && junit.contains(#"type="breaking""#))
    #expect(junit.components(separatedBy: #"classname="fruits.baseline""#).count - 1 == 2)
  }

  @Test func aCorruptBaselineIs65AndTheOptionsAreChecked() throws {
    let corrupt = try scratch.write("corrupt.json", #"{"fields": 3}"#)
    let result = try SluiceCommand.run([
      "validate", "Pipelines/fruits.json", "--baseline", corrupt,
    ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("baseline \(corrupt): not a saved 'sluice inspect --json'"), "\(result.stderr)")
    let orphan = try SluiceCommand.run(["validate", "Pipelines/fruits.json", "--fail-on-drift"])
    #expect(orphan.status == 64 && orphan.stderr.contains("--fail-on-drift applies to validate with --baseline"))
    let several = try SluiceCommand.run(["validate", "Pipelines/devices.json", "--baseline", try baseline()])
    #expect(several.status == 64 && several.stderr.contains("--baseline describes one dump"), "\(several.stderr)")
  }
}

/// A value an enum of the dataset does not list is breaking drift, against a saved contract or
/// inspection alike — the change names the field path and counts, never the value.
@Suite("validate --baseline: a new enum value")
struct BaselineEnumValueTests {
  @Test func aStatusTheContractDoesNotListIsBreakingDriftWithoutItsValue() throws {
    let scratch = try TemporaryDirectory()
    let contract = try SluiceCommand.run(["contract", "orders"])
    try #require(contract.status == 0, "\(contract.stderr)")
    let baseline = try scratch.write("orders-contract.json", contract.stdout)
    let order =
      #"{"orderId": "A-%d", "amount": 10, "currency": "EUR", "status": "%@", "createdAt": "2024-01-01T00:00:00Z", "customer": {"id": 1, "name": "Ann"}, "items": [{"sku": "S", "qty": 1, "priceMinor": 10}]}"#
    let lines = (1...6).map { String(format: order, $0, $0 % 3 == 0 ? "refunded-later" : "pending") }
    let input = try scratch.write("tonight.ndjson", lines.joined(separator: "\n") + "\n")
    let report = scratch.file("report.json")
    let junit = scratch.file("junit.xml")
    let result = try SluiceCommand.run([
      "validate", "Pipelines/orders.json", "--input", input, "--format", "ndjson", "--baseline", baseline, "--report",
      report, "--junit", junit,
    ])
    #expect(result.status == 65)
    let decoded = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: report)))
    let change = try #require(decoded.baselineChanges?.first { $0.kind == "newEnumValue" })
    #expect(change.impact == .breaking)
    #expect(change.path == "status")
    #expect(change.message.contains("1 value(s)"))
    #expect(change.message.contains("2 record(s)"))
    #expect(!change.message.contains("refunded"))
    let xml = try String(contentsOfFile: junit, encoding: .utf8)
    #expect(xml.contains("newEnumValue"))
    #expect(!xml.contains("refunded-later\" ") && !result.stderr.contains("newEnumValue status: refunded"))
  }
}
