import Foundation
import OrderSamples
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// The same generated orders imported by the real `sluice` binary from the gzip JSON array and
/// from the gzip XML dump (`orders-generator` writes both from one tree per order) give exactly
/// the same tables, row for row — strict on valid orders, lenient with a damaged order of every
/// kind, where both formats also reject the same records for the same codes at the same paths.
@Suite("orders from XML equal orders from JSON, end to end")
struct OrdersXMLEqualityTests {
  static let count = 3_000
  static let tables = ["orders", "order_items", "customers", "order_statuses"]

  /// Runs the generator into a fresh directory and returns it.
  private func generate(_ scratch: TemporaryDirectory, broken: Bool) throws -> String {
    let directory = scratch.file(broken ? "broken" : "valid")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: BenchmarkDataTests.generator)
    process.arguments = ["--count", "\(Self.count)", "--seed", "11", "--out", directory] + (broken ? ["--broken"] : [])
    let result = try Tool.capture(process)
    try #require(result.status == 0, "\(result.stderr)")
    return directory
  }

  /// Imports `input` with `pipeline` into a fresh database; returns the database and the report.
  private func run(
    _ pipeline: String, input: String, xml: Bool, in scratch: TemporaryDirectory, expectedStatus: Int32 = 0
  ) throws -> (database: String, report: RunReport) {
    let name = xml ? "xml" : "json"
    let database = scratch.file("\(name).sqlite")
    let reportPath = scratch.file("\(name).report.json")
    let format = xml ? ["--format", "xml", "--record-path", "orders.order"] : ["--format", "json"]
    let result = try SluiceCommand.run(
      [
        "run", pipeline, "--input", input, "--db", database, "--report", reportPath,
        "--rejects", scratch.file("\(name).rejects.ndjson"),
      ] + format)
    #expect(result.status == expectedStatus, "\(name): \(result.stderr)")
    return (database, try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath))))
  }

  /// What identifies an issue in either format: the byte offsets differ, everything else not
  /// (record n is on line n + 1 of both dumps).
  private func issueKeys(_ report: RunReport) -> [String] {
    report.issues.map {
      "\($0.stage) \($0.severity) \($0.code) record \($0.location?.ordinal ?? -1) line \($0.location?.line ?? -1) "
        + "\($0.path) \($0.rule ?? "")"
    }
  }

  @Test func strictXMLImportOfGeneratedOrdersEqualsTheJSONImportRowForRow() throws {
    let scratch = try TemporaryDirectory()
    let data = try generate(scratch, broken: false)
    let json = try run("Pipelines/orders.json", input: "\(data)/orders.json.gz", xml: false, in: scratch)
    let xml = try run("Pipelines/orders.json", input: "\(data)/orders.xml.gz", xml: true, in: scratch)

    let expected = try DatabaseSnapshot(of: json.database, tables: Self.tables)
    let actual = try DatabaseSnapshot(of: xml.database, tables: Self.tables)
    #expect(expected.count("orders") == Self.count)
    #expect(expected.count("order_items") > Self.count)
    for table in Self.tables {
      #expect(actual.tables[table] == expected.tables[table], "\(table) differs between JSON and XML")
    }
    #expect(xml.report.issues.isEmpty)
    #expect(xml.report.coercions == 0)
    // The generated names carry `&`, `<` and `>`, so the XML's entities were decoded on the way.
    let names = expected.tables["customers"] ?? []
    #expect(names.contains { $0.contains("&") })
    #expect(names.contains { $0.contains("<unknown>") })
  }

  @Test func lenientXMLImportOfDamagedOrdersRejectsWhatJSONRejectsAndKeepsTheSameRows() throws {
    let scratch = try TemporaryDirectory()
    let data = try generate(scratch, broken: true)
    let json = try run("Pipelines/orders-lenient.json", input: "\(data)/orders.json.gz", xml: false, in: scratch)
    let xml = try run("Pipelines/orders-lenient.json", input: "\(data)/orders.xml.gz", xml: true, in: scratch)

    // Every kind of damage is rejected except the numeric id, which `legacyScalars` converts in
    // JSON (a counted coercion) and which in XML is text like any id (no coercion).
    #expect(json.report.quarantined == OrderDamage.allCases.count - 1)
    #expect(json.report.coercions == 1)
    #expect(xml.report.coercions == 0)
    #expect(xml.report.quarantined == json.report.quarantined)

    // The same records rejected at the same stage, code, line and path; the null status is
    // `xsi:nil` in XML, JSON's null.
    #expect(issueKeys(xml.report) == issueKeys(json.report))

    let expected = try DatabaseSnapshot(of: json.database, tables: Self.tables)
    let actual = try DatabaseSnapshot(of: xml.database, tables: Self.tables)
    #expect(expected.count("orders") == Self.count - json.report.quarantined)
    for table in Self.tables {
      #expect(actual.tables[table] == expected.tables[table], "\(table) differs between JSON and XML")
    }
  }

  /// A required field that JSON writes as `null` and XML as `xsi:nil="true"` is the same
  /// issue from both: `nullValue` at the field.
  @Test(arguments: ["status", "amount", "createdAt"])
  func xsiNilIsNullLikeJSON(field: String) throws {
    let scratch = try TemporaryDirectory()
    var sampler = OrderSampler(seed: 1, customers: 1)
    var record = sampler.next().order.record
    record[field: field] = DumpValue.null
    let jsonInput = try scratch.write("order.json", "[\n\(record.json)\n]\n")
    let xmlInput = try scratch.write("order.xml", "<orders>\n\(record.xml(element: "order"))\n</orders>\n")
    #expect(
      record.xml(element: "order").contains(
        "<\(field) xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:nil=\"true\"/>"))
    let json = try run("Pipelines/orders.json", input: jsonInput, xml: false, in: scratch, expectedStatus: 65)
    let xml = try run("Pipelines/orders.json", input: xmlInput, xml: true, in: scratch, expectedStatus: 65)
    #expect(issueKeys(json.report) == ["decode error nullValue record 1 line 2 \(field) "])
    #expect(issueKeys(xml.report) == issueKeys(json.report))
  }
}
