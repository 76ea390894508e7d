import Foundation
import OrderSamples
import SluiceCore
import SluiceSQLite
import SluiceTestSupport
import Testing

/// The real `sluice` binary on a pipeline whose input is a glob of two order dumps, the second
/// repeating an order id of the first: one run, so the repeat is found across the files.
@Suite("Repeated keys across the files of a glob, end to end")
struct RepeatedKeyCommandTests {
  private static func order(_ id: Int, amount: Int64) -> String {
    GeneratedOrder(
      id: String(format: "%010d", id), currency: "EUR", status: "pending", createdAt: "2023-01-0\(id)T00:00:00Z",
      customerID: 7, customerName: "Ann", items: [.init(sku: "SKU-\(id)", qty: 1, priceMinor: amount)]
    ).json
  }

  /// `dumps/a.json` holds orders 1, 2, 3; `dumps/b.json` orders 4, 2 (again, another amount), 5.
  private func writeDumps(_ scratch: TemporaryDirectory, policy: String) throws -> String {
    try FileManager.default.createDirectory(atPath: scratch.file("dumps"), withIntermediateDirectories: true)
    _ = try scratch.write(
      "dumps/a.json",
      "[\n"
        + [Self.order(1, amount: 10), Self.order(2, amount: 20), Self.order(3, amount: 30)].joined(separator: ",\n")
        + "\n]\n")
    _ = try scratch.write(
      "dumps/b.json",
      "[\n"
        + [Self.order(4, amount: 40), Self.order(2, amount: 99), Self.order(5, amount: 50)].joined(separator: ",\n")
        + "\n]\n")
    return try scratch.write(
      "orders.json",
      #"{"dataset": "orders", "input": "dumps/*.json", "policy": \#(policy), "database": "orders.sqlite", "onConflict": "upsert"}"#
    )
  }

  @Test func strictRejectFailsWithExit65AndWritesNothing() throws {
    let scratch = try TemporaryDirectory()
    let spec = try writeDumps(scratch, policy: #"{"preset": "strict", "duplicateKeys": "reject"}"#)
    let result = try SluiceCommand.run(["run", spec, "--report", scratch.file("report.json")])
    #expect(result.status == 65, "\(result.stderr)")
    let b = scratch.file("dumps/b.json")
    #expect(
      result.stderr.contains(
        "strict policy: load rejected record 2 (line 3) of \(b): orderId: duplicateKey: orders: record 2 of \(scratch.file("dumps/a.json")) wrote a row with this key earlier in the run; rejected (duplicateKeys: reject); nothing was written"
      ),
      "\(result.stderr)")
    let database = try SQLiteConnection(path: scratch.file("orders.sqlite"), options: .init(readOnly: true))
    #expect(try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'orders'") == 0)
    #expect(try database.scalarInt("SELECT count(*) FROM sluice_runs WHERE status = 'failed'") == 1)
  }

  @Test func lenientWarnLetsTheLaterWinAndNamesTheFirstRecordAndItsInput() throws {
    let scratch = try TemporaryDirectory()
    let spec = try writeDumps(scratch, policy: #"{"preset": "lenient", "duplicateKeys": "warn"}"#)
    let reportPath = scratch.file("report.json")
    let junitPath = scratch.file("junit.xml")
    let htmlPath = scratch.file("report.html")
    let result = try SluiceCommand.run(["run", spec, "--report", reportPath, "--junit", junitPath, "--html", htmlPath])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("\n  duplicate keys: orders 1\n"), "\(result.stderr)")
    let a = scratch.file("dumps/a.json")
    let b = scratch.file("dumps/b.json")
    let report = try RunReport.decode(from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
    #expect(report.duplicateKeys == ["orders": 1])
    let issue = try #require(report.issues.first { $0.code == .duplicateKey })
    #expect(issue.stage == .load && issue.severity == .warning && issue.path == "orderId")
    #expect(issue.input == b && issue.location?.ordinal == 2 && issue.location?.line == 3)
    #expect(issue.message == "orders: record 2 of \(a) wrote a row with this key earlier in the run")
    let database = try SQLiteConnection(path: scratch.file("orders.sqlite"), options: .init(readOnly: true))
    #expect(try database.scalarInt("SELECT count(*) FROM orders") == 5)
    #expect(try database.scalarInt("SELECT amount_minor FROM orders WHERE order_id = '0000000002'") == 99)
    // JUnit lists the warning under the load check; the HTML report names the count.
    let junit = try String(contentsOfFile: junitPath, encoding: .utf8)
    #expect(junit.contains(#"name="records load into the database">"#))
    #expect(junit.contains("1 warning(s)\nload \(b) record 2 (line 3, byte "))
    let html = try String(contentsOfFile: htmlPath, encoding: .utf8)
    #expect(html.contains("<dt>duplicate keys</dt><dd>orders 1</dd>"))
  }
}
